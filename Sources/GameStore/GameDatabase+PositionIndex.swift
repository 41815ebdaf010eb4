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
    case current

    public var description: String {
        switch self {
        case .missing: return "the database has no position index"
        case .stale(let reason): return "the database's position index is out of date (\(reason))"
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
        if tables.isEmpty { return .missing }
        if tables.count < PositionIndex.tables.count {
            return .stale(reason: "some of its tables are missing")
        }
        if PositionIndex.triggers.contains(where: { !names.contains($0) }) {
            return .stale(reason: "the triggers that follow changes to the games are gone")
        }
        guard let row = try Row.fetchOne(db, sql: "SELECT Version, Depth, Changes, Indexed FROM PositionIndexState")
        else { return .stale(reason: "its state is missing") }
        let version: Int = row["Version"]
        let depth: Int = row["Depth"]
        if version != PositionIndex.version || depth != PositionIndex.treeDepth {
            return .stale(reason: "made by another version of pgn-lsp")
        }
        let changes: Int64 = row["Changes"]
        let indexed: Int64 = row["Indexed"]
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
                _ = try checkWritable(db)
                try db.execute(sql: PositionIndex.dropSQL)
                try db.execute(sql: PositionIndex.schemaSQL)
                let layout = try readLayout(db)
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") ?? 0
                var writer = try PositionIndexWriter(db)
                var after: Int64? = nil
                let chunk = 4096
                while true {
                    let rows = try fetchMoveRows(db, layout: layout, afterID: after, limit: chunk)
                    guard let last = rows.last else { break }
                    after = last.id
                    let games = GameDatabase.positionsOfRows(rows, layout: layout)
                    for game in games {
                        guard let hashes = game.hashes else { continue }
                        try writer.add(
                            gameID: game.id, hashes: hashes, outcome: GameOutcome(result: game.result),
                            rating: game.rating)
                        indexed += 1
                    }
                    try writer.flushIfLarge()
                    progress?(indexed, total)
                }
                try writer.finish()
                try db.execute(sql: "UPDATE PositionIndexState SET Indexed = Changes")
                return .commit
            }
            return indexed
        }
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

    /// The mainline of a stored game as the index needs it.
    struct IndexedGame {
        var id: Int64
        /// Nil when the moves cannot be read.
        var hashes: [UInt64]?
        var result: String?
        var rating: Int?
    }

    /// Reads the moves of the rows on every core.
    static func positionsOfRows(_ rows: [GameRow], layout: ReadLayout) -> [IndexedGame] {
        var games = [IndexedGame](repeating: IndexedGame(id: 0), count: rows.count)
        let slices = max(1, min(rows.count / 256, ProcessInfo.processInfo.activeProcessorCount * 2))
        games.withUnsafeMutableBufferPointer { output in
            let output = UncheckedSendable(output)
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                let range = (rows.count * slice / slices)..<(rows.count * (slice + 1) / slices)
                for k in range {
                    let row = rows[k]
                    output.value[k] = IndexedGame(
                        id: row.id, hashes: try? mainlineHashes(row, layout: layout), result: row.result,
                        rating: PositionIndex.rating(
                            white: row.whiteElo.map { Int($0) }, black: row.blackElo.map { Int($0) }))
                }
            }
        }
        return games
    }

    /// The Zobrist hashes of a stored game's mainline positions, from its start.
    static func mainlineHashes(_ row: GameRow, layout: ReadLayout) throws -> [UInt64] {
        var start = Position.startingPosition
        if let fen = row.fen?.trimmingASCIISpaces, !fen.isEmpty {
            do {
                start = try Position(fen: fen)
            } catch {
                throw GameStoreError.unreadableGame(id: row.id, reason: "bad FEN \"\(fen)\": \(error.description)")
            }
        }
        var hashes = [start.hash]
        if let blob = row.moves, !row.movesAreText, layout.primary == .enCroissant {
            // En Croissant's blob: the mainline's moves at depth 0, markers and variations skipped.
            guard MovesBlob.walkMainline(blob, from: start, { hashes.append($0.hash) }) else {
                throw GameStoreError.unreadableGame(id: row.id, reason: "its Moves column cannot be read")
            }
            return hashes
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
                hashes.append(position.hash)
            default: break
            }
        }
        return hashes
    }

    /// Rows with only what the index reads: ID, FEN, moves, result and ratings.
    func fetchMoveRows(_ db: Database, layout: ReadLayout, afterID: Int64?, limit: Int) throws -> [GameRow] {
        try fetchMoveRows(db, layout: layout, where: afterID.map { "WHERE ID > \($0)" } ?? "", limit: limit)
    }

    /// `fetchMoveRows` for the games with these IDs.
    func fetchMoveRows(_ db: Database, layout: ReadLayout, ids: [Int64]) throws -> [GameRow] {
        try fetchMoveRows(
            db, layout: layout, where: "WHERE ID IN (\(ids.map(String.init).joined(separator: ",")))",
            limit: ids.count)
    }

    func fetchMoveRows(_ db: Database, layout: ReadLayout, where condition: String, limit: Int) throws -> [GameRow] {
        func column(_ name: String) -> String { layout.has(name) ? name : "NULL" }
        let sql = """
            SELECT ID, \(column("FEN")), \(column("Moves")), \(column("Moves2")), \(column("Result")), \
            \(column("WhiteElo")), \(column("BlackElo")) FROM Games \(condition) ORDER BY ID LIMIT \(limit)
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
            game.result = text(row, 4)
            game.whiteElo = integer(row, 5)
            game.blackElo = integer(row, 6)
            rows.append(game)
        }
        return rows
    }
}

/// Writes games into the position index: their keys at once, their opening-tree rows added up
/// in memory and written in key order (at the end, or when the sums grow large).
struct PositionIndexWriter {
    let insertKeys: PreparedStatement
    let upsertTree: PreparedStatement
    var tree = OpeningTreeBatch()
    var keys: [UInt8] = []
    /// Sums kept in memory at most (about 100 bytes each) before they are written.
    static let largestBatch = 1_000_000

    init(_ db: Database) throws {
        insertKeys = try PreparedStatement(db, "INSERT OR REPLACE INTO PositionKeys (GameID, Keys) VALUES (?, ?)")
        upsertTree = try PreparedStatement(
            db,
            """
            INSERT INTO PositionTree (Position, Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
            ON CONFLICT (Position, Next) DO UPDATE SET Games = Games + excluded.Games, \
            WhiteWins = WhiteWins + excluded.WhiteWins, Draws = Draws + excluded.Draws, \
            BlackWins = BlackWins + excluded.BlackWins, \
            BestGame = CASE WHEN excluded.BestElo IS NOT NULL AND (BestElo IS NULL OR excluded.BestElo > BestElo) \
            THEN excluded.BestGame WHEN BestGame IS NULL THEN excluded.BestGame ELSE BestGame END, \
            BestElo = CASE WHEN excluded.BestElo IS NOT NULL AND (BestElo IS NULL OR excluded.BestElo > BestElo) \
            THEN excluded.BestElo ELSE BestElo END
            """)
    }

    mutating func add(gameID: Int64, hashes: [UInt64], outcome: GameOutcome, rating: Int?) throws {
        keys.removeAll(keepingCapacity: true)
        for hash in hashes {
            let key = PositionIndex.shortKey(hash)
            keys.append(UInt8(truncatingIfNeeded: key))
            keys.append(UInt8(truncatingIfNeeded: key >> 8))
            keys.append(UInt8(truncatingIfNeeded: key >> 16))
            keys.append(UInt8(truncatingIfNeeded: key >> 24))
        }
        insertKeys.bind(1, gameID)
        try keys.withUnsafeBytes { raw in
            insertKeys.bindBlob(2, borrowing: raw)
            defer { insertKeys.reset() }
            try insertKeys.step()
        }
        hashes.withUnsafeBufferPointer {
            tree.add(hashes: $0, outcome: outcome, rating: rating, gameID: gameID)
        }
    }

    mutating func flushIfLarge() throws {
        if tree.edges.count >= PositionIndexWriter.largestBatch { try finish() }
    }

    /// Writes the sums in memory.
    mutating func finish() throws {
        guard !tree.isEmpty else { return }
        for (edge, counts) in tree.sorted() {
            upsertTree.bind(1, PositionIndex.stored(edge.position))
            upsertTree.bind(2, PositionIndex.stored(edge.next))
            upsertTree.bind(3, counts.games)
            upsertTree.bind(4, counts.whiteWins)
            upsertTree.bind(5, counts.draws)
            upsertTree.bind(6, counts.blackWins)
            upsertTree.bind(7, counts.bestGame)
            upsertTree.bind(8, counts.bestElo)
            defer { upsertTree.reset() }
            try upsertTree.step()
        }
        tree = OpeningTreeBatch()
    }
}

/// A value handed to concurrent work that writes disjoint parts of it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
