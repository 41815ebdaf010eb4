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
    /// The strings read: at the offset of each opening quote, the offset after the closing
    /// quote and the string's bytes.
    public private(set) var strings: [Int: (end: Int, bytes: [UInt8])] = [:]
    /// Offset of the first byte not read yet.
    private var position = 0
    /// The offset after the opening quote of the string being read, if any.
    private var open: Int?
    /// Whether the string being read is long, and then its bytes so far.
    private var isLong = false
    private var text: [UInt8] = []
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
            let end = ByteScan.firstQuoteBackslashOrControl(
                UnsafeBufferPointer(rebasing: body[..<available]), from: position)
            if !isLong && end - start >= JSONValue.longString {
                // Long: read from its first byte again, into room for the rest of the body.
                isLong = true
                text = []
                text.reserveCapacity(length - start)
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
                    if isUTF8 { strings[start - 1] = (end + 1, text) }
                    text = []
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
                        if isLong { text.append(simple) }
                        position = end + 2
                        continue
                    }
                }
                var parser = JSONParser(bytes: UnsafeBufferPointer(rebasing: body[..<available]), maximumDepth: 1)
                parser.index = end
                do throws(JSONParseError) {
                    let scalar = try parser.parseEscape()
                    if isLong { UTF8.encode(scalar) { text.append($0) } }
                    position = parser.index
                } catch {
                    stopped = true
                }
            default:
                stopped = true
            }
        }
        if isLong { check(final: false) }
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
        public func finish() -> [Int: (end: Int, bytes: [UInt8])] {
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
