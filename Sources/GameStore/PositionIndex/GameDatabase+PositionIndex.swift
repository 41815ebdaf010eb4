import CStorageShims
import ChessCore
import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import PGN

/// Whether a file's position index describes its games.
public enum PositionIndexStatus: Sendable, Equatable, CustomStringConvertible {
    /// The file has no position index (made by another program, or by an older pgn-lsp).
    case missing
    /// It has one that no longer describes the games: another program changed them or the
    /// index's own tables since, an import stopped before its end, or it was made by another
    /// version of pgn-lsp.
    case stale(reason: String)
    /// An import (in this or another process) is adding games: their moves are in, their
    /// opening-tree counts come at its end.
    case updating
    case current

    /// Whether searches and the explorer can answer from it (while it is being updated, from
    /// the moves of the games stored so far).
    public var isUsable: Bool { self == .current || self == .updating }

    public var description: String {
        switch self {
        case .missing: return "the database has no position index"
        case .stale(let reason): return "the database's position index is out of date (\(reason))"
        case .updating: return "the database's position index is being updated by an import"
        case .current: return "the database's position index is up to date"
        }
    }

    /// What brings the index of the file at `path` up to date; nil when it is.
    public func remedy(path: String) -> String? {
        switch self {
        case .current: return nil
        case .updating: return "the import brings it up to date at its end"
        case .missing, .stale: return "build it with: pgn-lsp index --db \(path)"
        }
    }

    /// Why an import's index is out of date when the import stopped before its end (killed,
    /// or the machine stopped).
    public static let interrupted = PositionIndexStatus.stale(
        reason: "an import stopped before it had finished adding games to it")
}

extension GameDatabase {
    /// Whether the file's position index is there and describes the games. Throws for a file
    /// that is not a game database (no `Games` table with moves).
    public func positionIndexStatus() throws -> PositionIndexStatus {
        try run { db in
            _ = try readLayout(db)
            return try checkedPositionIndexStatus(db)
        }
    }

    /// `positionIndexStatus(_:)`, read in one read transaction unless one is open. A
    /// connection that only reads remembers the last time it found the index current, by the
    /// file's data version: until another connection writes, it is current still.
    func checkedPositionIndexStatus(_ db: Database) throws -> PositionIndexStatus {
        if db.isInsideTransaction { return try positionIndexStatus(db) }
        var status = PositionIndexStatus.missing
        try db.inTransaction(.deferred) {
            let version = try Int64.fetchOne(db, sql: "PRAGMA data_version")
            if options.readOnly, let version, version == verifiedDataVersion {
                status = .current
                return .commit
            }
            status = try positionIndexStatus(db)
            if options.readOnly && status == .current { verifiedDataVersion = version }
            return .commit
        }
        return status
    }

