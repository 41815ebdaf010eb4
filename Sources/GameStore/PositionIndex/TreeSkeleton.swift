import GRDB

/// The tree's rows with counts at 0, to count kept games at: each position's rows in order,
/// and an open-addressing table from a position's key to its rows (one cache miss to find
/// them, one to count in them).
final class TreeSkeleton {
    struct Slot {
        /// The key + 1 (0 marks a free slot).
        var stored: UInt64
        var start: Int32
        var count: Int32
    }

    private(set) var keys: [UInt64] = []
    /// The rows of `keys[i]`: `starts[i]..<starts[i + 1]`.
    private(set) var starts: [Int] = []
    var rows: [FilteredExplorer.Row] = []
    private var slots: [Slot] = []
    private var mask = 0

    init(_ db: Database) throws {
        let statement = try PreparedStatement(db, "SELECT Position, Next FROM PositionTree ORDER BY Position, Next")
        while try statement.step() {
            let key = UInt64(bitPattern: statement.int64(column: 0))
            if keys.last != key {
                keys.append(key)
                starts.append(rows.count)
            }
            rows.append(
                .init(
                    next: statement.int64(column: 1), games: 0, whiteWins: 0, draws: 0, blackWins: 0, bestGame: 0,
                    bestElo: -1))
        }
        starts.append(rows.count)
        var size = 16
        while size < keys.count * 2 { size <<= 1 }
        mask = size - 1
        slots = Array(repeating: Slot(stored: 0, start: 0, count: 0), count: size)
        for (place, key) in keys.enumerated() {
            var index = TreeSkeleton.home(key, mask)
            while slots[index].stored != 0 { index = (index + 1) & mask }
            slots[index] = Slot(
                stored: key &+ 1, start: Int32(starts[place]), count: Int32(starts[place + 1] - starts[place]))
        }
    }

    @inline(__always) private static func home(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
    }

    /// The slot where a search for `key` starts: read for each of a game's keys before any is
    /// looked up, the reads wait for memory together instead of one after the other (a game's
    /// lookups took three times as long).
    @inline(__always) func firstSlot(_ key: UInt64) -> Slot {
        slots.withUnsafeBufferPointer { $0[TreeSkeleton.home(key, mask)] }
    }

    /// The row of `key` and `next` (`OpeningTreeBatch.ended` where the game ended) among
    /// `rows` (the skeleton's, being counted), if the tree has it; `probed`: `firstSlot(key)`.
    @inline(__always) func row(
        _ key: UInt64, _ next: UInt64, probed: Slot, in rows: UnsafeMutableBufferPointer<FilteredExplorer.Row>
    ) -> Int? {
        var found = probed
        if found.stored != key &+ 1 {
            guard found.stored != 0 else { return nil }
            found = slots.withUnsafeBufferPointer { slots in
                var index = TreeSkeleton.home(key, mask)
                while slots[index].stored != 0 && slots[index].stored != key &+ 1 { index = (index + 1) & mask }
                return slots[index]
            }
            guard found.stored != 0 else { return nil }
        }
        let wanted = next == OpeningTreeBatch.ended ? PositionIndex.ended : Int64(next)
        let first = Int(found.start)
        for row in first..<first + Int(found.count) where rows[row].next == wanted { return row }
        return nil
    }
}
