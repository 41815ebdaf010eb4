/// The names a game's `White`, `Black`, `Event` and `Site` tags give, read once per game, for
/// finding the same name written in several ways across a file (`NameVariants`).
public struct TagNames: Sendable, Hashable {
    public enum Family: UInt8, Sendable, Hashable {
        case player, event, site
    }

    public struct Name: Sendable, Hashable {
        public var family: Family
        /// The tag's index in the game's `syntax.tags`.
        public var tag: Int
        /// The tag's value with its quotes, relative to the game's first byte.
        public var range: Range<Int>
        /// Hashes of its `NameKey`, of its exact text, and of its first word (the surname).
        public var key: Int
        public var spelling: Int
        public var surname: Int
        /// Whether a word of it is an initial (`M.`, `M`): it may shorten a longer name.
        public var hasInitial: Bool
    }

    public let names: [Name]

    public init(_ replay: GameReplay) {
        var names: [Name] = []
        for (index, tag) in replay.syntax.tags.enumerated() {
            let family: Family
            switch replay.text(tag.nameRange) {
            case "White", "Black": family = .player
            case "Event": family = .event
            case "Site": family = .site
            default: continue
            }
            guard let range = tag.valueRange, let value = replay.value(of: tag) else { continue }
            let key = NameKey(value)
            guard let first = key.words.first, value != "?" else { continue }
            names.append(
                Name(
                    family: family, tag: index,
                    range: (range.lowerBound - replay.base)..<(range.upperBound - replay.base),
                    key: key.hashValue,
                    spelling: value.hashValue, surname: first.hashValue,
                    hasInitial: key.words.dropFirst().contains { $0.count == 1 }))
        }
        self.names = names
    }
}

/// The same player, event or site written in several ways in one file: `Carlsen,Magnus` beside
/// `Carlsen, Magnus` (the same `NameKey`), or `Carlsen, M.` beside one longer name it may
/// shorten. Each other spelling gets a hint with a fix that writes the file's usual one.
public enum NameVariants {
    public struct Finding: Sendable, Hashable {
        /// The game, and the index of the name in its `TagNames`.
        public var game: Int
        public var name: Int
        /// The spelling the file uses most for the name, and how many tags write it so.
        public var usual: String
        public var count: Int
        /// Whether the name has initials where the usual one has words (a person decides).
        public var isAbbreviation: Bool
    }

    private struct GroupKey: Hashable {
        var family: TagNames.Family
        var key: Int
    }

    private struct Spelling {
        var spelling: Int
        var count: Int
        var first: (game: Int, name: Int)
    }

    /// Counts one more use of `spelling` in its group, first met at `place` if it is new.
    private static func count(_ spelling: Int, at place: (game: Int, name: Int), in spellings: inout [Spelling]) {
        if let k = spellings.firstIndex(where: { $0.spelling == spelling }) {
            spellings[k].count += 1
        } else {
            spellings.append(Spelling(spelling: spelling, count: 1, first: place))
        }
    }

    /// The findings of a file's games; `value` gives the text of a name (its tag's value).
    public static func find(_ games: [TagNames?], value: (_ game: Int, _ name: Int) -> String) -> [Finding] {
        var groups: [GroupKey: [Spelling]] = [:]
        for (g, names) in games.enumerated() {
            guard let names else { continue }
            for (n, name) in names.names.enumerated() {
                // One lookup for each name, its group changed in place.
                Self.count(
                    name.spelling, at: (g, n), in: &groups[GroupKey(family: name.family, key: name.key), default: []])
            }
        }
        // The usual spelling of each name: the most used, then one written `Last, First`.
        var usual: [GroupKey: (spelling: Int, text: String, count: Int)] = [:]
        // (`count`: the tags that write the usual spelling.)
        for (key, spellings) in groups {
            var best: (spelling: Int, text: String, count: Int, standard: Bool)?
            for spelling in spellings {
                let text = value(spelling.first.game, spelling.first.name)
                let standard = isStandard(text)
                if best == nil || spelling.count > best!.count
                    || spelling.count == best!.count && standard
                        && !best!.standard
                {
                    best = (spelling.spelling, text, spelling.count, standard)
                }
            }
            if let best { usual[key] = (best.spelling, best.text, best.count) }
        }
        // Names with initials, and the one longer name each may shorten.
        var longer: [GroupKey: GroupKey] = [:]
        let short = groups.keys.filter { key in
            guard key.family == .player, let first = groups[key]?.first else { return false }
            return games[first.first.game]!.names[first.first.name].hasInitial
        }
        if !short.isEmpty {
            var bySurname: [Int: [GroupKey]] = [:]
            for key in groups.keys where key.family == .player {
                let first = groups[key]![0].first
                bySurname[games[first.game]!.names[first.name].surname, default: []].append(key)
            }
            for key in short {
                let first = groups[key]![0].first
                let words = NameKey(usual[key]!.text)
                let candidates = bySurname[games[first.game]!.names[first.name].surname, default: []].filter {
                    $0 != key && words.mayAbbreviate(NameKey(usual[$0]!.text))
                        && NameKey(usual[$0]!.text).words.joined().count > words.words.joined().count
                }
                if candidates.count == 1 { longer[key] = candidates[0] }
            }
        }
        var findings: [Finding] = []
        for (g, names) in games.enumerated() {
            guard let names else { continue }
            for (n, name) in names.names.enumerated() {
                let key = GroupKey(family: name.family, key: name.key)
                if let target = longer[key], let full = usual[target] {
                    findings.append(
                        Finding(game: g, name: n, usual: full.text, count: full.count, isAbbreviation: true))
                } else if let own = usual[key], own.spelling != name.spelling {
                    findings.append(
                        Finding(game: g, name: n, usual: own.text, count: own.count, isAbbreviation: false))
                }
            }
        }
        return findings
    }

    /// Written `Last, First`: a comma followed by one space, no doubled spaces, not all in
    /// lower case.
    public static func isStandard(_ text: String) -> Bool {
        !text.contains("  ") && !text.contains(",,") && text.lowercased() != text
            && (!text.contains(",") || text.contains(", "))
    }

    /// The hint on a name's tag value (`range`, in the document), with its fix.
    public static func diagnostic(_ finding: Finding, name: String, range: Range<Int>) -> Diagnostic {
        let others = finding.count == 1 ? "1 tag" : "\(finding.count) tags"
        let message =
            finding.isAbbreviation
            ? "“\(name)” may be “\(finding.usual)”, as \(others) of this file write it"
            : "“\(name)” is written “\(finding.usual)” in \(others) of this file"
        var diagnostic = Diagnostic(.nameVariant, .hint, message, range: range, game: finding.game)
        diagnostic.fixes = [
            Diagnostic.Fix(
                title: "Write “\(finding.usual)”",
                edits: [Diagnostic.Edit(range: range, text: PGNWriter.quotedTagValue(finding.usual))],
                isPreferred: !finding.isAbbreviation)
        ]
        return diagnostic
    }
}
