import CStorageShims
import Foundation
import GRDB
import GRDBSQLite

/// Builds `PositionTree` and `PositionSingles` from `PositionMoves` and the games' results and
/// ratings, in memory bounded whatever the number of games.
///
/// Two replays of the games' first plies. The first adds every key to the filter (sized for as
/// many keys as there are positions in the tree's plies), and marks in a bit set the keys the
/// filter already held (seen again, or taken for one seen). The second adds up, for the
/// marked keys only, each game's continuation; a marked key one game reaches gets no row. When
/// the filter or the marked keys are too many for memory, they are done once per range of
/// keys. Both replays fetch a game's lines of the filter or words of the bit set before they
/// use them: their misses overlap instead of following one another.
enum PositionTreeBuilder {
    /// Memory for the filter's blocks of one range of keys.
    static let filterBudget = 96 << 20
    /// Memory for one range's sightings (32 bytes a slot, at most three quarters of them
    /// used); the sums take 6 MB more.
    static let sightingsBudget = 128 << 20
    /// Rows summed in memory before they are added to the table's.
    static let rowsInMemory = 65_536

    /// Replaces the tree's rows and the filter; `db` is in a transaction.
    static func rebuild(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM PositionTree")
        let games = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM PositionMoves") ?? 0
        if games == 0 { return }
        let results = try GameResults(db)
        let plies = PositionIndex.treeDepth + 1
        let blocks = SinglesFilter.blocks(forKeys: games * plies)
        let parts = (blocks * SinglesFilter.blockBytes + filterBudget - 1) / filterBudget
        // About 64 bits a game (of 41 positions, a few of them shared): few keys one game
        // reaches share a bit with a marked one.
        var bits = 1 << 20
        while bits < games * 64 / parts && bits < 1 << 28 { bits <<= 1 }
        for part in 0..<parts {
            // Keys in order: a range of the filter's blocks is a range of keys.
            let range = ((part * blocks + parts - 1) / parts)..<(((part + 1) * blocks + parts - 1) / parts)
            let marked = BitSet(count: bits)
            do {
                let filter = SinglesFilterPart(blocks: blocks, range: range)
                try forEachGame(db) { _, keys, count in
                    for ply in 0..<min(count, plies) where filter.holdsBlock(of: keys[ply]) {
                        cstorage_prefetch(filter.line(of: keys[ply]))
                    }
                    forEachTreeKey(keys, count) { _, key, _ in
                        guard filter.holdsBlock(of: key) else { return }
                        if filter.insert(key) { marked.insert(Int(truncatingIfNeeded: key) & (bits - 1)) }
                    }
                }
                try filter.write(db)
            }
            try sumMarked(
                db, marked, bits: bits, distinct: games * plies / parts, blocks: blocks, range: range,
                results: results)
        }
    }

