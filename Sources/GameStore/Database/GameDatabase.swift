import CStorageShims
import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import PGN

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
        /// Whether a new file gets the position index (kept up to date by every write).
        public var positionIndex = true
        /// Open only to build or remove the position index: the file must hold games (a
        /// `Games` table with moves), not the columns a write of games needs, so that files
        /// made by ocgdb, which lack some, can be indexed too.
        public var positionIndexOnly = false
        /// Refuse a game that cannot be stored as written (movetext kept as text, a result
        /// read from `1/2`, …) instead of storing it with its changes listed.
        public var strict = false

        public init(
            busyTimeout: Double = 5, moves: MovesContent = .full, commentRows: Bool = true, readOnly: Bool = false,
            positionIndex: Bool = true, strict: Bool = false
        ) {
            self.strict = strict
            self.positionIndex = positionIndex
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

    // Names already looked up, by table; valid while no other connection writes. A player's
    // entry also keeps the Elo stored for them when this connection added or raised it: a
    // game with a rating no higher needs no update.
    var playerIDs = NameIDs(limit: GameDatabase.namesCached)
    /// While every game of the file was written by this connection (the file had none when
    /// it first looked, and no other program wrote since): a hash of each game's identity and
    /// mainline, with its row. A game whose hash is not here is no duplicate, and needs no
    /// query; one whose hash is here is compared with the rows it names.
    var storedGameHashes: GameHashTable? = nil
    /// `storedGameHashes` while it waits in a scratch file, from the end of a large import
    /// until the next write.
    var storedGameHashesPutAside: GameHashTable.PutAside?
    /// Inside `withSearchIndexesBuiltAtTheEnd`, with the search indexes dropped.
    var searchIndexesDeferred = false
    /// An import inside `withSearchIndexesBuiltAtTheEnd` committed without syncing: the file
    /// is synced at its end.
    var syncPending = false
    /// `GamesIdentity` was dropped with the search indexes: built as soon as the duplicate
    /// check needs it (when the hashes no longer answer), else at the end with the others.
    var identityIndexDeferred = false
    /// During an import, whose opening tree is built at its end: what it wrote so far.
    var deferredPositionTree: DeferredTree?
    /// Whether the last tree built at the end of an import ranked the games from the results it
    /// kept (`ImportedResults`) rather than from `Games`.
    var treeRankedFromImportedResults = false
    var eventIDs = NameIDs(limit: GameDatabase.namesCached)
    var siteIDs = NameIDs(limit: GameDatabase.namesCached)
    var counts: Counts?
    var dataVersion: Int64?
    /// Which optional columns and tables the file has (files made by other programs may lack some).
    var layout: WriteLayout?

    /// A connection that only reads: its `PRAGMA data_version` when it last found the
    /// position index current (`checkedPositionIndexStatus`).
    var verifiedDataVersion: Int64?

    struct DeferredTree {
        /// What the import writes in `PositionIndexState.Updater` and in its `ImportLock`.
        var token: Int64
        /// Whether a game was written (and `Updater` set).
        var started = false
        /// Games whose keys were written.
        var games = 0
        /// Into a file without games: their results and ratings, as they were written.
        var imported: ImportedResults?
    }

    struct Counts {
        var games = 0
        var players = 0
        var events = 0
        var sites = 0
        var comments = 0
    }

    struct WriteLayout {
        var hasMoves2: Bool
        /// The `Tags` column, which files made by other programs lack (written when present).
        var hasTags: Bool
        var hasComments: Bool
    }

    /// The page cache of a writing connection, in KiB.
    static let cacheKiB = 32768

    /// The page cache while the search indexes are built at the end of an import, in KiB:
    /// also the size of each list their builds sort in memory.
    static let indexBuildCacheKiB = 4096

    /// The page cache while the opening tree is built at the end of an import, in KiB.
    static let treeCacheKiB = 8192

    /// SQLite's process-wide options, set before the first connection opens.
    static let sqliteOptions: Void = { _ = cstorage_configure_sqlite_for_bulk_writes() }()

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
            try GameDatabase.checkBeforeWriting(
                path: path, busyTimeout: options.busyTimeout, indexOnly: options.positionIndexOnly)
        } else if !exists && options.positionIndexOnly {
            throw GameStoreError.notAGameDatabase(path: path, reason: "the file does not exist")
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
            do {
                try run { db in try self.prepare(db, created: !exists) }
            } catch {
                // A full disk, say, before the tables were made: no empty file is left behind.
                if createdFile { GameDatabase.removeFiles(of: path) }
                throw error
            }
        }
    }

    /// Removes the file this database made, when it holds no game (an import that failed
    /// before its first game); true when it did.
    public func removeIfMadeAndEmpty() -> Bool {
        guard createdFile, (try? run { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") }) == 0 else {
            return false
        }
        GameDatabase.removeFiles(of: path)
        return true
    }

    /// Removes a database file and its rollback journal.
    static func removeFiles(of path: String) {
        for file in [path, path + "-journal"] { unlink(file) }
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
    static func checkBeforeWriting(path: String, busyTimeout: Double, indexOnly: Bool = false) throws {
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
        if indexOnly {
            guard schema.has("Games") else {
                throw GameStoreError.otherProgramsDatabase(path: path, tables: schema.tables, missing: ["Games"])
            }
            guard schema.gamesColumns.contains("Moves") || schema.gamesColumns.contains("Moves2") else {
                throw GameStoreError.notAGameDatabase(
                    path: path, reason: "its Games table has no Moves or Moves2 column")
            }
        } else if !schema.tables.isEmpty {
            _ = try writeLayout(schema, path: path)
        }
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
    func prepare(_ db: Database, created: Bool) throws {
        if options.positionIndexOnly {
            try db.execute(sql: "PRAGMA cache_size = -\(GameDatabase.cacheKiB)")
            return
        }
        let empty = try FileSchema(db).tables.isEmpty
        if !empty { layout = try checkWritable(db) }
        // Never leave the file in WAL mode: readers of the format expect a rollback journal.
        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        // Larger pages than SQLite's 4 KiB: a fifth of the B-tree pages and write calls for the
        // same games. Only a file without tables can still change its page size.
        if empty && created { try db.execute(sql: "PRAGMA page_size = 16384") }
        // A batch of an import writes a few megabytes: 32 MB of page cache holds it and the
        // upper levels of the B-trees; beyond that SQLite writes pages out before the commit
        // (cache_spill) instead of growing. Set after the page size: SQLite turns a size in
        // KiB into a number of pages with the page size of the moment (set before, 32 MB of
        // 4 KiB pages became 128 MB of 16 KiB pages).
        try db.execute(sql: "PRAGMA cache_size = -\(GameDatabase.cacheKiB)")
        if empty {
            try db.inTransaction(.immediate) {
                // Another program (another import, say) may have made the tables while this
                // one waited for the lock: the schema is read again, not from a cache.
                if try FileSchema(db).tables.isEmpty {
                    try db.execute(sql: OCGDBSchema.sql)
                    if options.positionIndex { try db.execute(sql: PositionIndex.schemaSQL) }
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
}
