import Foundation
import GRDB
import XCTest

@testable import GameStore

/// Files and inputs a database must not be damaged by: another program's SQLite file, a file
/// that is not SQLite, a device, a path with a NUL character, two programs creating the same
/// new file at once, something in the place of an import's lock file, and a game with a hundred
/// thousand tags.
final class HostileInputTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    /// A SQLite file made with `sql`, left in WAL mode, its connection closed.
    func sqliteFile(_ name: String, _ sql: String) throws -> String {
        let path = folder.path(name)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: sql)
        }
        try queue.close()
        return path
    }

    /// The file's bytes and the names of the files in its folder.
    func snapshot(_ path: String) throws -> (bytes: Data, files: [String]) {
        (
            try Data(contentsOf: URL(fileURLWithPath: path)),
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        )
    }

    /// The journal mode written in the file's header (bytes 18 and 19 are 2 in WAL mode).
    func isInWALMode(_ path: String) throws -> Bool {
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(20)
        return header[18] == 2 && header[19] == 2
    }

    func testAnotherProgramsSQLiteFileIsRefusedBeforeAnythingInItChanges() throws {
        let path = try sqliteFile(
            "notes.db",
            """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
            CREATE TABLE tags (name TEXT);
            INSERT INTO notes (text) VALUES ('keep me');
            """)
        let before = try snapshot(path)
        XCTAssertTrue(try isInWALMode(path))
        XCTAssertThrowsError(try GameDatabase(path: path)) { error in
            XCTAssertEqual(
                error as? GameStoreError,
                .otherProgramsDatabase(path: path, tables: ["notes", "tags"], missing: ["Games", "Info"]))
            XCTAssertEqual(
                "\(error)",
                "\(path) is a SQLite database of another program, left unchanged: it has the tables notes, tags and no Games or Info table; choose another file"
            )
        }
        let after = try snapshot(path)
        XCTAssertEqual(after.bytes, before.bytes, "the file is unchanged")
        XCTAssertEqual(after.files, before.files, "no journal or other file beside it")
        XCTAssertTrue(try isInWALMode(path), "still in WAL mode")

        // A table named Games is not enough: the format's files have Info too.
        let games = try sqliteFile("games.db", "CREATE TABLE Games (ID INTEGER PRIMARY KEY, Moves BLOB);")
        let gamesBefore = try snapshot(games)
        XCTAssertThrowsError(try GameDatabase(path: games)) { error in
            XCTAssertEqual(
                error as? GameStoreError, .otherProgramsDatabase(path: games, tables: ["Games"], missing: ["Info"]))
        }
        XCTAssertEqual(try snapshot(games).bytes, gamesBefore.bytes)
        // Reading it is still allowed.
        XCTAssertEqual(try GameDatabase.openForReading(path: games).gameIDs(), [])
    }

    func testAGameDatabaseThatCannotBeWrittenKeepsItsJournalMode() throws {
        // ocgdb's tables, without the columns En Croissant reads.
        let path = try sqliteFile(
            "made-by-ocgdb.ocgdb.db3",
            """
            CREATE TABLE Info (Name TEXT UNIQUE NOT NULL, Value TEXT);
            CREATE TABLE Events (ID INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT UNIQUE);
            CREATE TABLE Sites (ID INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT UNIQUE);
            CREATE TABLE Players (ID INTEGER PRIMARY KEY, Name TEXT UNIQUE, Elo INTEGER);
            CREATE TABLE Games (ID INTEGER PRIMARY KEY AUTOINCREMENT, EventID INTEGER, SiteID INTEGER, Date TEXT,
                Round TEXT, WhiteID INTEGER, WhiteElo INTEGER, BlackID INTEGER, BlackElo INTEGER, Result TEXT,
                TimeControl TEXT, ECO TEXT, PlyCount INTEGER, FEN TEXT, Moves2 BLOB DEFAULT NULL);
            CREATE TABLE Comments (ID INTEGER PRIMARY KEY AUTOINCREMENT, GameID INTEGER, Ply INTEGER, Comment TEXT);
            INSERT INTO Info VALUES ('Data Structure Version', '0.6');
            INSERT INTO Games (ID, WhiteID, BlackID, Moves2) VALUES (1, 0, 0, x'0c07');
            """)
        let before = try snapshot(path)
        XCTAssertThrowsError(try GameDatabase(path: path)) { error in
            guard case .notAGameDatabase(path, let reason) = error as? GameStoreError else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue(reason.hasPrefix("its Games table has no UTCTime, WhiteMaterial"), reason)
        }
        XCTAssertEqual(try snapshot(path).bytes, before.bytes)
        XCTAssertTrue(try isInWALMode(path), "the refusal comes before the journal mode changes")
        XCTAssertEqual(try GameDatabase.openForReading(path: path).game(id: 1).mainline.count, 1)
    }

    func testAGameDatabaseInWALModeIsWrittenAndLeftInDeleteMode() throws {
        let path = try sqliteFile("encroissant.db3", GameDatabase.schemaSQL)
        let database = try GameDatabase(path: path)
        XCTAssertEqual(try database.store(games: [GameSource(text: "1. e4 *", index: 0)]).stored, 1)
        XCTAssertFalse(try isInWALMode(path))
    }

    func testFilesThatAreNotSQLiteAreRefusedUntouched() throws {
        var generator = SystemRandomNumberGenerator()
        let contents: [(String, Data)] = [
            ("notes.db3", Data("these are not the games you are looking for\n".utf8)),
            ("random.db3", Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })),
            // The header alone, then nothing SQLite can read.
            ("damaged.db3", Data("SQLite format 3\u{0}".utf8) + Data(repeating: 0xFF, count: 200)),
        ]
        for (name, data) in contents {
            let path = folder.path(name)
            try data.write(to: URL(fileURLWithPath: path))
            let before = try snapshot(path)
            XCTAssertThrowsError(try GameDatabase(path: path), name) { error in
                guard let error = error as? GameStoreError else { return XCTFail("\(error)") }
                switch error {
                case .notAGameDatabase, .sqlite: break
                default: XCTFail("\(name): \(error)")
                }
            }
            let after = try snapshot(path)
            XCTAssertEqual(after.bytes, before.bytes, name)
            XCTAssertEqual(after.files, before.files, name)
        }
    }

    func testAnEmptyFileOrASQLiteFileWithoutTablesBecomesADatabase() throws {
        let empty = folder.path("empty.db3")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        XCTAssertEqual(try GameDatabase(path: empty).store(games: [GameSource(text: "1. e4 *", index: 0)]).stored, 1)

        let noTables = try sqliteFile("no-tables.db3", "PRAGMA user_version = 7;")
        XCTAssertGreaterThan(try snapshot(noTables).bytes.count, 0)
        let database = try GameDatabase(path: noTables)
        XCTAssertEqual(try database.store(games: [GameSource(text: "1. d4 *", index: 0)]).stored, 1)
        XCTAssertFalse(try isInWALMode(noTables))
    }

    func testADeviceOrAFolderIsRefusedBeforeItIsOpened() throws {
        XCTAssertThrowsError(try GameDatabase(path: "/dev/null")) { error in
            XCTAssertEqual(
                error as? GameStoreError,
                .notAGameDatabase(path: "/dev/null", reason: "it is a device, not a regular file"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/null-journal"))
        XCTAssertThrowsError(try GameDatabase.openForReading(path: "/dev/zero")) { error in
            XCTAssertEqual(
                error as? GameStoreError,
                .notAGameDatabase(path: "/dev/zero", reason: "it is a device, not a regular file"))
        }
        let inside = folder.url.appendingPathComponent("a-folder").path
        try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: false)
        XCTAssertThrowsError(try GameDatabase(path: inside)) { error in
            XCTAssertEqual(
                "\(error)",
                "\(inside) is not a game database this program can write: it is a folder, not a regular file")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), ["a-folder"])
    }

    func testAPathWithANulCharacterIsRefused() throws {
        // Put together as a string: a URL would write the NUL as "%00".
        let path = folder.url.path + "/games\u{0}.db3"
        XCTAssertThrowsError(try GameDatabase(path: path)) { error in
            XCTAssertEqual(error as? GameStoreError, .invalidPath(path: path, reason: "it holds a NUL character"))
            XCTAssertEqual(
                "\(error)", "\(folder.url.path)/games\\0.db3 cannot be a database file: it holds a NUL character")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), [], "no file \"games\"")
    }

    /// Another connection makes the tables while the writer waits for the lock to make them:
    /// the writer must see them under the lock, not what it read before.
    func testTheTablesMadeByAnotherProgramWhileWaitingForTheLockAreUsed() throws {
        let path = folder.path("shared.db3")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        // Another connection about to write: others may still read, not write.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let opened = expectation(description: "opened")
        nonisolated(unsafe) var outcome: Result<GameDatabase, any Error>?
        Thread.detachNewThread {
            outcome = Result { try GameDatabase(path: path) }
            opened.fulfill()
        }
        // The writer has looked at the empty file and waits for the lock; the other connection
        // makes the tables meanwhile.
        Thread.sleep(forTimeInterval: 0.5)
        try other.writeWithoutTransaction { db in
            try db.execute(sql: GameDatabase.schemaSQL)
            try db.execute(sql: "COMMIT")
        }
        wait(for: [opened], timeout: 30)
        let database = try XCTUnwrap(outcome).get()
        XCTAssertEqual(try database.store(games: [GameSource(text: "1. e4 *", index: 0)]).stored, 1)
    }

    func testTwoWritersCreatingTheSameNewFileAtOnceBothSucceed() throws {
        let games = (0..<20).map { GameSource(text: "[Round \"\($0)\"]\n\n1. e4 e5 2. Nf3 *", index: $0) }
        for attempt in 0..<8 {
            let path = folder.path("new-\(attempt).db3")
            let group = DispatchGroup()
            nonisolated(unsafe) var reports: [Result<StoreReport, any Error>] = []
            let lock = NSLock()
            for _ in 0..<2 {
                DispatchQueue.global().async(group: group) {
                    let report = Result { try GameDatabase(path: path).store(games: games) }
                    lock.withLock { reports.append(report) }
                }
            }
            group.wait()
            let done = try reports.map { try $0.get() }
            XCTAssertEqual(done.map(\.stored).reduce(0, +), 20, "attempt \(attempt)")
            XCTAssertEqual(done.map(\.duplicates).reduce(0, +), 20, "attempt \(attempt)")
        }
    }

    func testSomethingInThePlaceOfTheImportsLockFileIsLeftAsItIsAndTheIndexStillBuilt() throws {
        let input = folder.path("games.pgn")
        let text = (0..<50).map { "[Round \"\($0)\"]\n\n1. e4 e5 2. Nf3 Nc6 3. \($0 % 2 == 0 ? "Bb5" : "Bc4") *" }
        try text.joined(separator: "\n\n").write(toFile: input, atomically: false, encoding: .utf8)
        let target = folder.path("notes.txt")
        try "kept\n".write(toFile: target, atomically: false, encoding: .utf8)
        let places: [(String, (String) throws -> Void)] = [
            ("folder", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }),
            ("link", { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: target) }),
        ]
        for (name, make) in places {
            let path = folder.path("\(name).db3")
            let lock = path + ImportLock.suffix
            try make(lock)
            // No lock to hold: the import builds the tree at its end all the same (readers
            // meanwhile take it for interrupted, and do not answer from the index).
            let database = try GameDatabase(path: path)
            XCTAssertEqual(try database.importPGN(path: input).stored, 50, name)
            XCTAssertEqual(try database.positionIndexStatus(), .current, name)
            XCTAssertEqual(try database.explore(.startingPosition).games, 50, name)
            XCTAssertEqual(try database.buildPositionIndex(), 50, name)
            let kind = try FileManager.default.attributesOfItem(atPath: lock)[.type] as? FileAttributeType
            XCTAssertEqual(kind, name == "folder" ? .typeDirectory : .typeSymbolicLink, name)
        }
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "kept\n")
    }

    // MARK: Many tags

    /// A game with `count` tags `[T0 "0"]` … and then White and Black.
    func manyTags(_ count: Int) -> String {
        var text = ""
        for k in 0..<count { text += "[T\(k) \"\(k)\"]\n" }
        return text + "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 *\n"
    }

    func testAGameWithAHundredThousandTagsIsReadInLinearTime() throws {
        // Comparing each tag with every tag before it took 5·10⁹ comparisons here.
        let text = manyTags(100_000)
        let scanned = Array(text.utf8).withUnsafeBufferPointer { ImportScanner.games(in: $0) }
        XCTAssertEqual(scanned?.count, 1)
        XCTAssertEqual(scanned?.first?.tags.count, 100_002)

        let path = folder.path("tags.pgn")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let database = try GameDatabase(path: folder.path("tags.db3"))
        let report = try database.importPGN(path: path)
        XCTAssertEqual(report.stored, 1)
        let game = try database.game(id: 1)
        XCTAssertEqual(game.tag("White"), "Ann")
        XCTAssertEqual(game.tag("Black"), "Bob")
        XCTAssertEqual(game.mainline.count, 2)
    }

    func testARepeatedTagAmongManyIsStillLeftToTheParser() {
        for count in [3, 15, 16, 17, 40] {
            // Tag T1 again at the end: the parser starts another game there.
            let text = manyTags(count).replacingOccurrences(of: "[White", with: "[T1 \"again\"]\n[White")
            let scanned = Array(text.utf8).withUnsafeBufferPointer { ImportScanner.games(in: $0) }
            XCTAssertNil(scanned, "\(count) tags")
            let distinct = Array(manyTags(count).utf8).withUnsafeBufferPointer { ImportScanner.games(in: $0) }
            XCTAssertEqual(distinct?.first?.tags.count, count + 2)
        }
    }
}
