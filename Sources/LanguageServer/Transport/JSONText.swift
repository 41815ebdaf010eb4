/// JSON text written piece by piece, for responses too large to build as `JSONValue`
/// dictionaries first. Members are written in the order `JSONValue.write` would put them (by
/// name), so both give the same bytes.
public struct JSONText: Sendable {
    public private(set) var bytes: [UInt8] = []

    /// Text of about `capacity` bytes (room is made once, not at each doubling).
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Text written as it is: punctuation and member names, e.g. `{"kind":`.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

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

    public var json: JSONValue { .text(bytes) }
}
