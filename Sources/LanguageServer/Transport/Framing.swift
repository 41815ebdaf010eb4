/// What went wrong while cutting the input stream into messages.
public enum FramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A header block without a `Content-Length` header.
    case missingContentLength
    /// A `Content-Length` whose value is not a non-negative decimal integer.
    case invalidContentLength(String)
    /// A line in the header part that is not `Name: value`.
    case invalidHeaderLine(String)
    /// A header block longer than the decoder accepts.
    case headerTooLong(limit: Int)
    /// A body longer than the decoder accepts; its bytes are skipped.
    case frameTooLarge(length: Int, limit: Int)
    /// The input ended inside a body.
    case truncatedFrame(expected: Int, received: Int)
    /// The input ended inside a header block.
    case truncatedHeader

    public var description: String {
        switch self {
        case .missingContentLength: return "header block without Content-Length"
        case .invalidContentLength(let value): return "invalid Content-Length '\(value)'"
        case .invalidHeaderLine(let line): return "invalid header line '\(line)'"
        case .headerTooLong(let limit): return "header block longer than \(limit) bytes"
        case .frameTooLarge(let length, let limit):
            return "message of \(length) bytes is larger than the limit of \(limit) bytes; skipped"
        case .truncatedFrame(let expected, let received):
            return "input ended after \(received) of \(expected) bytes of a message"
        case .truncatedHeader: return "input ended inside a header block"
        }
    }
}

/// One result of cutting the input: a message body, or a problem the reader reports before going on.
public enum FrameEvent: Sendable, Equatable {
    case frame([UInt8])
    case error(FramingError)
}

/// The header block of a frame whose body has `length` bytes: `Content-Length: N\r\n\r\n`.
public func frameHeader(length: Int) -> [UInt8] { Array("Content-Length: \(length)\r\n\r\n".utf8) }

/// Encodes a message body as a frame: its header block followed by the body.
public func encodeFrame(_ body: [UInt8]) -> [UInt8] {
    var frame = frameHeader(length: body.count)
    frame.reserveCapacity(frame.count + body.count)
    frame.append(contentsOf: body)
    return frame
}

/// Cuts a byte stream into LSP base-protocol frames. Bytes may arrive in any pieces: a frame split over
/// many reads, several frames in one read. Header names are case-insensitive, `Content-Type` and other
/// headers are ignored, and lines may end in CRLF or a bare LF. After a bad header block the decoder
/// reports once and skips ahead to the next `Content-Length` header.
public struct FrameDecoder: Sendable {
    public let maximumFrameLength: Int
    public let maximumHeaderLength: Int

    private var buffer: [UInt8] = []
    /// Bytes before `start` are consumed.
    private var start = 0
    /// Where the next unchecked header line begins.
    private var lineStart = 0
    /// The body length once its header block is read.
    private var pendingLength: Int?
    /// Body bytes of a frame too large to keep, still to be thrown away as they arrive.
    private var skipRemaining = 0
    private var skipExpected = 0
    /// After an error: discarding input up to the next `Content-Length`.
    private var resynchronizing = false

    private static let contentLength = Array("content-length".utf8)
    /// From this length on, a body is read into a buffer of its own and handed over as it is (a
    /// 100 MB document is not copied once more).
    static let movedLength = 1 << 20

    /// The largest frame read by default: 2 GB, a 1 GB document's `didOpen` with room for its
    /// escapes.
    public static let largestFrame = 1 << 31

