import Foundation
import TextPositions

/// Reads the long strings of a large message body while it arrives (a document's text in its
/// `didOpen`: 1 GB takes seconds to come through the pipe), so that once the last byte is in,
/// the body is parsed without decoding them again (`JSONValue(parsing:longStrings:)`).
///
/// Fed the bytes received so far, from the first, each time more come: it finds the strings
/// (a quote outside a string opens one: JSON has no other quotes), skips the short ones, and
/// decodes a string into its bytes once it is longer than `JSONValue.longString`, its escapes
/// included, checking them as UTF-8 as they are decoded. It never reads an escape that is not
/// all in yet. On anything that is not a JSON string (a control character) it stops, and the
/// parser reads the body as usual and says what is wrong.
public struct LongStringReader: Sendable {
    /// A string read: the offset after its closing quote, its bytes, and the index of its lines
    /// (a document's text needs one), found as it was decoded: its line breaks are escapes
    /// (`\n`), and the characters that are not ASCII are met one by one.
    public struct LongString: Sendable {
        public var end: Int
        public var bytes: [UInt8]
        public var lineIndex: LineIndex?

        public init(end: Int, bytes: [UInt8], lineIndex: LineIndex? = nil) {
            self.end = end
            self.bytes = bytes
            self.lineIndex = lineIndex
        }
    }

    /// The strings read, at the offset of each opening quote.
    public private(set) var strings: [Int: LongString] = [:]
    /// Offset of the first byte not read yet.
    private var position = 0
    /// The offset after the opening quote of the string being read, if any.
    private var open: Int?
    /// Whether the string being read is long, and then its bytes so far.
    private var isLong = false
    private var text: [UInt8] = []
    /// Where its lines start, and its characters that are not ASCII, so far.
    private var lineStarts: [UInt32] = []
    private var widths = CharacterWidths()
    /// How many of its bytes are checked as UTF-8 (up to a character's start).
    private var checked = 0
    /// Whether they are UTF-8 so far.
    private var isUTF8 = true
    private var stopped = false
    /// The body's whole length.
    private let length: Int

    public init(length: Int) {
        self.length = length
    }

    /// Reads on in `body`, the bytes received so far.
    public mutating func read(_ body: UnsafeBufferPointer<UInt8>) {
        let available = min(body.count, length)
        let complete = available == length
        while !stopped && position < available {
            guard let start = open else {
                // Outside every string: the next quote opens one.
                guard let quote = UnsafeBufferPointer(rebasing: body[position..<available]).firstIndex(of: 0x22)
                else {
                    position = available
                    return
                }
                open = position + quote + 1
                position = position + quote + 1
                continue
            }
            // In a long string, the characters that are not ASCII stop the scan too.
            let received = UnsafeBufferPointer(rebasing: body[..<available])
            let end =
                isLong
                ? ByteScan.firstQuoteBackslashControlOrWide(received, from: position)
                : ByteScan.firstQuoteBackslashOrControl(received, from: position)
            if !isLong && end - start >= JSONValue.longString {
                // Long: read from its first byte again, into room for the rest of the body.
                isLong = true
                text = []
                text.reserveCapacity(length - start)
                lineStarts = [0]
                lineStarts.reserveCapacity((length - start) / 40)
                widths = CharacterWidths()
                position = start
                checked = 0
                continue
            }
            if isLong { text.append(contentsOf: UnsafeBufferPointer(rebasing: body[position..<end])) }
            position = end
            guard end < available else { break }
            switch body[end] {
            case 0x22:
                if isLong {
                    check(final: true)
                    if isUTF8 {
                        strings[start - 1] = LongString(
                            end: end + 1, bytes: text, lineIndex: LineIndex(starts: lineStarts, widths: widths))
                    }
                    text = []
                    lineStarts = []
                    widths = CharacterWidths()
                }
                open = nil
                isLong = false
                isUTF8 = true
                position = end + 1
            case 0x5C:
                // An escape is read once it is all in: `\uD83D\uDE00` is twelve bytes. A line
                // break, a quote and a backslash (a text's escapes) are read without a parser.
                guard complete || available - end >= 12 else { return }
                if end + 1 < available {
                    if let simple = JSONParser.simpleEscape(body[end + 1]) {
                        if isLong { append(scalar: simple) }
                        position = end + 2
                        continue
                    }
                }
                var parser = JSONParser(bytes: received, maximumDepth: 1)
                parser.index = end
                do throws(JSONParseError) {
                    let scalar = try parser.parseEscape()
                    if isLong {
                        if scalar.isASCII {
                            append(scalar: UInt8(scalar.value))
                        } else {
                            let start = text.count
                            UTF8.encode(scalar) { text.append($0) }
                            widths.appendCharacter(at: start, lead: text[start])
                        }
                    }
                    position = parser.index
                } catch {
                    stopped = true
                }
            case let lead where lead >= 0x80 && isLong:
                // A character that is not ASCII, read once it is all in.
                let count = CharacterWidths.byteCount(lead: lead)
                guard complete || available - end >= count else { return }
                let last = min(end + count, available)
                widths.appendCharacter(at: text.count, lead: lead)
                text.append(contentsOf: UnsafeBufferPointer(rebasing: body[end..<last]))
                position = last
            default:
                stopped = true
            }
        }
        if isLong { check(final: false) }
    }

