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

    /// An index whose parts are known already (`LongStringReader` finds them as it decodes).
    init(starts: [UInt32], widths: CharacterWidths) {
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

    /// Updates the index after `oldRange` of the old text was replaced by `insertedLength` bytes, giving
    /// `text`. Only line starts whose two neighbouring bytes the edit touched are recomputed.
    mutating func replace(_ oldRange: Range<Int>, insertedLength: Int, in text: DocumentText) {
        let delta = insertedLength - oldRange.count
        let low = firstIndex(ofStartAtLeast: oldRange.lowerBound)
        let high = firstIndex(ofStartAtLeast: oldRange.upperBound + 1)
        // The inserted bytes, the one before them and the one after (a line start depends on
        // its two neighbours), and three more for a character that goes on past them.
        let insertedEnd = oldRange.lowerBound + insertedLength
        let window = max(oldRange.lowerBound - 1, 0)..<min(insertedEnd + 4, text.count)
        text.withBytes(in: window) { bytes in
            var middle: [UInt32] = []
            for offset in oldRange.lowerBound...insertedEnd
            where offset == 0
                || ByteScan.startsLine(
                    after: bytes[offset - 1 - window.lowerBound],
                    before: offset == text.count ? nil : bytes[offset - window.lowerBound])
            {
                middle.append(UInt32(clamping: offset))
            }
            if delta != 0 {
                for index in high..<starts.count { starts[index] = UInt32(clamping: Int(starts[index]) + delta) }
            }
            starts.replaceSubrange(low..<high, with: middle)
            widths.replace(oldRange, insertedLength: insertedLength, scanning: bytes, at: window.lowerBound)
        }
    }

    /// The index of the first line start at or after `offset`.
    private func firstIndex(ofStartAtLeast offset: Int) -> Int { starts.firstIndex(atLeast: offset) { Int($0) } }

    /// The line that holds byte `offset` (a line terminator belongs to the line it ends).
    public func line(containing offset: Int) -> Int {
        max(0, firstIndex(ofStartAtLeast: offset + 1) - 1)
    }

    /// The bytes of `line` without its terminator.
    public func contentRange(ofLine line: Int, in text: DocumentText) -> Range<Int> {
        let start = Int(starts[line])
        guard line + 1 < starts.count else { return start..<text.count }
        var end = Int(starts[line + 1]) - 1
        if text[end] == 0x0A, end > start, text[end - 1] == 0x0D { end -= 1 }
        return start..<end
    }

    /// The byte offset of `position`. A character past the end of its line means the end of the line, a
    /// line past the end of the document means the end of the document, and a position inside a character
    /// (the middle of a surrogate pair or of a UTF-8 sequence) means the start of that character.
    public func offset(of position: LSPPosition, in text: DocumentText, encoding: PositionEncoding) -> Int {
        guard position.line >= 0 else { return 0 }
        guard position.line < starts.count else { return text.count }
        let content = contentRange(ofLine: position.line, in: text)
        return widths.offset(
            ofColumn: position.character, lineStart: content.lowerBound, lineEnd: content.upperBound,
            in: encoding)
    }

    /// `position(of:in:encoding:)` for offsets asked in increasing order (the start of each game
    /// of a document): the line is searched forward from `line`, the previous answer's line, which
    /// becomes this one's. A line's first byte takes no column count.
    public func position(
        of offset: Int, in text: DocumentText, encoding: PositionEncoding, fromLine line: inout Int
    ) -> LSPPosition {
        let clamped = min(max(offset, 0), text.count)
        line = self.line(containing: clamped, from: line)
        return position(of: clamped, onLine: line, in: text, encoding: encoding)
    }

    /// `line(containing:)` searched forward from `hint` when it is at or before that line:
    /// galloping, as the next offset is most often a few lines on.
    private func line(containing offset: Int, from hint: Int) -> Int {
        var low = min(max(hint, 0), starts.count - 1)
        guard Int(starts[low]) <= offset else { return line(containing: offset) }
        var step = 1
        while low + step < starts.count && Int(starts[low + step]) <= offset {
            low += step
            step *= 2
        }
        var high = min(low + step, starts.count)
        while high - low > 1 {
            let middle = (low + high) / 2
            if Int(starts[middle]) <= offset { low = middle } else { high = middle }
        }
        return low
    }

    /// Whether each byte of `range` ends a line (`\n` or a lone `\r`: the blank lines between
    /// two games), told by the line starts alone, without reading the text. `line` is where the
    /// search starts, as in `position(of:in:encoding:fromLine:)`, and becomes the line starting
    /// at `range.upperBound` when the answer is yes.
    public func holdsOnlyLineBreaks(_ range: Range<Int>, fromLine line: inout Int) -> Bool {
        guard !range.isEmpty, range.lowerBound >= 0 else { return range.isEmpty }
        let low = self.line(containing: range.upperBound, from: line)
        // Lines start at each offset after the first byte up to the end: line starts are
        // increasing, so the first and the last of them tell.
        let first = low - (range.count - 1)
        guard Int(starts[low]) == range.upperBound, first >= 0, Int(starts[first]) == range.lowerBound + 1 else {
            return false
        }
        line = low
        return true
    }

    /// The position of byte `offset`, clamped to the document; an offset inside a line terminator is the
    /// end of its line.
    public func position(of offset: Int, in text: DocumentText, encoding: PositionEncoding) -> LSPPosition {
        let clamped = min(max(offset, 0), text.count)
        return position(of: clamped, onLine: line(containing: clamped), in: text, encoding: encoding)
    }

    /// The position of byte `offset` of the document (clamped already) on `line`, the line holding it.
    private func position(
        of clamped: Int, onLine line: Int, in text: DocumentText, encoding: PositionEncoding
    )
        -> LSPPosition
    {
        let start = Int(starts[line])
        if clamped == start { return LSPPosition(line: line, character: 0) }
        // A line's terminator is at most its last two bytes: an offset before them is in its
        // content, found without reading the text (a document's pieces are searched for each byte).
        var end = clamped
        if line + 1 < starts.count && clamped + 2 >= Int(starts[line + 1]) {
            end = min(clamped, contentRange(ofLine: line, in: text).upperBound)
        }
        return LSPPosition(line: line, character: widths.columns(from: start, toCharacterHolding: end, in: encoding))
    }
}
