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
    /// Memory for one reading's sightings (about 43 bytes a key), and half of it for its
    /// blocks of the filter; the sums take 6 MB more.
    static let memoryBudget = 64 << 20
    /// Rows summed in memory before they are added to the table's.
    static let rowsInMemory = 65_536

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
        // A bit seen twice stands for more than one key when keys share bits: about as many
        // more as each bit has keys.
        let sighted = candidates + candidates * distinct / bits + 1
        let blocks = SinglesFilter.blocks(forKeys: distinct)
        // Each reading follows a range of keys: its sightings, sums and filter blocks within
        // the memory budget.
        let perReading = max(1, memoryBudget / 64)
        let parts = max(
            (sighted + perReading - 1) / perReading,
            (blocks * SinglesFilter.blockBytes + memoryBudget / 2 - 1) / (memoryBudget / 2))
        for part in 0..<parts {
            // Keys in order: a reading takes the keys of a range of the filter's blocks.
            func inPart(_ key: UInt64) -> Bool { SinglesFilter.block(of: key, blocks: blocks) * parts / blocks == part }
            var firsts = FirstSightings(capacity: sighted / parts + 16)
            var sums = OpeningTreeBatch(capacity: rowsInMemory)
            var singles = SinglesFilter(
                blocks: blocks,
                range: ((part * blocks + parts - 1) / parts)..<(((part + 1) * blocks + parts - 1) / parts))
            try forEachGame(db) { id, blob, count in
                let (outcome, elo) = results[id]
                forEachTreeKey(blob, count) { _, key, next in
                    guard inPart(key) else { return }
                    guard seenTwice.contains(Int(truncatingIfNeeded: key) & (bits - 1)) else {
                        singles.insert(key)
                        return
                    }
                    if let first = firsts.sight(key, game: id, next: next, outcome: outcome, elo: elo) {
                        sums.add(key, first.next, outcome: first.outcome, elo: first.elo, gameID: first.game)
                    }
                    if firsts.isShared(key) {
                        sums.add(key, next, outcome: outcome, elo: elo, gameID: id)
                    }
                }
                if sums.count >= rowsInMemory {
                    try PositionIndexWriter.upsert(sums, db)
                    sums = OpeningTreeBatch(capacity: rowsInMemory)
                }
            }
            firsts.forEachSingle { singles.insert($0) }
            try PositionIndexWriter.upsert(sums, db)
            try singles.write(db)
        }
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
        outcome.code | UInt32(max(0, min(100_000, (rating ?? -1) + 1))) << 2
    }

    subscript(id: Int64) -> (GameOutcome, Int32) {
        let packed: UInt32
        if !dense.isEmpty, id >= first, id - first < Int64(dense.count) {
            packed = dense[Int(id - first)]
        } else {
            packed = sparse[id] ?? 0
        }
        return (GameOutcome(code: packed), Int32(packed >> 2) - 1)
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
/// another game was seen there since. 32 bytes an entry, in one block of memory.
struct FirstSightings {
    struct Entry {
        /// The key + 1 (0 marks a free slot).
        var stored: UInt64
        var game: Int64
        var next: UInt64
        /// Bits 0–1: the outcome; bit 2: shared; bits 3…: the rating + 1.
        var packed: UInt32

        var key: UInt64 { stored &- 1 }
        var shared: Bool { packed & 4 != 0 }
        var outcome: GameOutcome { GameOutcome(code: packed) }
        var elo: Int32 { Int32(packed >> 3) - 1 }
    }

    private var entries: [Entry]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size * 3 < capacity * 4 { size <<= 1 }
        mask = size - 1
        entries = Array(repeating: Entry(stored: 0, game: 0, next: 0, packed: 0), count: size)
    }

    @inline(__always) private func slot(_ key: UInt64) -> Int {
        var index = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
        while entries[index].stored != 0 && entries[index].stored != key &+ 1 { index = (index + 1) & mask }
        return index
    }

    /// Notes a game at `key`; returns the first game's sighting when this is the first time
    /// another game is seen there (its row is then due too).
    mutating func sight(_ key: UInt64, game: Int64, next: UInt64, outcome: GameOutcome, elo: Int32) -> Entry? {
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        let index = slot(key)
        let entry = entries[index]
        guard entry.stored != 0 else {
            entries[index] = Entry(
                stored: key &+ 1, game: game, next: next, packed: outcome.code | UInt32(max(0, Int(elo) + 1)) << 3)
            count += 1
            return nil
        }
        if entry.shared || entry.game == game { return nil }
        entries[index].packed |= 4
        return entry
    }

    func isShared(_ key: UInt64) -> Bool { entries[slot(key)].shared }

    /// Calls `body` with each key one game only was seen at.
    func forEachSingle(_ body: (UInt64) -> Void) {
        for entry in entries where entry.stored != 0 && !entry.shared { body(entry.key) }
    }

    private mutating func grow() {
        let old = entries
        mask = old.count * 2 - 1
        entries = Array(repeating: Entry(stored: 0, game: 0, next: 0, packed: 0), count: old.count * 2)
        for entry in old where entry.stored != 0 { entries[slot(entry.key)] = entry }
    }
}