    /// The status, read inside the caller's transaction: the index's tables and triggers,
    /// its state, the lock of an import that is adding games, and whether another program
    /// wrote the file since pgn-lsp last wrote the index (`PositionIndex`).
    func positionIndexStatus(_ db: Database) throws -> PositionIndexStatus {
        let objects = try Row.fetchAll(
            db,
            sql: """
                SELECT type, name FROM sqlite_master WHERE (type IN ('table', 'trigger') AND name LIKE 'Position%') \
                OR (type = 'index' AND tbl_name = 'Games')
                """)
        let names = Set(objects.map { $0["name"] as String })
        let tables = PositionIndex.tables.filter { names.contains($0) }
        if tables.isEmpty && !PositionIndex.formerTables.contains(where: names.contains) { return .missing }
        if PositionIndex.formerTables.contains(where: names.contains) {
            return .stale(reason: "made by another version of pgn-lsp")
        }
        if tables.count < PositionIndex.tables.count {
            return .stale(reason: "some of its tables are missing")
        }
        guard
            let row = try Row.fetchOne(db, sql: "SELECT * FROM PositionIndexState"),
            let version = row["Version"] as Int?, let depth = row["Depth"] as Int?
        else { return .stale(reason: "its state is missing") }
        if version != PositionIndex.version || depth != PositionIndex.treeDepth {
            return .stale(reason: "made by another version of pgn-lsp")
        }
        if PositionIndex.triggers.contains(where: { !names.contains($0) }) {
            return .stale(reason: "the triggers that follow changes to the games are gone")
        }
        if PositionIndex.editTriggers.contains(where: { !names.contains($0.name) }) {
            return .stale(reason: "the triggers that follow changes to its own tables are gone")
        }
        let changes: Int64 = row["Changes"]
        let indexed: Int64 = row["Indexed"]
        let updater: Int64 = row["Updater"]
        let edits: Int64 = row["Edits"]
        if edits != 0 {
            return .stale(reason: "\(counted(edits, "change")) to its own tables by another program")
        }
        if updater != 0 {
            // An import that runs holds its lock, with the token it wrote in the state.
            guard ImportLock.holder(of: path) == .running(token: updater) else { return .interrupted }
            let others = changes - indexed - (row["Adding"] as Int64)
            if others != 0 {
                return .stale(reason: "\(counted(others, "change")) to the games by another program during an import")
            }
            return .updating
        }
        if changes != indexed {
            return .stale(
                reason: "\(counted(changes - indexed, "change")) to the games since it was built, by another program")
        }
        // No program wrote the file since pgn-lsp's last write of the index.
        let stamp: Int64 = row["Stamp"]
        if let header = GameDatabase.fileHeader(db), !header.writeAheadLog, Int64(header.changeCounter) == stamp {
            return .current
        }
        // Another program did: what it did to the games, the triggers counted, unless it wrote
        // with them turned off. Games added or removed so show in the highest ID and the count
        // (read from an index of the table, not from its rows: counted only when it has one).
        let rows: Int64 = row["GameRows"]
        let last: Int64 = row["LastGame"]
        let lastNow = try Int64.fetchOne(db, sql: "SELECT MAX(ID) FROM Games") ?? 0
        let hasIndex = objects.contains { ($0["type"] as String) == "index" }
        let rowsNow = hasIndex ? try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") ?? 0 : rows
        if lastNow != last || rowsNow != rows {
            let figures =
                rowsNow != rows
                ? "\(counted(rowsNow, "game")) now, \(Figures.grouped(Int(rows))) in the index"
                : "the last ID \(lastNow) now, \(last) in the index"
            return .stale(
                reason: "games added or removed by another program that wrote with the triggers turned off: \(figures)")
        }
        return .current
    }

    /// The header of the file, read through SQLite's handle: its change counter, and whether
    /// the file keeps a write-ahead log (its header then does not change with each write).
    static func fileHeader(_ db: Database) -> (changeCounter: UInt32, writeAheadLog: Bool)? {
        var counter: UInt32 = 0
        var writeAheadLog: Int32 = 0
        guard cstorage_file_header(db.sqliteConnection, &counter, &writeAheadLog) == SQLITE_OK else { return nil }
        return (counter, writeAheadLog != 0)
    }

    /// The `Stamp` a write transaction of pgn-lsp's records, from the header as it was when the
    /// transaction began (the file's change counter once it commits: each transaction that
    /// writes raises it by one); 0, which no header matches, where the header does not tell.
    static func stamp(after header: (changeCounter: UInt32, writeAheadLog: Bool)?) -> Int64 {
        guard let header, !header.writeAheadLog else { return 0 }
        return Int64(header.changeCounter &+ 1)
    }

