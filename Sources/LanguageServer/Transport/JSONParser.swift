import TextPositions

/// Why a message body is not JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259) from UTF-8 bytes. Nesting deeper than `maximumDepth` is refused
    /// so that hostile input cannot exhaust the stack.
    public init(parsing bytes: [UInt8], maximumDepth: Int = 512) throws(JSONParseError) {
        try self.init(parsing: bytes, longStrings: [:], maximumDepth: maximumDepth)
    }

    /// The same, with the long strings `LongStringReader` read while the bytes arrived, at the
    /// offset of each opening quote.
    public init(
        parsing bytes: [UInt8], longStrings: [Int: LongStringReader.LongString], maximumDepth: Int = 512
    ) throws(JSONParseError) {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, maximumDepth: maximumDepth)
            parser.longStrings = longStrings
            do throws(JSONParseError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }
}

private enum ASCII {
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let slash: UInt8 = 0x2F
    static let comma: UInt8 = 0x2C
    static let colon: UInt8 = 0x3A
    static let minus: UInt8 = 0x2D
    static let plus: UInt8 = 0x2B
    static let dot: UInt8 = 0x2E
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
    static let openBracket: UInt8 = 0x5B
    static let closeBracket: UInt8 = 0x5D
}

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0
    var depth = 0
    /// Long strings read already (`LongStringReader`), by the offset of their opening quote.
    var longStrings: [Int: LongStringReader.LongString] = [:]

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected characters after the value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case ASCII.openBrace: return try parseObject()
        case ASCII.openBracket: return try parseArray()
        case ASCII.quote: return try parseStringValue()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case ASCII.minus, ASCII.zero...ASCII.nine: return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("unexpected end of input") }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] {
            throw error("unexpected character")
        }
        index += count
    }

    mutating func enterNesting() throws(JSONParseError) {
        depth += 1
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth)") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterNesting()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == ASCII.closeBrace {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            guard bytes[index] == ASCII.quote else { throw error("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == ASCII.colon else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == ASCII.comma {
                index += 1
            } else if bytes[index] == ASCII.closeBrace {
                index += 1
                depth -= 1
                return .object(members)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterNesting()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == ASCII.closeBracket {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == ASCII.comma {
                index += 1
            } else if bytes[index] == ASCII.closeBracket {
                index += 1
                depth -= 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, the bytes are the string.
        index = ByteScan.firstQuoteBackslashOrControl(bytes, from: index)
        if index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.quote {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if byte < 0x20 { throw error("control character in a string") }
        }
        // The string's end (its first quote not escaped) bounds its length: the bytes are
        // written once, into the string's own storage (a document's text is megabytes).
        var end = index
        while end < bytes.count, bytes[end] == ASCII.backslash {
            end = ByteScan.firstQuoteBackslashOrControl(bytes, from: min(end + 2, bytes.count))
        }
        index = start
        var failure: JSONParseError?
        let string = String(unsafeUninitializedCapacity: max(end - start, 1)) { room in
            switch decodeString(into: room.baseAddress!) {
            case .success(let written): return written
            case .failure(let error):
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return string
    }

    /// Writes what a string's text stands for, from `index` (after its opening quote) to its
    /// closing quote, into `target`, which has room for it (an escape is never shorter than what
    /// it stands for in UTF-8); the number of bytes written. The plain bytes up to the next
    /// quote, backslash or control character go at once (a document's text has an escaped line
    /// break on every line), and the escapes of a line break, a quote and a backslash are read
    /// without decoding a scalar.
    @inline(__always)
    mutating func decodeString(into target: UnsafeMutablePointer<UInt8>) -> Result<Int, JSONParseError> {
        let source = bytes.baseAddress!
        var written = 0
        while true {
            let end = ByteScan.firstQuoteBackslashOrControl(bytes, from: index)
            (target + written).initialize(from: source + index, count: end - index)
            written += end - index
            index = end
            guard index < bytes.count else { return .failure(error("unterminated string")) }
            switch bytes[index] {
            case ASCII.quote:
                index += 1
                return .success(written)
            case ASCII.backslash:
                if index + 1 < bytes.count {
                    if let simple = Self.simpleEscape(bytes[index + 1]) {
                        target[written] = simple
                        written += 1
                        index += 2
                        continue
                    }
                }
                do throws(JSONParseError) {
                    UTF8.encode(try parseEscape()) { unit in
                        target[written] = unit
                        written += 1
                    }
                } catch {
                    return .failure(error)
                }
            default:
                return .failure(error("control character in a string"))
            }
        }
    }

    /// What the escapes of a text's line break, quote and backslash (`\n`, `\"`, `\\`) stand
    /// for, given the byte after the backslash: read without decoding a scalar. Nil for others.
    @inline(__always)
    static func simpleEscape(_ escaped: UInt8) -> UInt8? {
        switch escaped {
        case UInt8(ascii: "n"): 0x0A
        case ASCII.quote: ASCII.quote
        case ASCII.backslash: ASCII.backslash
        default: nil
        }
    }

    /// A string value: a `String`, or its bytes when it is long (`JSONValue.utf8`).
    mutating func parseStringValue() throws(JSONParseError) -> JSONValue {
        if !longStrings.isEmpty, let read = longStrings[index] {
            index = read.end
            return .utf8(read.bytes, lineIndex: read.lineIndex)
        }
        let start = index + 1
        // Where the string ends, looked for up to `longString` bytes.
        var end = ByteScan.firstQuoteBackslashOrControl(bytes, from: start)
        while end < bytes.count, bytes[end] == ASCII.backslash, end - start < JSONValue.longString {
            end = ByteScan.firstQuoteBackslashOrControl(bytes, from: min(end + 2, bytes.count))
        }
        guard end - start >= JSONValue.longString else { return .string(try parseString()) }
        return .utf8(try parseLongString(), lineIndex: nil)
    }

    /// A long string's bytes, read in one pass into room for the rest of the message (the pages
    /// left unwritten are never touched), then checked as UTF-8: a document's text, which as
    /// a `String` would be read once more to find its end and once more to check it.
    mutating func parseLongString() throws(JSONParseError) -> [UInt8] {
        index += 1
        var failure: JSONParseError?
        var result = [UInt8](unsafeUninitializedCapacity: bytes.count - index) { room, count in
            switch decodeString(into: room.baseAddress!) {
            case .success(let written): count = written
            case .failure(let error):
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        // Text that is not UTF-8 is read as `String` reads it (U+FFFD for what is not).
        if !result.withUnsafeBufferPointer({ ByteScan.isValidUTF8($0) }) {
            result = Array(String(decoding: result, as: UTF8.self).utf8)
        }
        return result
    }

    /// The character an escape (`\n`, `\u00e9`, a surrogate pair) stands for; a lone half of a
    /// pair is U+FFFD.
    mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
        index += 1
        guard index < bytes.count else { throw error("unterminated string") }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case ASCII.quote, ASCII.backslash, ASCII.slash: return Unicode.Scalar(escaped)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try parseHexQuad()
            guard UTF16.isLeadSurrogate(unit) else { return Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}" }
            // A pair written as two escapes; a lone half becomes U+FFFD.
            guard bytes.count - index >= 6, bytes[index] == ASCII.backslash, bytes[index + 1] == UInt8(ascii: "u")
            else { return "\u{FFFD}" }
            let saved = index
            index += 2
            let trail = try parseHexQuad()
            guard UTF16.isTrailSurrogate(trail) else {
                index = saved
                return "\u{FFFD}"
            }
            let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00)
            return Unicode.Scalar(value) ?? "\u{FFFD}"
        default:
            index -= 1
            throw error("invalid escape")
        }
    }

    mutating func parseHexQuad() throws(JSONParseError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw error("unterminated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case ASCII.zero...ASCII.nine: digit = byte - ASCII.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == ASCII.minus { index += 1 }
        guard index < bytes.count, (ASCII.zero...ASCII.nine).contains(bytes[index]) else {
            throw error("expected a digit")
        }
        if bytes[index] == ASCII.zero {
            index += 1
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == ASCII.dot {
            isInteger = false
            index += 1
            guard index < bytes.count, (ASCII.zero...ASCII.nine).contains(bytes[index]) else {
                throw error("expected a digit after '.'")
            }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == ASCII.plus || bytes[index] == ASCII.minus { index += 1 }
            guard index < bytes.count, (ASCII.zero...ASCII.nine).contains(bytes[index]) else {
                throw error("expected a digit in the exponent")
            }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int(text) { return .integer(value) }
        guard let value = Double(text) else { throw JSONParseError(offset: start, reason: "invalid number") }
        return .double(value)
    }

    mutating func skipDigits() {
        while index < bytes.count, (ASCII.zero...ASCII.nine).contains(bytes[index]) { index += 1 }
    }
}
