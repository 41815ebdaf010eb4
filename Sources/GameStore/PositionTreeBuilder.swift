import Foundation
import GRDB
import GRDBSQLite

/// Builds `PositionTree` from `PositionKeys` and the games' results and ratings, in memory
/// bounded whatever the number of games.
///
/// Two readings of the keys: the first marks, in a bit set, the keys seen once and the keys
/// seen again (by another game); the second adds up, for the keys seen again only, each game's
/// continuation. A key whose bit it shares with another key may be taken for one seen again:
/// it is then found to be reached by one game and gets no row. When the keys seen again are
/// too many for memory, the second reading is done once per range of keys.
enum PositionTreeBuilder {
    /// Memory for the sums of one reading, about.
    static let memoryBudget = 96 << 20

    /// Replaces the tree's rows; `db` is in a transaction.
    static func rebuild(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM PositionTree")
        let results = try GameResults(db)
        let games = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM PositionKeys") ?? 0
        if games == 0 { return }
        let occurrences = games * (PositionIndex.treeDepth + 1)
        // About 8 bits per key read, at most 64 MB a set.
        var bits = 1 << 20
        while bits < occurrences * 8 && bits < 1 << 29 { bits <<= 1 }
        var seenTwice = BitSet(count: bits)
        var distinct = 0
        do {
            var seen = BitSet(count: bits)
            try forEachGame(db) { _, blob, count in
                forEachTreeKey(blob, count) { _, key, _ in
                    let bit = Int(truncatingIfNeeded: key) & (bits - 1)
                    if seen.contains(bit) { seenTwice.insert(bit) } else { seen.insert(bit) }
                }
            }
            distinct = seen.count
        }
        let candidates = seenTwice.count
        // The keys one game reaches go to the filter: those no other key's bit was taken for
        // at once, the others once their sightings are known.
        var singles = SinglesFilter(blocks: SinglesFilter.blocks(forKeys: distinct))
        let parts = max(1, (candidates * 64 + memoryBudget - 1) / memoryBudget)
        let insert = try PreparedStatement(
            db,
            """
            INSERT INTO PositionTree (Position, Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for part in 0..<parts {
            var firsts = FirstSightings(capacity: candidates / parts + 16)
            let sums = OpeningTreeBatch(capacity: 1 << 12)
            try forEachGame(db) { id, blob, count in
                let (outcome, elo) = results[id]
                forEachTreeKey(blob, count) { _, key, next in
                    guard seenTwice.contains(Int(truncatingIfNeeded: key) & (bits - 1)) else {
                        if part == 0 { singles.insert(key) }
                        return
                    }
                    guard (Int(key >> 16) * parts) >> 32 == part else { return }
                    if let first = firsts.sight(key, game: id, next: next, outcome: outcome, elo: elo) {
                        sums.add(key, first.next, outcome: first.outcome, elo: first.elo, gameID: first.game)
                    }
                    if firsts.isShared(key) {
                        sums.add(key, next, outcome: outcome, elo: elo, gameID: id)
                    }
                }
            }
            firsts.forEachSingle { singles.insert($0) }
            try write(sums, with: insert)
        }
        try singles.write(db)
    }

    /// Writes summed rows (new ones) in key order.
    static func write(_ sums: OpeningTreeBatch, with insert: PreparedStatement) throws {
        for row in sums.sorted() {
            insert.bind(1, Int64(row.position))
            insert.bind(2, row.next == OpeningTreeBatch.ended ? PositionIndex.ended : Int64(row.next))
            insert.bind(3, Int64(row.games))
            insert.bind(4, Int64(row.whiteWins))
            insert.bind(5, Int64(row.draws))
            insert.bind(6, Int64(row.blackWins))
            insert.bind(7, row.bestGame)
            insert.bind(8, row.bestElo < 0 ? nil : Int64(row.bestElo))
            defer { insert.reset() }
            try insert.step()
        }
    }

    /// Calls `body` with each key of the tree's plies in a game's blob, a position the game
    /// reaches again counted once (with the move played the first time), with its ply and the
    /// next position's key (`OpeningTreeBatch.ended` after the last).
    @inline(__always)
    static func forEachTreeKey(
        _ blob: UnsafeRawPointer, _ count: Int, _ body: (_ ply: Int, _ key: UInt64, _ next: UInt64) -> Void
    ) {
        let last = min(PositionIndex.treeDepth, count - 1)
        guard last >= 0 else { return }
        var next = PositionIndex.key(in: blob, at: 0)
        for ply in 0...last {
            let key = next
            next = ply + 1 < count ? PositionIndex.key(in: blob, at: ply + 1) : OpeningTreeBatch.ended
            // A position comes back only with the same side to move, at least 4 plies later.
            var earlier = ply - 4
            var repeated = false
            while earlier >= 0 {
                if PositionIndex.key(in: blob, at: earlier) == key {
                    repeated = true
                    break
                }
                earlier -= 2
            }
            if !repeated { body(ply, key, next) }
        }
    }

    /// Reads every row of `PositionKeys` in ID order through the connection of `db`.
    static func forEachGame(
        _ db: Database, _ body: (_ id: Int64, _ blob: UnsafeRawPointer, _ count: Int) throws -> Void
    ) throws {
        let statement = try PreparedStatement(db, "SELECT GameID, Keys FROM PositionKeys ORDER BY GameID")
        while try statement.step() {
            let count = Int(sqlite3_column_bytes(statement.handle, 1)) / PositionIndex.keyBytes
            guard count > 0, let blob = sqlite3_column_blob(statement.handle, 1) else { continue }
            try body(statement.int64(column: 0), blob, count)
        }
    }
}

/// Each game's outcome and rating, by ID, read once.
struct GameResults {
    private var dense: [UInt32] = []
    private var first: Int64 = 0
    private var sparse: [Int64: UInt32] = [:]

    init(_ db: Database) throws {
        let bounds = try Row.fetchOne(db, sql: "SELECT MIN(ID), MAX(ID), COUNT(*) FROM Games")
        let low: Int64 = bounds?[0] ?? 0
        let high: Int64 = bounds?[1] ?? -1
        let count: Int = bounds?[2] ?? 0
        let useDense = high >= low && high - low < Int64(count) * 4 + 1_000_000
        if useDense {
            first = low
            dense = Array(repeating: 0, count: Int(high - low + 1))
        }
        let statement = try PreparedStatement(db, "SELECT ID, Result, WhiteElo, BlackElo FROM Games")
        while try statement.step() {
            let id = statement.int64(column: 0)
            var result: String?
            if let text = sqlite3_column_text(statement.handle, 1) { result = String(cString: text) }
            func elo(_ column: Int32) -> Int? {
                sqlite3_column_type(statement.handle, column) == SQLITE_NULL
                    ? nil : Int(sqlite3_column_int64(statement.handle, column))
            }
            let rating = PositionIndex.rating(white: elo(2), black: elo(3))
            let packed = GameResults.pack(GameOutcome(result: result), rating)
            if useDense { dense[Int(id - low)] = packed } else { sparse[id] = packed }
        }
    }

    static func pack(_ outcome: GameOutcome, _ rating: Int?) -> UInt32 {
        let code: UInt32
        switch outcome {
        case .whiteWins: code = 1
        case .draw: code = 2
        case .blackWins: code = 3
        case .unknown: code = 0
        }
        return code | UInt32(max(0, min(100_000, (rating ?? -1) + 1))) << 2
    }

    subscript(id: Int64) -> (GameOutcome, Int32) {
        let packed: UInt32
        if !dense.isEmpty, id >= first, id - first < Int64(dense.count) {
            packed = dense[Int(id - first)]
        } else {
            packed = sparse[id] ?? 0
        }
        let outcome: GameOutcome = [.unknown, .whiteWins, .draw, .blackWins][Int(packed & 3)]
        return (outcome, Int32(packed >> 2) - 1)
    }
}

/// A fixed number of bits.
struct BitSet {
    private var words: [UInt64]

    init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }

    @inline(__always) func contains(_ bit: Int) -> Bool { words[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    @inline(__always) mutating func insert(_ bit: Int) { words[bit >> 6] |= 1 << UInt64(bit & 63) }

    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }
}

/// For each key: the first game seen at it (its continuation, outcome and rating), and whether
/// another game was seen there since.
struct FirstSightings {
    struct Entry {
        var key: UInt64
        var game: Int64
        var next: UInt64
        var elo: Int32
        var outcome: GameOutcome
        var shared: Bool
    }

    private var entries: [Entry?]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        mask = size - 1
        entries = Array(repeating: nil, count: size)
    }

    @inline(__always) private func slot(_ key: UInt64) -> Int {
        var index = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
        while let entry = entries[index], entry.key != key { index = (index + 1) & mask }
        return index
    }

    /// Notes a game at `key`; returns the first game's sighting when this is the first time
    /// another game is seen there (its row is then due too).
    mutating func sight(_ key: UInt64, game: Int64, next: UInt64, outcome: GameOutcome, elo: Int32) -> Entry? {
        if (count + 1) * 2 > mask + 1 { grow() }
        let index = slot(key)
        guard let entry = entries[index] else {
            entries[index] = Entry(key: key, game: game, next: next, elo: elo, outcome: outcome, shared: false)
            count += 1
            return nil
        }
        if entry.shared || entry.game == game { return nil }
        entries[index]!.shared = true
        return entry
    }

    func isShared(_ key: UInt64) -> Bool { entries[slot(key)]?.shared ?? false }

    /// Calls `body` with each key one game only was seen at.
    func forEachSingle(_ body: (UInt64) -> Void) {
        for case let entry? in entries where !entry.shared { body(entry.key) }
    }

    private mutating func grow() {
        let old = entries
        mask = old.count * 2 - 1
        entries = Array(repeating: nil, count: old.count * 2)
        for case let entry? in old { entries[slot(entry.key)] = entry }
    }
}
