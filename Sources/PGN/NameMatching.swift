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
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        words = folded.split { $0 == "," || $0 == "." || $0.isWhitespace }.map(String.init)
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
