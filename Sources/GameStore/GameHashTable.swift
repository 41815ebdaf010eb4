import GRDB

/// The games this connection wrote to a file that had none, by a hash of their identity and
/// mainline: each entry holds 32 bits of the hash and the game's row ID, 8 bytes in an
/// open-addressing table (linear probing) that grows by half when it is 80% full. A hash that
/// is not here belongs to no game of the file; one that is names the rows to compare with, so
/// that the answer stays exact whatever the collisions.
struct GameHashTable {
    private var slots: [UInt64]
    private(set) var count = 0

    init(capacity: Int = 1024) {
        slots = Array(repeating: 0, count: max(16, capacity))
    }

    /// The largest row ID an entry holds; a table asked to hold a larger one gives up.
    static let largestRowID = Int64(UInt32.max)

    /// The slot where the search for an entry with these kept bits starts.
    private func start(_ tag: UInt64) -> Int {
        Int((tag << 32 | tag).multipliedFullWidth(by: UInt64(slots.count)).high)
    }

    /// Calls `body` with the row ID of each game whose hash has the same kept bits as `hash`
    /// until it returns true; returns whether it did.
    func contains(_ hash: Int, where body: (Int64) throws -> Bool) rethrows -> Bool {
        let tag = UInt64(UInt(bitPattern: hash)) & 0xFFFF_FFFF
        var k = start(tag)
        while true {
            let slot = slots[k]
            if slot == 0 { return false }
            if slot >> 32 == tag, try body(Int64(slot & 0xFFFF_FFFF)) { return true }
            k += 1
            if k == slots.count { k = 0 }
        }
    }

    /// Adds a game; false when its row ID does not fit (the table can then no longer answer).
    mutating func insert(_ hash: Int, rowID: Int64) -> Bool {
        guard rowID > 0, rowID <= GameHashTable.largestRowID else { return false }
        if (count + 1) * 5 > slots.count * 4 { grow() }
        let tag = UInt64(UInt(bitPattern: hash)) & 0xFFFF_FFFF
        place(tag << 32 | UInt64(rowID))
        count += 1
        return true
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
        slots = Array(repeating: 0, count: old.count + old.count / 2)
        for entry in old where entry != 0 { place(entry) }
    }
}

extension GameHashTable {
    /// Tables of at least this many games are put aside in a scratch file while the opening
    /// tree is built (8 to 12 bytes a game: 40 MB and more at 4 million games).
    nonisolated(unsafe) static var putAsideFrom = 1 << 20

    /// A table's entries in a scratch file, read back by `init(readingBack:)`.
    struct PutAside {
        fileprivate let spill: OccurrenceSpill
        fileprivate let slots: Int
        fileprivate let count: Int
    }

    /// Writes the entries to an unlinked scratch file near `db`'s file; the table's memory can
    /// then go back to the system until they are read back.
    func putAside(near db: Database) throws -> PutAside {
        let spill = try OccurrenceSpill(files: 1, near: db)
        // Two entries to an `Occurrence` (16 bytes); an odd last one with an empty slot.
        try slots.withUnsafeBytes { raw in
            let paired = raw.count / MemoryLayout<Occurrence>.stride * MemoryLayout<Occurrence>.stride
            try spill.append(bytes: UnsafeRawBufferPointer(rebasing: raw[..<paired]), to: 0)
            if slots.count % 2 == 1 {
                let last = (raw.load(fromByteOffset: raw.count - 8, as: UInt64.self), UInt64(0))
                try withUnsafeBytes(of: last) { try spill.append(bytes: $0, to: 0) }
            }
        }
        try spill.finish()
        return PutAside(spill: spill, slots: slots.count, count: count)
    }

    /// The table whose entries `putAside` wrote.
    init(readingBack stored: PutAside) throws {
        var slots = [UInt64](repeating: 0, count: stored.slots + stored.slots % 2)
        try slots.withUnsafeMutableBytes { raw in
            let pairs = raw.bindMemory(to: Occurrence.self)
            try stored.spill.read(0, from: 0, count: pairs.count, into: pairs.baseAddress!)
        }
        slots.removeLast(slots.count - stored.slots)
        self.slots = slots
        self.count = stored.count
    }
}
