import Dispatch
import TextPositions

/// Where each line of a document begins, as byte offsets into its UTF-8 text, and the conversions between
/// LSP positions and byte offsets. Lines end at `\n`, `\r\n` or a lone `\r`, as LSP specifies.
public struct LineIndex: Sendable, Hashable {
    /// The byte offset of the first byte of each line; the first is 0. A document ending with a line
    /// terminator has a last, empty line starting at its end. In 32 bits (a document is at most
    /// a 2 GB message): a 1 GB file has 50 million lines.
    private var starts: [UInt32]
    /// Where characters are wider than a byte: conversions take time logarithmic in the text.
    private var widths: CharacterWidths

    public init(_ bytes: [UInt8]) {
        // A large text's line starts and wide characters are found side by side: a document of
        // 100 MB is indexed while the client waits for its first screen.
        guard bytes.count >= 1 << 22 else {
            self.init(starts: Self.lineStarts(bytes), widths: CharacterWidths(bytes))
            return
        }
        nonisolated(unsafe) var starts: [UInt32] = []
        nonisolated(unsafe) var widths: CharacterWidths?
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            if task == 0 { starts = Self.lineStarts(bytes) } else { widths = CharacterWidths(bytes) }
        }
        self.init(starts: starts, widths: widths!)
    }

    private init(starts: [UInt32], widths: CharacterWidths) {
        self.starts = starts
        self.widths = widths
    }

    /// Where the lines of `bytes` start.
    private static func lineStarts(_ bytes: [UInt8]) -> [UInt32] {
        bytes.withUnsafeBufferPointer(ByteScan.lineStarts32)
    }

    /// Where each line starts, as `Int`s (a copy).
    public var lineStarts: [Int] { starts.map { Int($0) } }

    public var lineCount: Int { starts.count }

    /// Whether a line begins at `offset` of `bytes`.
    private static func isLineStart(_ offset: Int, in bytes: [UInt8]) -> Bool {
        if offset == 0 { return true }
        let previous = bytes[offset - 1]
        if previous == 0x0A { return true }
        return previous == 0x0D && (offset == bytes.count || bytes[offset] != 0x0A)
    }

    /// Updates the index after `oldRange` of the old text was replaced by `insertedLength` bytes, giving
    /// `bytes`. Only line starts whose two neighbouring bytes the edit touched are recomputed.
    mutating func replace(_ oldRange: Range<Int>, insertedLength: Int, in bytes: [UInt8]) {
        let delta = insertedLength - oldRange.count
        let low = firstIndex(ofStartAtLeast: oldRange.lowerBound)
        let high = firstIndex(ofStartAtLeast: oldRange.upperBound + 1)
        var middle: [UInt32] = []
        for offset in oldRange.lowerBound...(oldRange.lowerBound + insertedLength)
        where Self.isLineStart(offset, in: bytes) {
            middle.append(UInt32(clamping: offset))
        }
        if delta != 0 {
            for index in high..<starts.count { starts[index] = UInt32(clamping: Int(starts[index]) + delta) }
        }
        starts.replaceSubrange(low..<high, with: middle)
        bytes.withUnsafeBufferPointer { widths.replace(oldRange, insertedLength: insertedLength, in: $0) }
    }

    /// The index of the first line start at or after `offset`.
    private func firstIndex(ofStartAtLeast offset: Int) -> Int { starts.firstIndex(atLeast: offset) { Int($0) } }

    /// The line that holds byte `offset` (a line terminator belongs to the line it ends).
    public func line(containing offset: Int) -> Int {
        max(0, firstIndex(ofStartAtLeast: offset + 1) - 1)
    }

    /// The bytes of `line` without its terminator.
    public func contentRange(ofLine line: Int, in bytes: [UInt8]) -> Range<Int> {
        let start = Int(starts[line])
        guard line + 1 < starts.count else { return start..<bytes.count }
        var end = Int(starts[line + 1]) - 1
        if bytes[end] == 0x0A, end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return start..<end
    }

    /// The byte offset of `position`. A character past the end of its line means the end of the line, a
    /// line past the end of the document means the end of the document, and a position inside a character
    /// (the middle of a surrogate pair or of a UTF-8 sequence) means the start of that character.
    public func offset(of position: LSPPosition, in bytes: [UInt8], encoding: PositionEncoding) -> Int {
        guard position.line >= 0 else { return 0 }
        guard position.line < starts.count else { return bytes.count }
        let content = contentRange(ofLine: position.line, in: bytes)
        return widths.offset(
            ofColumn: position.character, lineStart: content.lowerBound, lineEnd: content.upperBound,
            in: encoding)
    }

    /// `position(of:in:encoding:)` for offsets asked in increasing order (the start of each game
    /// of a document): the line is searched forward from `line`, the previous answer's line, which
    /// becomes this one's. A line's first byte takes no column count.
    public func position(
        of offset: Int, in bytes: [UInt8], encoding: PositionEncoding, fromLine line: inout Int
    ) -> LSPPosition {
        let clamped = min(max(offset, 0), bytes.count)
        var low = min(max(line, 0), starts.count - 1)
        guard starts[low] <= clamped else {
            line = self.line(containing: clamped)
            return position(of: clamped, onLine: line, in: bytes, encoding: encoding)
        }
        // Galloping: the next offset is most often a few lines on.
        var step = 1
        while low + step < starts.count && starts[low + step] <= clamped {
            low += step
            step *= 2
        }
        var high = min(low + step, starts.count)
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= clamped { low = middle } else { high = middle }
        }
        line = low
        if starts[low] == clamped { return LSPPosition(line: low, character: 0) }
        return position(of: clamped, onLine: low, in: bytes, encoding: encoding)
    }

    /// The position of byte `offset`, clamped to the document; an offset inside a line terminator is the
    /// end of its line.
    public func position(of offset: Int, in bytes: [UInt8], encoding: PositionEncoding) -> LSPPosition {
        let clamped = min(max(offset, 0), bytes.count)
        return position(of: clamped, onLine: line(containing: clamped), in: bytes, encoding: encoding)
    }

    /// The position of byte `offset` of the document (clamped already) on `line`, the line holding it.
    private func position(
        of clamped: Int, onLine line: Int, in bytes: [UInt8], encoding: PositionEncoding
    )
        -> LSPPosition
    {
        let content = contentRange(ofLine: line, in: bytes)
        let target = widths.characterStart(min(clamped, content.upperBound))
        return LSPPosition(
            line: line, character: widths.columns(from: content.lowerBound, to: target, in: encoding))
    }
}
