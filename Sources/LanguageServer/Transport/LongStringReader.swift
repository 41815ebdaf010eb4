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
    /// Whether the string being read is long, and then room for all its bytes (as many as the
    /// rest of the body, which no decoding outgrows), of which the first `written` are decoded.
    private var isLong = false
    private var text: [UInt8] = []
    private var written = 0
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
            if isLong {
                // Decoded through one pointer for all that is in, not appended to an array a run
                // and an escape at a time (on 1 GB, 1.20 s of CPU instead of 1.32 s).
                var room = text
                text = []
                let outcome = room.withUnsafeMutableBufferPointer { room in
                    readLong(body, available: available, complete: complete, into: room)
                }
                switch outcome {
                case .waiting:
                    text = room
                    return
                case .stopped:
                    stopped = true
                    return
                case .closed(let quote):
                    if isUTF8 {
                        room.removeLast(room.count - written)
                        strings[start - 1] = LongString(
                            end: quote + 1, bytes: room, lineIndex: LineIndex(starts: lineStarts, widths: widths))
                    }
                    lineStarts = []
                    widths = CharacterWidths()
                    written = 0
                    open = nil
                    isLong = false
                    isUTF8 = true
                    position = quote + 1
                    continue
                }
            }
            let received = UnsafeBufferPointer(rebasing: body[..<available])
            let end = ByteScan.firstQuoteBackslashOrControl(received, from: position)
            if end - start >= JSONValue.longString {
                // Long: read from its first byte again, into room for the rest of the body.
                isLong = true
                let capacity = length - start
                text = [UInt8](unsafeUninitializedCapacity: capacity) { _, count in count = capacity }
                written = 0
                lineStarts = [0]
                lineStarts.reserveCapacity(capacity / 40)
                widths = CharacterWidths()
                position = start
                checked = 0
                continue
            }
            position = end
            guard end < available else { break }
            switch body[end] {
            case 0x22:
                open = nil
                position = end + 1
            case 0x5C:
                switch Self.escape(at: end, in: received, complete: complete) {
                case .incomplete: return
                case .invalid: stopped = true
                case .read(_, let next): position = next
                }
            default:
                stopped = true
            }
        }
    }

    private enum Escape {
        /// Not all in yet.
        case incomplete
        /// Not a JSON escape.
        case invalid
        /// The character it stands for, and the offset after it.
        case read(Unicode.Scalar, next: Int)
    }

    /// The escape whose backslash is at `end` of the bytes in, read once it is all in:
    /// `\uD83D\uDE00` is twelve bytes. A line break, a quote and a backslash (a text's escapes)
    /// are read without a parser.
    private static func escape(at end: Int, in received: UnsafeBufferPointer<UInt8>, complete: Bool) -> Escape {
        guard complete || received.count - end >= 12 else { return .incomplete }
        if end + 1 < received.count, let simple = JSONParser.simpleEscape(received[end + 1]) {
            return .read(Unicode.Scalar(simple), next: end + 2)
        }
        var parser = JSONParser(bytes: received, maximumDepth: 1)
        parser.index = end
        do throws(JSONParseError) {
            let scalar = try parser.parseEscape()
            return .read(scalar, next: parser.index)
        } catch {
            return .invalid
        }
    }

    private enum LongOutcome {
        /// More bytes are needed.
        case waiting
        /// The string ends at this closing quote.
        case closed(Int)
        /// What follows is not a JSON string.
        case stopped
    }

    /// Decodes the long string being read into `room`, as far as the bytes in go.
    private mutating func readLong(
        _ body: UnsafeBufferPointer<UInt8>, available: Int, complete: Bool, into room: UnsafeMutableBufferPointer<UInt8>
    ) -> LongOutcome {
        let received = UnsafeBufferPointer(rebasing: body[..<available])
        // Copies `body[from..<to]` after the bytes decoded.
        func copy(_ from: Int, _ to: Int) {
            guard to > from else { return }
            UnsafeMutableRawPointer(room.baseAddress! + written).copyMemory(
                from: body.baseAddress! + from, byteCount: to - from)
            written += to - from
        }
        reading: while position < available {
            // In a long string, the characters that are not ASCII stop the scan too.
            let end = ByteScan.firstQuoteBackslashControlOrWide(received, from: position)
            copy(position, end)
            position = end
            guard end < available else { break }
            switch body[end] {
            case 0x22:
                check(room, final: true)
                return .closed(end)
            case 0x5C:
                switch Self.escape(at: end, in: received, complete: complete) {
                case .incomplete: break reading
                case .invalid: return .stopped
                case .read(let scalar, let next):
                    if scalar.isASCII {
                        append(scalar: UInt8(scalar.value), to: room)
                    } else {
                        let start = written
                        UTF8.encode(scalar) { byte in
                            room[written] = byte
                            written += 1
                        }
                        widths.appendCharacter(at: start, lead: room[start])
                    }
                    position = next
                }
            case let lead where lead >= 0x80:
                // A character that is not ASCII, read once it is all in.
                let last = end + CharacterWidths.byteCount(lead: lead)
                guard complete || last <= available else { break reading }
                widths.appendCharacter(at: written, lead: lead)
                copy(end, min(last, available))
                position = min(last, available)
            default:
                return .stopped
            }
        }
        check(room, final: false)
        return .waiting
    }

    /// Appends an ASCII byte to the long string being read, and a line start after a line break
    /// (`\n`, `\r\n` or a lone `\r`, as LSP counts lines).
    private mutating func append(scalar byte: UInt8, to room: UnsafeMutableBufferPointer<UInt8>) {
        room[written] = byte
        written += 1
        if byte == 0x0A {
            // After `\r\n` the line starts after the `\n`, not after the `\r`.
            if written >= 2 && room[written - 2] == 0x0D && lineStarts.last == UInt32(written - 1) {
                lineStarts[lineStarts.count - 1] = UInt32(written)
            } else {
                lineStarts.append(UInt32(written))
            }
        } else if byte == 0x0D {
            lineStarts.append(UInt32(written))
        }
    }

    /// Checks the bytes decoded since the last check as UTF-8, up to the last character's
    /// start unless `final`.
    private mutating func check(_ room: UnsafeMutableBufferPointer<UInt8>, final: Bool) {
        guard isUTF8 else { return }
        var end = written
        if !final {
            // Leave the last character if it is not ASCII: it may go on in the next bytes.
            var back = 0
            while back < 3 && end - back > checked && room[end - back - 1] & 0xC0 == 0x80 { back += 1 }
            if end - back > checked && room[end - back - 1] >= 0xC0 { end -= back + 1 }
        }
        guard end > checked else { return }
        isUTF8 = ByteScan.isValidUTF8(UnsafeBufferPointer(rebasing: room[checked..<end]))
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
