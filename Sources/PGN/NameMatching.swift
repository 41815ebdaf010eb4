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
}
