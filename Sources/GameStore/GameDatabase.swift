import CSQLiteSetup
import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import PGN

/// Why a database could not be opened, written or read, in words a user can act on.
public enum GameStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another connection kept the database locked for longer than the busy timeout.
    case locked(path: String, seconds: Double)
    /// The file, or the folder it is in, cannot be written.
    case readOnly(path: String)
    /// The folder the database should be in does not exist.
    case missingFolder(path: String)
    /// The file is not a game database this program can write (or not SQLite at all).
    case notAGameDatabase(path: String, reason: String)
    /// The file is another program's SQLite database (it has tables, and not `Games` and
    /// `Info`): it is left as it is.
    case otherProgramsDatabase(path: String, tables: [String], missing: [String])
    /// The path cannot name a database file (it holds a NUL character, say).
    case invalidPath(path: String, reason: String)
    /// Any other SQLite failure.
    case sqlite(path: String, message: String)
    case noSuchGame(id: Int64)
    /// A stored game whose moves cannot be decoded.
    case unreadableGame(id: Int64, reason: String)

    public var description: String {
        switch self {
        case .locked(let path, let seconds):
            let wait = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
            return
                "database is locked by another program (\(path)): it was still busy after \(wait) s; close the program that has it open (a chess GUI, another import) and try again"
        case .readOnly(let path):
            return "cannot write \(path): the file or its folder is read-only"
        case .missingFolder(let path):
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            return "cannot create \(path): the folder \(folder) does not exist"
        case .notAGameDatabase(let path, let reason):
            return "\(path) is not a game database this program can write: \(reason)"
        case .otherProgramsDatabase(let path, let tables, let missing):
            let shown =
                tables.count > 8 ? tables.prefix(8).joined(separator: ", ") + ", …" : tables.joined(separator: ", ")
            return
                "\(path) is a SQLite database of another program, left unchanged: it has the table\(tables.count == 1 ? "" : "s") \(shown) and no \(missing.joined(separator: " or ")) table; choose another file"
        case .invalidPath(let path, let reason):
            let visible = path.replacingOccurrences(of: "\u{0}", with: "\\0")
            return "\(visible) cannot be a database file: \(reason)"
        case .sqlite(let path, let message):
            return "\(path): \(message)"
        case .noSuchGame(let id):
            return "there is no game with ID \(id)"
        case .unreadableGame(let id, let reason):
            return "game \(id) cannot be read: \(reason)"
        }
    }
}

/// A game to store: the PGN text of one game (or of several, numbered from `index`), and its
/// number in its file (from 0), which refusals quote.
public struct GameSource: Sendable {
    public var bytes: [UInt8]
    public var index: Int

    public init(bytes: [UInt8], index: Int) {
        self.bytes = bytes
        self.index = index
    }

    public init(text: String, index: Int) {
        self.init(bytes: Array(text.utf8), index: index)
    }
}

/// What a save did.
public struct StoreReport: Sendable, Equatable {
    /// Games written.
    public var stored = 0
    /// Games already in the database (same players, event, site, date, time, round and moves).
    public var duplicates = 0
    /// Games that could not be stored, in file order.
    public var refused: [RefusedGame] = []
    /// The `Games.ID` of each stored game, in order.
    public var storedIDs: [Int64] = []

    public init() {}

    /// Games read: stored, duplicate or refused.
    public var total: Int { stored + duplicates + refused.count }

    public mutating func add(_ other: StoreReport) {
        stored += other.stored
        duplicates += other.duplicates
        refused += other.refused
        storedIDs += other.storedIDs
    }
}

/// An OCGDB game database (SQLite) that En Croissant and ocgdb can open: created on first use,
/// written in transactions that store whole games or nothing, and read back as PGN.
///
/// One instance serialises its own work; several programs may hold the file, and a save waits
/// up to `Options.busyTimeout` for another program's lock before it fails.
public final class GameDatabase: @unchecked Sendable {
    public struct Options: Sendable {
        /// How long a save waits for another program's lock, in seconds.
        public var busyTimeout: Double = 5
        /// Whether `Moves` holds comments, NAGs and variations too.
        public var moves: MovesContent = .full
        /// Whether mainline comments also go to the `Comments` table (read by ocgdb).
        public var commentRows = true
        /// Open for reading only: nothing is created or changed.
        public var readOnly = false

