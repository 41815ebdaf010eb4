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
    /// It has one that no longer describes the games: another program changed them since, or
    /// it was made by another version of pgn-lsp.
    case stale(reason: String)
    /// An import (in this or another process) is adding games: their moves are in, their
    /// opening-tree counts come at its end.
    case updating
    case current

    /// Whether searches and the explorer can answer from it.
    public var isUsable: Bool { self == .current || self == .updating }

    public var description: String {
        switch self {
        case .missing: return "the database has no position index"
        case .stale(let reason): return "the database's position index is out of date (\(reason))"
        case .updating: return "the database's position index is being updated by an import"
        case .current: return "the database's position index is up to date"
        }
    }
}

extension GameDatabase {
    /// Whether the file's position index is there and describes the games. Throws for a file
    /// that is not a game database (no `Games` table with moves).
    public func positionIndexStatus() throws -> PositionIndexStatus {
        try run { db in
            _ = try readLayout(db)
            return try GameDatabase.positionIndexStatus(db)
        }
    }

    static func positionIndexStatus(_ db: Database) throws -> PositionIndexStatus {
        let objects = try Row.fetchAll(
            db, sql: "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name LIKE 'Position%'"
        )
        let names = Set(objects.map { $0["name"] as String })
        let tables = PositionIndex.tables.filter { names.contains($0) }
        if tables.isEmpty && !PositionIndex.formerTables.contains(where: names.contains) { return .missing }
        if PositionIndex.formerTables.contains(where: names.contains) {
            return .stale(reason: "made by another version of pgn-lsp")
        }
        if tables.count < PositionIndex.tables.count {
            return .stale(reason: "some of its tables are missing")
        }
        if PositionIndex.triggers.contains(where: { !names.contains($0) }) {
            return .stale(reason: "the triggers that follow changes to the games are gone")
        }
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT Version, Depth, Changes, Indexed, Updater FROM PositionIndexState")
        else { return .stale(reason: "its state is missing") }
        let version: Int = row["Version"]
        let depth: Int = row["Depth"]
        if version != PositionIndex.version || depth != PositionIndex.treeDepth {
            return .stale(reason: "made by another version of pgn-lsp")
        }
        let changes: Int64 = row["Changes"]
        let indexed: Int64 = row["Indexed"]
        let updater: Int64 = row["Updater"]
        if changes != indexed && updater != 0 && processIsAlive(updater) { return .updating }
        if changes != indexed {
            let count = changes - indexed
            return .stale(
                reason: "\(count) change\(count == 1 ? "" : "s") to the games since it was built, by another program")
        }
        return .current
    }

