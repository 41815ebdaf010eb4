/// Where a text's characters are not one byte and one column: the start of every character
/// that is not ASCII, with running totals of the bytes each takes beyond its columns in each
/// `PositionEncoding`. Between two such characters every byte is one column in every encoding,
/// so a column is found from a byte offset, and a byte offset from a column, by a binary search
/// instead of a walk along the line: a text of one long line costs no more than many short ones.
public struct CharacterWidths: Sendable, Hashable {
    /// The byte offset of each character that is not ASCII, in order.
    private var starts: [Int] = []
    /// `excess[e][k]`: the bytes beyond columns in encoding `e` of the first `k` such characters.
    private var excess8: [Int] = [0]
    private var excess16: [Int] = [0]
    private var excess32: [Int] = [0]
    /// Each byte above 0x7F is a character of its own (Latin-1), two bytes once written as UTF-8.
    private let latin1: Bool

    /// The widths of an empty text, to which `appendCharacter(at:lead:)` adds.
    public init() {
        latin1 = false
    }

    /// Adds the character whose first byte, `lead`, is at `offset` of a UTF-8 text, after the
    /// last one known: what a reader that meets the characters one by one calls for those that
    /// are not ASCII.
    public mutating func appendCharacter(at offset: Int, lead: UInt8) {
        let length = Self.byteCount(lead: lead)
        let columns = Self.columns(length: length)
        append(offset, excess: (length - columns.utf8, length - columns.utf16, length - columns.utf32))
    }

    /// Adds a character after the last one known: at `start`, taking `excess` bytes beyond its
    /// columns in each encoding.
    private mutating func append(_ start: Int, excess: (utf8: Int, utf16: Int, utf32: Int)) {
        starts.append(start)
        excess8.append(excess8.last! + excess.utf8)
        excess16.append(excess16.last! + excess.utf16)
        excess32.append(excess32.last! + excess.utf32)
    }

    public init(_ bytes: UnsafeBufferPointer<UInt8>, latin1: Bool = false) {
        self.latin1 = latin1
        insert(scanning: bytes, from: 0, to: bytes.count, at: 0)
    }

    public init(_ bytes: [UInt8], latin1: Bool = false) {
        self = bytes.withUnsafeBufferPointer { CharacterWidths($0, latin1: latin1) }
    }

    /// How many bytes a UTF-8 character whose first byte is `lead` takes (1 for a byte that
    /// cannot start one).
    @inline(__always)
    public static func byteCount(lead: UInt8) -> Int {
        lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
    }

    /// The columns a UTF-8 character of `length` bytes takes in each encoding.
    @inline(__always)
    private static func columns(length: Int) -> (utf8: Int, utf16: Int, utf32: Int) {
        (length, length == 4 ? 2 : 1, 1)
    }

    /// How many bytes, and how many columns in each encoding, the character starting at `i` takes.
    @inline(__always)
    private static func width(
        _ bytes: UnsafeBufferPointer<UInt8>, at i: Int, latin1: Bool
    ) -> (bytes: Int, utf8: Int, utf16: Int, utf32: Int) {
        let lead = bytes[i]
        if latin1 { return (1, 2, 1, 1) }
        let length = Self.byteCount(lead: lead)
        let available = min(length, bytes.count - i)
        let columns = Self.columns(length: length)
        // A character cut by the end of the text: its bytes in, as many UTF-8 columns.
        return (available, available, columns.utf16, columns.utf32)
    }

