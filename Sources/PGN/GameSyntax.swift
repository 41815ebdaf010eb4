/// A tag pair `[Name "value"]` with the ranges of its parts.
public struct TagPair: Sendable, Hashable {
    /// From `[` to `]` (or to where the tag ends if it is malformed).
    public var range: Range<Int>
    public var nameRange: Range<Int>
    /// The string token, quotes included; nil when the tag has no value.
    public var valueRange: Range<Int>?

    public init(range: Range<Int>, nameRange: Range<Int>, valueRange: Range<Int>?) {
        self.range = range
        self.nameRange = nameRange
        self.valueRange = valueRange
    }
}

/// One element of the movetext, in source order.
public struct MovetextNode: Sendable, Hashable {
    public enum Kind: UInt8, Sendable {
        /// A move in SAN or a relative of it (`value` unused).
        case move
        /// `12.` or `12...` (`value`: the number; `isBlack` set for `...`).
        case moveNumber
        /// `$n` or a suffix annotation (`value`: the NAG, -1 when malformed or unknown).
        case nag
        /// `{…}` (`value` 0) or `;…` (`value` 1).
        case comment
        case variationStart
        case variationEnd
        /// The termination marker (`value`: a `GameResult` raw value).
        case result
        /// Text in the movetext that is not PGN but stands among it: a word that cannot be a
        /// move (`keep`, `e.p.`, a lone `+`), a result inside a variation (which ends nothing),
        /// stray characters. Readers skip it; a database keeps it as text where it stood.
        case note
    }

    public var kind: Kind
    public var range: Range<Int>
    public var value: Int
    /// For a move number written with `...`: it announces a Black move.
    public var isBlack: Bool

    public init(kind: Kind, range: Range<Int>, value: Int = 0, isBlack: Bool = false) {
        self.kind = kind
        self.range = range
        self.value = value
        self.isBlack = isBlack
    }
}

/// One game as written: its tags and its movetext.
public struct GameSyntax: Sendable {
    /// From its first tag (or first movetext token) to its termination marker or last token.
    public var range: Range<Int>
    public var tags: [TagPair] = []
    public var nodes: [MovetextNode] = []
    /// Index in `nodes` of the termination marker at the end of the game, if any.
    public var resultIndex: Int?

    public init(range: Range<Int>, tags: [TagPair] = [], nodes: [MovetextNode] = [], resultIndex: Int? = nil) {
        self.range = range
        self.tags = tags
        self.nodes = nodes
        self.resultIndex = resultIndex
    }

    /// Where a game is pointed at as a whole (a diagnostic about it, its outline entry): its
    /// first tag, else its first movetext token, else its range.
    public var label: Range<Int> { tags.first?.range ?? nodes.first?.range ?? range }
}