    /// Inside a transaction of pgn-lsp's that does not write the index (the search indexes
    /// dropped or built), called before it writes anything: the stamp to record at its end
    /// (`keepStamp`) when no other program wrote the file since pgn-lsp last wrote the index,
    /// so that the index's readers still know that; else nil.
    static func unchangedStamp(_ db: Database) throws -> Int64? {
        guard try db.tableExists("PositionIndexState"),
            try db.columns(in: "PositionIndexState").contains(where: { $0.name == "Stamp" }),
            let header = fileHeader(db), !header.writeAheadLog,
            try Int64.fetchOne(db, sql: "SELECT Stamp FROM PositionIndexState") == Int64(header.changeCounter)
        else { return nil }
        return stamp(after: header)
    }

    static func keepStamp(_ db: Database, _ stamp: Int64?) throws {
        guard let stamp else { return }
        try db.execute(sql: "UPDATE PositionIndexState SET Stamp = ?", arguments: [stamp])
    }

    /// `1 change`, `2,345 changes`.
    func counted(_ count: Int64, _ noun: String) -> String {
        "\(Figures.grouped(Int(count))) \(noun)\(count == 1 ? "" : "s")"
    }

    /// Builds the position index from every game of the file, replacing the one there is, in
    /// one transaction; returns the number of games indexed. Games whose moves cannot be read
    /// are left out of it (as `export` leaves them out).
    @discardableResult
    public func buildPositionIndex(progress: ((Int, Int) -> Void)? = nil) throws -> Int {
        try run { db in
            var indexed = 0
            try db.inTransaction(.immediate) {
                let header = GameDatabase.fileHeader(db)
                // Any file with games: the index reads IDs, start positions, moves, results
                // and ratings only.
                let layout = try readLayout(db)
                try db.execute(sql: PositionIndex.dropSQL)
                try db.execute(sql: PositionIndex.schemaSQL)
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") ?? 0
                try PositionIndex.withoutEditTriggers(of: PositionIndex.tables, db) {
                    var writer = try PositionIndexWriter(db)
                    var after: Int64? = nil
                    let chunk = 4096
                    while true {
                        let rows = try fetchMoveRows(db, layout: layout, afterID: after, limit: chunk)
                        guard let last = rows.last else { break }
                        after = last.id
                        for (row, mainline) in zip(rows, GameDatabase.mainlines(of: rows, layout: layout)) {
                            guard let mainline else { continue }
                            try writer.add(
                                gameID: row.id, moves: mainline.codes, fen: mainline.fen, final: mainline.final,
                                hashes: mainline.hashes, db)
                            indexed += 1
                        }
                        progress?(indexed, total)
                    }
                    try writer.flushSignatures(db)
                    try PositionTreeBuilder.rebuild(db)
                }
                // Games whose moves could not be read are left out, and counted all the same.
                try db.execute(
                    sql: """
                        UPDATE PositionIndexState SET Indexed = Changes, Updater = 0, Adding = 0, Edits = 0, \
                        GameRows = ?, LastGame = (SELECT IFNULL(MAX(ID), 0) FROM Games), Stamp = ?
                        """, arguments: [total, GameDatabase.stamp(after: header)])
                return .commit
            }
            // The lock file an import killed before its end left beside the database.
            ImportLock.removeIfUnheld(database: path)
            return indexed
        }
    }

    /// The writer that adds a write's games to the position index, or nil when the index is
    /// missing or out of date (it is then built again as a whole, `buildPositionIndex`).
    /// Called before the transaction writes anything: it reads the header as the transaction
    /// found it.
    func positionIndexWriter(_ db: Database) throws -> PositionIndexWriter? {
        let header = GameDatabase.fileHeader(db)
        if let deferred = deferredPositionTree {
            // An import: keys now, the tree at its end. Once it started, the index must still
            // be the one it is adding to: its token in the state, no other change since.
            if deferred.started {
                guard try importStillOwnsIndex(db, token: deferred.token) else { return nil }
            } else {
                guard try positionIndexStatus(db) == .current else { return nil }
            }
            var writer = try PositionIndexWriter(db, stamp: GameDatabase.stamp(after: header))
            try db.execute(sql: "DROP TRIGGER PositionIndexGameAdded")
            for trigger in PositionIndex.movesAddedTriggers { try db.execute(sql: "DROP TRIGGER \(trigger.name)") }
            writer.countsAdded = true
            return writer
        }
        guard try positionIndexStatus(db) == .current else { return nil }
        return try PositionIndexWriter(db, incremental: true, stamp: GameDatabase.stamp(after: header))
    }