    public init(maximumFrameLength: Int = FrameDecoder.largestFrame, maximumHeaderLength: Int = 1 << 16) {
        self.maximumFrameLength = maximumFrameLength
        self.maximumHeaderLength = maximumHeaderLength
    }

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        var rest = bytes[...]
        if skipRemaining > 0 {
            let skipped = min(skipRemaining, rest.count)
            skipRemaining -= skipped
            rest = rest.dropFirst(skipped)
        }
        buffer.append(contentsOf: rest)
    }

    /// The next frame or error, or nil when more input is needed.
    public mutating func next() -> FrameEvent? {
        while true {
            if skipRemaining > 0 { return nil }
            if let length = pendingLength {
                guard buffer.count - start >= length else { return nil }
                pendingLength = nil
                if start == 0 && length >= Self.movedLength {
                    // A large body is the buffer itself (`complete` below put it first): handed
                    // over without a copy, with the bytes after it (a next frame's) kept.
                    var body = buffer
                    buffer = Array(body[length...])
                    body.removeLast(body.count - length)
                    lineStart = 0
                    return .frame(body)
                }
                let body = Array(buffer[start..<start + length])
                consume(upTo: start + length)
                return .frame(body)
            }
            if resynchronizing {
                guard let found = findContentLength(from: start) else {
                    // Keep a tail that could be the beginning of the header name.
                    consume(upTo: max(start, buffer.count - (Self.contentLength.count - 1)))
                    return nil
                }
                consume(upTo: found)
                // The header search starts over here, even if an abandoned block had been scanned past it.
                lineStart = start
                resynchronizing = false
            }
            switch scanHeader() {
            case .needMoreInput: return nil
            case .failed(let error):
                resynchronize()
                return .error(error)
            case .complete(let length, let bodyStart):
                consume(upTo: bodyStart)
                if length > maximumFrameLength {
                    let available = min(buffer.count - start, length)
                    consume(upTo: start + available)
                    skipRemaining = length - available
                    skipExpected = length
                    return .error(.frameTooLarge(length: length, limit: maximumFrameLength))
                }
                pendingLength = length
                if length >= Self.movedLength && start > 0 {
                    // The body will be handed over as the buffer: it starts the buffer, with room
                    // for all of it and a read beyond it (`receivedBody` stays valid).
                    var moved: [UInt8] = []
                    moved.reserveCapacity(max(length, buffer.count - start) + Self.readMargin)
                    moved.append(contentsOf: buffer[start...])
                    buffer = moved
                    start = 0
                    lineStart = 0
                } else if buffer.count - start < length {
                    buffer.reserveCapacity(start + length + (length >= Self.movedLength ? Self.readMargin : 0))
                }
            }
        }
    }

    /// The length of the body being received, once its header block is read.
    public var receivingLength: Int? { pendingLength }

    /// How far beyond a large body one `append` may go without moving it: a read of the
    /// connection (64 KB) at most.
    public static let readMargin = 1 << 16

    /// Where the large body being received starts in memory, and how many of its bytes are in.
    /// The body does not move while it is received as long as each `append` adds at most
    /// `readMargin` bytes (it has room for them), nor when it is handed over: a reader on
    /// another thread may read the bytes in so far from there until the frame is out.
    public var receivedBody: (start: UnsafePointer<UInt8>, count: Int)? {
        guard let length = pendingLength, length >= Self.movedLength else { return nil }
        let base = buffer.withUnsafeBufferPointer { $0.baseAddress! + start }
        return (base, min(buffer.count - start, length))
    }

    /// Called at the end of input: the problem with what was left unread, if any.
    public mutating func finish() -> FramingError? {
        defer {
            buffer = []
            start = 0
            lineStart = 0
            pendingLength = nil
            skipRemaining = 0
        }
        if skipRemaining > 0 {
            return .truncatedFrame(expected: skipExpected, received: skipExpected - skipRemaining)
        }
        if let length = pendingLength {
            return .truncatedFrame(expected: length, received: buffer.count - start)
        }
        if resynchronizing { return nil }
        let rest = buffer[start...]
        if rest.contains(where: { !Self.isLineWhitespace($0) && $0 != 0x0A && $0 != 0x0D }) {
            return .truncatedHeader
        }
        return nil
    }

    private enum HeaderScan {
        case needMoreInput
        case failed(FramingError)
        case complete(length: Int, bodyStart: Int)
    }

    /// Checks header lines as they become complete, and parses the block at its blank line.
    private mutating func scanHeader() -> HeaderScan {
        lineStart = max(lineStart, start)
        while let newline = buffer[lineStart...].firstIndex(of: 0x0A) {
            var lineEnd = newline
            if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if lineEnd == lineStart {
                if lineStart == start {
                    // Blank lines between frames are tolerated.
                    consume(upTo: newline + 1)
                    continue
                }
                let block = buffer[start..<lineStart]
                lineStart = newline + 1
                return parseHeaderBlock(block, bodyStart: newline + 1)
            }
            guard Self.parseHeaderLine(buffer[lineStart..<lineEnd]) != nil else {
                return .failed(.invalidHeaderLine(Self.printable(buffer[lineStart..<lineEnd])))
            }
            lineStart = newline + 1
        }
        if buffer.count - start > maximumHeaderLength { return .failed(.headerTooLong(limit: maximumHeaderLength)) }
        if buffer.count > lineStart, !Self.couldBeginHeaderLine(buffer[lineStart...]) {
            return .failed(.invalidHeaderLine(Self.printable(buffer[lineStart...])))
        }
        return .needMoreInput
    }

    private func parseHeaderBlock(_ block: ArraySlice<UInt8>, bodyStart: Int) -> HeaderScan {
        var length: Int?
        var lineBegin = block.startIndex
        while lineBegin < block.endIndex {
            let newline = block[lineBegin...].firstIndex(of: 0x0A) ?? block.endIndex
            var lineEnd = newline
            if lineEnd > lineBegin, block[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if let (name, value) = Self.parseHeaderLine(block[lineBegin..<lineEnd]),
                Self.equalsIgnoringCase(name, Self.contentLength)
            {
                guard let parsed = Self.parseLength(value) else {
                    return .failed(.invalidContentLength(Self.printable(value)))
                }
                length = parsed
            }
            lineBegin = newline + 1
        }
        guard let length else { return .failed(.missingContentLength) }
        return .complete(length: length, bodyStart: bodyStart)
    }

    private mutating func resynchronize() {
        // Skip at least one byte so that the bad block's own header is not found again.
        consume(upTo: min(start + 1, buffer.count))
        resynchronizing = true
    }

    private func findContentLength(from position: Int) -> Int? {
        let pattern = Self.contentLength
        guard buffer.count - position >= pattern.count else { return nil }
        var index = position
        while index <= buffer.count - pattern.count {
            if Self.lowercased(buffer[index]) == pattern[0],
                Self.equalsIgnoringCase(buffer[index..<index + pattern.count], pattern)
            {
                return index
            }
            index += 1
        }
        return nil
    }

    private mutating func consume(upTo position: Int) {
        start = position
        lineStart = max(lineStart, start)
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
            lineStart = 0
        } else if start >= 1 << 16, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            lineStart -= start
            start = 0
        }
    }

    // MARK: Header syntax

    /// `Name: value` with a token name; returns the name and the value without surrounding blanks.
    private static func parseHeaderLine(_ line: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy(isTokenCharacter) else { return nil }
        var value = line[(colon + 1)...]
        while let first = value.first, isLineWhitespace(first) { value = value.dropFirst() }
        while let last = value.last, isLineWhitespace(last) { value = value.dropLast() }
        return (name, value)
    }

    /// False when the unfinished line already cannot be a header, so garbage is reported at once.
    private static func couldBeginHeaderLine(_ partial: ArraySlice<UInt8>) -> Bool {
        for byte in partial {
            if byte == UInt8(ascii: ":") { return partial.first != byte }
            if byte == 0x0D { return true }
            if !isTokenCharacter(byte) { return false }
        }
        return true
    }

    private static func parseLength(_ value: ArraySlice<UInt8>) -> Int? {
        guard !value.isEmpty, value.count <= 18 else { return nil }
        var length = 0
        for byte in value {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            length = length * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return length
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isLineWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercasePattern: [UInt8]) -> Bool {
        bytes.count == lowercasePattern.count && zip(bytes, lowercasePattern).allSatisfy { lowercased($0) == $1 }
    }

    private static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(80), as: UTF8.self)
        return bytes.count > 80 ? text + "…" : text
    }
}