    /// Adds up the rows of the keys of `range` whose bit `marked` holds: one replay per range of
    /// keys whose sightings fit in memory.
    static func sumMarked(
        _ db: Database, _ marked: BitSet, bits: Int, distinct: Int, blocks: Int, range: Range<Int>,
        results: GameResults
    ) throws {
        // A marked bit stands for one key or more: the keys seen again, and the keys of the range
        // that share their bit.
        let count = marked.count
        let sighted = count + distinct * count / bits + 16
        let perReplay = max(1, sightingsBudget / 32 * 3 / 4)
        let parts = (sighted + perReplay - 1) / perReplay
        for part in 0..<parts {
            func inPart(_ key: UInt64) -> Bool {
                let block = SinglesFilter.block(of: key, blocks: blocks)
                return range.contains(block) && (block - range.lowerBound) * parts / range.count == part
            }
            let firsts = FirstSightings(capacity: sighted / parts + 16)
            var sums = OpeningTreeBatch(capacity: rowsInMemory)
            try forEachGame(db) { id, keys, count in
                for ply in 0..<min(count, PositionIndex.treeDepth + 1) {
                    cstorage_prefetch(marked.word(of: Int(truncatingIfNeeded: keys[ply]) & (bits - 1)))
                }
                let (outcome, elo) = results[id]
                forEachTreeKey(keys, count) { _, key, next in
                    guard marked.contains(Int(truncatingIfNeeded: key) & (bits - 1)), inPart(key) else { return }
                    firsts.sight(key, game: id, next: next, outcome: outcome, elo: elo, into: sums)
                }
                if sums.count >= rowsInMemory {
                    try PositionIndexWriter.upsert(sums, db)
                    sums = OpeningTreeBatch(capacity: rowsInMemory)
                }
            }
            try PositionIndexWriter.upsert(sums, db)
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

    /// Calls `body` with each key of the tree's plies among a game's first keys, a position
    /// the game reaches again counted once (with the move played the first time), with its ply
    /// and the next position's key (`OpeningTreeBatch.ended` after the last). `keys` holds
    /// `count` keys: the game's positions from its start, up to `treeDepth` + 2 of them.
    @inline(__always)
    static func forEachTreeKey(
        _ keys: UnsafePointer<UInt64>, _ count: Int, _ body: (_ ply: Int, _ key: UInt64, _ next: UInt64) -> Void
    ) {
        let last = min(PositionIndex.treeDepth, count - 1)
        guard last >= 0 else { return }
        for ply in 0...last {
            let key = keys[ply]
            let next = ply + 1 < count ? keys[ply + 1] : OpeningTreeBatch.ended
            // A position comes back only with the same side to move, at least 4 plies later.
            var earlier = ply - 4
            var repeated = false
            while earlier >= 0 {
                if keys[earlier] == key {
                    repeated = true
                    break
                }
                earlier -= 2
            }
            if !repeated { body(ply, key, next) }
        }
    }

    /// Replays every row of `PositionMoves` in ID order, through the connection of `db`, and
    /// calls `body` with the keys of each game's first `treeDepth` + 2 positions.
    static func forEachGame(
        _ db: Database, _ body: (_ id: Int64, _ keys: UnsafePointer<UInt64>, _ count: Int) throws -> Void
    ) throws {
        let statement = try PreparedStatement(db, "SELECT GameID, Moves, FEN FROM PositionMoves ORDER BY GameID")
        let reader = PositionMovesReader()
        let limit = PositionIndex.treeDepth + 2
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: limit)
        defer { keys.deallocate() }
        while try statement.step() {
            guard reader.start(statement.handle, fenColumn: 2) else { continue }
            let count = reader.keys(statement.handle, movesColumn: 1, into: keys, limit: limit)
            try body(statement.int64(column: 0), keys, count)
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
final class BitSet {
    private let table: LargeTable
    private let words: UnsafeMutablePointer<UInt64>
    private let wordCount: Int

    init(count: Int) {
        wordCount = (count + 63) / 64
        table = LargeTable(bytes: wordCount * 8)
        words = table.base.bindMemory(to: UInt64.self, capacity: wordCount)
    }

    @inline(__always) func contains(_ bit: Int) -> Bool { words[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    @inline(__always) func insert(_ bit: Int) { words[bit >> 6] |= 1 << UInt64(bit & 63) }

    /// The address of the bit's word, to prefetch.
    @inline(__always) func word(of bit: Int) -> UnsafeRawPointer { UnsafeRawPointer(words + (bit >> 6)) }

    var count: Int { (0..<wordCount).reduce(0) { $0 + words[$1].nonzeroBitCount } }
}

/// For each key: the first game seen at it (its continuation, outcome and rating), and whether
/// another game was seen there since. 32 bytes an entry, in one block of memory.
final class FirstSightings {
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

    // One builder's, on one thread: no run-time checks of exclusive access.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var mask: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size * 3 < capacity * 4 { size <<= 1 }
        mask = size - 1
        entries = FirstSightings.allocate(size)
    }

    deinit { entries.deallocate() }

    private static func allocate(_ size: Int) -> UnsafeMutablePointer<Entry> {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: size)
        entries.initialize(repeating: Entry(stored: 0, game: 0, next: 0, packed: 0), count: size)
        return entries
    }

    @inline(__always) private func slot(_ key: UInt64) -> Int {
        var index = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
        while entries[index].stored != 0 && entries[index].stored != key &+ 1 { index = (index + 1) & mask }
        return index
    }

    /// Notes a game at `key`, and adds to `sums` the rows that are due: this game's when
    /// another was seen there before, and the first game's too the first time.
    @inline(__always)
    func sight(
        _ key: UInt64, game: Int64, next: UInt64, outcome: GameOutcome, elo: Int32, into sums: OpeningTreeBatch
    ) {
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        let index = slot(key)
        let entry = entries[index]
        if entry.stored == 0 {
            entries[index] = Entry(
                stored: key &+ 1, game: game, next: next, packed: outcome.code | UInt32(max(0, Int(elo) + 1)) << 3)
            count += 1
            return
        }
        if !entry.shared {
            guard entry.game != game else { return }
            entries[index].packed |= 4
            sums.add(key, entry.next, outcome: entry.outcome, elo: entry.elo, gameID: entry.game)
        }
        sums.add(key, next, outcome: outcome, elo: elo, gameID: game)
    }

    /// Calls `body` with each key one game only was seen at.
    func forEachSingle(_ body: (UInt64) -> Void) {
        for index in 0...mask where entries[index].stored != 0 && !entries[index].shared { body(entries[index].key) }
    }

    private func grow() {
        let old = entries
        let oldSize = mask + 1
        mask = oldSize * 2 - 1
        entries = FirstSightings.allocate(oldSize * 2)
        for index in 0..<oldSize where old[index].stored != 0 { entries[slot(old[index].key)] = old[index] }
        old.deallocate()
    }
}