    /// Whether the index is still as the import with this token left it after its last
    /// transaction: its token in the state, and no change by anyone else to the games or to
    /// the index's tables. Asked by the import itself, which holds the lock (or could not
    /// have one, on a file system without locks).
    func importStillOwnsIndex(_ db: Database, token: Int64) throws -> Bool {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT Changes, Indexed, Adding, Edits, Updater FROM PositionIndexState")
        else { return false }
        let changes: Int64 = row[0]
        let indexed: Int64 = row[1]
        let adding: Int64 = row[2]
        let edits: Int64 = row[3]
        let updater: Int64 = row[4]
        return updater == token && edits == 0 && changes - indexed == adding
    }

    /// Ends a write's part in the index: the tree brought up to date for these games, or (in an
    /// import) left for its end.
    func finishPositionIndexWrite(_ db: Database, _ writer: PositionIndexWriter) throws {
        var writer = writer
        try writer.flushSignatures(db)
        if writer.countsAdded {
            try db.execute(sql: PositionIndex.addedTriggerSQL)
            for trigger in PositionIndex.movesAddedTriggers { try db.execute(sql: trigger.sql) }
            try db.execute(sql: "UPDATE PositionIndexState SET Changes = Changes + ?", arguments: [writer.games])
        }
        guard var deferred = deferredPositionTree else {
            try writer.updateTree(db)
            // The edit triggers counted this transaction's own rows.
            try db.execute(
                sql: """
                    UPDATE PositionIndexState SET Indexed = Indexed + ?1, Edits = 0, GameRows = GameRows + ?1, \
                    LastGame = (SELECT IFNULL(MAX(ID), 0) FROM Games), Stamp = ?2
                    """, arguments: [writer.games, writer.stamp])
            return
        }
        if writer.games > 0 && !deferred.started {
            try db.execute(
                sql: "UPDATE PositionIndexState SET Updater = ?, Adding = 0", arguments: [deferred.token])
            deferred.started = true
        }
        try db.execute(
            sql: """
                UPDATE PositionIndexState SET Adding = Adding + ?1, GameRows = GameRows + ?1, \
                LastGame = (SELECT IFNULL(MAX(ID), 0) FROM Games), Stamp = ?2
                """, arguments: [writer.games, writer.stamp])
        deferred.games += writer.games
        deferredPositionTree = deferred
    }