    /// Builds the position index from every game of the file, replacing the one there is, in
    /// one transaction; returns the number of games indexed. Games whose moves cannot be read
    /// are left out of it (as `export` leaves them out).
    @discardableResult
    public func buildPositionIndex(progress: ((Int, Int) -> Void)? = nil) throws -> Int {
        try run { db in
            var indexed = 0
            try db.inTransaction(.immediate) {
                // Any file with games: the index reads IDs, start positions, moves, results
                // and ratings only.
                let layout = try readLayout(db)
                try db.execute(sql: PositionIndex.dropSQL)
                try db.execute(sql: PositionIndex.schemaSQL)
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") ?? 0
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
                            hashes: mainline.hashes)
                        indexed += 1
                    }
                    progress?(indexed, total)
                }
                try PositionTreeBuilder.rebuild(db)
                // Games whose moves could not be read are left out, and counted all the same.
                try db.execute(sql: "UPDATE PositionIndexState SET Indexed = Changes, Updater = 0")
                return .commit
            }
            return indexed
        }
    }

    /// Whether a process with this ID runs on this machine.
    static func processIsAlive(_ id: Int64) -> Bool {
        guard id > 0, id <= Int64(Int32.max) else { return false }
        return kill(pid_t(id), 0) == 0 || errno == EPERM
    }

    /// The writer that adds a write's games to the position index, or nil when the index is
    /// missing or out of date (it is then built again as a whole, `buildPositionIndex`).
    func positionIndexWriter(_ db: Database) throws -> PositionIndexWriter? {
        let status = try GameDatabase.positionIndexStatus(db)
        if deferredPositionTree != nil {
            // An import: keys now, the tree at its end.
            guard status == .current || (status == .updating && deferredPositionTree!.started) else { return nil }
            var writer = try PositionIndexWriter(db)
            try db.execute(sql: "DROP TRIGGER PositionIndexGameAdded")
            writer.countsAdded = true
            return writer
        }
        return status == .current ? try PositionIndexWriter(db, incremental: true) : nil
    }

    /// Ends a write's part in the index: the tree brought up to date for these games, or (in an
    /// import) left for its end.
    func finishPositionIndexWrite(_ db: Database, _ writer: PositionIndexWriter) throws {
        var writer = writer
        if writer.countsAdded {
            try db.execute(sql: PositionIndex.addedTriggerSQL)
            try db.execute(sql: "UPDATE PositionIndexState SET Changes = Changes + ?", arguments: [writer.games])
        }
        guard var deferred = deferredPositionTree else {
            try writer.updateTree(db)
            try db.execute(sql: "UPDATE PositionIndexState SET Indexed = Indexed + ?", arguments: [writer.games])
            return
        }
        if writer.games > 0 && !deferred.started {
            try db.execute(sql: "UPDATE PositionIndexState SET Updater = ?", arguments: [getpid()])
            deferred.started = true
        }
        deferred.games += writer.games
        deferredPositionTree = deferred
    }

    /// Runs an import with the opening tree built once at its end, from all the games: each
    /// transaction adds the games' keys only. Also after a failure, for the transactions
    /// committed before it (the imports of the files before a missing one), unless another
    /// program holds the file. When the count of changes shows that a transaction the import
    /// counted did not commit, or that another program changed the games meanwhile, the index
    /// is left out of date (built again later).
    ///
    /// A small import into a large file (fewer games, by `totalBytes`, than a tenth of those
    /// it has) brings the tree up to date transaction by transaction instead, as saves do:
    /// building it again would read every game's keys for a few new ones.
    func withDeferredPositionTree<T>(totalBytes: Int?, _ body: () throws -> T) throws -> T {
        guard deferredPositionTree == nil else { return try body() }
        let (before, stored) = try run { db -> (Int64?, Int64) in
            let changes =
                try GameDatabase.positionIndexStatus(db) == .current
                ? try Int64.fetchOne(db, sql: "SELECT Changes FROM PositionIndexState") : nil
            return (changes, try Int64.fetchOne(db, sql: "SELECT MAX(ID) FROM Games") ?? 0)
        }
        // About 700 bytes of PGN a game (less with no comments, more with clocks).
        if let totalBytes, Int64(totalBytes / 700) * 10 < stored { return try body() }
        // Into a file without games, the writer keeps each game's result and rating aside:
        // the tree ranks the games from them, not from `Games`.
        treeRankedFromImportedResults = false
        deferredPositionTree = DeferredTree(
            imported: before != nil && stored == 0 ? try? run { db in try ImportedResults(near: db) } : nil)
        let outcome = Result { try body() }
        let deferred = deferredPositionTree!
        deferredPositionTree = nil
        guard deferred.started, let before else { return try outcome.get() }
        if case .failure(GameStoreError.locked) = outcome { return try outcome.get() }
        do {
            try run { db in
                try db.inTransaction(.immediate) {
                    let changes = try Int64.fetchOne(db, sql: "SELECT Changes FROM PositionIndexState") ?? -1
                    if changes == before + Int64(deferred.games) {
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
                        self.treeRankedFromImportedResults = try PositionTreeBuilder.rebuild(
                            db, imported: deferred.imported)
                        try db.execute(sql: "UPDATE PositionIndexState SET Indexed = Changes")
                    }
                    try db.execute(sql: "UPDATE PositionIndexState SET Updater = 0")
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
        while let row = try cursor.next() {
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
            rows.append(game)
        }
        return rows
    }
}

/// Writes games into the position index: their moves, and (for the few games of a save) their
/// part of the opening tree.
struct PositionIndexWriter {
    let insertMoves: PreparedStatement
    /// Whether `updateTree` brings the tree up to date for the games added.
    let incremental: Bool
    /// Games added since the writer was made.
    var games = 0
    /// Whether the games added are counted in `PositionIndexState.Changes` by
    /// `finishPositionIndexWrite` (the trigger is dropped meanwhile) rather than by the trigger.
    var countsAdded = false
    /// With `incremental`: the games added, the keys of their first `treeDepth` + 2
    /// positions and their results, for `updateTree`.
    var added: [(id: Int64, keys: [UInt64], outcome: GameOutcome, elo: Int32)] = []

    init(_ db: Database, incremental: Bool = false) throws {
        insertMoves = try PreparedStatement(
            db, "INSERT OR REPLACE INTO PositionMoves (GameID, Moves, FEN, Final) VALUES (?, ?, ?, ?)")
        self.incremental = incremental
    }

    /// Adds a game: its moves' two-byte codes (`Moves2`, current promotion codes), its FEN
    /// (nil from the standard start), its last position's material (`ReplayMaterial.packed`),
    /// and the hashes of its positions.
    mutating func add(
        gameID: Int64, moves: [UInt8], fen: String?, final: Int64, hashes: [UInt64],
        outcome: GameOutcome = .unknown, rating: Int? = nil
    ) throws {
        insertMoves.bind(1, gameID)
        insertMoves.bind(3, fen)
        insertMoves.bind(4, final)
        try moves.withUnsafeBytes { raw in
            insertMoves.bindBlob(2, borrowing: raw)
            defer { insertMoves.reset() }
            try insertMoves.step()
        }
        games += 1
        if incremental {
            added.append(
                (
                    gameID, hashes.prefix(PositionIndex.treeDepth + 2).map(PositionIndex.key), outcome,
                    rating.map { Int32(clamping: $0) } ?? -1
                ))
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
