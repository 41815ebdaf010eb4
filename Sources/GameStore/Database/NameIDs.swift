/// The IDs of the names (players, events or sites) a writer looked up or added, and for a
/// player the highest rating known to be stored or about to be: at most twice `limit` names,
/// those used most recently. Names go into a newer half; when it is full it becomes the older
/// half, and the names of the half before are forgotten. A name found in the older half moves
/// into the newer one, so names that come back often stay, however many names come once
/// (most player names of a large file, which a cache emptied when full would lose with them).
///
/// Names are found by a hash of their UTF-8 bytes in open-addressed slots: an import looks up
/// four names a game, and `Hasher` over a `String` cost the writer more than the rest of a
/// lookup.
struct NameIDs {
    /// What is kept for a name.
    struct Entry: Equatable {
        var id: Int64
        /// The highest rating stored for the player, or written by the transaction under way;
        /// `Int.min` when none is known.
        var elo: Int = .min
    }

    /// The most names of each half.
    let limit: Int
    /// Every name of the table, when they were read as the writer started (see `NameFilter`);
    /// nil when the writer looks each name up.
    var filter: NameFilter?
    private var newer: Slots
    private var older: Slots

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
        newer = Slots()
        older = Slots()
    }

    /// The entry of `name`, if it is still here.
    mutating func entry(for name: String) -> Entry? {
        entry(for: name, hash: NameIDs.hash(name))
    }

    /// The entry of `name`, whose `hash(_:)` is `hash`, if it is still here.
    mutating func entry(for name: String, hash: UInt64) -> Entry? {
        if let slot = newer.find(name, hash: hash) { return newer.entries[slot] }
        guard let slot = older.find(name, hash: hash) else { return nil }
        // Left in the older half too: the newer half is searched first, and the older one
        // is emptied as a whole.
        let entry = older.entries[slot]
        insert(entry, for: name, hash: hash)
        return entry
    }

    /// Remembers `entry` for `name`, forgetting the older half when the newer one is full.
    mutating func insert(_ entry: Entry, for name: String) {
        insert(entry, for: name, hash: NameIDs.hash(name))
    }

    /// Raises the rating kept for `name` to `elo`, if the name is still here.
    mutating func raise(_ name: String, to elo: Int) {
        let hash = NameIDs.hash(name)
        if let slot = newer.find(name, hash: hash) {
            newer.entries[slot].elo = max(newer.entries[slot].elo, elo)
        } else if let slot = older.find(name, hash: hash) {
            older.entries[slot].elo = max(older.entries[slot].elo, elo)
        }
    }

    /// Forgets everything (another program changed the file, a transaction rolled back, or an
    /// import gives the memory back before it builds the opening tree).
    mutating func removeAll() {
        newer = Slots()
        older = Slots()
        filter = nil
    }

    /// The names held, in both halves (a name moved to the newer half counts twice).
    var count: Int { newer.count + older.count }

    /// Remembers `entry` for `name`, whose `hash(_:)` is `hash`.
    mutating func insert(_ entry: Entry, for name: String, hash: UInt64) {
        if let slot = newer.find(name, hash: hash) {
            newer.entries[slot] = entry
            return
        }
        if newer.count >= limit {
            swap(&newer, &older)
            newer.removeAll()
        }
        newer.add(name, hash: hash, entry: entry)
    }

    /// A hash of the name's UTF-8 bytes, eight at a time; never 0 (an empty slot).
    static func hash(_ name: String) -> UInt64 {
        var name = name
        return name.withUTF8 { bytes in
            var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                hash = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
                hash ^= hash >> 31
                offset += 8
            }
            var last: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count {
                last |= UInt64(bytes[offset]) << shift
                shift += 8
                offset += 1
            }
            hash = (hash ^ last) &* 0x94D0_49BB_1331_11EB
            hash ^= hash >> 29
            return hash | 1
        }
    }

    /// One half: open-addressed slots, at most 80% of them used, probed one after the other
    /// from the hash (the stored hashes are compared before any name); they grow with the
    /// names, up to a power of two above `limit` / 0.8. Half full at most, as they were, the
    /// halves of the three tables held 32 MB at the peak of a million games' import; this way 16.
    private struct Slots {
        var hashes: [UInt64] = Array(repeating: 0, count: 16)
        var names: [String] = Array(repeating: "", count: 16)
        var entries: [Entry] = Array(repeating: Entry(id: 0), count: 16)
        var count = 0
        var mask = 15

        func find(_ name: String, hash: UInt64) -> Int? {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let stored = hashes[slot]
                if stored == 0 { return nil }
                if stored == hash && names[slot] == name { return slot }
                slot = (slot + 1) & mask
            }
        }

        mutating func add(_ name: String, hash: UInt64, entry: Entry) {
            if 5 * (count + 1) > 4 * hashes.count { grow() }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while hashes[slot] != 0 { slot = (slot + 1) & mask }
            hashes[slot] = hash
            names[slot] = name
            entries[slot] = entry
            count += 1
        }

        private mutating func grow() {
            let old = (hashes, names, entries)
            let capacity = 2 * hashes.count
            hashes = Array(repeating: 0, count: capacity)
            names = Array(repeating: "", count: capacity)
            entries = Array(repeating: Entry(id: 0), count: capacity)
            mask = capacity - 1
            count = 0
            for slot in old.0.indices where old.0[slot] != 0 {
                add(old.1[slot], hash: old.0[slot], entry: old.2[slot])
            }
        }

        /// Empties the slots, keeping their number.
        mutating func removeAll() {
            guard count > 0 else { return }
            for slot in hashes.indices where hashes[slot] != 0 {
                hashes[slot] = 0
                names[slot] = ""
            }
            count = 0
        }
    }
}

/// Which names a table may hold (a Bloom filter over `NameIDs.hash`): a name it does not hold
/// is added without first being looked up. Most players of a large file appear in it once, and
/// each lookup of a new name walked the table's index for nothing.
struct NameFilter {
    private var words: [UInt64]
    private let mask: Int

    /// A filter of at least 16 bits for each of `names` names: with `names` added, a name that
    /// was not is reported held about once in 400; with a third of them, once in 20,000.
    init(names: Int) {
        var bits = 1 << 12
        while bits < 16 * names { bits *= 2 }
        words = Array(repeating: 0, count: bits / 64)
        mask = bits - 1
    }

    /// Whether a name of this hash may have been added; false only when it was not.
    func mayHold(_ hash: UInt64) -> Bool {
        let bits = NameFilter.bits(of: hash, mask)
        for k in bits.indices where words[bits[k] >> 6] & (1 << UInt64(bits[k] & 63)) == 0 { return false }
        return true
    }

    mutating func add(_ hash: UInt64) {
        let bits = NameFilter.bits(of: hash, mask)
        for k in bits.indices { words[bits[k] >> 6] |= 1 << UInt64(bits[k] & 63) }
    }

    /// The four bits of a hash: the hash and three steps of its upper half from it.
    @inline(__always) private static func bits(of hash: UInt64, _ mask: Int) -> SIMD4<Int> {
        let positions = SIMD4(repeating: hash) &+ SIMD4(0, 1, 2, 3) &* SIMD4(repeating: (hash >> 32) | 1)
        return SIMD4<Int>(truncatingIfNeeded: positions) & SIMD4(repeating: mask)
    }
}
