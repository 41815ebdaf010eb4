#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// JSON texts about parts of a document (the games' outline), one after the other, with their
/// line numbers counted from each part's first line and written when a part is placed
/// (`PlacedJSON.array(_:placed:)`). A part that an edit left alone keeps its text,
/// whether the edit moved its lines or not: the outline of a 100 MB document (22 MB of JSON)
/// is copied at each keystroke instead of being written again value by value.
public struct PlacedJSON: Sendable {
    /// The texts without their line numbers, the punctuation and member names of `raw` each
    /// as two bytes: `fragmentMark` and its index in `fragments` (40% of the outline's text).
    private var bytes: [UInt8] = []
    /// Where each line number goes in `bytes`, and the line counted from its part's first.
    private var lines: [(offset: Int32, line: Int32)] = []
    /// Where each part ends in `bytes` and `lines`, and the length of the texts up to there
    /// with their fragments written out; the part being written is not counted.
    private var ends: [(bytes: Int32, lines: Int32, length: Int)] = []
    /// The fragments written by `raw`, in the order they first came.
    private var fragments: [StaticString] = []
    /// The length of the texts with their fragments written out.
    private var length = 0

    /// A byte no UTF-8 text holds.
    private static let fragmentMark: UInt8 = 0xFF

    /// Room for `parts` parts of `bytes` bytes in all.
    public init(parts: Int = 0, bytes: Int = 0) {
        ends.reserveCapacity(parts)
        self.bytes.reserveCapacity(bytes)
        lines.reserveCapacity(parts * 6)
    }

    /// The number of parts ended.
    public var partCount: Int { ends.count }

    /// The size of the texts as kept, line numbers left out.
    public var byteCount: Int { bytes.count }

    /// Ends the part being written.
    public mutating func endPart() {
        ends.append((Int32(clamping: bytes.count), Int32(clamping: lines.count), length))
    }

    /// Appends part `k` of `other` as a part of its own.
    public mutating func append(part k: Int, of other: PlacedJSON) {
        let (from, to) = other.bounds(of: k)
        let shift = Int32(clamping: bytes.count) - Int32(from.bytes)
        var hole = from.lines
        if bytes.isEmpty && fragments.isEmpty { fragments = other.fragments }
        if fragments.count >= other.fragments.count
            && zip(fragments, other.fragments).allSatisfy({ $0.utf8Start == $1.utf8Start })
        {
            bytes.append(contentsOf: other.bytes[from.bytes..<to.bytes])
        } else {
            // Other fragments: each is written again as one of this text's.
            var offset = from.bytes
            while offset < to.bytes {
                while hole < to.lines && Int(other.lines[hole].offset) == offset {
                    lines.append((Int32(bytes.count), other.lines[hole].line))
                    hole += 1
                }
                if other.bytes[offset] == Self.fragmentMark {
                    raw(other.fragments[Int(other.bytes[offset + 1])])
                    length -= other.fragments[Int(other.bytes[offset + 1])].utf8CodeUnitCount
                    offset += 2
                } else {
                    bytes.append(other.bytes[offset])
                    offset += 1
                }
            }
            // Line numbers at the part's end.
            for end in other.lines[hole..<to.lines] { lines.append((Int32(bytes.count), end.line)) }
            hole = to.lines
        }
        for hole in other.lines[hole..<to.lines] { lines.append((hole.offset + shift, hole.line)) }
        length += to.length - from.length
        endPart()
    }

    /// Where part `k` starts and ends in `bytes` and `lines`, and its length written out.
    private func bounds(
        of k: Int
    ) -> (
        from: (bytes: Int, lines: Int, length: Int), to: (bytes: Int, lines: Int, length: Int)
    ) {
        let from =
            k == 0
            ? (bytes: 0, lines: 0, length: 0)
            : (bytes: Int(ends[k - 1].bytes), lines: Int(ends[k - 1].lines), length: ends[k - 1].length)
        return (from, (Int(ends[k].bytes), Int(ends[k].lines), ends[k].length))
    }

