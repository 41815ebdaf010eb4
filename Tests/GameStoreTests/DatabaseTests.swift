import ChessCore
import Foundation
import GRDB
import GameStore
import TestSupport
import XCTest

/// The file the writer makes: tables, sentinels, Info rows, column values, duplicates, refusals
/// and the errors a user meets.
final class DatabaseTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    /// A second connection to look at what the writer did, with SQL only.
    func inspect<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
        try DatabaseQueue(path: path).read(body)
    }

    func testTheSchemaFileIsTheSQLTheWriterRuns() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("schemas/ocgdb.sql")
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), GameDatabase.schemaSQL)
    }

    func testANewFileHasTheTablesSentinelsInfoRowsAndIndexes() throws {
        let path = folder.path("new.db3")
        _ = try GameDatabase(path: path)
        try inspect(path) { db in
            func columns(_ table: String) throws -> [String] {
                try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map {
                    "\($0["name"] as String) \($0["type"] as String)"
                }
            }
            XCTAssertEqual(try columns("Info"), ["Name TEXT", "Value TEXT"])
            XCTAssertEqual(try columns("Events"), ["ID INTEGER", "Name TEXT"])
            XCTAssertEqual(try columns("Sites"), ["ID INTEGER", "Name TEXT"])
            XCTAssertEqual(try columns("Players"), ["ID INTEGER", "Name TEXT", "Elo INTEGER"])
            XCTAssertEqual(
                try columns("Games"),
                [
                    "ID INTEGER", "EventID INTEGER", "SiteID INTEGER", "Date TEXT", "UTCTime TEXT", "Round TEXT",
                    "WhiteID INTEGER", "WhiteElo INTEGER", "BlackID INTEGER", "BlackElo INTEGER",
                    "WhiteMaterial INTEGER", "BlackMaterial INTEGER", "Result TEXT", "TimeControl TEXT", "ECO TEXT",
                    "PlyCount INTEGER", "FEN TEXT", "Moves BLOB", "PawnHome BLOB", "Moves2 BLOB", "Tags TEXT",
                ])
            XCTAssertEqual(try columns("Comments"), ["ID INTEGER", "GameID INTEGER", "Ply INTEGER", "Comment TEXT"])
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "delete")
            XCTAssertEqual(
                try Row.fetchAll(db, sql: "SELECT ID, Name, Elo FROM Players"),
                [["ID": 0, "Name": "Unknown", "Elo": nil]])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT ID || Name FROM Events"), ["0Unknown"])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT ID || Name FROM Sites"), ["0Unknown"])
            let info = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT Name, Value FROM Info").map {
                    ($0["Name"] as String, $0["Value"] as String)
                })
            XCTAssertEqual(info["Version"], "1.0.0")
            XCTAssertEqual(info["Data Structure Version"], "0.6")
            XCTAssertEqual(info["Variant"], "standard")
            XCTAssertEqual(info["Title"], "new")
            XCTAssertEqual(info["Description"], "")
            XCTAssertEqual(info["GameCount"], "0")
            XCTAssertEqual(info["PlayerCount"], "1")
            XCTAssertEqual(info["EventCount"], "1")
            XCTAssertEqual(info["SiteCount"], "1")
            XCTAssertEqual(info["CommentCount"], "0")
            // The indexes the format asks for, by the column each covers.
            var indexed = Set<String>()
            for index in try Row.fetchAll(db, sql: "PRAGMA index_list(Games)") {
                let name: String = index["name"]
                let covered = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name])
                if covered.count == 1 { indexed.insert(covered[0]) }
            }
            for column in ["Date", "WhiteID", "BlackID", "Result", "WhiteElo", "BlackElo", "PlyCount"] {
                XCTAssertTrue(indexed.contains(column), "no index on Games(\(column))")
            }
        }
    }

    func testColumnValuesCommentRowsPlayersAndCounts() throws {
        let path = folder.path("games.db3")
        let database = try GameDatabase(path: path)
        let pgn = """
            [Event "Open"]
            [Site "Paris"]
            [Date "2024.03.??"]
            [Round "1.10"]
            [White "Ann"]
            [Black "Bob"]
            [Result "1-0"]
            [WhiteElo "2100"]
            [BlackElo "-"]
            [ECO "C20"]
            [TimeControl "600"]
            [UTCTime "12:00:00"]

            {start} 1. e4 {a} e5 (1... c5 {not stored in Comments}) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# {mate} 1-0

            [White "Ann"]
            [Black "Carl"]
            [WhiteElo "2150"]
            [FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
            [SetUp "1"]

            1. e4 *
            """
        let report = try database.store(games: [GameSource(text: pgn, index: 0)])
        XCTAssertEqual(report.stored, 2)
        XCTAssertEqual(report.duplicates, 0)
        XCTAssertEqual(report.refused, [])
        XCTAssertEqual(report.storedIDs, [1, 2])
        try inspect(path) { db in
            let first = try Row.fetchOne(db, sql: "SELECT * FROM Games WHERE ID = 1")!
            XCTAssertEqual(first["Date"] as String, "2024.03.??")
            XCTAssertEqual(first["Round"] as String, "1.10")
            XCTAssertEqual(first["Result"] as String, "1-0")
            XCTAssertEqual(first["WhiteElo"] as Int, 2100)
            XCTAssertEqual(first["BlackElo"] as Int, 0)
            XCTAssertEqual(first["PlyCount"] as Int, 7)
            XCTAssertEqual(first["WhiteMaterial"] as Int, 39)
            XCTAssertEqual(first["BlackMaterial"] as Int, 38)
            XCTAssertEqual(first["PawnHome"] as Int, 0xFFFF & ~(1 << 4) & ~(1 << 12) & ~(1 << 13))
            XCTAssertNil(first["FEN"] as String?)
            XCTAssertEqual(first["ECO"] as String, "C20")
            XCTAssertEqual(first["TimeControl"] as String, "600")
            XCTAssertEqual(first["UTCTime"] as String, "12:00:00")
            XCTAssertEqual(
                try String.fetchOne(
                    db, sql: "SELECT Name FROM Events WHERE ID = ?", arguments: [first["EventID"] as Int]), "Open")
            XCTAssertEqual((first["Moves2"] as Data).count, 14)
            let second = try Row.fetchOne(db, sql: "SELECT * FROM Games WHERE ID = 2")!
            XCTAssertEqual(second["EventID"] as Int, 0, "no Event tag")
            XCTAssertEqual(second["SiteID"] as Int, 0)
            XCTAssertNil(second["Date"] as String?)
            XCTAssertEqual(second["FEN"] as String, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
            XCTAssertEqual(second["WhiteID"] as Int, first["WhiteID"] as Int, "the same player")
            let comments = try Row.fetchAll(db, sql: "SELECT GameID, Ply, Comment FROM Comments ORDER BY ID")
            XCTAssertEqual(comments.map { $0["Ply"] as Int }, [-1, 0, 6])
            XCTAssertEqual(comments.map { $0["Comment"] as String }, ["start", "a", "mate"])
            XCTAssertEqual(
                try Int.fetchOne(db, sql: "SELECT Elo FROM Players WHERE Name = 'Ann'"), 2150, "highest rating")
            for (name, table) in [
                ("GameCount", "Games"), ("PlayerCount", "Players"), ("EventCount", "Events"), ("SiteCount", "Sites"),
                ("CommentCount", "Comments"),
            ] {
                let stored = try String.fetchOne(db, sql: "SELECT Value FROM Info WHERE Name = ?", arguments: [name])
                let counted = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")!
                XCTAssertEqual(stored, String(counted), name)
            }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Players"), 4)
        }
    }

    func testTagValuesAreStoredVerbatim() throws {
        let path = folder.path("verbatim.db3")
        let database = try GameDatabase(path: path)
        let white = #"O'Brien "the \ slash""#
        let event = "'); DROP TABLE Games; --"
        let site = "x\" OR 1=1; --"
        let pgn = """
            [Event "\(event)"]
            [Site "x\\" OR 1=1; --"]
            [White "O'Brien \\"the \\\\ slash\\""]
            [Black "Robert'); DELETE FROM Players; --"]
            [Round "%_*"]

            1. d4 *
            """
        XCTAssertEqual(try database.store(games: [GameSource(text: pgn, index: 0)]).stored, 1)
        try inspect(path) { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT e.Name AS event, s.Name AS site, w.Name AS white, b.Name AS black, g.Round AS round
                    FROM Games g JOIN Events e ON e.ID = g.EventID JOIN Sites s ON s.ID = g.SiteID
                    JOIN Players w ON w.ID = g.WhiteID JOIN Players b ON b.ID = g.BlackID
                    """)!
            XCTAssertEqual(row["event"] as String, event)
            XCTAssertEqual(row["site"] as String, site)
            XCTAssertEqual(row["white"] as String, white)
            XCTAssertEqual(row["black"] as String, "Robert'); DELETE FROM Players; --")
            XCTAssertEqual(row["round"] as String, "%_*")
        }
        let game = try database.game(id: 1)
        XCTAssertEqual(game.tag("White"), white)
        XCTAssertTrue(game.pgn.contains(#"[White "O'Brien \"the \\ slash\""]"#), game.pgn)
        XCTAssertEqual(try database.gameIDs(player: white), [1])
    }

    func testSavingTheSameGamesTwiceAddsNothing() throws {
        let path = folder.path("twice.db3")
        let database = try GameDatabase(path: path)
        let file = try SharedMaterial.url("corpus/lichess/lichess_db_100k.pgn").path
        let first = try database.importPGN(path: file)
        XCTAssertGreaterThan(first.stored, 40)
        XCTAssertEqual(first.duplicates, 0)
        let again = try database.importPGN(path: file)
        XCTAssertEqual(again.stored, 0)
        XCTAssertEqual(again.duplicates, first.stored)
        // Through a new connection too, and one game at a time.
        let reopened = try GameDatabase(path: path)
        let text = try SharedMaterial.text("corpus/lichess/lichess_db_10k.pgn")
        let report = try reopened.store(games: [GameSource(text: text, index: 0)])
        XCTAssertEqual(report.stored, 0)
        XCTAssertGreaterThan(report.duplicates, 0)
        try inspect(path) { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games"), first.stored)
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT Value FROM Info WHERE Name = 'GameCount'"), String(first.stored))
        }
        // A game that differs in one identifying tag is another game.
        let changed = text.replacingOccurrences(of: "[Round \"-\"]", with: "[Round \"2\"]")
        XCTAssertEqual(try reopened.store(games: [GameSource(text: changed, index: 0)]).stored, report.duplicates)
    }

    func testRefusedGamesAreListedAndTheOthersStored() throws {
        let database = try GameDatabase(path: folder.path("refused.db3"))
        let games = [
            GameSource(text: "[Event \"a\"]\n\n1. e4 e5 *", index: 0),
            GameSource(text: "[Event \"b\"]\n\n1. e4 e5 2. Ke3 *", index: 1),
            GameSource(text: "[Event \"c\"]\n[Variant \"Atomic\"]\n\n1. e4 *", index: 2),
            GameSource(text: "[Event \"d\"]\n\n1. d4 *", index: 3),
        ]
        var calls: [(Int, Int)] = []
        let report = try database.store(games: games) { calls.append(($0, $1)) }
        // A game with an illegal move is kept up to it, and says so; only the game of a
        // variant the database cannot hold is refused.
        XCTAssertEqual(report.stored, 3)
        XCTAssertEqual(report.refused.map(\.description), ["game 3, unsupported variant \"Atomic\""])
        XCTAssertEqual(
            report.changed.map(\.description),
            ["game 2 (incomplete), illegal move 2.Ke3: the game stored up to it, the rest kept as a comment"])
        XCTAssertEqual(report.incomplete, 1)
        XCTAssertEqual(calls.last?.0, 4)
        XCTAssertEqual(calls.last?.1, 4)
    }

    func testALockedDatabaseMakesASaveWaitThenFailClearly() throws {
        let path = folder.path("locked.db3")
        let database = try GameDatabase(path: path, options: .init(busyTimeout: 0.4))
        let other = try lockedByAnotherConnection(path)
        let game = GameSource(text: "1. e4 *", index: 0)
        let start = Date()
        XCTAssertThrowsError(try database.store(games: [game])) { error in
            XCTAssertEqual(error as? GameStoreError, .locked(path: path, seconds: 0.4))
            XCTAssertTrue("\(error)".hasPrefix("database is locked by another program"), "\(error)")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.35, "the save waited for the lock")
        try other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        XCTAssertEqual(try database.store(games: [game]).stored, 1, "the save works once the lock is gone")
    }

    func testReadOnlyFilesMissingFoldersAndOtherFilesGiveClearErrors() throws {
        let path = folder.path("readonly.db3")
        _ = try GameDatabase(path: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        XCTAssertThrowsError(try GameDatabase(path: path)) { error in
            XCTAssertEqual(error as? GameStoreError, .readOnly(path: path))
            XCTAssertEqual("\(error)", "cannot write \(path): the file or its folder is read-only")
        }
        // Reading still works.
        XCTAssertEqual(try GameDatabase.openForReading(path: path).gameIDs(), [])

        let lockedFolder = folder.url.appendingPathComponent("closed")
        try FileManager.default.createDirectory(at: lockedFolder, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: lockedFolder.path)
        let inside = lockedFolder.appendingPathComponent("new.db3").path
        XCTAssertThrowsError(try GameDatabase(path: inside)) { error in
            XCTAssertEqual(error as? GameStoreError, .readOnly(path: inside))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: lockedFolder.path)

        let missing = folder.url.appendingPathComponent("no/such/folder/games.db3").path
        XCTAssertThrowsError(try GameDatabase(path: missing)) { error in
            XCTAssertEqual(error as? GameStoreError, .missingFolder(path: missing))
            XCTAssertEqual(
                "\(error)", "cannot create \(missing): the folder \(folder.url.path)/no/such/folder does not exist")
        }

        let text = folder.path("notes.db3")
        try Data("these are not the games you are looking for".utf8).write(to: URL(fileURLWithPath: text))
        XCTAssertThrowsError(try GameDatabase(path: text)) { error in
            XCTAssertEqual(error as? GameStoreError, .notAGameDatabase(path: text, reason: "the file is not SQLite"))
        }
    }

    func testTheSearchIndexGoesAfterAChangeOnly() throws {
        let path = folder.path("indexed.db3")
        let index = folder.path("indexed.ecsi")
        let database = try GameDatabase(path: path)
        XCTAssertTrue(FileManager.default.createFile(atPath: index, contents: Data([1, 2, 3])))
        _ = try database.store(games: [GameSource(text: "1. e4 *", index: 0)])
        XCTAssertFalse(FileManager.default.fileExists(atPath: index))
        XCTAssertTrue(FileManager.default.createFile(atPath: index, contents: Data([1, 2, 3])))
        XCTAssertEqual(try database.store(games: [GameSource(text: "1. e4 *", index: 0)]).duplicates, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: index), "nothing changed: the index is still right")
    }

    func testAnotherProgramsWritesAreCountedToo() throws {
        let path = folder.path("shared.db3")
        let database = try GameDatabase(path: path)
        _ = try database.store(games: [GameSource(text: "[White \"A\"]\n\n1. e4 *", index: 0)])
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO Players (Name) VALUES ('Added elsewhere')")
            try db.execute(sql: "DELETE FROM Comments")
        }
        _ = try database.store(games: [GameSource(text: "[White \"B\"]\n\n1. d4 {x} *", index: 0)])
        try inspect(path) { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT Value FROM Info WHERE Name = 'PlayerCount'"), "4")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT Value FROM Info WHERE Name = 'CommentCount'"), "1")
        }
    }
}