    /// Runs an import with the opening tree built once at its end, from all the games: each
    /// transaction adds the games' keys only. Also after a failure, for the transactions
    /// committed before it (the imports of the files before a missing one), unless another
    /// program holds the file. When the count of changes shows that a transaction the import
    /// counted did not commit, or that another program changed the games or the index
    /// meanwhile, the index is left out of date (built again later).
    ///
    /// Meanwhile the import holds the file's `ImportLock`, and its token is in the state:
    /// readers see the index as being updated while it runs, and as out of date if it stops
    /// before its end. Another import that holds the lock already is adding games to the
    /// index: this one's games are then left to a build of the whole index.
    ///
    /// A small import into a large file (fewer games, by `totalBytes`, than a tenth of those
    /// it has) brings the tree up to date transaction by transaction instead, as saves do:
    /// building it again would read every game's keys for a few new ones.
    func withDeferredPositionTree<T>(totalBytes: Int?, _ body: () throws -> T) throws -> T {
        guard deferredPositionTree == nil else { return try body() }
        let (before, stored) = try run { db -> (Int64?, Int64) in
            let changes =
                try checkedPositionIndexStatus(db) == .current
                ? try Int64.fetchOne(db, sql: "SELECT Changes FROM PositionIndexState") : nil
            return (changes, try Int64.fetchOne(db, sql: "SELECT MAX(ID) FROM Games") ?? 0)
        }
        // About 700 bytes of PGN a game (less with no comments, more with clocks).
        if let totalBytes, Int64(totalBytes / 700) * 10 < stored { return try body() }
        let token = Int64.random(in: 1...Int64.max)
        var lock: ImportLock?
        if before != nil {
            switch ImportLock.acquire(database: path, token: token, timeout: min(options.busyTimeout, 0.25)) {
            case .acquired(let acquired): lock = acquired
            case .heldByAnother: return try body()
            // Readers will take the import for interrupted, and not answer from the index.
            case .unavailable: break
            }
        }
        // Let go once the tree is built, or when the import fails.
        defer { lock?.release() }
        // Into a file without games, the writer keeps each game's result and rating aside:
        // the tree ranks the games from them, not from `Games`.
        treeRankedFromImportedResults = false
        deferredPositionTree = DeferredTree(
            token: token,
            imported: before != nil && stored == 0 ? try? run { db in try ImportedResults(near: db) } : nil)
        let outcome = Result { try body() }
        let deferred = deferredPositionTree!
        deferredPositionTree = nil
        guard deferred.started, let before else { return try outcome.get() }
        if case .failure(GameStoreError.locked) = outcome { return try outcome.get() }
        do {
            try run { db in
                try db.inTransaction(.immediate) {
                    let header = GameDatabase.fileHeader(db)
                    let changes = try Int64.fetchOne(db, sql: "SELECT Changes FROM PositionIndexState") ?? -1
                    let owned = try importStillOwnsIndex(db, token: token)
                    if owned && changes == before + Int64(deferred.games) {
                        // What the import's pipeline held goes back to the system first, and
                        // the names looked up, which the next write finds again in the tables.
                        self.forgetNames()
                        // The duplicate check's table waits in a scratch file (tens of MB at
                        // millions of games) through the tree and the search indexes, until the
                        // next write reads it back (`refreshCaches`); should it not come back,
                        // the check queries.
                        if let table = self.storedGameHashes, table.count >= GameHashTable.putAsideFrom,
                            let putAside = try? table.putAside(near: db)
                        {
                            self.storedGameHashes = nil
                            self.storedGameHashesPutAside = putAside
                        }
                        // The build reads and writes in order: a small page cache serves it as
                        // well, and what the import's cache held goes back first.
                        try db.execute(sql: "PRAGMA cache_size = -\(GameDatabase.treeCacheKiB)")
                        defer { _ = try? db.execute(sql: "PRAGMA cache_size = -\(GameDatabase.cacheKiB)") }
                        cstorage_release_free_memory()
                        // And what the build held goes back before the search indexes are built.
                        defer { cstorage_release_free_memory() }
                        self.treeRankedFromImportedResults = try PositionIndex.withoutEditTriggers(
                            of: ["PositionTree", "PositionSingles"], db
                        ) {
                            try PositionTreeBuilder.rebuild(db, imported: deferred.imported)
                        }
                        try db.execute(
                            sql: "UPDATE PositionIndexState SET Indexed = Changes, Stamp = ?",
                            arguments: [GameDatabase.stamp(after: header)])
                    }
                    // Its token leaves the state; when the tree was not built, the changes it
                    // counted show the index out of date.
                    try db.execute(
                        sql: "UPDATE PositionIndexState SET Updater = 0, Adding = 0 WHERE Updater = ?",
                        arguments: [token])
                    return .commit
                }
            }
        } catch {
            if case .success = outcome { throw error }
        }
        return try outcome.get()
    }

