/// A tag pair `[Name "value"]` with the ranges of its parts.
///
/// Stored in 28 bytes (a large document holds hundreds of thousands): offsets below 2^40 and
/// lengths below 2^32, as `OffsetPacking` keeps them.
public struct TagPair: Sendable, Hashable {
    private var starts: (UInt32, UInt32, UInt32)
    private var lengths: (UInt32, UInt32, UInt32)
    private var highs: (UInt8, UInt8, UInt8)
    private var hasValue: Bool

    /// From `[` to `]` (or to where the tag ends if it is malformed).
    public var range: Range<Int> {
        get { OffsetPacking.range(starts.0, highs.0, lengths.0) }
        set { (starts.0, highs.0, lengths.0) = OffsetPacking.pack(newValue) }
    }
    public var nameRange: Range<Int> {
        get { OffsetPacking.range(starts.1, highs.1, lengths.1) }
        set { (starts.1, highs.1, lengths.1) = OffsetPacking.pack(newValue) }
    }
    /// The string token, quotes included; nil when the tag has no value.
    public var valueRange: Range<Int>? {
        get { hasValue ? OffsetPacking.range(starts.2, highs.2, lengths.2) : nil }
        set {
            hasValue = newValue != nil
            (starts.2, highs.2, lengths.2) = OffsetPacking.pack(newValue ?? 0..<0)
        }
    }

    public init(range: Range<Int>, nameRange: Range<Int>, valueRange: Range<Int>?) {
        starts = (0, 0, 0)
        lengths = (0, 0, 0)
        highs = (0, 0, 0)
        hasValue = false
        self.range = range
        self.nameRange = nameRange
        self.valueRange = valueRange
    }

    public static func == (lhs: TagPair, rhs: TagPair) -> Bool {
        lhs.range == rhs.range && lhs.nameRange == rhs.nameRange && lhs.valueRange == rhs.valueRange
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(range)
        hasher.combine(nameRange)
        hasher.combine(valueRange)
    }
}

/// How syntax nodes keep a byte range small: the start's low 32 bits, its next 8 bits (starts
/// below 2^40, 1 TB) and the length below 2^32, both saturated beyond (no text read here comes
/// near either).
public enum OffsetPacking {
    @inlinable @inline(__always)
    public static func pack(_ range: Range<Int>) -> (low: UInt32, high: UInt8, length: UInt32) {
        let start = UInt64(clamping: min(range.lowerBound, (1 << 40) - 1))
        return (
            UInt32(truncatingIfNeeded: start), UInt8(truncatingIfNeeded: start >> 32), UInt32(clamping: range.count)
        )
    }

    @inlinable @inline(__always)
    public static func range(_ low: UInt32, _ high: UInt8, _ length: UInt32) -> Range<Int> {
        let start = Int(high) << 32 | Int(low)
        return start..<(start + Int(length))
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

    // Stored in 16 bytes (a 100 MB document holds about ten million nodes): the range as
    // `OffsetPacking` keeps it; the value is at most a move number, a NAG or a result, and
    // saturates at 32 bits.
    private var startLow: UInt32
    private var length: UInt32
    private var compactValue: Int32
    private var startHigh: UInt8
    public var kind: Kind
    /// For a move number written with `...`: it announces a Black move.
    public var isBlack: Bool

    public var range: Range<Int> {
        get { OffsetPacking.range(startLow, startHigh, length) }
        set { (startLow, startHigh, length) = OffsetPacking.pack(newValue) }
    }
    public var value: Int {
        get { Int(compactValue) }
        set { compactValue = Int32(clamping: newValue) }
    }

    public init(kind: Kind, range: Range<Int>, value: Int = 0, isBlack: Bool = false) {
        (startLow, startHigh, length) = OffsetPacking.pack(range)
        self.kind = kind
        self.compactValue = Int32(clamping: value)
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

    /// Moves every range by `delta` bytes: the syntax of a game read within a larger text, made
    /// relative to the game's first byte.
    public mutating func shift(by delta: Int) {
        guard delta != 0 else { return }
        range = Self.move(range, by: delta)
        tags.withUnsafeMutableBufferPointer { tags in
            for k in tags.indices {
                tags[k].range = Self.move(tags[k].range, by: delta)
                tags[k].nameRange = Self.move(tags[k].nameRange, by: delta)
                if let value = tags[k].valueRange { tags[k].valueRange = Self.move(value, by: delta) }
            }
        }
        nodes.withUnsafeMutableBufferPointer { nodes in
            for k in nodes.indices { nodes[k].range = Self.move(nodes[k].range, by: delta) }
        }
    }

    private static func move(_ range: Range<Int>, by delta: Int) -> Range<Int> {
        (range.lowerBound + delta)..<(range.upperBound + delta)
    }

    /// Where a game is pointed at as a whole (a diagnostic about it, its outline entry): its
    /// first tag, else its first movetext token, else its range.
    public var label: Range<Int> { tags.first?.range ?? nodes.first?.range ?? range }
}
