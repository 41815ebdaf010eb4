import CStorageShims
import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import PGN

extension GameDatabase {
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
        defer {
            if syncPending {
                syncFile()
                syncPending = false
            }
        }
        var locked = false
        if case .failure(GameStoreError.locked) = outcome { locked = true }
        if !locked {
            // The games are in: the system may write them to the disk while the indexes are
            // built, instead of in the final sync.
            _ = cstorage_start_writeback(path)
            do {
                try run { db in try self.restoreSearchIndexes(db) }
            } catch {
                // Reported only when the imports themselves went well.
                if case .success = outcome { throw error }
            }
        }
        return try outcome.get()
    }

    /// Drops the search indexes of a file made by this program that has no games yet, and
    /// `GamesIdentity` with them (built when the duplicate check needs it, see
    /// `identityIndexDeferred`); returns whether it did.
    func dropSearchIndexesOfEmptyFile() throws -> Bool {
        try run { db in
            var dropped = false
            try db.inTransaction(.immediate) {
                guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") == 0,
                    try GameDatabase.indexNames(db).contains("GamesIdentity")
                else { return .commit }
                let stamp = try GameDatabase.unchangedStamp(db)
                for index in GameDatabase.searchIndexes + [GameDatabase.identityIndex] {
                    try db.execute(sql: "DROP INDEX IF EXISTS \(index.name)")
                }
                try GameDatabase.keepStamp(db, stamp)
                dropped = true
                return .commit
            }
            identityIndexDeferred = dropped
            return dropped
        }
    }

    /// The index the duplicate check reads when the hashes of the games written do not answer.
    static let identityIndex: (name: String, sql: String) = {
        let line = OCGDBSchema.sql.split(separator: "\n").first { $0.hasPrefix("CREATE INDEX GamesIdentity ") }!
        return ("GamesIdentity", String(line))
    }()

    /// Builds `GamesIdentity` now if it was left out and the duplicate check is about to need
    /// it: inside the transaction of a write, once the hashes no longer answer.
    func buildIdentityIndexIfNeeded(_ db: Database) throws {
        guard identityIndexDeferred, storedGameHashes == nil else { return }
        try db.execute(
            sql: GameDatabase.identityIndex.sql.replacingOccurrences(
                of: "CREATE INDEX ", with: "CREATE INDEX IF NOT EXISTS "))
        identityIndexDeferred = false
    }

    /// Creates the search indexes and `GamesIdentity` missing from a file made by this
    /// program (one with `GamesIdentity` or the `Tags` column): after an import, or when an
    /// import was stopped before its end. Files made by other programs keep the indexes they
    /// have.
    func restoreSearchIndexes(_ db: Database) throws {
        let names = try GameDatabase.indexNames(db)
        let all = GameDatabase.searchIndexes + [GameDatabase.identityIndex]
        guard all.contains(where: { !names.contains($0.name) }) else { return }
        guard try names.contains("GamesIdentity") || GameDatabase.hasTagsColumn(db) else { return }
        // Each build reads the whole table through the page cache (no memory map: its pages
        // would stay resident, the whole file) and sorts in lists as large as the cache,
        // merged from temporary files beyond one. Small lists, sorted by one helper thread
        // per core while the next fills, build them faster than one large list: at a million
        // games 3.8–4.0 s instead of 6.1–6.2 with 32 MB, and with a quarter of the memory.
        try db.execute(sql: "PRAGMA cache_size = -\(GameDatabase.indexBuildCacheKiB)")
        defer { _ = try? db.execute(sql: "PRAGMA cache_size = -\(GameDatabase.cacheKiB)") }
        let helpers = min(8, max(1, ProcessInfo.processInfo.activeProcessorCount))
        try db.execute(sql: "PRAGMA threads = \(helpers)")
        defer { _ = try? db.execute(sql: "PRAGMA threads = 0") }
        try db.inTransaction(.immediate) {
            // Looked up again under the lock: another import may have built them meanwhile.
            let names = try GameDatabase.indexNames(db)
            let stamp = try GameDatabase.unchangedStamp(db)
            for index in all where !names.contains(index.name) {
                try db.execute(sql: index.sql)
            }
            try GameDatabase.keepStamp(db, stamp)
            return .commit
        }
        identityIndexDeferred = false
    }

    /// Whether `Games` has pgn-lsp's own `Tags` column.
    static func hasTagsColumn(_ db: Database) throws -> Bool {
        try Row.fetchAll(db, sql: "PRAGMA table_info(Games)").contains { ($0["name"] as String?) == "Tags" }
    }

    /// The names of the file's indexes. A file with `GamesIdentity` was made by this program.
    static func indexNames(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
    }
}
