import ChessCore
import Foundation
import GRDB
import TestSupport
import XCTest

@testable import GameStore

/// The explorer over the games a filter keeps: equal to the index's explorer when it keeps every
/// game, and to a replay of the kept games by any filter, whether its games were looked up one
/// by one (a player, dates) or read from whole columns (ratings, speeds), at positions of the
/// tree and at positions one game reaches.
final class FilteredExplorerTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    /// The lichess file (438 games, every one dated, most rated, with time controls), with
    /// White in every third game and Black in every fifth named `Test Player`.
    func lichess() throws -> GameDatabase {
        let text = try SharedMaterial.text("corpus/lichess/lichess_db_1000k.pgn")
        let pieces = text.components(separatedBy: "[Event ").dropFirst().enumerated().map { index, piece in
            var game = "[Event " + piece
            for (side, every) in [("White", 3), ("Black", 5)] where index % every == 0 {
                game = game.replacingOccurrences(
                    of: #"\[\#(side) "[^"]*"\]"#, with: "[\(side) \"Test Player\"]", options: .regularExpression)
            }
            return game
        }
        let path = folder.path("lichess.pgn")
        try pieces.joined().write(toFile: path, atomically: true, encoding: .utf8)
        let database = try GameDatabase(path: folder.path("lichess.db3"))
        XCTAssertEqual(try database.importPGN(path: path).stored, 438)
        return database
    }

    /// Each stored game: its tags, its start and the positions of its mainline.
    struct Replayed {
        var id: Int64
        var game: StoredGame
        var positions: [Position]
    }

    func replayed(_ database: GameDatabase) throws -> [Replayed] {
        let ids = try DatabaseQueue(path: database.path).read { try Int64.fetchAll($0, sql: "SELECT ID FROM Games") }
        return try ids.map { id in
            let game = try database.game(id: id)
            var position = game.start
            var positions = [position]
            for move in game.mainline {
                position.play(move)
                positions.append(position)
            }
            return Replayed(id: id, game: game, positions: positions)
        }
    }

    /// The counts a replay of the games `keeps` finds at `position` within the tree's plies (a
    /// game counted once, at its first visit): games, and games by next position.
    func expected(_ games: [Replayed], at position: Position, keeps: (StoredGame) -> Bool) -> (Int, [UInt64: Int]) {
        var total = 0
        var next: [UInt64: Int] = [:]
        for game in games where keeps(game.game) {
            let plies = game.positions.prefix(PositionIndex.treeDepth + 1)
            guard let ply = plies.firstIndex(where: { $0.hash == position.hash }) else { continue }
            total += 1
            if ply + 1 < game.positions.count { next[game.positions[ply + 1].hash, default: 0] += 1 }
        }
        return (total, next)
    }

    func assertAnswers(
        _ answer: ExplorerAnswer, at position: Position, equal expected: (Int, [UInt64: Int]),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(answer.games, expected.0, position.fen, file: file, line: line)
        let moves = Dictionary(
            uniqueKeysWithValues: answer.continuations.map { (position.playing($0.move).hash, $0.games) })
        XCTAssertEqual(moves, expected.1, position.fen, file: file, line: line)
    }

    func testAFilterThatKeepsEveryGameAnswersAsTheIndexDoes() throws {
        let database = try lichess()
        let games = try replayed(database)
        let every = try database.filteredExplorer(ExplorerFilter(since: "1000"))
        XCTAssertEqual(every.games, 438)
        var compared = 0
        for game in games.prefix(120) {
            for ply in stride(from: 0, to: min(game.positions.count, 50), by: 3) {
                let line = Array(game.positions[..<ply])
                let index = try database.explore(game.positions[ply], line: line)
                let filtered = try every.explore(game.positions[ply], line: line)
                // Counts, results, continuations and best games alike.
                XCTAssertEqual(filtered, index, "game \(game.id), ply \(ply)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 1000)
    }

    func testEachFilterCountsWhatAReplayOfItsGamesFinds() throws {
        let database = try lichess()
        let games = try replayed(database)
        let player = "Test Player"
        func elo(_ game: StoredGame, _ side: String) -> Int { Int(game.tag("\(side)Elo") ?? "") ?? 0 }
        func average(_ game: StoredGame, _ range: ClosedRange<Int>) -> Bool {
            let (white, black) = (elo(game, "White"), elo(game, "Black"))
            return white > 0 && black > 0 && white + black >= 2 * range.lowerBound
                && white + black <= 2 * range.upperBound
        }
        let filters: [(String, ExplorerFilter, (StoredGame) -> Bool)] = [
            (
                "a player (looked up)", ExplorerFilter(player: player),
                { [$0.tag("White"), $0.tag("Black")].contains(player) }
            ),
            ("as Black", ExplorerFilter(player: player, color: .black), { $0.tag("Black") == player }),
            ("ratings (whole columns)", ExplorerFilter(minElo: 1500, maxElo: 1800), { average($0, 1500...1800) }),
            (
                "blitz at ratings (whole columns, every time control)", ExplorerFilter(minElo: 1400, speed: .blitz),
                {
                    average($0, 1400...99_999) && ExplorerFilter.speed(timeControl: $0.tag("TimeControl")) == .blitz
                }
            ),
            (
                "bullet at 1800-1900 (time controls looked up for the rated games)",
                ExplorerFilter(minElo: 1800, maxElo: 1900, speed: .bullet),
                {
                    average($0, 1800...1900) && ExplorerFilter.speed(timeControl: $0.tag("TimeControl")) == .bullet
                }
            ),
            (
                "dates and ratings (looked up)", ExplorerFilter(since: "2025.05.01", until: "2025.05", maxElo: 1700),
                {
                    ($0.tag("Date") ?? "") >= "2025.05.01" && ($0.tag("Date") ?? "") <= "2025.05.99"
                        && average($0, 1...1700)
                }
            ),
        ]
        for (name, filter, keeps) in filters {
            let explorer = try database.filteredExplorer(filter)
            let kept = games.filter { keeps($0.game) }
            XCTAssertEqual(explorer.games, kept.count, name)
            XCTAssertGreaterThan(kept.count, 2, name)
            XCTAssertLessThan(kept.count, games.count, name)
            // Every position of the first kept games, and of games the filter leaves out.
            for game in kept.prefix(12) + games.filter { !keeps($0.game) }.prefix(4) {
                for ply in 0..<min(game.positions.count, PositionIndex.treeDepth + 1) {
                    let position = game.positions[ply]
                    let answer = try explorer.explore(position, line: Array(game.positions[..<ply]))
                    assertAnswers(answer, at: position, equal: expected(games, at: position, keeps: keeps))
                }
            }
        }
    }

    func testAPositionOneGameReachesIsCountedOnlyWhenTheFilterKeepsIt() throws {
        let database = try lichess()
        let games = try replayed(database)
        // The last position within the tree's plies of a game no other game shares it with.
        var found: (Replayed, Int)?
        for game in games where game.positions.count > 30 && game.game.tag("White") != game.game.tag("Black") {
            let position = game.positions[30]
            if try database.explore(position, line: Array(game.positions[..<30])).games == 1 {
                found = (game, 30)
                break
            }
        }
        let (game, ply) = try XCTUnwrap(found)
        let line = Array(game.positions[..<ply])
        let white = try XCTUnwrap(game.game.tag("White"))
        let theirs = try database.filteredExplorer(ExplorerFilter(player: white, color: .white))
        XCTAssertEqual(try theirs.explore(game.positions[ply], line: line).games, 1)
        XCTAssertEqual(try theirs.explore(game.positions[ply]).games, 1, "found without the line too")
        let others = try database.filteredExplorer(ExplorerFilter(player: white, color: .black))
        XCTAssertEqual(try others.explore(game.positions[ply], line: line).games, 0)
    }

    func testAFilterNeedsACurrentIndexAndAPlayerThatIsThere() throws {
        let database = try lichess()
        XCTAssertThrowsError(try database.filteredExplorer(ExplorerFilter(player: "Nobody Here Atall"))) {
            XCTAssertEqual($0 as? GameStoreError, .noSuchPlayer("Nobody Here Atall"))
        }
        try DatabaseQueue(path: database.path).write {
            try $0.execute(sql: "UPDATE Games SET Result = '1-0' WHERE ID = (SELECT MIN(ID) FROM Games)")
        }
        XCTAssertThrowsError(try database.filteredExplorer(ExplorerFilter(minElo: 1500))) {
            guard case .positionIndex = $0 as? GameStoreError else { return XCTFail("\($0)") }
        }
    }
}
