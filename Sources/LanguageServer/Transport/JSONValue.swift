/// A JSON value as it travels in a message. Handlers read the fields they know and ignore the rest;
/// integers are kept apart from other numbers so that request ids and positions stay exact.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// An array of integers kept compact: a document's semantic tokens are millions of them,
    /// which as `.array` of `.integer` would take three times the memory.
    case integers([Int32])
    /// A value already written as JSON text (`JSONText`): a response of tens of thousands of
    /// objects (the outline or code lenses of a 100 MB document) is written at once instead of
    /// built as dictionaries. Read back (the accessors, `==`) by parsing it.
    case text([UInt8])
    /// A string kept as its UTF-8 bytes (valid UTF-8): a document's text of up to gigabytes,
    /// which as a `String` would be checked and copied once more on its way to the document.
    /// The reader makes one of a string longer than `JSONValue.longString`, with the index of
    /// its lines when it was read while it arrived (`LongStringReader`).
    case utf8([UInt8], lineIndex: LineIndex?)
    /// JSON text made as it is written (`JSONStream`): a document's semantic tokens, whose
    /// 108 MB of text for a 100 MB document are never held whole.
    case stream(JSONStream)

    /// The length in bytes from which the reader keeps a string as `utf8`.
    public static let longString = 1 << 16
}

/// JSON text of a known length, made in pieces as it is written: `produce` hands each piece
/// to `emit` in order, and stops with false when `emit` returns false (the output is closed).
/// The pieces add up to `length` bytes, which the message's header announces before them.
public struct JSONStream: Sendable {
    public let length: Int
    public let produce: @Sendable (_ emit: ([UInt8]) -> Bool) -> Bool

    public init(length: Int, produce: @escaping @Sendable (_ emit: ([UInt8]) -> Bool) -> Bool) {
        self.length = length
        self.produce = produce
    }

    /// The whole text at once.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        _ = produce { piece in
            bytes += piece
            return true
        }
        return bytes
    }
}

extension JSONValue: Hashable {
    /// The value a `text` stands for; other values as they are.
    var resolved: JSONValue {
        switch self {
        case .text(let bytes): return (try? JSONValue(parsing: bytes)) ?? .null
        case .stream(let stream): return (try? JSONValue(parsing: stream.bytes)) ?? .null
        default: return self
        }
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs.resolved, rhs.resolved) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.utf8(let a, _), .utf8(let b, _)): return a == b
        case (.string(let a), .utf8(let b, _)), (.utf8(let b, _), .string(let a)): return a.utf8.elementsEqual(b)
        case (.object(let a), .object(let b)): return a == b
        case (.integers(let a), .integers(let b)): return a == b
        case (let a, let b):
            guard let a = a.arrayValue, let b = b.arrayValue else { return false }
            return a == b
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch resolved {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .utf8(let value, _): hasher.combine(String(decoding: value, as: UTF8.self))
        case .object(let value): hasher.combine(value)
        case .array, .integers, .text, .stream: hasher.combine(arrayValue)
        }
    }
}

extension JSONValue {
    /// The member named `key` of an object; nil for a missing member or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = resolved { return members[key] }
        return nil
    }

    public var isNull: Bool {
        if case .null = resolved { return true }
        return false
    }

    public var boolValue: Bool? {
        if case .bool(let value) = resolved { return value }
        return nil
    }

    /// The value as an integer; a number with a fractional part or out of range is not one.
    public var intValue: Int? {
        switch resolved {
        case .integer(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch resolved {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var stringValue: String? {
        switch resolved {
        case .string(let value): return value
        case .utf8(let value, _): return String(decoding: value, as: UTF8.self)
        default: return nil
        }
    }

    /// A string's UTF-8 bytes: those the reader kept (`utf8`), without a copy.
    public var utf8Value: [UInt8]? { textValue?.bytes }

    /// A string's UTF-8 bytes, with the index of its lines when the reader made one.
    public var textValue: (bytes: [UInt8], lineIndex: LineIndex?)? {
        switch resolved {
        case .string(let value): return (Array(value.utf8), nil)
        case .utf8(let value, let lineIndex): return (value, lineIndex)
        default: return nil
        }
    }

    public var arrayValue: [JSONValue]? {
        switch resolved {
        case .array(let value): return value
        case .integers(let value): return value.map { .integer(Int($0)) }
        default: return nil
        }
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = resolved { return value }
        return nil
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}
