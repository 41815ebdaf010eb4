/// Values looked up by key, at most twice `limit` of them, for the keys used most recently.
/// Entries go into a newer half; when it is full it becomes the older half, and the entries
/// of the half before are forgotten. A key found in the older half moves into the newer one,
/// so keys that come back often stay, however many keys come once (most player names of a
/// large file, which a cache emptied when full would lose with them).
struct RecentCache<Key: Hashable, Value> {
    /// The most entries of each half.
    let limit: Int
    private var newer: [Key: Value] = [:]
    private var older: [Key: Value] = [:]

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// The value of `key`, if it is still here.
    mutating func value(for key: Key) -> Value? {
        if let value = newer[key] { return value }
        guard let value = older.removeValue(forKey: key) else { return nil }
        insert(value, for: key)
        return value
    }

    /// Remembers `value` for `key`, forgetting the older half when the newer one is full.
    mutating func insert(_ value: Value, for key: Key) {
        if newer.count >= limit, newer[key] == nil {
            older = newer
            newer = Dictionary(minimumCapacity: limit)
        }
        newer[key] = value
    }

    /// Forgets everything (another program changed the file, or an import gives the memory
    /// back before it builds the opening tree).
    mutating func removeAll() {
        newer.removeAll()
        older.removeAll()
    }

    /// The entries held, in both halves.
    var count: Int { newer.count + older.count }
}
