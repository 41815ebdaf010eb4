import Foundation

/// Whether a game's `ECO` and `Opening` tags, in the words of whichever book wrote them
/// (ChessBase and TWIC: `[Opening "King's Indian"]`, `[Opening "QGD"]`, `Gruenfeld`,
/// `Ruy Lopez (Spanish opening)`), agree with the openings its mainline passed through, in
/// lichess's words (`King's Indian Defense: Sämisch Variation`). Books name and number the same
/// moves differently, so a tag is taken as wrong only when it contradicts the moves: an ECO
/// code outside the families (`E8` for E80–E89) of every named position of the mainline, or a
/// name that no such position bears and whose openings all lie in other families.
public enum OpeningTags {
    /// The family of an ECO code, its letter and first digit (`E8` for `E81`); nil for what is
    /// no code (`?`, empty).
    public static func family(_ code: String) -> Substring? {
        let code = code.trimmingCharacters(in: .whitespaces).uppercased()
        let bytes = Array(code.utf8.prefix(3))
        guard bytes.count == 3, (0x41...0x45).contains(bytes[0]), bytes[1...].allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return Substring(code.prefix(2))
    }

    /// Whether the `ECO` tag's code is in the family of an opening the mainline passed through
    /// (what is no code is not judged).
    public static func ecoAgrees(_ tag: String, passed: [Opening]) -> Bool {
        guard let family = family(tag) else { return true }
        return passed.contains { Self.family($0.eco) == family }
    }

    /// Whether the `Opening` tag names an opening the mainline passed through: its words are
    /// among that opening's (`Sicilian` for `Sicilian Defense: Najdorf Variation`, `Giuoco Piano`
    /// for `Italian Game: Giuoco Piano`), after aliases (`QGD`, `Spanish`, `Petrov`, `Robatsch`),
    /// spellings (`Gruenfeld`, `Saemisch`, `defence`) and what is in parentheses or after the
    /// first comma (a variation) are taken into account; or whether the openings of that name
    /// share an ECO family with one the mainline passed through. A name of no opening of the
    /// list is not judged.
    public static func nameAgrees(_ tag: String, passed: [Opening]) -> Bool {
        let spellings = [tag, String(tag.prefix { $0 != "," && $0 != ":" && $0 != ";" })]
        for spelling in spellings {
            let wanted = Set(words(spelling))
            guard !wanted.isEmpty else { return true }
            if passed.contains(where: { wanted.isSubset(of: NameIndex.shared.words(of: $0.name)) }) { return true }
        }
        // The families of the openings of that name (of the family part of their names first).
        let wanted = Set(words(spellings[1]))
        guard !wanted.isEmpty else { return true }
        let families = NameIndex.shared.families(named: wanted)
        guard !families.isEmpty else { return true }
        return passed.contains { Self.family($0.eco).map(families.contains) ?? false }
    }

    /// Makes the index of the list's names now, which the first game judged would otherwise
    /// make while the other cores wait for it: a server does it when it starts, before the
    /// first document arrives.
    public static func prepare() { _ = NameIndex.shared }

    /// The words of an opening's name, as they are compared: case, accents and German spellings
    /// folded (`Grünfeld`, `Gruenfeld` and `Grunfeld` are one), possessives and what stands in
    /// parentheses dropped, aliases written out, move numbers and the words every name has
    /// (`Defense`, `Opening`, `Variation`, `Game`) left out.
    static func words(_ name: String) -> [String] {
        // The list's 3,500 names are read once per process before the first game is judged:
        // ASCII (nearly every name) is read as bytes, without Foundation.
        var bytes = name
        let ascii = bytes.withUTF8 { $0.allSatisfy { $0 < 0x80 } ? asciiWords($0) : nil }
        return ascii ?? generalWords(name)
    }