    /// Removes the position index (its tables and triggers) from the file.
    public func removePositionIndex() throws {
        try run { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: PositionIndex.dropSQL)
                return .commit
            }
        }
    }

    /// A stored game's mainline as the index holds it: its FEN (nil from the standard start),
    /// its moves' two-byte codes, the Zobrist hashes of its positions from the start, and the
    /// material of its last position.
    struct Mainline {
        var fen: String?
        var codes: [UInt8] = []
        var hashes: [UInt64] = []
        var final: Int64 = 0
    }

    /// Each row's mainline (nil when its moves cannot be read), read on every core.
    static func mainlines(of rows: [GameRow], layout: ReadLayout) -> [Mainline?] {
        var mainlines = [Mainline?](repeating: nil, count: rows.count)
        let slices = max(1, min(rows.count / 256, ProcessInfo.processInfo.activeProcessorCount * 2))
        mainlines.withUnsafeMutableBufferPointer { output in
            let output = UncheckedSendable(output)
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                let range = (rows.count * slice / slices)..<(rows.count * (slice + 1) / slices)
                for k in range { output.value[k] = try? mainline(rows[k], layout: layout) }
            }
        }
        return mainlines
    }

    /// A stored game's mainline, read with the file's layout.
    static func mainline(_ row: GameRow, layout: ReadLayout) throws -> Mainline {
        let start = try startPosition(of: row)
        let fen = row.fen?.trimmingASCIISpaces
        var mainline = Mainline(
            fen: fen?.isEmpty == false ? fen : nil, hashes: [start.hash], final: ReplayMaterial(start).packed)
        func add(_ move: Move, _ after: Position) {
            Moves2.append(move, chess960: start.isChess960, to: &mainline.codes)
            mainline.hashes.append(after.hash)
            mainline.final = ReplayMaterial(after).packed
        }
        if let blob = row.moves, !row.movesAreText, layout.primary == .enCroissant {
            // En Croissant's blob: the mainline's moves at depth 0, markers and variations skipped.
            guard MovesBlob.walkMainline(blob, from: start, add) else {
                throw GameStoreError.unreadableGame(id: row.id, reason: "its Moves column cannot be read")
            }
            return mainline
        }
        let (elements, _) = try decodeMoves(row, layout: layout, start: start)
        var position = start
        var depth = 0
        for element in elements {
            switch element {
            case .variationStart: depth += 1
            case .variationEnd: depth -= 1
            case .move(let move) where depth == 0:
                position.play(move)
                add(move, position)
            default: break
            }
        }
        return mainline
    }

    /// Rows with only what the index is made from: ID, FEN and moves (the tree reads results
    /// and ratings itself, `GameResults`).
    func fetchMoveRows(_ db: Database, layout: ReadLayout, afterID: Int64?, limit: Int) throws -> [GameRow] {
        func column(_ name: String) -> String { layout.has(name) ? name : "NULL" }
        let sql = """
            SELECT ID, \(column("FEN")), \(column("Moves")), \(column("Moves2")) FROM Games \
            \(afterID.map { "WHERE ID > \($0)" } ?? "") ORDER BY ID LIMIT \(limit)
            """
        var rows: [GameRow] = []
        let cursor = try Row.fetchCursor(db, sql: sql)
        while let row = try cursor.next() { rows.append(moveRow(row)) }
        return rows
    }

    /// A row of ID, FEN, Moves and Moves2 as a `GameRow` to replay.
    func moveRow(_ row: Row) -> GameRow {
        var game = GameRow(id: row[0])
        game.fen = text(row, 1)
        switch (row[2] as DatabaseValue).storage {
        case .blob(let data): game.moves = Array(data)
        case .string(let string):
            game.moves = Array(string.utf8)
            game.movesAreText = true
        default: break
        }
        if case .blob(let data) = (row[3] as DatabaseValue).storage { game.moves2 = Array(data) }
        return game
    }
}

