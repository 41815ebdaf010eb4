import ChessCore
import Foundation
import GRDB
import TestSupport
import XCTest

@testable import GameStore

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

    // MARK: Imports that stop, programs that write behind the index's back

    func status(_ path: String) throws -> PositionIndexStatus {
        try GameDatabase.openForReading(path: path).positionIndexStatus()
    }

    /// The file change counter of the header (bytes 24–27) and the index's `Stamp`.
    func counterAndStamp(_ path: String) throws -> (UInt32, Int64) {
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(28)
        let counter = header.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let stamp = try DatabaseQueue(path: path).read {
            try Int64.fetchOne($0, sql: "SELECT Stamp FROM PositionIndexState")
        }
        return (counter, try XCTUnwrap(stamp))
    }

    func testPgnLspsOwnWritesLeaveTheHeaderAsTheIndexRecordsItAnotherProgramsDoNot() throws {
        let path = folder.path("stamped.db3")
        let database = try GameDatabase(path: path)
        func assertStamped(_ what: String, line: UInt = #line) throws {
            let (counter, stamp) = try counterAndStamp(path)
            XCTAssertEqual(Int64(counter), stamp, what, line: line)
            XCTAssertEqual(try status(path), .current, what, line: line)
        }
        // An import into a new file: its search indexes and tree built at its end.
        _ = try database.importPGN(path: SharedMaterial.url("corpus/pgn-lsp/position-keys.pgn").path)
        try assertStamped("import")
        XCTAssertEqual(try database.store(games: games(["1. e4 e5 2. Nf3 Nc6 *"])).stored, 1)
        try assertStamped("save")
        _ = try database.buildPositionIndex()
        try assertStamped("build")
        // Another program's write, which the index does not read: the header no longer holds
        // the stamp; the index is current all the same (its count and last ID checked).
        try execute(path, "UPDATE Games SET Round = '3' WHERE ID = 1")
        let (counter, stamp) = try counterAndStamp(path)
        XCTAssertEqual(Int64(counter), stamp + 1)
        XCTAssertEqual(try status(path), .current)
        // pgn-lsp's next write of the index records the header again.
        XCTAssertEqual(try database.store(games: games(["1. d4 d5 *"])).stored, 1)
        try assertStamped("save after another program's write")
    }

    func testAnImportThatStoppedBeforeItsEndIsOutOfDateWhicheverProcessNowHasItsID() throws {
        let afterE4 = try position("1. e4")
        // What an import killed after its first transaction leaves: its mark in the state, and
        // the games it added (counted), whose tree never came. The mark is the ID of a process
        // that runs (as the one of a killed import, reused): the test's parent, the first
        // process, the test itself.
        for mark in [Int64(getppid()), 1, Int64(getpid())] {
            let name = "stopped-\(mark).db3"
            let path = folder.path(name)
            let database = try makeDatabase(name, ["1. e4 e5 *", "1. e4 c5 *", "1. d4 d5 *", "1. e4 e6 *"])
            XCTAssertEqual(try database.games(reaching: afterE4).map(\.gameID), [1, 2, 4])
            try execute(path, "UPDATE PositionIndexState SET Updater = \(mark), Adding = 1, Changes = Changes + 1")
            XCTAssertEqual(try status(path), .interrupted, "\(mark)")
            XCTAssertEqual(try database.positionIndexStatus(), .interrupted, "\(mark)")
            // Then another program removes games: no answer from the index as it was.
            try execute(path, "DELETE FROM Games WHERE ID IN (2, 4)")
            for database in [database, try GameDatabase.openForReading(path: path)] {
                XCTAssertThrowsError(try database.games(reaching: afterE4)) { error in
                    XCTAssertEqual(error as? GameStoreError, .positionIndex(path: path, status: .interrupted))
                }
                XCTAssertThrowsError(try database.explore(afterE4))
            }
            XCTAssertEqual(try database.buildPositionIndex(), 2)
            XCTAssertEqual(try database.positionIndexStatus(), .current)
            XCTAssertEqual(try database.games(reaching: afterE4).map(\.gameID), [1])
            XCTAssertEqual(try database.explore(.startingPosition).games, 2)
        }
    }

    func testAReaderTakesAnImportForRunningOnlyWhileItHoldsTheLockWithItsToken() throws {
        let path = folder.path("running.db3")
        let database = try makeDatabase("running.db3", ["1. e4 e5 *", "1. d4 d5 *"])
        let token: Int64 = 0x5EED_1234_5678
        try execute(path, "UPDATE PositionIndexState SET Updater = \(token)")
        XCTAssertEqual(ImportLock.holder(of: path), .nobody)
        XCTAssertEqual(try status(path), .interrupted)
        guard case .acquired(let lock) = ImportLock.acquire(database: path, token: token, timeout: 1) else {
            return XCTFail("the lock of a file no import holds is taken")
        }
        // A reader of this process opens the lock file anew: it sees the lock as another
        // process does.
        XCTAssertEqual(ImportLock.holder(of: path), .running(token: token))
        XCTAssertEqual(try status(path), .updating)
        XCTAssertEqual(try database.games(reaching: .startingPosition).count, 2)
        guard case .heldByAnother = ImportLock.acquire(database: path, token: 7, timeout: 0.05) else {
            return XCTFail("a second import takes the lock another holds")
        }
        // Every path to the file names the same lock.
        let link = folder.path("link.db3")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        XCTAssertEqual(ImportLock.holder(of: link), .running(token: token))
        // The lock of another import than the one that marked the state: that one stopped.
        try execute(path, "UPDATE PositionIndexState SET Updater = 77")
        XCTAssertEqual(try status(path), .interrupted)
        try execute(path, "UPDATE PositionIndexState SET Updater = \(token)")
        // Another program's change to the games while the import runs.
        try execute(path, "DELETE FROM Games WHERE ID = 2")
        XCTAssertEqual(
            try status(path), .stale(reason: "1 change to the games by another program during an import"))
        lock.release()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ImportLock.suffix))
        XCTAssertEqual(ImportLock.holder(of: path), .nobody)
        XCTAssertEqual(try status(path), .interrupted)
    }

    func testAKilledImportsLockFileIsTakenOverAndRemovedByTheNextBuild() throws {
        let path = folder.path("left.db3")
        let database = try makeDatabase("left.db3", ["1. e4 e5 *"])
        // The file a killed import leaves: its token in it, no lock.
        try "42 1\n".write(toFile: path + ImportLock.suffix, atomically: false, encoding: .utf8)
        try execute(path, "UPDATE PositionIndexState SET Updater = 42")
        XCTAssertEqual(ImportLock.holder(of: path), .nobody)
        XCTAssertEqual(try status(path), .interrupted)
        XCTAssertEqual(try database.buildPositionIndex(), 1)
        XCTAssertEqual(try status(path), .current)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ImportLock.suffix))
        // A new import takes the lock of a file left behind.
        try "42 1\n".write(toFile: path + ImportLock.suffix, atomically: false, encoding: .utf8)
        guard case .acquired(let lock) = ImportLock.acquire(database: path, token: 43, timeout: 1) else {
            return XCTFail("a lock file no process holds is taken")
        }
        XCTAssertEqual(ImportLock.holder(of: path), .running(token: 43))
        lock.release()
    }

    /// Runs `sql` with the triggers `names` dropped and made again from their own SQL, as a
    /// program that rebuilds a table, or writes with the triggers turned off, leaves the file.
    func executeWithoutTriggers(_ path: String, _ names: [String], _ sql: String) throws {
        try DatabaseQueue(path: path).write { db in
            var triggers: [String] = []
            for name in names {
                triggers.append(
                    try XCTUnwrap(
                        try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [name]))
                )
                try db.execute(sql: "DROP TRIGGER \(name)")
            }
            try db.execute(sql: sql)
            for trigger in triggers { try db.execute(sql: trigger) }
        }
    }

    func testGamesAddedOrRemovedWithTheTriggersTurnedOffAreNoticed() throws {
        let path = folder.path("quiet.db3")
        let database = try makeDatabase("quiet.db3", ["1. e4 e5 *", "1. e4 c5 *", "1. d4 d5 *", "1. e4 e6 *"])
        let afterE4 = try position("1. e4")
        try executeWithoutTriggers(path, ["PositionIndexGameRemoved"], "DELETE FROM Games WHERE ID IN (2, 4)")
        let removed = PositionIndexStatus.stale(
            reason:
                "games added or removed by another program that wrote with the triggers turned off: 2 games now, 4 in the index"
        )
        XCTAssertEqual(try status(path), removed)
        XCTAssertEqual(try database.positionIndexStatus(), removed)
        XCTAssertThrowsError(try database.games(reaching: afterE4))
        XCTAssertThrowsError(try database.explore(afterE4))
        XCTAssertEqual(try database.buildPositionIndex(), 2)
        XCTAssertEqual(try database.games(reaching: afterE4).map(\.gameID), [1])
        // As many games as before, but not the same.
        let columns = try DatabaseQueue(path: path).read { try $0.columns(in: "Games").map(\.name) }
            .filter { $0 != "ID" }.joined(separator: ", ")
        try executeWithoutTriggers(
            path, ["PositionIndexGameAdded", "PositionIndexGameRemoved"],
            "INSERT INTO Games (\(columns)) SELECT \(columns) FROM Games WHERE ID = 1; DELETE FROM Games WHERE ID = 3")
        XCTAssertEqual(
            try status(path),
            .stale(
                reason:
                    "games added or removed by another program that wrote with the triggers turned off: the last ID 5 now, 3 in the index"
            ))
        XCTAssertEqual(try database.buildPositionIndex(), 2)
        XCTAssertEqual(try database.games(reaching: afterE4).map(\.gameID), [1, 5])
        // A change another program makes to what the index does not read is no alarm.
        try execute(path, "UPDATE Games SET Round = '2'; UPDATE Info SET Value = 'renamed' WHERE Name = 'Title'")
        XCTAssertEqual(try status(path), .current)
        XCTAssertEqual(try database.games(reaching: afterE4).map(\.gameID), [1, 5])
    }

    func testRowsOfTheIndexChangedByAnotherProgramAreNoticed() throws {
        let path = folder.path("edited.db3")
        let database = try makeDatabase(
            "edited.db3", ["1. e4 e5 2. Nf3 *", "1. e4 c5 *", "1. d4 d5 *", "1. e4 e5 2. Bc4 *"])
        let before = try indexRows(path)
        let afterE4 = try position("1. e4")
        let edits = [
            "DELETE FROM PositionMoves WHERE GameID IN (2, 4)",
            "UPDATE PositionMoves SET Moves = X'' WHERE GameID = 1",
            "INSERT INTO PositionMoves (GameID, Moves, FEN, Final) SELECT 9, Moves, FEN, Final FROM PositionMoves WHERE GameID = 1",
            "DELETE FROM PositionTree WHERE Games > 2",
            "UPDATE PositionTree SET Games = Games + 1, WhiteWins = WhiteWins + 1",
            "INSERT INTO PositionTree (Position, Next, Games, WhiteWins, Draws, BlackWins) VALUES (5, 6, 2, 0, 0, 0)",
            "UPDATE PositionSingles SET Bits = zeroblob(4096)",
            "DELETE FROM PositionSingles",
        ]
        for sql in edits {
            try execute(path, sql)
            let status = try status(path)
            guard case .stale(let reason) = status, reason.hasSuffix(" to its own tables by another program") else {
                XCTFail("\(sql): \(status)")
                continue
            }
            XCTAssertThrowsError(try database.explore(afterE4), sql)
            XCTAssertThrowsError(try database.games(reaching: afterE4), sql)
            XCTAssertEqual(try database.buildPositionIndex(), 4, sql)
            XCTAssertEqual(try indexRows(path), before, sql)
        }
        // pgn-lsp's own saves write the same tables: no alarm.
        XCTAssertEqual(try database.store(games: games(["1. e4 e5 2. Nf3 Nc6 *", "1. c4 *"])).stored, 2)
        XCTAssertEqual(try status(path), .current)
        XCTAssertEqual(try database.explore(afterE4).games, 4)
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
