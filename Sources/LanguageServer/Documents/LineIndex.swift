/// Where each line of a document begins, as byte offsets into its UTF-8 text, and the conversions between
/// LSP positions and byte offsets. Lines end at `\n`, `\r\n` or a lone `\r`, as LSP specifies.
public struct LineIndex: Sendable, Hashable {
    /// The byte offset of the first byte of each line; the first is 0. A document ending with a line
    /// terminator has a last, empty line starting at its end.
    public private(set) var lineStarts: [Int]

    public init(_ bytes: [UInt8]) {
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            let count = buffer.count
            var index = 0
            while index < count {
                let byte = buffer[index]
                index += 1
                if byte == 0x0A || (byte == 0x0D && (index == count || buffer[index] != 0x0A)) {
                    starts.append(index)
                }
            }
        }
        lineStarts = starts
    }

    public var lineCount: Int { lineStarts.count }

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
        var middle: [Int] = []
        for offset in oldRange.lowerBound...(oldRange.lowerBound + insertedLength)
        where Self.isLineStart(offset, in: bytes) {
            middle.append(offset)
        }
        if delta != 0 {
            for index in high..<lineStarts.count { lineStarts[index] += delta }
        }
        lineStarts.replaceSubrange(low..<high, with: middle)
    }

    /// The index of the first line start at or after `offset`.
    private func firstIndex(ofStartAtLeast offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count
        while low < high {
            let middle = (low + high) / 2
            if lineStarts[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The line that holds byte `offset` (a line terminator belongs to the line it ends).
    public func line(containing offset: Int) -> Int {
        max(0, firstIndex(ofStartAtLeast: offset + 1) - 1)
    }

    /// The bytes of `line` without its terminator.
    public func contentRange(ofLine line: Int, in bytes: [UInt8]) -> Range<Int> {
        let start = lineStarts[line]
        guard line + 1 < lineStarts.count else { return start..<bytes.count }
        var end = lineStarts[line + 1] - 1
        if bytes[end] == 0x0A, end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return start..<end
    }

    /// The byte offset of `position`. A character past the end of its line means the end of the line, a
    /// line past the end of the document means the end of the document, and a position inside a character
    /// (the middle of a surrogate pair or of a UTF-8 sequence) means the start of that character.
    public func offset(of position: Position, in bytes: [UInt8], encoding: PositionEncoding) -> Int {
        guard position.line >= 0 else { return 0 }
        guard position.line < lineStarts.count else { return bytes.count }
        let content = contentRange(ofLine: position.line, in: bytes)
        let character = max(0, position.character)
        if encoding == .utf8 {
            var offset = content.lowerBound + min(character, content.count)
            while offset > content.lowerBound, offset < content.upperBound, Self.isContinuation(bytes[offset]) {
                offset -= 1
            }
            return offset
        }
        var offset = content.lowerBound
        var units = 0
        while offset < content.upperBound {
            let length = Self.sequenceLength(bytes[offset])
            let width = encoding == .utf16 && length == 4 ? 2 : 1
            if units + width > character { break }
            units += width
            offset += length
        }
        return min(offset, content.upperBound)
    }

    /// The position of byte `offset`, clamped to the document; an offset inside a line terminator is the
    /// end of its line.
    public func position(of offset: Int, in bytes: [UInt8], encoding: PositionEncoding) -> Position {
        let clamped = min(max(offset, 0), bytes.count)
        let line = line(containing: clamped)
        let content = contentRange(ofLine: line, in: bytes)
        var target = min(clamped, content.upperBound)
        while target > content.lowerBound, target < content.upperBound, Self.isContinuation(bytes[target]) {
            target -= 1
        }
        if encoding == .utf8 { return Position(line: line, character: target - content.lowerBound) }
        var units = 0
        var index = content.lowerBound
        while index < target {
            let length = Self.sequenceLength(bytes[index])
            units += encoding == .utf16 && length == 4 ? 2 : 1
            index += length
        }
        return Position(line: line, character: units)
    }

    private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: return 4
        case 0xE0...: return 3
        case 0xC0...: return 2
        default: return 1
        }
    }
}
