import GRDB

/// The games this connection wrote to a file that had none, by a hash of their identity and
/// mainline: each entry holds 32 bits of the hash and the game's row ID, 8 bytes in an
/// open-addressing table (linear probing). A hash that is not here belongs to no game of the
/// file; one that is names the rows to compare with, so that the answer stays exact whatever
/// the collisions. The entries are spread over sixteen such tables by the top bits they keep,
/// each growing by half on its own when it is 80% full: growing holds a sixteenth of the
/// entries twice, not all of them (at 4 million games, 3 MB more for a moment, not 40).
struct GameHashTable {
    fileprivate var shards: [Shard]

    /// The games the table holds.
    var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// How many tables the entries are spread over, by the top bits of the 32 they keep.
    static let shardCount = 16

    init(capacity: Int = 1024) {
        shards = Array(repeating: Shard(slots: capacity / GameHashTable.shardCount), count: GameHashTable.shardCount)
    }

    /// The slots of each of the tables the entries are spread over.
    var slotsPerShard: [Int] { shards.map(\.slots.count) }

    /// The largest row ID an entry holds; a table asked to hold a larger one gives up.
    static let largestRowID = Int64(UInt32.max)

    private static func tag(_ hash: Int) -> UInt64 { UInt64(UInt(bitPattern: hash)) & 0xFFFF_FFFF }

    /// Calls `body` with the row ID of each game whose hash has the same kept bits as `hash`
    /// until it returns true; returns whether it did.
    func contains(_ hash: Int, where body: (Int64) throws -> Bool) rethrows -> Bool {
        let tag = GameHashTable.tag(hash)
        return try shards[Int(tag >> 28)].contains(tag, where: body)
    }

    /// Adds a game; false when its row ID does not fit (the table can then no longer answer).
    mutating func insert(_ hash: Int, rowID: Int64) -> Bool {
        guard rowID > 0, rowID <= GameHashTable.largestRowID else { return false }
        let tag = GameHashTable.tag(hash)
        shards[Int(tag >> 28)].insert(tag << 32 | UInt64(rowID))
        return true
    }

    /// One of the tables: its slots, an even number of them.
    fileprivate struct Shard {
        var slots: [UInt64]
        var count = 0

        init(slots: Int) {
            self.slots = Array(repeating: 0, count: Shard.even(max(16, slots)))
        }

        init(slots: [UInt64], count: Int) {
            self.slots = slots
            self.count = count
        }

        static func even(_ n: Int) -> Int { (n + 1) & ~1 }

        /// The slot where the search for an entry with these kept bits starts: the 28 bits
        /// below the four that chose the table, spread over the slots in order.
        private func start(_ tag: UInt64) -> Int {
            let low = tag & 0x0FFF_FFFF
            return Int((low << 36 | low << 8).multipliedFullWidth(by: UInt64(slots.count)).high)
        }

        func contains(_ tag: UInt64, where body: (Int64) throws -> Bool) rethrows -> Bool {
            var k = start(tag)
            while true {
                let slot = slots[k]
                if slot == 0 { return false }
                if slot >> 32 == tag, try body(Int64(slot & 0xFFFF_FFFF)) { return true }
                k += 1
                if k == slots.count { k = 0 }
            }
        }

        mutating func insert(_ entry: UInt64) {
            if (count + 1) * 5 > slots.count * 4 { grow() }
            place(entry)
            count += 1
        }

        private mutating func place(_ entry: UInt64) {
            var k = start(entry >> 32)
            while slots[k] != 0 {
                k += 1
                if k == slots.count { k = 0 }
            }
            slots[k] = entry
        }

        private mutating func grow() {
            let old = slots
            slots = []
            slots = Array(repeating: 0, count: Shard.even(old.count + old.count / 2))
            for entry in old where entry != 0 { place(entry) }
        }
    }
}

extension GameHashTable {
    /// Tables of at least this many games are put aside in a scratch file while the opening
    /// tree is built (8 to 12 bytes a game: 40 MB and more at 4 million games).
    nonisolated(unsafe) static var putAsideFrom = 1 << 20

    /// A table's entries in a scratch file, read back by `init(readingBack:)`.
    struct PutAside {
        fileprivate let spill: OccurrenceSpill
        /// Each table's slots and entries, in the order they were written.
        fileprivate let shards: [(slots: Int, count: Int)]
    }

    /// Writes the entries to an unlinked scratch file near `db`'s file; the table's memory can
    /// then go back to the system until they are read back.
    func putAside(near db: Database) throws -> PutAside {
        let spill = try OccurrenceSpill(files: 1, near: db)
        // Two slots to an `Occurrence` (16 bytes): each table has an even number.
        for shard in shards {
            try shard.slots.withUnsafeBytes { try spill.append(bytes: $0, to: 0) }
        }
        try spill.finish()
        return PutAside(spill: spill, shards: shards.map { ($0.slots.count, $0.count) })
    }

    /// The table whose entries `putAside` wrote.
    init(readingBack stored: PutAside) throws {
        var first = 0
        shards = try stored.shards.map { shard in
            var slots = [UInt64](repeating: 0, count: shard.slots)
            try slots.withUnsafeMutableBytes { raw in
                let pairs = raw.bindMemory(to: Occurrence.self)
                try stored.spill.read(0, from: first, count: pairs.count, into: pairs.baseAddress!)
                first += pairs.count
            }
            return Shard(slots: slots, count: shard.count)
        }
    }
}
