/// A problem in a PGN text: what (a stable code), how bad, where (a byte range), and in
/// words a chess player understands. Quick fixes travel with it.
public struct Diagnostic: Sendable, Hashable {
    public enum Code: String, Sendable, CaseIterable {
        case syntax
        case encoding
        case illegalMove = "illegal-move"
        case ambiguousMove = "ambiguous-move"
        case unknownMove = "unknown-move"
        case movetextNote = "movetext-note"
        case resultNotation = "result-notation"
        case resultMismatch = "result-mismatch"
        case missingResult = "missing-result"
        case missingTag = "missing-tag"
        case badFEN = "bad-fen"
        case nullMove = "null-move"
        case nonCanonicalSAN = "non-canonical-san"
        case wrongMoveNumber = "wrong-move-number"
        case unknownNAG = "unknown-nag"
        case unsupportedVariant = "unsupported-variant"
        case openingTags = "opening-tags"
        case twinGame = "twin-game"
        case nameVariant = "name-variant"
        case repertoireGap = "repertoire-gap"
        case repertoireConflict = "repertoire-conflict"
        case repertoireMistake = "repertoire-mistake"
        case repertoireTransposition = "repertoire-transposition"
    }

    public enum Severity: Int, Sendable, Hashable, Comparable {
        case error = 1
        case warning = 2
        case information = 3
        case hint = 4

        public var name: String {
            switch self {
            case .error: return "error"
            case .warning: return "warning"
            case .information: return "information"
            case .hint: return "hint"
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A text replacement: the bytes of `range` become `text`.
    public struct Edit: Sendable, Hashable {
        public var range: Range<Int>
        public var text: String

        public init(range: Range<Int>, text: String) {
            self.range = range
            self.text = text
        }
    }

    /// A quick fix: a title and its edits. `isPreferred` fixes are safe to apply without asking.
    public struct Fix: Sendable, Hashable {
        public var title: String
        public var edits: [Edit]
        public var isPreferred: Bool

        public init(title: String, edits: [Edit], isPreferred: Bool) {
            self.title = title
            self.edits = edits
            self.isPreferred = isPreferred
        }
    }

    /// Another place of the same text the diagnostic is about (the twin of a copied game).
    public struct Related: Sendable, Hashable {
        /// Byte range in the file.
        public var range: Range<Int>
        public var message: String

        public init(range: Range<Int>, message: String) {
            self.range = range
            self.message = message
        }
    }

    public var code: Code
    public var severity: Severity
    public var message: String
    /// Byte range in the file.
    public var range: Range<Int>
    /// Index of the game in its file (0-based); nil for a problem outside any game.
    public var game: Int?
    public var fixes: [Fix]
    /// Other places it is about, in the same text.
    public var related: [Related] = []

    public init(
        _ code: Code, _ severity: Severity, _ message: String, range: Range<Int>, game: Int?, fixes: [Fix] = []
    ) {
        self.code = code
        self.severity = severity
        self.message = message
        self.range = range
        self.game = game
        self.fixes = fixes
    }
}

extension Diagnostic.Edit {
    /// The same edit `offset` bytes further on (from a game's text to its document's).
    public func shifted(by offset: Int) -> Diagnostic.Edit {
        Diagnostic.Edit(range: (range.lowerBound + offset)..<(range.upperBound + offset), text: text)
    }
}

extension Diagnostic {
    /// The same diagnostic, its range and its fixes' edits `offset` bytes further on.
    public func shifted(by offset: Int) -> Diagnostic {
        var moved = self
        moved.range = (range.lowerBound + offset)..<(range.upperBound + offset)
        moved.related = related.map {
            Related(range: ($0.range.lowerBound + offset)..<($0.range.upperBound + offset), message: $0.message)
        }
        moved.fixes = fixes.map { fix in
            var fix = fix
            fix.edits = fix.edits.map { $0.shifted(by: offset) }
            return fix
        }
        return moved
    }
}