        public init(
            busyTimeout: Double = 5, moves: MovesContent = .full, commentRows: Bool = true, readOnly: Bool = false
        ) {
            self.busyTimeout = busyTimeout
            self.moves = moves
            self.commentRows = commentRows
            self.readOnly = readOnly
        }
    }

    public let path: String
    public let options: Options
    let queue: DatabaseQueue
    /// Whether this instance made the file: its imports may skip SQLite's syncs, since a
    /// machine crash then loses nothing that was in a database before the program ran.
    let createdFile: Bool

    // Names already looked up, by table; valid while no other connection writes.
    private var playerIDs: [String: Int64] = [:]
    /// The Elo stored for players this connection added or raised: a game with a rating no
    /// higher needs no update.
    private var storedElo: [Int64: Int] = [:]
    /// While every game of the file was written by this connection (the file had none when
    /// it first looked, and no other program wrote since): a hash of each game's identity and
    /// mainline. A game whose hash is not here is no duplicate, and needs no query.
    private var storedGameHashes: Set<Int>? = nil
    /// Inside `withSearchIndexesBuiltAtTheEnd`, with the search indexes dropped.
    private var searchIndexesDeferred = false
    private var eventIDs: [String: Int64] = [:]
    private var siteIDs: [String: Int64] = [:]
    private var counts: Counts?
    private var dataVersion: Int64?
    /// Which optional columns and tables the file has (files made by other programs may lack some).
    private var layout: WriteLayout?

    struct Counts {
        var games = 0
        var players = 0
        var events = 0
        var sites = 0
        var comments = 0
    }

    struct WriteLayout {
        var hasMoves2: Bool
        var hasComments: Bool
    }

    /// SQLite's process-wide options, set before the first connection opens.
    private static let sqliteOptions: Void = { _ = csqlite_setup_for_bulk_writes() }()

    /// Opens the database at `path`, creating it (and its tables) if the file does not exist
    /// or is empty. A file that is not a game database is refused before anything in it changes.
    public init(path: String, options: Options = Options()) throws {
        _ = GameDatabase.sqliteOptions
        self.path = path
        self.options = options
        // The file functions would read the path only up to the NUL, and name another file.
        if path.utf8.contains(0) {
            throw GameStoreError.invalidPath(path: path, reason: "it holds a NUL character")
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw GameStoreError.missingFolder(path: path)
        }
        let exists = FileManager.default.fileExists(atPath: path)
        if exists, let kind = GameDatabase.notARegularFile(path) {
            // SQLite would open a device and write its journal beside it.
            throw GameStoreError.notAGameDatabase(path: path, reason: "it is \(kind), not a regular file")
        }
        createdFile = !exists && !options.readOnly
        if options.readOnly {
            guard exists else { throw GameStoreError.notAGameDatabase(path: path, reason: "the file does not exist") }
        } else if exists && !GameDatabase.isWritable(path) {
            throw GameStoreError.readOnly(path: path)
        } else if !GameDatabase.isWritable(folder) {
            // SQLite writes its rollback journal beside the file.
            throw GameStoreError.readOnly(path: path)
        }
        if exists && !options.readOnly {
            try GameDatabase.checkBeforeWriting(path: path, busyTimeout: options.busyTimeout)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.readonly = options.readOnly
        configuration.foreignKeysEnabled = true
        configuration.label = "GameStore"
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw GameDatabase.translate(error, path: path, busyTimeout: options.busyTimeout)
        }
        if !options.readOnly {
            try run { db in try self.prepare(db, created: !exists) }
        }
    }

    /// What the file at `path` is when it is not a regular file ("a folder", "a device", …), or
    /// nil when it is one (a symbolic link counts as the file it names).
    static func notARegularFile(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }

    /// Refuses an existing file that this program must not write: one that is not SQLite, or
    /// another program's database, or a game database that lacks what a write needs. It is
    /// read through a read-only connection, so that nothing in it changes (not even its
    /// journal mode). An empty file, or a SQLite file without tables, may become a database.
    static func checkBeforeWriting(path: String, busyTimeout: Double) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        let header = (try? handle.read(upToCount: 20)) ?? Data()
        try? handle.close()
        if header.isEmpty { return }
        guard header.count == 20, header.prefix(16).elementsEqual("SQLite format 3\u{0}".utf8) else {
            throw GameStoreError.notAGameDatabase(path: path, reason: "the file is not SQLite")
        }
        // In WAL mode (bytes 18 and 19 are 2) with no WAL file beside it, the file holds the
        // whole database: read as immutable, SQLite makes no WAL and shared-memory files.
        let immutable =
            header[header.startIndex + 18] == 2 && !FileManager.default.fileExists(atPath: path + "-wal")
        let schema = try FileSchema(readOnly: path, immutable: immutable, busyTimeout: busyTimeout)
        if !schema.tables.isEmpty { _ = try writeLayout(schema, path: path) }
    }

    /// Writable for this process, and not marked read-only (no write permission for anyone):
    /// a file marked so is left alone even by a process that could override the mark.
    static func isWritable(_ path: String) -> Bool {
        guard FileManager.default.isWritableFile(atPath: path) else { return false }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let permissions = attributes?[.posixPermissions] as? NSNumber else { return true }
        return permissions.intValue & 0o222 != 0
    }

    /// The SQL that creates the tables, indexes, sentinel rows and Info rows of a new file.
    public static var schemaSQL: String { OCGDBSchema.sql }

    /// Runs `body` on the connection, turning SQLite errors into `GameStoreError`s.
    func run<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.writeWithoutTransaction(body)
        } catch {
            throw GameDatabase.translate(error, path: path, busyTimeout: options.busyTimeout)
        }
    }

    static func translate(_ error: any Error, path: String, busyTimeout: Double) -> any Error {
        if error is GameStoreError { return error }
        guard let error = error as? DatabaseError else { return error }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return GameStoreError.locked(path: path, seconds: busyTimeout)
        case .SQLITE_READONLY: return GameStoreError.readOnly(path: path)
        case .SQLITE_NOTADB: return GameStoreError.notAGameDatabase(path: path, reason: "the file is not SQLite")
        case .SQLITE_CANTOPEN:
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if !FileManager.default.fileExists(atPath: folder) { return GameStoreError.missingFolder(path: path) }
            return GameStoreError.sqlite(path: path, message: "cannot open the file (\(error.message ?? "unknown"))")
        default:
            return GameStoreError.sqlite(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }

    /// Journal mode, and the tables of a new file. A file with tables is checked before
    /// anything is changed.
    private func prepare(_ db: Database, created: Bool) throws {
        let empty = try FileSchema(db).tables.isEmpty
        if !empty { layout = try checkWritable(db) }
        // Never leave the file in WAL mode: readers of the format expect a rollback journal.
        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        // A batch of an import writes tens of megabytes: a large page cache keeps SQLite from
        // spilling pages to the file before the commit.
        try db.execute(sql: "PRAGMA cache_size = -65536")
        if empty {
            // Larger pages than SQLite's 4 KiB: a fifth of the B-tree pages and write calls
            // for the same games. Only a file without tables can still change its page size.
            if created { try db.execute(sql: "PRAGMA page_size = 16384") }
            try db.inTransaction(.immediate) {
                // Another program (another import, say) may have made the tables while this
                // one waited for the lock: the schema is read again, not from a cache.
                if try FileSchema(db).tables.isEmpty {
                    try db.execute(sql: OCGDBSchema.sql)
                    let title = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                    try db.execute(sql: "UPDATE Info SET Value = ? WHERE Name = 'Title'", arguments: [title])
                }
                return .commit
            }
            layout = try checkWritable(db)
        } else {
            // Not a reason to refuse the file, which works without them: the next opening
            // tries again.
            try? restoreSearchIndexes(db)
        }
    }

    // MARK: Search indexes

    /// The indexes of the format that serve searches (by date, player, result, rating, length),
    /// as the schema creates them: all but `GamesIdentity`, which the duplicate check reads.
    static let searchIndexes: [(name: String, sql: String)] = OCGDBSchema.sql
        .split(separator: "\n")
        .filter { $0.hasPrefix("CREATE INDEX ") && !$0.hasPrefix("CREATE INDEX GamesIdentity ") }
        .map { line in (String(line.split(separator: " ")[2]), String(line)) }

    /// Runs `body` (imports, typically of several files) with the search indexes of a file
    /// this instance created and that has no games yet left out, and builds them once at the
    /// end from the whole table: that costs less than adding each game to seven indexes as it
    /// comes. Also after a failure, as the games stored stay, unless another program holds
    /// the file (its next opening by pgn-lsp, or import through an instance, builds them
    /// then, as after a stopped import). Otherwise `body` runs with the indexes in place, and
    /// inside another such call, as it is.
    public func withSearchIndexesBuiltAtTheEnd<T>(_ body: () throws -> T) throws -> T {
        guard !searchIndexesDeferred else { return try body() }
        guard createdFile, try dropSearchIndexesOfEmptyFile() else {
            // A file with games keeps its indexes up to date as games come: any left out by
            // an import that stopped since this instance opened the file are built first.
            try run { db in try self.restoreSearchIndexes(db) }
            return try body()
        }
        searchIndexesDeferred = true
        let outcome = Result { try body() }
        searchIndexesDeferred = false
        var locked = false
        if case .failure(GameStoreError.locked) = outcome { locked = true }
        if !locked {
            // The games are in: the system may write them to the disk while the indexes are
            // built, instead of in the final sync.
            _ = csqlite_start_writeback(path)
            do {
                try run { db in try self.restoreSearchIndexes(db) }
            } catch {
                // Reported only when the imports themselves went well.
                if case .success = outcome { throw error }
            }
        }
        return try outcome.get()
    }

    /// Drops the search indexes of a file made by this program that has no games yet; returns
    /// whether it did.
    func dropSearchIndexesOfEmptyFile() throws -> Bool {
        try run { db in
            var dropped = false
            try db.inTransaction(.immediate) {
                guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") == 0,
                    try GameDatabase.indexNames(db).contains("GamesIdentity")
                else { return .commit }
                for index in GameDatabase.searchIndexes {
                    try db.execute(sql: "DROP INDEX IF EXISTS \(index.name)")
                }
                dropped = true
                return .commit
            }
            return dropped
        }
    }

    /// Creates the search indexes missing from a file made by this program (one that has the
    /// `GamesIdentity` index): after an import, or when an import was stopped before its end.
    /// Files made by other programs keep the indexes they have.
    func restoreSearchIndexes(_ db: Database) throws {
        let names = try GameDatabase.indexNames(db)
        guard names.contains("GamesIdentity") else { return }
        guard GameDatabase.searchIndexes.contains(where: { !names.contains($0.name) }) else { return }
        // The builds read the whole table once per index: through a memory map, SQLite reads
        // its pages without copying them.
        try db.execute(sql: "PRAGMA mmap_size = 1073741824")
        defer { try? db.execute(sql: "PRAGMA mmap_size = 0") }
        try db.inTransaction(.immediate) {
            // Looked up again under the lock: another import may have built them meanwhile.
            let names = try GameDatabase.indexNames(db)
            for index in GameDatabase.searchIndexes where !names.contains(index.name) {
                try db.execute(sql: index.sql)
            }
            return .commit
        }
    }

    /// The names of the file's indexes. A file with `GamesIdentity` was made by this program.
    private static func indexNames(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
    }

    /// The optional parts of the file's schema; throws when the file lacks what every write needs.
    private func checkWritable(_ db: Database) throws -> WriteLayout {
        try GameDatabase.writeLayout(try FileSchema(db), path: path)
    }

    /// The optional parts of a schema with tables; throws when it is another program's
    /// (no `Games` or no `Info`) or lacks what every write needs.
    static func writeLayout(_ schema: FileSchema, path: String) throws -> WriteLayout {
        let missingTables = ["Games", "Info"].filter { !schema.has($0) }
        if !missingTables.isEmpty {
            throw GameStoreError.otherProgramsDatabase(path: path, tables: schema.tables, missing: missingTables)
        }
        let columns = schema.gamesColumns
        let required = [
            "EventID", "SiteID", "Date", "UTCTime", "Round", "WhiteID", "WhiteElo", "BlackID", "BlackElo",
            "WhiteMaterial", "BlackMaterial", "Result", "TimeControl", "ECO", "PlyCount", "FEN", "Moves", "PawnHome",
        ]
        let missing = required.filter { !columns.contains($0) }
        if !missing.isEmpty {
            throw GameStoreError.notAGameDatabase(
                path: path, reason: "its Games table has no \(missing.joined(separator: ", ")) column")
        }
        for table in ["Players", "Events", "Sites"] where !schema.has(table) {
            throw GameStoreError.notAGameDatabase(path: path, reason: "it has no \(table) table")
        }
        return WriteLayout(hasMoves2: columns.contains("Moves2"), hasComments: schema.has("Comments"))
    }

    /// The tables of a file and the columns of its `Games` table, read from SQLite itself and
    /// never from a cache: another program may have changed them since they were last read.
    struct FileSchema {
        /// The tables, SQLite's own left out, by name.
        var tables: [String]
        var gamesColumns: Set<String>

        static let tablesSQL = """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
            ORDER BY name
            """
        static let gamesColumnsSQL = "SELECT name FROM pragma_table_info('Games')"

        init(_ db: Database) throws {
            tables = try String.fetchAll(db, sql: FileSchema.tablesSQL)
            gamesColumns = Set(try String.fetchAll(db, sql: FileSchema.gamesColumnsSQL))
        }

        /// Reads the file at `path` through a connection of its own, read-only (and
        /// `immutable`: without locks, WAL or shared memory, when nothing can be in a WAL).
        init(readOnly path: String, immutable: Bool, busyTimeout: Double) throws {
            let name = immutable ? URL(fileURLWithPath: path).absoluteString + "?immutable=1" : path
            var connection: OpaquePointer?
            defer { sqlite3_close_v2(connection) }
            func failure(_ code: Int32) -> any Error {
                let message = connection.map { String(cString: sqlite3_errmsg($0)) }
                return GameDatabase.translate(
                    DatabaseError(resultCode: ResultCode(rawValue: code), message: message), path: path,
                    busyTimeout: busyTimeout)
            }
            let opened = sqlite3_open_v2(name, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
            guard opened == SQLITE_OK, let connection else { throw failure(opened) }
            sqlite3_busy_timeout(connection, Int32(min(busyTimeout * 1000, Double(Int32.max))))
            func names(_ sql: String) throws -> [String] {
                var statement: OpaquePointer?
                defer { sqlite3_finalize(statement) }
                let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
                guard prepared == SQLITE_OK else { throw failure(prepared) }
                var names: [String] = []
                while true {
                    let step = sqlite3_step(statement)
                    if step == SQLITE_DONE { return names }
                    guard step == SQLITE_ROW else { throw failure(step) }
                    names.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
                }
            }
            tables = try names(FileSchema.tablesSQL)
            gamesColumns = Set(try names(FileSchema.gamesColumnsSQL))
        }

        /// Whether the file has the table (SQLite's names ignore case).
        func has(_ table: String) -> Bool { tables.contains { $0.lowercased() == table.lowercased() } }
    }

    // MARK: Storing

    /// Stores games given as PGN text: they are read on every core, then written in one
    /// transaction. `progress` is called with (games done, games in all) while writing.
    public func store(games: [GameSource], progress: ((Int, Int) -> Void)? = nil) throws -> StoreReport {
        let content = options.moves
        let commentRows = options.commentRows
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<[Result<EncodedGame, RefusedGame>]>.allocate(
            capacity: games.count)
        results.initialize(repeating: [])
        defer {
            results.deinitialize()
            results.deallocate()
        }
        DispatchQueue.concurrentPerform(iterations: games.count) { k in
            results[k] = GameEncoder.encode(
                bytes: games[k].bytes, firstIndex: games[k].index, content: content, commentRows: commentRows)
        }
        return try write(
            pieces: Array(results), indexOffsets: Array(repeating: 0, count: games.count), progress: progress)
    }

    /// Writes encoded games (and records refused ones) in one transaction: either every game
    /// of the batch is stored or, on an error, none is.
    public func write(
        _ games: [Result<EncodedGame, RefusedGame>], progress: ((Int, Int) -> Void)? = nil
    ) throws -> StoreReport {
        try write(pieces: [games], indexOffsets: [0], progress: progress)
    }

    /// `write(_:)` for games encoded piece by piece: the refusals of `pieces[k]` are numbered
    /// from `indexOffsets[k]`.
    func write(
        pieces: [[Result<EncodedGame, RefusedGame>]], indexOffsets: [Int], progress: ((Int, Int) -> Void)? = nil
    ) throws -> StoreReport {
        var report = StoreReport()
        try run { db in
            try db.inTransaction(.immediate) {
                report = try self.writeInTransaction(db, pieces, indexOffsets, progress: progress)
                return .commit
            }
        }
        if report.stored > 0 { removeSearchIndex() }
        return report
    }

    private func writeInTransaction(
        _ db: Database, _ pieces: [[Result<EncodedGame, RefusedGame>]], _ indexOffsets: [Int],
        progress: ((Int, Int) -> Void)?
    ) throws -> StoreReport {
        let total = pieces.reduce(0) { $0 + $1.count }
        var done = 0
        let layout = try self.layout ?? checkWritable(db)
        self.layout = layout
        try refreshCaches(db)
        var counts = self.counts!
        var report = StoreReport()

        let insertPlayer = try PreparedStatement(db, "INSERT OR IGNORE INTO Players (Name, Elo) VALUES (?, ?)")
        let selectPlayer = try PreparedStatement(db, "SELECT ID FROM Players WHERE Name = ?")
        let insertEvent = try PreparedStatement(db, "INSERT OR IGNORE INTO Events (Name) VALUES (?)")
        let selectEvent = try PreparedStatement(db, "SELECT ID FROM Events WHERE Name = ?")
        let insertSite = try PreparedStatement(db, "INSERT OR IGNORE INTO Sites (Name) VALUES (?)")
        let selectSite = try PreparedStatement(db, "SELECT ID FROM Sites WHERE Name = ?")
        let findDuplicate = try PreparedStatement(
            db,
            """
            SELECT 1 FROM Games WHERE WhiteID = ?1 AND BlackID = ?2 AND EventID = ?3 AND SiteID = ?4 \
            AND Date IS ?5 AND UTCTime IS ?6 AND Round IS ?7 AND Moves = ?8 LIMIT 1
            """)
        let moves2Column = layout.hasMoves2 ? ", Moves2" : ""
        let moves2Value = layout.hasMoves2 ? ", ?19" : ""
        let insertGame = try PreparedStatement(
            db,
            """
            INSERT INTO Games (EventID, SiteID, Date, UTCTime, Round, WhiteID, WhiteElo, BlackID, BlackElo, \
            WhiteMaterial, BlackMaterial, Result, TimeControl, ECO, PlyCount, FEN, Moves, PawnHome\(moves2Column)) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18\(moves2Value))
            """)
        let writesComments = options.commentRows && layout.hasComments
        // Comment rows go in many at a time: one statement per row would cost more than the row.
        let commentsPerStatement = 64
        var insertComments: [Int: PreparedStatement] = [:]
        func insertCommentsStatement(_ count: Int) throws -> PreparedStatement {
            if let statement = insertComments[count] { return statement }
            let values = Array(repeating: "(?, ?, ?)", count: count).joined(separator: ", ")
            let statement = try PreparedStatement(db, "INSERT INTO Comments (GameID, Ply, Comment) VALUES \(values)")
            insertComments[count] = statement
            return statement
        }

        func id(
            _ name: String?, cache: inout [String: Int64], insert: PreparedStatement, select: PreparedStatement,
            added: inout Int, player: Bool = false, elo: Int? = nil
        ) throws -> Int64 {
            guard let name else { return 0 }
            if let known = cache[name] { return known }
            insert.bind(1, name)
            // A new player gets the rating of the game that adds them: most players of a
            // large file appear once, and their row is then written once.
            if player { insert.bind(2, elo) }
            try insert.step()
            insert.reset()
            let id: Int64
            if db.changesCount > 0 {
                id = db.lastInsertedRowID
                added += 1
                if player, let elo { storedElo[id] = elo }
            } else {
                select.bind(1, name)
                guard try select.step() else {
                    select.reset()
                    throw GameStoreError.sqlite(path: path, message: "could not find or add \"\(name)\"")
                }
                id = select.int64(column: 0)
                select.reset()
            }
            cache[name] = id
            return id
        }

        var bestElo: [Int64: Int] = [:]
        func raise(_ player: Int64, to elo: Int?) {
            guard let elo, player != 0, (storedElo[player] ?? Int.min) < elo else { return }
            bestElo[player] = max(bestElo[player] ?? elo, elo)
        }
        for (piece, games) in pieces.enumerated() {
            for result in games {
                if let progress, done % 256 == 0 { progress(done, total) }
                done += 1
                let game: EncodedGame
                switch result {
                case .failure(var refused):
                    refused.index += indexOffsets[piece]
                    report.refused.append(refused)
                    continue
                case .success(let encoded):
                    game = encoded
                }
                let white = try id(
                    game.white, cache: &playerIDs, insert: insertPlayer, select: selectPlayer, added: &counts.players,
                    player: true, elo: game.whiteElo)
                let black = try id(
                    game.black, cache: &playerIDs, insert: insertPlayer, select: selectPlayer, added: &counts.players,
                    player: true, elo: game.blackElo)
                let event = try id(
                    game.event, cache: &eventIDs, insert: insertEvent, select: selectEvent, added: &counts.events)
                let site = try id(
                    game.site, cache: &siteIDs, insert: insertSite, select: selectSite, added: &counts.sites)

                // Hashed only while the hashes can answer: the mainline and the length of the
                // whole tell games apart well enough (the query decides); hashing every
                // comment would cost more.
                var hash: Int?
                if storedGameHashes != nil {
                    var identity = Hasher()
                    identity.combine(white)
                    identity.combine(black)
                    identity.combine(event)
                    identity.combine(site)
                    identity.combine(game.date)
                    identity.combine(game.utcTime)
                    identity.combine(game.round)
                    identity.combine(game.moves.count)
                    game.moves2.withUnsafeBytes { identity.combine(bytes: $0) }
                    hash = identity.finalize()
                }
                if hash.flatMap({ storedGameHashes?.contains($0) }) ?? true {
                    findDuplicate.bind(1, white)
                    findDuplicate.bind(2, black)
                    findDuplicate.bind(3, event)
                    findDuplicate.bind(4, site)
                    findDuplicate.bind(5, game.date)
                    findDuplicate.bind(6, game.utcTime)
                    findDuplicate.bind(7, game.round)
                    let duplicate = try game.moves.withUnsafeBytes { moves in
                        findDuplicate.bindBlob(8, borrowing: moves)
                        defer { findDuplicate.reset() }
                        return try findDuplicate.step()
                    }
                    if duplicate {
                        report.duplicates += 1
                        continue
                    }
                }

                insertGame.bind(1, event)
                insertGame.bind(2, site)
                insertGame.bind(3, game.date)
                insertGame.bind(4, game.utcTime)
                insertGame.bind(5, game.round)
                insertGame.bind(6, white)
                insertGame.bind(7, game.whiteElo)
                insertGame.bind(8, black)
                insertGame.bind(9, game.blackElo)
                insertGame.bind(10, game.whiteMaterial)
                insertGame.bind(11, game.blackMaterial)
                insertGame.bind(12, game.result)
                insertGame.bind(13, game.timeControl)
                insertGame.bind(14, game.eco)
                insertGame.bind(15, game.plyCount)
                insertGame.bind(16, game.fen)
                insertGame.bind(18, game.pawnHome)
                try game.moves.withUnsafeBytes { moves in
                    try game.moves2.withUnsafeBytes { moves2 in
                        insertGame.bindBlob(17, borrowing: moves)
                        if layout.hasMoves2 { insertGame.bindBlob(19, borrowing: moves2) }
                        defer { insertGame.reset() }
                        try insertGame.step()
                    }
                }
                let gameID = db.lastInsertedRowID
                if let hash { storedGameHashes?.insert(hash) }
                report.stored += 1
                report.storedIDs.append(gameID)
                counts.games += 1

                if writesComments {
                    var next = 0
                    let rows = game.commentRows
                    try game.commentBytes.withUnsafeBufferPointer { text in
                        while next < rows.count {
                            let count = min(commentsPerStatement, rows.count - next)
                            let statement = try insertCommentsStatement(count)
                            for k in 0..<count {
                                let row = rows[next + k]
                                let column = Int32(3 * k)
                                statement.bind(column + 1, gameID)
                                statement.bind(column + 2, row.ply)
                                statement.bindText(
                                    column + 3, borrowing: UnsafeBufferPointer(rebasing: text[row.range]))
                            }
                            defer { statement.reset() }
                            try statement.step()
                            next += count
                        }
                    }
                    counts.comments += rows.count
                }
                // A player's Elo is the highest rating seen in their games.
                raise(white, to: game.whiteElo)
                raise(black, to: game.blackElo)
            }
        }

        if !bestElo.isEmpty {
            let updateElo = try PreparedStatement(
                db, "UPDATE Players SET Elo = ?2 WHERE ID = ?1 AND (Elo IS NULL OR Elo < ?2)")
            for (player, elo) in bestElo {
                updateElo.bind(1, player)
                updateElo.bind(2, elo)
                try updateElo.step()
                updateElo.reset()
                storedElo[player] = elo
            }
        }
        try writeCounts(db, counts)
        self.counts = counts
        progress?(total, total)
        return report
    }

    /// Drops what this connection remembers when another program changed the file since.
    private func refreshCaches(_ db: Database) throws {
        let version = try Int64.fetchOne(db, sql: "PRAGMA data_version")
        if version == dataVersion && counts != nil { return }
        playerIDs.removeAll()
        storedElo.removeAll()
        eventIDs.removeAll()
        siteIDs.removeAll()
        var counts = Counts()
        counts.games = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") ?? 0
        counts.players = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Players") ?? 0
        counts.events = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Events") ?? 0
        counts.sites = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Sites") ?? 0
        if layout?.hasComments == true {
            counts.comments = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Comments") ?? 0
        }
        self.counts = counts
        dataVersion = version
        // With no games in the file, every game it will hold is written here (until another
        // program writes: then this runs again, and the file has games).
        storedGameHashes = counts.games == 0 ? [] : nil
    }

    private func writeCounts(_ db: Database, _ counts: Counts) throws {
        let upsert = try PreparedStatement(
            db, "INSERT INTO Info (Name, Value) VALUES (?, ?) ON CONFLICT (Name) DO UPDATE SET Value = excluded.Value")
        var rows = [
            ("GameCount", counts.games), ("PlayerCount", counts.players), ("EventCount", counts.events),
            ("SiteCount", counts.sites),
        ]
        if layout?.hasComments == true { rows.append(("CommentCount", counts.comments)) }
        for (name, value) in rows {
            upsert.bind(1, name)
            upsert.bind(2, String(value))
            try upsert.step()
            upsert.reset()
        }
    }

    /// En Croissant's position-search index (`<name>.ecsi`) describes the games as they were:
    /// it is never rebuilt by itself, so it goes after every change.
    private func removeSearchIndex() {
        let url = URL(fileURLWithPath: path)
        let candidates = [
            url.deletingPathExtension().appendingPathExtension("ecsi"), url.appendingPathExtension("ecsi"),
        ]
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate.path) {
            try? FileManager.default.removeItem(at: candidate)
        }
    }
}