    /// Text written as it is: punctuation and member names, kept as a fragment (two bytes)
    /// when longer.
    public mutating func raw(_ text: StaticString) {
        length += text.utf8CodeUnitCount
        guard text.utf8CodeUnitCount > 2 else { return text.withUTF8Buffer { bytes.append(contentsOf: $0) } }
        var index = fragments.firstIndex { $0.utf8Start == text.utf8Start }
        if index == nil && fragments.count < 255 {
            index = fragments.count
            fragments.append(text)
        }
        guard let index else { return text.withUTF8Buffer { bytes.append(contentsOf: $0) } }
        bytes.append(Self.fragmentMark)
        bytes.append(UInt8(index))
    }

    public mutating func string(_ value: String) {
        let count = bytes.count
        JSONValue.writeString(value, to: &bytes)
        length += bytes.count - count
    }

    public mutating func integer(_ value: Int) {
        let count = bytes.count
        JSONValue.writeInteger(value, to: &bytes)
        length += bytes.count - count
    }

    /// A line number: `line` lines after the part's first line.
    public mutating func line(_ line: Int) {
        lines.append((Int32(clamping: bytes.count), Int32(clamping: line)))
    }

    /// `{"character":…,"line":…}`, the line counted from the part's first line `firstLine`.
    public mutating func position(_ position: LSPPosition, firstLine: Int) {
        raw("{\"character\":")
        integer(position.character)
        raw(",\"line\":")
        line(position.line - firstLine)
        raw("}")
    }

    /// `{"end":…,"start":…}`, as `position(_:firstLine:)`.
    public mutating func range(_ range: LSPRange, firstLine: Int) {
        raw("{\"end\":")
        position(range.end, firstLine: firstLine)
        raw(",\"start\":")
        position(range.start, firstLine: firstLine)
        raw("}")
    }

    /// Writes part `k` into `text`, its first line being line `line` of the document.
    private func write(part k: Int, atLine line: Int, to text: inout JSONText) {
        let (from, to) = bounds(of: k)
        bytes.withUnsafeBufferPointer { all in
            // The bytes from `start` to `end`, their fragments written out.
            func copy(_ start: Int, _ end: Int) {
                var start = start
                while start < end {
                    guard let mark = memchr(all.baseAddress! + start, Int32(Self.fragmentMark), end - start) else {
                        return text.raw(UnsafeBufferPointer(rebasing: all[start..<end]))
                    }
                    let offset = all.baseAddress!.distance(to: mark.assumingMemoryBound(to: UInt8.self))
                    text.raw(UnsafeBufferPointer(rebasing: all[start..<offset]))
                    text.raw(fragments[Int(all[offset + 1])])
                    start = offset + 2
                }
            }
            var start = from.bytes
            for hole in lines[from.lines..<to.lines] {
                let offset = Int(hole.offset)
                copy(start, offset)
                text.integer(line + Int(hole.line))
                start = offset
            }
            copy(start, to.bytes)
        }
    }
}

extension PlacedJSON {
    /// The JSON array of `parts`' parts named by `placed`, each with its first line, written
    /// here in pieces (`JSONText.endPieceIfFull`). Not as the client reads it
    /// (`JSONValue.stream`): the one writer would make it then, and the answers sent after it
    /// (pulled diagnostics, a tokens delta) would wait for its 22 MB at 100 MB (p95 of both
    /// 35 ms against 17 in VS Code's typing sequence).
    public static func array(_ parts: PlacedJSON, placed: [(part: Int32, line: Int32)]) -> JSONValue {
        var text = JSONText(capacity: JSONText.pieceSize)
        text.raw("[")
        for (k, element) in placed.enumerated() {
            if k > 0 { text.raw(",") }
            parts.write(part: Int(element.part), atLine: Int(element.line), to: &text)
            text.endPieceIfFull()
        }
        text.raw("]")
        return text.json
    }
}
