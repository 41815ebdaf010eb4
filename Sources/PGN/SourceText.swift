import Synchronization
import TextPositions

/// How a text's bytes are to be read as characters.
public enum TextEncoding: Sendable, Equatable {
    case utf8
    /// Bytes that are not valid UTF-8: each byte is one character (ISO 8859-1).
    case latin1
}

/// A line and a column, both 0-based, columns counted in some `PositionEncoding`.
public struct LineColumn: Sendable, Hashable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// The bytes of a PGN text with what it takes to read them: their encoding, whether they
/// start with a byte-order mark, and where each line starts.
public struct SourceText: Sendable {
    public let bytes: [UInt8]
    public let encoding: TextEncoding
    /// Length of a leading UTF-8 byte-order mark (0 or 3).
    public let byteOrderMarkLength: Int
    /// Offset of the first byte of each line; lines end at LF, CRLF or a lone CR. Made at the
    /// first use, as `widths` are: a large document's games are read (replayed, checked) with
    /// their own texts, and most never place a line. Kept for a text of 16 KB or more; a
    /// game's (a few KB, scanned in a fraction of a microsecond) is made at each use, so that
    /// the games of a large document do not all keep theirs.
    public var lineStarts: [Int] {
        bytes.count < 1 << 14 ? SourceText.lineStarts(bytes) : lineStartsCache.made { SourceText.lineStarts(bytes) }
    }
    private let lineStartsCache = MadeOnce<[Int]>()
    /// Where characters are wider than a byte, for conversions between offsets and columns:
    /// made at the first conversion, since most texts (a game read for its replay, a piece of a
    /// file with no problem in it) never convert one.
    private let widthsCache = MadeOnce<CharacterWidths>()

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        byteOrderMarkLength = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        encoding = SourceText.isValidUTF8(bytes) ? .utf8 : .latin1
    }

    private var widths: CharacterWidths {
        widthsCache.made { CharacterWidths(bytes, latin1: encoding == .latin1) }
    }

    public init(_ string: String) { self.init(Array(string.utf8)) }

    static func lineStarts(_ bytes: [UInt8]) -> [Int] { bytes.withUnsafeBufferPointer(ByteScan.lineStarts) }

    /// Validates UTF-8 without decoding into a String.
    public static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValidUTF8($0) }
    }

    /// `isValidUTF8(_:)` on bytes in memory the caller holds.
    public static func isValidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Bool { ByteScan.isValidUTF8(b) }

    /// The characters of a byte range, decoded by the text's encoding.
    public func string(_ range: Range<Int>) -> String {
        let lower = max(0, min(range.lowerBound, bytes.count))
        let upper = max(lower, min(range.upperBound, bytes.count))
        return decode(bytes[lower..<upper])
    }

    /// Bytes in the text's encoding, decoded.
    public func decode(_ slice: some Collection<UInt8>) -> String {
        switch encoding {
        case .utf8: return String(decoding: slice, as: UTF8.self)
        case .latin1: return String(String.UnicodeScalarView(slice.map { Unicode.Scalar($0) }))
        }
    }

    // MARK: Positions

    /// The line holding `offset` (0-based).
    public func line(of offset: Int) -> Int { Self.line(of: offset, in: lineStarts) }

    /// The line holding `offset` among lines starting at `starts` (a text's `lineStarts`, read
    /// once by a caller that places many offsets).
    public static func line(of offset: Int, in starts: [Int]) -> Int {
        max(0, starts.firstIndex(atLeast: offset + 1) - 1)
    }

    /// The end of a line's content (before its line break).
    public func lineEnd(_ line: Int) -> Int { lineEnd(line, lineStarts) }

    private func lineEnd(_ line: Int, _ starts: [Int]) -> Int {
        var end = line + 1 < starts.count ? starts[line + 1] : bytes.count
        if end > starts[line] && end <= bytes.count && bytes[end - 1] == 0x0A { end -= 1 }
        if end > starts[line] && end <= bytes.count && bytes[end - 1] == 0x0D { end -= 1 }
        return end
    }

    /// Line and column of a byte offset, the column counted in `encoding` units. An offset
    /// inside a character counts as that character's start. Takes time logarithmic in the text.
    public func position(of offset: Int, in positionEncoding: PositionEncoding) -> LineColumn {
        // A character never holds a line's start: the line of the offset is that of its character.
        let offset = max(0, min(offset, bytes.count))
        let starts = lineStarts
        let line = Self.line(of: offset, in: starts)
        return LineColumn(
            line: line, column: widths.columns(from: starts[line], toCharacterHolding: offset, in: positionEncoding))
    }

    /// The byte offset of a line and column; a column past the line's end means its end, a
    /// line past the last means the end of the text. Takes time logarithmic in the text.
    public func offset(of position: LineColumn, in positionEncoding: PositionEncoding) -> Int {
        guard position.line >= 0 else { return 0 }
        let starts = lineStarts
        guard position.line < starts.count else { return bytes.count }
        return widths.offset(
            ofColumn: position.column, lineStart: starts[position.line], lineEnd: lineEnd(position.line, starts),
            in: positionEncoding)
    }
}

extension SourceText {
    /// Converts offsets taken in increasing order (the tokens of a text) to positions, the
    /// widths read once and the line found from the last one.
    public struct Walker {
        private let source: SourceText
        private let widths: CharacterWidths
        private let starts: [Int]
        private var line = 0

        public init(_ source: SourceText) {
            self.source = source
            widths = source.widths
            starts = source.lineStarts
        }

        /// What `SourceText.position(of:in:)` gives, in time constant in the text for offsets
        /// close after the last one.
        public mutating func position(of offset: Int, in encoding: PositionEncoding) -> LineColumn {
            let offset = max(0, min(offset, source.bytes.count))
            if offset < starts[line] {
                line = SourceText.line(of: offset, in: starts)
            } else {
                while line + 1 < starts.count && starts[line + 1] <= offset { line += 1 }
            }
            return LineColumn(
                line: line, column: widths.columns(from: starts[line], toCharacterHolding: offset, in: encoding))
        }
    }
}

/// A value made once, by the first caller that needs it.
private final class MadeOnce<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func made(_ make: () -> Value) -> Value {
        value.withLock { value in
            if let value { return value }
            let made = make()
            value = made
            return made
        }
    }
}
