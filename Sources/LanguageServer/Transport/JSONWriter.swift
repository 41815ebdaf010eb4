/// A piece of a message's text (`JSONValue.serializedPieces`): bytes, or text made as it is
/// written.
public enum JSONPiece: Sendable {
    case bytes([UInt8])
    case stream(JSONStream)

    /// Its length in bytes.
    public var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .stream(let stream): stream.length
        }
    }
}

extension JSONValue {
    /// The compact JSON text of the value as UTF-8, members in sorted order so that output is reproducible.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    /// The same text in pieces, written one after the other: a long `text` value (a 100 MB
    /// document's outline) is a piece of its own, shared instead of copied, and a `stream`
    /// (its semantic tokens) is made as it is written.
    public func serializedPieces() -> [JSONPiece] {
        var sink = PieceSink()
        sink.write(self)
        sink.pieces.append(.bytes(sink.current))
        return sink.pieces.filter { $0.count > 0 }
    }

    public func write(to output: inout [UInt8]) {
        var sink = PieceSink(current: output, sharing: false)
        output = []
        sink.write(self)
        output = sink.current
    }

    /// Where the text goes: `current`, and `pieces` before it when long texts are shared.
    private struct PieceSink {
        var pieces: [JSONPiece] = []
        var current: [UInt8] = []
        /// Whether a long `text` becomes a piece of its own.
        var sharing = true
        static let sharedLength = 1 << 16

        mutating func write(_ value: JSONValue) {
            switch value {
            case .null: current.append(contentsOf: "null".utf8)
            case .bool(let value): current.append(contentsOf: (value ? "true" : "false").utf8)
            case .integer(let value): JSONValue.writeInteger(value, to: &current)
            case .double(let value):
                // JSON has no infinities or NaN.
                current.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
            case .string(let value): JSONValue.writeString(value, to: &current)
            case .utf8(let value, _): value.withUnsafeBufferPointer { JSONValue.writeString($0, to: &current) }
            case .array(let elements):
                current.append(UInt8(ascii: "["))
                for (position, element) in elements.enumerated() {
                    if position > 0 { current.append(UInt8(ascii: ",")) }
                    write(element)
                }
                current.append(UInt8(ascii: "]"))
            case .object(let members):
                current.append(UInt8(ascii: "{"))
                for (position, key) in members.keys.sorted().enumerated() {
                    if position > 0 { current.append(UInt8(ascii: ",")) }
                    JSONValue.writeString(key, to: &current)
                    current.append(UInt8(ascii: ":"))
                    write(members[key]!)
                }
                current.append(UInt8(ascii: "}"))
            case .text(let bytes):
                if sharing && bytes.count >= Self.sharedLength {
                    pieces.append(.bytes(current))
                    pieces.append(.bytes(bytes))
                    current = []
                } else {
                    current.append(contentsOf: bytes)
                }
            case .stream(let stream):
                if sharing {
                    pieces.append(.bytes(current))
                    pieces.append(.stream(stream))
                    current = []
                } else {
                    current.append(contentsOf: stream.bytes)
                }
            case .integers(let values):
                current.reserveCapacity(current.count + values.count * 3 + 2)
                current.append(UInt8(ascii: "["))
                for (position, value) in values.enumerated() {
                    if position > 0 { current.append(UInt8(ascii: ",")) }
                    JSONValue.writeInteger(Int(value), to: &current)
                }
                current.append(UInt8(ascii: "]"))
            }
        }
    }

    /// Writes the decimal digits of `value` without making a string.
    static func writeInteger(_ value: Int, to output: inout [UInt8]) {
        if value >= 0 && value < 10 { return output.append(UInt8(ascii: "0") + UInt8(value)) }
        if value < 0 { output.append(UInt8(ascii: "-")) }
        // The magnitude's digits, last first (Int.min's magnitude fits in a UInt).
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: digits[start...])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { writeString($0, to: &output) }
    }

    /// The same for a string's UTF-8 bytes.
    static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escape: their bytes go out at once.
        guard bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            output.append(contentsOf: bytes)
            return output.append(UInt8(ascii: "\""))
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