    /// Appends an ASCII byte to the long string being read, and a line start after a line break
    /// (`\n`, `\r\n` or a lone `\r`, as LSP counts lines).
    private mutating func append(scalar byte: UInt8) {
        text.append(byte)
        if byte == 0x0A {
            // After `\r\n` the line starts after the `\n`, not after the `\r`.
            if text.count >= 2 && text[text.count - 2] == 0x0D && lineStarts.last == UInt32(text.count - 1) {
                lineStarts[lineStarts.count - 1] = UInt32(text.count)
            } else {
                lineStarts.append(UInt32(text.count))
            }
        } else if byte == 0x0D {
            lineStarts.append(UInt32(text.count))
        }
    }

    /// Checks the bytes decoded since the last check as UTF-8, up to the last character's
    /// start unless `final`.
    private mutating func check(final: Bool) {
        guard isUTF8 else { return }
        var end = text.count
        if !final {
            // Leave the last character if it is not ASCII: it may go on in the next bytes.
            var back = 0
            while back < 3 && end - back > checked && text[end - back - 1] & 0xC0 == 0x80 { back += 1 }
            if end - back > checked && text[end - back - 1] >= 0xC0 { end -= back + 1 }
        }
        guard end > checked else { return }
        isUTF8 = text.withUnsafeBufferPointer { ByteScan.isValidUTF8(UnsafeBufferPointer(rebasing: $0[checked..<end])) }
        checked = end
    }
}

extension LongStringReader {
    /// A reader on a thread of its own, fed the count of bytes in so far of a body that does
    /// not move while it is received (`FrameDecoder.receivedBody`): the connection's thread
    /// goes on reading the pipe while this one decodes.
    public final class Background: @unchecked Sendable {
        private let body: UnsafePointer<UInt8>
        private let length: Int
        private var reader: LongStringReader
        private let condition = NSCondition()
        /// Guarded by `condition`.
        private var available = 0
        private var finishing = false
        private var done = false

        public init(body: UnsafePointer<UInt8>, length: Int) {
            self.body = body
            self.length = length
            reader = LongStringReader(length: length)
            let thread = Thread { [self] in run() }
            thread.name = "pgn-lsp long strings"
            thread.start()
        }

        /// `count` bytes of the body are in.
        public func received(_ count: Int) {
            condition.lock()
            available = max(available, count)
            condition.signal()
            condition.unlock()
        }

        /// The strings read, once every byte in is read: the whole body, when it is.
        public func finish() -> [Int: LongString] {
            condition.lock()
            finishing = true
            condition.broadcast()
            while !done { condition.wait() }
            condition.unlock()
            return reader.strings
        }

        private func run() {
            var seen = 0
            while true {
                condition.lock()
                while available == seen && !finishing { condition.wait() }
                let count = available
                let last = finishing && count == seen
                condition.unlock()
                if last { break }
                reader.read(UnsafeBufferPointer(start: body, count: count))
                seen = count
            }
            condition.lock()
            done = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