/// Writes games into the position index: their moves, and (for the few games of a save) their
/// part of the opening tree.
struct PositionIndexWriter {
    let insertMoves: PreparedStatement
    /// Whether `updateTree` brings the tree up to date for the games added.
    let incremental: Bool
    /// The `Stamp` its transaction records (`GameDatabase.stamp(after:)`).
    let stamp: Int64
    /// Games added since the writer was made.
    var games = 0
    /// Whether the games added are counted in `PositionIndexState.Changes` by
    /// `finishPositionIndexWrite` (the trigger is dropped meanwhile) rather than by the trigger.
    var countsAdded = false
    /// With `incremental`: the games added, the keys of their first `treeDepth` + 2
    /// positions and their results, for `updateTree`.
    var added: [(id: Int64, keys: [UInt64], outcome: GameOutcome, elo: Int32)] = []

    /// Signatures of the games added (`GameSignature`), written a row per
    /// `signaturesPerRow` games and at the end of the transaction (`flushSignatures`).
    private var signatures: [UInt8] = []
    private var firstSigned: Int64 = 0
    /// The materials after the tree's plies of the games added (`LateMaterials`).
    private var late: Set<Int64> = []
    static let signaturesPerRow = 4096

    init(_ db: Database, incremental: Bool = false, stamp: Int64 = 0) throws {
        insertMoves = try PreparedStatement(
            db, "INSERT OR REPLACE INTO PositionMoves (GameID, Moves, FEN, Final) VALUES (?, ?, ?, ?)")
        self.incremental = incremental
        self.stamp = stamp
    }

    /// Adds a game: its moves' two-byte codes (`Moves2`, current promotion codes), its FEN
    /// (nil from the standard start), its last position's material (`ReplayMaterial.packed`),
    /// the hashes of its positions, and its signature (worked out here when not given).
    mutating func add(
        gameID: Int64, moves: [UInt8], fen: String?, final: Int64, hashes: [UInt64],
        signature: GameSignature? = nil, outcome: GameOutcome = .unknown, rating: Int? = nil, _ db: Database
    ) throws {
        insertMoves.bind(1, gameID)
        insertMoves.bind(3, fen)
        insertMoves.bind(4, final)
        try moves.withUnsafeBytes { raw in
            insertMoves.bindBlob(2, borrowing: raw)
            defer { insertMoves.reset() }
            try insertMoves.step()
        }
        let signature = signature ?? moves.withUnsafeBytes { GameSignature(codes: $0, fen: fen, final: final) }
        if signatures.isEmpty { firstSigned = gameID }
        signature.append(id: gameID, to: &signatures)
        if signature.afterTree != 0 { late.insert(signature.afterTree) }
        if signatures.count >= PositionIndexWriter.signaturesPerRow * GameSignature.size { try flushSignatures(db) }
        games += 1
        if incremental {
            added.append(
                (
                    gameID, hashes.prefix(PositionIndex.treeDepth + 2).map(PositionIndex.key), outcome,
                    rating.map { Int32(clamping: $0) } ?? -1
                ))
        }
    }

    /// Writes the signatures not written yet, and the materials after the tree's plies.
    mutating func flushSignatures(_ db: Database) throws {
        if !signatures.isEmpty {
            try db.execute(
                sql: "INSERT OR REPLACE INTO PositionSignatures (First, Entries) VALUES (?, ?)",
                arguments: [firstSigned, Data(signatures)])
            signatures.removeAll(keepingCapacity: true)
        }
        if !late.isEmpty {
            let merged = LateMaterials.merged(try LateMaterials.stored(db), late)
            try db.execute(
                sql: "UPDATE PositionIndexState SET Late = ?", arguments: [Data(LateMaterials.blob(merged))])
            late.removeAll(keepingCapacity: true)
        }
    }

