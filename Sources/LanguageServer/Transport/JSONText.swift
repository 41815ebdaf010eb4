/// JSON text written piece by piece, for responses too large to build as `JSONValue`
/// dictionaries first. Members are written in the order `JSONValue.write` would put them (by
/// name), so both give the same bytes.
public struct JSONText: Sendable {
    /// The text written since the last piece ended (`endPieceIfFull`): all of it, for most.
    public private(set) var bytes: [UInt8] = []
    /// The pieces ended already, in order.
    private var pieces: [[UInt8]] = []

    /// Text of about `capacity` bytes (room is made once, not at each doubling).
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Text written as it is: punctuation and member names, e.g. `{"kind":`.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Bytes that are JSON text already, written as they are.
    public mutating func raw(_ text: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: text) }

    public mutating func string(_ value: String) { JSONValue.writeString(value, to: &bytes) }

    public mutating func integer(_ value: Int) { JSONValue.writeInteger(value, to: &bytes) }

    public mutating func value(_ value: JSONValue) { value.write(to: &bytes) }

    /// An array of `elements`, each written by `body`.
    public mutating func array<C: Collection>(
        _ elements: C, _ body: (inout JSONText, C.Element) throws -> Void
    )
        rethrows
    {
        raw("[")
        var first = true
        for element in elements {
            if !first { raw(",") }
            first = false
            try body(&self, element)
        }
        raw("]")
    }

    /// `{"character":…,"line":…}`.
    public mutating func position(_ position: LSPPosition) {
        raw("{\"character\":")
        integer(position.character)
        raw(",\"line\":")
        integer(position.line)
        raw("}")
    }

    /// `{"end":…,"start":…}`.
    public mutating func range(_ range: LSPRange) {
        raw("{\"end\":")
        position(range.end)
        raw(",\"start\":")
        position(range.start)
        raw("}")
    }

    /// The size from which `endPieceIfFull` ends a piece.
    public static let pieceSize = 1 << 18

    /// Ends the piece being written when it has `pieceSize` bytes or more: called between two
    /// values of a large answer, which is then sent as its pieces one after the other
    /// (`JSONValue.stream`). Such an answer (the outline of a 100 MB document, 22 MB at each
    /// keystroke) is never one array, which the allocator kept for the next after it was freed,
    /// one for each thread that made one (while typing, the server's peak went from 345 MB to 411).
    public mutating func endPieceIfFull() {
        guard bytes.count >= Self.pieceSize else { return }
        pieces.append(bytes)
        bytes = []
        bytes.reserveCapacity(Self.pieceSize + Self.pieceSize / 4)
    }

    /// The text as one value: its bytes, or its pieces as a stream.
    public var json: JSONValue {
        guard !pieces.isEmpty else { return .text(bytes) }
        let all = pieces + [bytes]
        return .stream(JSONStream(length: all.reduce(0) { $0 + $1.count }) { emit in all.allSatisfy { emit($0) } })
    }
}