    /// Appends the characters that are not ASCII in `bytes[from..<to]`, whose offsets in the text
    /// are `shift` more, after the last one known.
    private mutating func insert(scanning bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, at shift: Int) {
        var i = from
        while i < to {
            // Eight ASCII bytes at a time.
            if i + 8 <= to {
                let word = UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            if bytes[i] < 0x80 {
                i += 1
                continue
            }
            let width = Self.width(bytes, at: i, latin1: latin1)
            let length = min(width.bytes, to - i)
            append(i + shift, excess: (length - width.utf8, length - width.utf16, length - width.utf32))
            i += length
        }
    }

    private func excess(_ encoding: PositionEncoding) -> [Int] {
        switch encoding {
        case .utf8: return excess8
        case .utf16: return excess16
        case .utf32: return excess32
        }
    }

    /// The index of the first character that is not ASCII at or after `offset`.
    private func firstIndex(atOrAfter offset: Int) -> Int { starts.firstIndex(atLeast: offset) }

    /// The bytes the `k`-th character that is not ASCII takes.
    private func length(_ k: Int) -> Int {
        // Its excess in UTF-32 is its length less one.
        excess32[k + 1] - excess32[k] + 1
    }

    /// The columns from `lineStart` (a character start) to the start of the character that
    /// holds `offset`, on one line; one search when no character that is not ASCII stands
    /// between them (most lines).
    public func columns(from lineStart: Int, toCharacterHolding offset: Int, in encoding: PositionEncoding) -> Int {
        // The characters that are not ASCII starting before `offset` + 1, then before the start
        // of the character holding it.
        var before = firstIndex(atOrAfter: offset + 1)
        var target = offset
        if before > 0 {
            let k = before - 1
            if starts[k] < offset && offset < starts[k] + length(k) { target = starts[k] }
            if starts[k] == target { before = k }
        }
        guard before > 0 && starts[before - 1] >= lineStart else { return target - lineStart }
        let excess = excess(encoding)
        return target - lineStart - (excess[before] - excess[firstIndex(atOrAfter: lineStart)])
    }

    /// The byte offset of `column` on the line `lineStart..<lineEnd`: a column inside a
    /// character means that character's start, and a column past the line's end means its end.
    public func offset(ofColumn column: Int, lineStart: Int, lineEnd: Int, in encoding: PositionEncoding) -> Int {
        let column = max(0, column)
        let excess = excess(encoding)
        let first = firstIndex(atOrAfter: lineStart)
        let end = firstIndex(atOrAfter: lineEnd)
        func columnsBefore(_ k: Int) -> Int { starts[k] - lineStart - (excess[k] - excess[first]) }
        // The first character that is not ASCII and starts past `column`.
        var low = first
        var high = end
        while low < high {
            let middle = (low + high) / 2
            if columnsBefore(middle) <= column { low = middle + 1 } else { high = middle }
        }
        // Written so that no column, however large, overflows.
        guard low > first else { return column >= lineEnd - lineStart ? lineEnd : lineStart + column }
        let k = low - 1
        let before = columnsBefore(k)
        let bytes = length(k)
        let width = bytes - (excess[k + 1] - excess[k])
        if column < before + width { return starts[k] }
        let after = starts[k] + bytes
        let rest = column - before - width
        return rest >= lineEnd - after ? lineEnd : after + rest
    }

    /// Follows an edit: `oldRange` of the text was replaced by `insertedLength` bytes. `bytes`
    /// are those of the new text from offset `base`: the inserted ones and, when the text goes
    /// on, the three after them. Work is in proportion to the characters that are not ASCII
    /// after the edit; the bytes after the edit are not read again (their characters moved).
    public mutating func replace(
        _ oldRange: Range<Int>, insertedLength: Int, scanning bytes: UnsafeBufferPointer<UInt8>, at base: Int
    ) {
        let delta = insertedLength - oldRange.count
        let low = firstIndex(atOrAfter: oldRange.lowerBound)
        let high = firstIndex(atOrAfter: oldRange.upperBound)
        let tail = (high..<starts.count).map {
            (
                start: starts[$0] + delta,
                excess: (
                    utf8: excess8[$0 + 1] - excess8[$0], utf16: excess16[$0 + 1] - excess16[$0],
                    utf32: excess32[$0 + 1] - excess32[$0]
                )
            )
        }
        starts.removeSubrange(low...)
        excess8.removeSubrange((low + 1)...)
        excess16.removeSubrange((low + 1)...)
        excess32.removeSubrange((low + 1)...)
        insert(
            scanning: bytes, from: oldRange.lowerBound - base, to: oldRange.lowerBound + insertedLength - base,
            at: base)
        starts.reserveCapacity(starts.count + tail.count)
        for moved in tail { append(moved.start, excess: moved.excess) }
    }
}
