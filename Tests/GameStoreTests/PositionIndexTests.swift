import ChessCore
import Foundation
import GRDB
import GameStore
import TestSupport
import XCTest

/// The position index: built by import and by every save the same way as from scratch, what it
/// counts (mainlines, first visits, transpositions, games ending in a position, castling rights
/// and en-passant squares), and how it notices that it no longer describes the games.
final class PositionIndexTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    /// Every row of the index's two tables, read with SQL by another connection.
    struct IndexRows: Equatable {
        var keys: [Int64: [UInt8]] = [:]
        var tree: [[Int64?]] = []
    }

    func indexRows(_ path: String) throws -> IndexRows {
        try DatabaseQueue(path: path).read { db in
            var rows = IndexRows()
            for row in try Row.fetchAll(db, sql: "SELECT GameID, Moves FROM PositionMoves") {
                rows.keys[row[0]] = Array(row[1] as Data)
            }
            rows.tree = try Row.fetchAll(
                db,
                sql: """
                    SELECT Position, Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo FROM PositionTree \
                    ORDER BY Position, Next
                    """
            ).map { row in (0..<8).map { row[$0] as Int64? } }
            return rows
        }
    }

    func execute(_ path: String, _ sql: String) throws {
        try DatabaseQueue(path: path).write { try $0.execute(sql: sql) }
    }

    /// The position after `moves` (SAN, move numbers left out) from `fen` or the start.
    func position(_ moves: String, from fen: String? = nil) throws -> Position {
        var position = try fen.map { try Position(fen: $0) } ?? .startingPosition
        for word in moves.split(separator: " ") where !(word.first?.isNumber ?? true) {
            let move = try XCTUnwrap(position.move(san: String(word)), "\(word) after \(position.fen)")
            position.play(move)
        }
        return position
    }

    func games(_ texts: [String]) -> [GameSource] {
        texts.enumerated().map { GameSource(text: $1, index: $0) }
    }

    func makeDatabase(
        _ name: String, _ texts: [String], options: GameDatabase.Options = .init()
    ) throws
        -> GameDatabase
    {
        let database = try GameDatabase(path: folder.path(name), options: options)
        let report = try database.store(games: games(texts))
        XCTAssertEqual(report.stored, texts.count, "\(report.refused)")
        return database
    }

    /// The moves of the explorer's answer by SAN, with their counts.
    func moves(_ answer: ExplorerAnswer, at position: Position) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: answer.continuations.map { (position.san($0.move), $0.games) })
    }

    // MARK: Built the same way by import, by saves and from scratch

    func testTheIndexAnImportBuildsIsTheOneARebuildMakes() throws {
        let path = folder.path("imported.db3")
        let database = try GameDatabase(path: path)
        let lichess = try database.importPGN(path: SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path)
        let others = try database.importPGN(path: SharedMaterial.url("corpus/pgn-lsp/position-keys.pgn").path)
        XCTAssertEqual(lichess.stored + others.stored, 445)
        XCTAssertEqual(try database.positionIndexStatus(), .current)
        let imported = try indexRows(path)
        XCTAssertEqual(imported.keys.count, 445)
        // Rows for the positions several games share only: many, far fewer than 41 a game.
        XCTAssertGreaterThan(imported.tree.count, 400)
        XCTAssertLessThan(imported.tree.count, 445 * 10)
        XCTAssertEqual(try database.buildPositionIndex(), 445)
        XCTAssertEqual(try database.positionIndexStatus(), .current)
        XCTAssertEqual(try indexRows(path), imported)
    }

    func testSavesKeepTheIndexEqualToARebuildAndDuplicatesCountOnce() throws {
        let path = folder.path("saved.db3")
        let database = try GameDatabase(path: path)
        let text = try SharedMaterial.text("corpus/lichess/lichess_db_100k.pgn")
        // The file's games cut one by one at their Event tags, stored in three saves.
        let pieces = text.components(separatedBy: "[Event ").dropFirst().map { "[Event " + $0 }
        XCTAssertGreaterThan(pieces.count, 30)
        let thirds = [pieces[..<10], pieces[10..<11], pieces[11...]].map { Array($0) }
        var stored = 0
        for third in thirds {
            stored += try database.store(games: games(third)).stored
            XCTAssertEqual(try database.positionIndexStatus(), .current)
        }
        XCTAssertEqual(stored, pieces.count)
        let saved = try indexRows(path)
        // Saving them again stores nothing and counts nothing twice.
        XCTAssertEqual(try database.store(games: games(pieces)).duplicates, pieces.count)
        XCTAssertEqual(try indexRows(path), saved)
        let start = try database.explore(.startingPosition)
        XCTAssertEqual(start.games, pieces.count)
        _ = try database.buildPositionIndex()
        XCTAssertEqual(try indexRows(path), saved)
    }

    // MARK: What is counted

    func testOnlyTheMainlineCounts() throws {
        let database = try makeDatabase(
            "variations.db3",
            ["[Result \"1-0\"]\n\n1. e4 (1. d4 d5 2. c4) e5 2. Nf3 (2. Nc3 Nf6) Nc6 (2... d6) 3. Bb5 1-0"])
        XCTAssertEqual(
            try database.games(reaching: position("1. e4 e5 2. Nf3 Nc6")), [PositionMatch(gameID: 1, ply: 4)])
        for variation in ["1. d4 d5", "1. e4 e5 2. Nc3", "1. e4 e5 2. Nf3 d6"] {
            XCTAssertEqual(try database.games(reaching: position(variation)), [], variation)
            XCTAssertFalse(try database.explore(position(variation)).isKnown, variation)
        }
        let start = try database.explore(.startingPosition)
        XCTAssertEqual(moves(start, at: .startingPosition), ["e4": 1])
        XCTAssertEqual([start.games, start.whiteWins, start.draws, start.blackWins, start.ended], [1, 1, 0, 0, 0])
    }

    func testGamesFromAFENCountFromTheirStart() throws {
        let fen = "4k3/3pr3/8/4P3/8/8/8/4K3 b - - 0 1"
        let database = try makeDatabase(
            "setup.db3",
            [
                "[SetUp \"1\"]\n[FEN \"\(fen)\"]\n[Result \"0-1\"]\n\n1... d6 2. Kd1 d5 3. Kd2 Kf8 4. Ke1 Ke8 0-1",
                "[Result \"1-0\"]\n\n1. e4 1-0",
            ])
        let start = try Position(fen: fen)
        XCTAssertEqual(try database.games(reaching: start), [PositionMatch(gameID: 1, ply: 0)])
        let answer = try database.explore(start)
        XCTAssertEqual(moves(answer, at: start), ["d6": 1])
        XCTAssertEqual(answer.blackWins, 1)
        // It ends where single steps put the pawn on d5.
        let end = try position("1... d6 2. Kd1 d5 3. Kd2 Kf8 4. Ke1 Ke8", from: fen)
        XCTAssertEqual(try database.games(reaching: end), [PositionMatch(gameID: 1, ply: 7)])
        XCTAssertEqual(try database.explore(end).ended, 1)
        XCTAssertEqual(try database.games(reaching: .startingPosition), [PositionMatch(gameID: 2, ply: 0)])
    }

    func testARepeatedPositionCountsOnceWithTheMovePlayedTheFirstTime() throws {
        let database = try makeDatabase(
            "repeated.db3",
            [
                "[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. e4 Nf6 4. Ke2 Ng8 5. Ke1 Nf6 6. Ke2 Ng8 1/2-1/2",
                "[Result \"0-1\"]\n\n1. d4 0-1",
            ])
        // The start is reached at plies 0 and 4 by the first game: Nf3 there the first time.
        XCTAssertEqual(
            try database.games(reaching: .startingPosition),
            [PositionMatch(gameID: 1, ply: 0), PositionMatch(gameID: 2, ply: 0)])
        let start = try database.explore(.startingPosition)
        XCTAssertEqual(moves(start, at: .startingPosition), ["Nf3": 1, "d4": 1])
        XCTAssertEqual([start.games, start.whiteWins, start.draws, start.blackWins], [2, 0, 1, 1])
        // After 4... Ng8 and again after 6... Ng8, where the game ends: counted once, with Ke1.
        let kingOut = try position("1. Nf3 Nf6 2. Ng1 Ng8 3. e4 Nf6 4. Ke2 Ng8")
        XCTAssertEqual(try database.games(reaching: kingOut), [PositionMatch(gameID: 1, ply: 8)])
        let again = try database.explore(kingOut)
        XCTAssertEqual(moves(again, at: kingOut), ["Ke1": 1])
        XCTAssertEqual([again.games, again.ended], [1, 0])
    }

    func testTranspositionsAndGamesThatEndInAPosition() throws {
        let database = try makeDatabase(
            "transpositions.db3",
            [
                "[Result \"1-0\"]\n\n1. e4 e6 2. d4 d5 1-0",
                "[Result \"0-1\"]\n\n1. d4 d5 2. e4 e6 0-1",
                "[Result \"1/2-1/2\"]\n\n1. d4 e6 2. e4 d5 1/2-1/2",
                "[Result \"*\"]\n\n1. e4 e6 2. d4 d5 3. Nc3 *",
            ])
        let french = try position("1. e4 e6 2. d4 d5")
        XCTAssertEqual(try database.games(reaching: french).map(\.gameID), [1, 2, 3, 4])
        XCTAssertEqual(Set(try database.games(reaching: french).map(\.ply)), [4])
        let answer = try database.explore(french)
        XCTAssertEqual(
            [answer.games, answer.whiteWins, answer.draws, answer.blackWins, answer.ended], [4, 1, 1, 1, 3])
        XCTAssertEqual(moves(answer, at: french), ["Nc3": 1])
        XCTAssertNil(answer.continuations[0].whiteScore, "the only game that played Nc3 has no result")
        let afterE4 = try database.explore(position("1. e4"))
        XCTAssertEqual(moves(afterE4, at: try position("1. e4")), ["e6": 2])
    }

    func testCastlingRightsAndEnPassantSquaresAreParts() throws {
        let database = try makeDatabase(
            "rights.db3",
            [
                "1. e4 e5 2. Nf3 Nc6 *",
                "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nc6 *",
                "1. e4 e5 2. Nf3 Nc6 3. Rg1 Nf6 4. Rh1 Ng8 5. Ng1 Nb8 *",
                "1. e4 Nf6 2. e5 d5 3. exd6 exd6 *",
                "1. e4 Nf6 2. e5 Ng8 3. Qe2 d6 4. Qf3 Nf6 5. Qd1 d5 *",
            ])
        let board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w"
        for (rights, expected): (String, [Int64]) in [("KQkq", [1, 2, 3]), ("Qkq", [3]), ("-", [2])] {
            let found = try database.games(reaching: Position(fen: "\(board) \(rights) - 0 1"))
            XCTAssertEqual(found.map(\.gameID), expected, rights)
        }
        let knights = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w"
        XCTAssertEqual(try database.games(reaching: Position(fen: "\(knights) KQkq -")).map(\.gameID), [1, 3])
        XCTAssertEqual(try database.games(reaching: Position(fen: "\(knights) - -")).map(\.gameID), [2])
        let alekhine = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq"
        XCTAssertEqual(
            try database.games(reaching: Position(fen: "\(alekhine) d6")), [PositionMatch(gameID: 4, ply: 4)])
        XCTAssertEqual(
            try database.games(reaching: Position(fen: "\(alekhine) -")), [PositionMatch(gameID: 5, ply: 10)])
        let withSquare = try database.explore(Position(fen: "\(alekhine) d6"))
        XCTAssertEqual(moves(withSquare, at: try Position(fen: "\(alekhine) d6")), ["exd6": 1])
        XCTAssertEqual(try database.explore(Position(fen: "\(alekhine) -")).ended, 1)
    }

    func testPositionsBeyondTheTreeAreFoundByReplayingTheGames() throws {
        // 60 plies of knights going back and forth, then a pawn move; another game reaches the
        // position after that move at once.
        let shuffle = (0..<30).map { k in k % 2 == 0 ? "\(k + 1). Nf3 Nf6" : "\(k + 1). Ng1 Ng8" }
        let database = try makeDatabase(
            "deep.db3", [shuffle.joined(separator: " ") + " 31. e4 *", "1. e4 *", "1. Nc3 Nc6 2. Nb1 Nb8 3. d4 *"])
        let afterE4 = try position("1. e4")
        XCTAssertEqual(
            try database.games(reaching: afterE4),
            [PositionMatch(gameID: 1, ply: 61), PositionMatch(gameID: 2, ply: 1)])
        // The tree covers 40 plies: the first game is not in its counts there.
        XCTAssertEqual(try database.explore(afterE4).games, 1)
        XCTAssertEqual(try database.explore(afterE4).ended, 1)
        // The start: reached by the first game every fourth ply, counted once, at ply 0.
        XCTAssertEqual(try database.games(reaching: .startingPosition).map(\.ply), [0, 0, 0])
        XCTAssertEqual(
            moves(try database.explore(.startingPosition), at: .startingPosition), ["Nf3": 1, "e4": 1, "Nc3": 1])
    }

    // MARK: Status

    func testAFileWithoutTheIndexSaysSoAndGetsItOnlyWhenAsked() throws {
        let path = folder.path("plain.db3")
        let database = try makeDatabase("plain.db3", ["1. e4 e5 *"], options: .init(positionIndex: false))
        XCTAssertEqual(try database.positionIndexStatus(), .missing)
        XCTAssertEqual(try indexTables(path), [])
        XCTAssertThrowsError(try database.games(reaching: .startingPosition)) { error in
            XCTAssertEqual(error as? GameStoreError, .positionIndex(path: path, status: .missing))
            XCTAssertEqual(
                "\(error)",
                "\(path): the database has no position index; build it with: pgn-lsp index --db \(path)")
        }
        XCTAssertThrowsError(try database.explore(.startingPosition))
        // Another save does not make one; a connection that would make one for a new file neither.
        XCTAssertEqual(try database.store(games: games(["1. d4 *"])).stored, 1)
        XCTAssertEqual(try GameDatabase(path: path).store(games: games(["1. c4 *"])).stored, 1)
        XCTAssertEqual(try database.positionIndexStatus(), .missing)
        XCTAssertEqual(try database.buildPositionIndex(), 3)
        XCTAssertEqual(try database.positionIndexStatus(), .current)
        XCTAssertEqual(try database.games(reaching: .startingPosition).count, 3)
        try database.removePositionIndex()
        XCTAssertEqual(try database.positionIndexStatus(), .missing)
        XCTAssertEqual(try indexTables(path), [])
    }

    func indexTables(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Position%' ORDER BY name")
        }
    }

    func testChangesByAnotherConnectionMakeItStaleUntilItIsRebuilt() throws {
        let path = folder.path("shared.db3")
        let database = try makeDatabase(
            "shared.db3", ["[Result \"1-0\"]\n\n1. e4 e5 1-0", "[Result \"0-1\"]\n\n1. d4 d5 0-1"])
        let oneChange = PositionIndexStatus.stale(
            reason: "1 change to the games since it was built, by another program")
        let columns = try DatabaseQueue(path: path).read { try $0.columns(in: "Games").map(\.name) }
            .filter { $0 != "ID" }
        let copied = columns.map { $0 == "Round" ? "'copy'" : $0 }.joined(separator: ", ")
        let changes = [
            "INSERT INTO Games (\(columns.joined(separator: ", "))) SELECT \(copied) FROM Games WHERE ID = 1",
            "DELETE FROM Games WHERE ID = 2",
            "UPDATE Games SET Result = '0-1' WHERE ID = 1",
            "UPDATE Games SET WhiteElo = 2000 WHERE ID = 1",
            "UPDATE Games SET Moves2 = Moves2 WHERE ID = 3",
        ]
        for sql in changes {
            try execute(path, sql)
            XCTAssertEqual(try database.positionIndexStatus(), oneChange, sql)
            XCTAssertThrowsError(try database.explore(.startingPosition), sql) { error in
                XCTAssertEqual(error as? GameStoreError, .positionIndex(path: path, status: oneChange))
            }
            _ = try database.buildPositionIndex()
            XCTAssertEqual(try database.positionIndexStatus(), .current, sql)
        }
        let start = try database.explore(.startingPosition)
        // The first game, now lost by White, and its copy, won.
        XCTAssertEqual(moves(start, at: .startingPosition), ["e4": 2])
        XCTAssertEqual([start.whiteWins, start.blackWins], [1, 1])
        // Columns the index does not read change nothing.
        try execute(path, "UPDATE Games SET Round = '7', Date = '2001.01.01'")
        XCTAssertEqual(try database.positionIndexStatus(), .current)
        // A save while it is stale leaves it stale (and counted), a rebuild brings it back.
        try execute(path, "DELETE FROM Games WHERE ID = 1")
        XCTAssertEqual(try database.store(games: games(["1. c4 *"])).stored, 1)
        XCTAssertEqual(
            try database.positionIndexStatus(),
            .stale(reason: "2 changes to the games since it was built, by another program"))
        XCTAssertEqual(try database.buildPositionIndex(), 2)
        XCTAssertEqual(
            try database.games(reaching: .startingPosition).map(\.gameID).count, 2)
    }

    func testAnIndexOfAnotherLayoutOrWithPartsMissingIsStale() throws {
        let path = folder.path("versions.db3")
        let database = try makeDatabase("versions.db3", ["1. e4 *"])
        let damages: [(String, String)] = [
            ("UPDATE PositionIndexState SET Version = Version + 1", "made by another version of pgn-lsp"),
            ("UPDATE PositionIndexState SET Depth = 20", "made by another version of pgn-lsp"),
            ("DROP TRIGGER PositionIndexGameRemoved", "the triggers that follow changes to the games are gone"),
            ("DROP TABLE PositionTree", "some of its tables are missing"),
            ("DELETE FROM PositionIndexState", "its state is missing"),
            // The layout before moves replaced keys.
            (
                "CREATE TABLE PositionKeys (GameID INTEGER PRIMARY KEY, Keys BLOB NOT NULL)",
                "made by another version of pgn-lsp"
            ),
        ]
        for (sql, reason) in damages {
            try execute(path, sql)
            XCTAssertEqual(try database.positionIndexStatus(), .stale(reason: reason), sql)
            XCTAssertThrowsError(try database.games(reaching: .startingPosition), sql)
            XCTAssertEqual(try database.buildPositionIndex(), 1)
            XCTAssertEqual(try database.positionIndexStatus(), .current, sql)
            XCTAssertEqual(try database.games(reaching: .startingPosition), [PositionMatch(gameID: 1, ply: 0)])
        }
    }

    // MARK: Queries

    func testAPartialFENGetsWhiteToMoveAndTheCastlingRightsItsPiecesAllow() throws {
        func query(_ text: String) throws -> String { try PositionIndex.position(query: text).fen }
        XCTAssertEqual(
            try query("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        XCTAssertEqual(try query("r3k2r/8/8/8/8/8/8/R3K2R b"), "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
        XCTAssertEqual(try query("r3k2r/8/8/8/8/8/8/R4K1R\tw"), "r3k2r/8/8/8/8/8/8/R4K1R w kq - 0 1")
        XCTAssertEqual(try query("1r2k2r/8/8/8/8/8/8/R3K1R1 w"), "1r2k2r/8/8/8/8/8/8/R3K1R1 w Qk - 0 1")
        XCTAssertEqual(try query("4k3/8/8/8/8/8/8/4K3"), "4k3/8/8/8/8/8/8/4K3 w - - 0 1")
        // Three fields and more are a FEN as written: no right it does not give.
        XCTAssertEqual(
            try query("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w -"),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
        // The clocks play no part in the position searched; an en-passant square no pawn can
        // take on is not part of it either.
        let clocks = try PositionIndex.position(query: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 5 20")
        XCTAssertEqual(clocks.hash, try position("1. e4").hash)
        XCTAssertThrowsError(try PositionIndex.position(query: "rnbqkbnr/pppppppp/8/8"))
        XCTAssertThrowsError(try PositionIndex.position(query: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x"))
        XCTAssertThrowsError(try PositionIndex.position(query: ""))
    }
}