    /// `words(_:)` of any name: folded by Foundation, read as characters.
    static func generalWords(_ name: String) -> [String] {
        var text =
            name.utf8.allSatisfy { $0 < 0x80 }
            ? name.lowercased() : name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        // What stands in parentheses is another name or a note (`Ruy Lopez (Spanish opening)`).
        while let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")") {
            text.removeSubrange(open...close)
        }
        text = text.replacingOccurrences(of: "'s ", with: " ").replacingOccurrences(of: "’s ", with: " ")
        if text.hasSuffix("'s") || text.hasSuffix("’s") { text.removeLast(2) }
        var result: [String] = []
        for raw in text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
            // A move (`5...O-O`, `6.Bg5`) or a number names no opening.
            guard !raw.contains(where: \.isNumber) else { continue }
            // German spellings: `ae`, `oe`, `ue` read as `a`, `o`, `u` (an `e` after one of them
            // is left out).
            var word = String.UnicodeScalarView()
            var previous: Unicode.Scalar = " "
            for scalar in raw.unicodeScalars {
                if scalar != "e" || !(previous == "a" || previous == "o" || previous == "u") { word.append(scalar) }
                previous = scalar
            }
            let spelled = String(word)
            if let expansion = aliases[spelled] {
                result += expansion
            } else if !filler.contains(spelled) {
                result.append(spelled)
            }
        }
        return result
    }

    /// `words(_:)` of an ASCII name, read byte by byte: the same steps as `generalWords`.
    static func asciiWords(_ name: UnsafeBufferPointer<UInt8>) -> [String] {
        var text = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        while let open = text.firstIndex(of: 0x28), let close = text[open...].firstIndex(of: 0x29) {
            text.removeSubrange(open...close)
        }
        // `'s ` read as a space, and a final `'s` left out.
        var k = 0
        var kept: [UInt8] = []
        kept.reserveCapacity(text.count)
        while k < text.count {
            if text[k] == 0x27 && k + 2 < text.count && text[k + 1] == 0x73 && text[k + 2] == 0x20 {
                kept.append(0x20)
                k += 3
            } else {
                kept.append(text[k])
                k += 1
            }
        }
        if kept.count >= 2 && kept[kept.count - 2] == 0x27 && kept[kept.count - 1] == 0x73 { kept.removeLast(2) }
        func isLetter(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var result: [String] = []
        var word: [UInt8] = []
        var start = 0
        while start < kept.count {
            guard isLetter(kept[start]) || isDigit(kept[start]) else {
                start += 1
                continue
            }
            var end = start
            while end < kept.count && (isLetter(kept[end]) || isDigit(kept[end])) { end += 1 }
            defer { start = end }
            // A move (`5...O-O`, `6.Bg5`) or a number names no opening.
            guard !kept[start..<end].contains(where: isDigit) else { continue }
            // German spellings: an `e` after `a`, `o` or `u` is left out.
            word.removeAll(keepingCapacity: true)
            var previous: UInt8 = 0x20
            for byte in kept[start..<end] {
                if byte != 0x65 || !(previous == 0x61 || previous == 0x6F || previous == 0x75) { word.append(byte) }
                previous = byte
            }
            let spelled = String(decoding: word, as: UTF8.self)
            if let expansion = aliases[spelled] {
                result += expansion
            } else if !filler.contains(spelled) {
                result.append(spelled)
            }
        }
        return result
    }

    /// Words every book adds or leaves out at will.
    private static let filler: Set<String> = [
        "defense", "defence", "opening", "game", "variation", "var", "system", "line", "the", "of", "and", "v", "vs",
    ]

    /// Abbreviations and other names of one opening, by their folded spelling (`ue` already
    /// read as `u`), as lichess's list words them.
    private static let aliases: [String: [String]] = [
        "qgd": ["quen", "gambit", "declined"], "qga": ["quen", "gambit", "accepted"],
        "kga": ["king", "gambit", "accepted"], "kgd": ["king", "gambit", "declined"],
        "kp": ["king", "pawn"], "qp": ["quen", "pawn"], "kid": ["king", "indian"], "qid": ["quen", "indian"],
        "kings": ["king"], "quens": ["quen"], "spanish": ["ruy", "lopez"], "petrov": ["russian"],
        "petroff": ["russian"], "robatsch": ["modern"], "centre": ["center"], "nimzovich": ["nimzo"],
        "nimzowitsch": ["nimzo"], "nimzowitch": ["nimzo"], "alekhin": ["alekhine"], "aljechin": ["alekhine"],
        "zukertort": ["reti"],
    ]

    /// The words of every name of the list, and the ECO families of the openings that bear
    /// some words, made once.
    final class NameIndex: Sendable {
        static let shared = NameIndex(OpeningBook.shared.openings)

        private let byName: [String: Set<String>]
        /// Each opening's family's words (the name before its `:`), its whole name's words, its
        /// code's family.
        private let entries: [(family: Set<String>, whole: Set<String>, eco: Substring)]

        init(_ openings: [Opening]) {
            var byName: [String: Set<String>] = [:]
            var entries: [(Set<String>, Set<String>, Substring)] = []
            for opening in openings {
                let whole = Set(OpeningTags.words(opening.name))
                byName[opening.name] = whole
                let family = Set(OpeningTags.words(String(opening.name.prefix { $0 != ":" })))
                if let eco = OpeningTags.family(opening.eco) { entries.append((family, whole, eco)) }
            }
            self.byName = byName
            self.entries = entries
        }

        func words(of name: String) -> Set<String> { byName[name] ?? Set(OpeningTags.words(name)) }

        /// The ECO families of the openings whose family bears all of `wanted`, else of those
        /// whose whole name does; empty for words of no opening.
        func families(named wanted: Set<String>) -> Set<Substring> {
            let byFamily = Set(entries.filter { wanted.isSubset(of: $0.family) }.map(\.eco))
            if !byFamily.isEmpty { return byFamily }
            return Set(entries.filter { wanted.isSubset(of: $0.whole) }.map(\.eco))
        }
    }
}