    /// Adds the games to the tree: to the rows of positions that have rows; a position without
    /// (reached by one game at most until now) gets rows when the keys show that two games or
    /// more reach it now.
    mutating func updateTree(_ db: Database) throws {
        guard incremental, !added.isEmpty else { return }
        let hasRows = try PreparedStatement(db, "SELECT 1 FROM PositionTree WHERE Position = ? LIMIT 1")
        let sums = OpeningTreeBatch(capacity: 64)
        var unknown = Set<UInt64>()
        var singles: [UInt64] = []
        for game in added {
            try game.keys.withUnsafeBufferPointer { keys in
                var failure: (any Error)?
                PositionTreeBuilder.forEachTreeKey(keys.baseAddress!, keys.count) {
                    _, key, next in
                    guard failure == nil else { return }
                    do {
                        hasRows.bind(1, Int64(key))
                        defer { hasRows.reset() }
                        if try hasRows.step() {
                            sums.add(key, next, outcome: game.outcome, elo: game.elo, gameID: game.id)
                        } else {
                            unknown.insert(key)
                        }
                    } catch { failure = error }
                }
                if let failure { throw failure }
            }
        }
        // Positions the filter of single positions does not hold no game reached before: the
        // games saved now are all there is to count.
        let blocks = try SinglesFilter.blocks(db)
        var unseen = Set<UInt64>()
        if blocks > 0 {
            for key in unknown where try !SinglesFilter.mayHold(key, blocks: blocks, db) { unseen.insert(key) }
            unknown.subtract(unseen)
        }
        if !unseen.isEmpty {
            let sightings = FirstSightings(capacity: unseen.count)
            for game in added {
                game.keys.withUnsafeBufferPointer { keys in
                    PositionTreeBuilder.forEachTreeKey(keys.baseAddress!, keys.count) {
                        _, key, next in
                        guard unseen.contains(key) else { return }
                        sightings.sight(
                            key, game: game.id, next: next, outcome: game.outcome, elo: game.elo, into: sums)
                    }
                }
            }
            sightings.forEachSingle { singles.append($0) }
        }
        if !unknown.isEmpty {
            // Who else reaches these positions: every game's first plies, replayed once.
            let sightings = FirstSightings(capacity: unknown.count)
            let filter = BitSet(count: 1 << 16)
            for key in unknown { filter.insert(Int(truncatingIfNeeded: key) & 0xFFFF) }
            let results = try GameResults(db)
            try PositionTreeBuilder.forEachGame(db) { id, keys, count in
                PositionTreeBuilder.forEachTreeKey(keys, count) { _, key, next in
                    guard filter.contains(Int(truncatingIfNeeded: key) & 0xFFFF), unknown.contains(key) else { return }
                    let (outcome, elo) = results[id]
                    sightings.sight(key, game: id, next: next, outcome: outcome, elo: elo, into: sums)
                }
            }
            sightings.forEachSingle { singles.append($0) }
        }
        try PositionIndexWriter.upsert(sums, db)
        try SinglesFilter.add(singles, db)
        added = []
    }

    /// Adds summed rows to the table's.
    static func upsert(_ sums: OpeningTreeBatch, _ db: Database) throws {
        guard !sums.isEmpty else { return }
        let upsert = try PreparedStatement(
            db,
            """
            INSERT INTO PositionTree (Position, Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
            ON CONFLICT (Position, Next) DO UPDATE SET Games = Games + excluded.Games, \
            WhiteWins = WhiteWins + excluded.WhiteWins, Draws = Draws + excluded.Draws, \
            BlackWins = BlackWins + excluded.BlackWins, \
            BestGame = CASE WHEN excluded.BestElo IS NOT NULL AND (BestElo IS NULL OR excluded.BestElo > BestElo) \
            THEN excluded.BestGame ELSE BestGame END, \
            BestElo = CASE WHEN excluded.BestElo IS NOT NULL AND (BestElo IS NULL OR excluded.BestElo > BestElo) \
            THEN excluded.BestElo ELSE BestElo END
            """)
        try PositionTreeBuilder.write(sums, with: upsert)
    }
}

/// A value handed to concurrent work that writes disjoint parts of it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
