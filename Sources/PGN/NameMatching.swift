import Foundation

/// When two names of a player, event or site are the same name written differently.
///
/// PGN writes players `Last, First`, but real files disagree on the details: `Carlsen,Magnus`,
/// `Carlsen, Magnus`, `carlsen, magnus`, `Cârlsen, Magnus`. These share a `NameKey`. A name with
/// initials (`Carlsen, M.`) shares no key with the full name, but `mayAbbreviate` says it may be
/// the same player: a person has to decide that.
public struct NameKey: Hashable, Sendable {
    /// The words of the name: accents and case folded, commas and full stops read as spaces.
    public let words: [String]

    public init(_ name: String) {
        var name = name
        // Most names are ASCII: folded here, without Foundation's Unicode tables.
        let ascii: [String]? = name.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return bytes.split { $0 == 0x2C || $0 == 0x2E || $0 == 0x20 || (0x09...0x0D).contains($0) }.map {
                String(decoding: $0.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            }
        }
        if let ascii {
            words = ascii
            return
        }
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        words = folded.split { $0 == "," || $0 == "." || $0.isWhitespace }.map(String.init)
    }

    /// Feeds the words of `name`'s key to `hasher`, as `NameKey(name).words` would give them,
    /// without making them: for the many names a file has.
    public static func hash(_ name: String, into hasher: inout Hasher) {
        var name = name
        let ascii = name.withUTF8 { bytes -> Bool in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return false }
            var inWord = false
            for byte in bytes {
                if byte == 0x2C || byte == 0x2E || byte == 0x20 || (0x09...0x0D).contains(byte) {
                    if inWord { hasher.combine(UInt8(0xFF)) }
                    inWord = false
                } else {
                    hasher.combine((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
                    inWord = true
                }
            }
            if inWord { hasher.combine(UInt8(0xFF)) }
            return true
        }
        guard !ascii else { return }
        for word in NameKey(name).words {
            for byte in word.utf8 { hasher.combine(byte) }
            hasher.combine(UInt8(0xFF))
        }
    }

    /// Whether one of the names may be the other with given names shortened to initials or
    /// left out: the same first word (the surname), and each later word of the shorter name
    /// the start of the other's word at the same place (`Carlsen, M.` and `Carlsen, Magnus`).
    /// Never true of equal keys, nor of names of one word.
    public func mayAbbreviate(_ other: NameKey) -> Bool {
        guard self != other, let surname = words.first, surname == other.words.first,
            words.count > 1 || other.words.count > 1
        else { return false }
        let (short, long) = words.count <= other.words.count ? (words, other.words) : (other.words, words)
        for (a, b) in zip(short.dropFirst(), long.dropFirst()) {
            let (shorter, longer) = a.count <= b.count ? (a, b) : (b, a)
            guard longer.hasPrefix(shorter) else { return false }
        }
        return true
    }

    /// Whether `query`, as someone types a name to look for, may mean this name: each of its
    /// words the start of a word of the name, case and accents folded, in any order
    /// (`maghsoodloo`, `Carlsen M`, `magnus carlsen` for `Carlsen, Magnus`). An empty query
    /// means no name.
    public func isMeant(by query: NameKey) -> Bool {
        guard !query.words.isEmpty else { return false }
        var free = words
        for word in query.words {
            guard let k = free.firstIndex(where: { $0.hasPrefix(word) }) else { return false }
            free.remove(at: k)
        }
        return true
    }

    /// How far `query` is from the closest word of this name, or from the whole name written
    /// as the query's words are (edits of one character each): to suggest names for one that
    /// matched none.
    public func distance(to query: NameKey) -> Int {
        let typed = query.words.joined(separator: " ")
        var best = Self.editDistance(Array(typed.unicodeScalars), Array(words.joined(separator: " ").unicodeScalars))
        for word in words {
            best = min(best, Self.editDistance(Array(typed.unicodeScalars), Array(word.unicodeScalars)))
        }
        return best
    }

    /// Levenshtein's distance.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for (i, x) in a.enumerated() {
            current[0] = i + 1
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
