import Foundation
import TextPositions

/// A document's text as UTF-8 bytes, held in pieces of about 64 KB. An edit changes the piece
/// it falls in and moves none of the text after it, and a copy of the text shares its pieces:
/// a request still reading one version of a 100 MB document does not make the next keystroke
/// copy the whole text, and typing in a 1 GB one does not move half a gigabyte.
///
/// A text opened from one array keeps that array, which whole readings take as it is, until
/// its first edit; its pieces are slices of it, so the opening copies nothing.
public struct DocumentText: Sendable {
    /// The pieces, in order, none empty.
    private var pieces: [ArraySlice<UInt8>]
    /// The offset just past each piece.
    private var ends: [Int]
    /// The text as it was given, until an edit changes it or its bytes are shared (`sharing`).
    public private(set) var whole: [UInt8]?

    /// The size of the pieces a text is cut into; an edit that makes a piece larger than twice
    /// this cuts it again.
    static let pieceSize = 1 << 16

    public init(_ bytes: [UInt8]) {
        whole = bytes
        pieces = Self.cut(bytes[...])
        ends = Array(repeating: 0, count: pieces.count)
        placePieces(from: 0, at: 0)
    }

    /// Sets the ends of the pieces from `first` on, which starts at offset `start`.
    private mutating func placePieces(from first: Int, at start: Int) {
        var end = start
        for index in first..<pieces.count {
            end += pieces[index].count
            ends[index] = end
        }
    }

    /// `bytes` in pieces of `pieceSize`, slices of the same storage.
    private static func cut(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        stride(from: bytes.startIndex, to: bytes.endIndex, by: pieceSize).map {
            bytes[$0..<min($0 + pieceSize, bytes.endIndex)]
        }
    }

    public var count: Int { ends.last ?? 0 }

    public var isEmpty: Bool { count == 0 }

    /// The index of the piece that holds byte `offset` (`0..<count`).
    private func piece(holding offset: Int) -> Int { ends.firstIndex(atLeast: offset + 1) }

    /// The offset of the first byte of piece `index`.
    private func start(ofPiece index: Int) -> Int { index == 0 ? 0 : ends[index - 1] }

    public subscript(offset: Int) -> UInt8 {
        precondition(offset >= 0 && offset < count, "offset \(offset) outside a text of \(count) bytes")
        if let whole { return whole[offset] }
        let index = piece(holding: offset)
        return pieces[index][pieces[index].startIndex + offset - start(ofPiece: index)]
    }

    /// A copy of the bytes of `range`.
    public func bytes(in range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "\(range) outside \(count) bytes")
        if let whole { return Array(whole[range]) }
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var index = range.isEmpty ? pieces.count : piece(holding: range.lowerBound)
        while index < pieces.count, start(ofPiece: index) < range.upperBound {
            let piece = pieces[index]
            let base = start(ofPiece: index)
            let low = max(range.lowerBound, base) - base + piece.startIndex
            let high = min(range.upperBound, ends[index]) - base + piece.startIndex
            result.append(contentsOf: piece[low..<high])
            index += 1
        }
        return result
    }

    /// The whole text in one array: the array it was opened from, else a copy.
    public var array: [UInt8] { whole ?? bytes(in: 0..<count) }

    /// Calls `body` with the bytes of `range` in one buffer: the text's own storage when the
    /// range lies in one piece (or the text is not edited since it was opened), else a copy.
    public func withBytes<Result>(
        in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "\(range) outside \(count) bytes")
        if let whole {
            return try whole.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
        }
        if !range.isEmpty {
            let index = piece(holding: range.lowerBound)
            if range.upperBound <= ends[index] {
                let base = start(ofPiece: index)
                return try pieces[index].withUnsafeBufferPointer { buffer in
                    try body(
                        UnsafeBufferPointer(rebasing: buffer[(range.lowerBound - base)..<(range.upperBound - base)]))
                }
            }
        }
        return try bytes(in: range).withUnsafeBufferPointer(body)
    }

    /// Whether a byte of `range` satisfies `predicate`, for short ranges read in document
    /// order (the text between the games of a document, tens of thousands of them): `piece`
    /// is where the previous range began, and this one's piece is looked for from there on.
    public func contains(
        in range: Range<Int>, piece hint: inout Int, where predicate: (UInt8) -> Bool
    ) -> Bool {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "\(range) outside \(count) bytes")
        if let whole { return whole[range].contains(where: predicate) }
        guard !range.isEmpty else { return false }
        var index = min(max(hint, 0), pieces.count - 1)
        if start(ofPiece: index) > range.lowerBound || ends[index] <= range.lowerBound {
            // Most often the next piece.
            let next = index + 1 < pieces.count && ends[index] <= range.lowerBound && range.lowerBound < ends[index + 1]
            index = next ? index + 1 : piece(holding: range.lowerBound)
        }
        hint = index
        var offset = range.lowerBound
        while offset < range.upperBound {
            let base = start(ofPiece: index)
            let end = min(range.upperBound, ends[index])
            let first = pieces[index].startIndex - base
            for k in offset..<end where predicate(pieces[index][first + k]) { return true }
            offset = end
            index += 1
        }
        return false
    }

    /// The same text with the bytes of each part held in that part's array, whose storage the
    /// text then shares; the bytes between the parts are copied into one array of their own.
    /// A reader that copied the games of a large text (each game's analysis keeps its text)
    /// shares them back, and the text it was given is freed: a 100 MB document is then held
    /// once, not twice. Nil when a part's bytes are not the text's at its offset, or the parts
    /// are not in order.
    public func sharing(_ parts: [(offset: Int, bytes: [UInt8])]) -> DocumentText? {
        var spans: [(part: Int?, range: Range<Int>)] = []
        spans.reserveCapacity(2 * parts.count + 1)
        var gaps: [UInt8] = []
        var offset = 0
        for (index, part) in parts.enumerated() where !part.bytes.isEmpty {
            let end = part.offset + part.bytes.count
            guard part.offset >= offset, end <= count else { return nil }
            let equal = withBytes(in: part.offset..<end) { text in
                part.bytes.withUnsafeBufferPointer { memcmp(text.baseAddress!, $0.baseAddress!, text.count) == 0 }
            }
            guard equal else { return nil }
            if part.offset > offset {
                let gap = gaps.count
                withBytes(in: offset..<part.offset) { gaps.append(contentsOf: $0) }
                spans.append((nil, gap..<gaps.count))
            }
            spans.append((index, 0..<part.bytes.count))
            offset = end
        }
        if offset < count {
            let gap = gaps.count
            withBytes(in: offset..<count) { gaps.append(contentsOf: $0) }
            spans.append((nil, gap..<gaps.count))
        }
        var text = DocumentText([])
        text.whole = nil
        text.pieces.reserveCapacity(spans.count)
        for span in spans {
            if let part = span.part {
                // A part larger than an edited piece may grow is held in pieces of its array.
                let bytes = parts[part].bytes
                text.pieces += bytes.count > 2 * Self.pieceSize ? Self.cut(bytes[...]) : [bytes[...]]
            } else {
                text.pieces.append(gaps[span.range])
            }
        }
        text.ends = Array(repeating: 0, count: text.pieces.count)
        text.placePieces(from: 0, at: 0)
        return text
    }

    /// Replaces the bytes of `range` with `inserted`.
    public mutating func replace(_ range: Range<Int>, with inserted: [UInt8]) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "\(range) outside \(count) bytes")
        guard !(range.isEmpty && inserted.isEmpty) else { return }
        whole = nil
        guard !pieces.isEmpty else {
            self = DocumentText(inserted)
            whole = nil
            return
        }
        // The pieces the edit touches: the one holding its first byte (the last piece for an
        // insertion at the end) to the one holding its last.
        let first = min(piece(holding: range.lowerBound), pieces.count - 1)
        let last = range.isEmpty ? first : piece(holding: range.upperBound - 1)
        let delta = inserted.count - range.count
        let base = start(ofPiece: first)
        if first == last && pieces[first].count + delta <= 2 * Self.pieceSize && pieces[first].count + delta > 0 {
            // In the piece: in place, unless a copy of the text shares it.
            let offset = pieces[first].startIndex - base
            pieces[first].replaceSubrange((range.lowerBound + offset)..<(range.upperBound + offset), with: inserted)
            for index in first..<ends.count { ends[index] += delta }
            return
        }
        var joined: [UInt8] = []
        joined.reserveCapacity(ends[last] - base + delta)
        joined += pieces[first][..<(pieces[first].startIndex + range.lowerBound - base)]
        joined += inserted
        let lastBase = start(ofPiece: last)
        joined += pieces[last][(pieces[last].startIndex + range.upperBound - lastBase)...]
        let made = Self.cut(joined[...])
        pieces.replaceSubrange(first...last, with: made)
        ends.replaceSubrange(first...last, with: repeatElement(0, count: made.count))
        placePieces(from: first, at: base)
    }
}

extension DocumentText: Equatable {
    public static func == (lhs: DocumentText, rhs: DocumentText) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var offset = 0
        for piece in lhs.pieces {
            let equal = rhs.withBytes(in: offset..<offset + piece.count) { other in
                piece.withUnsafeBufferPointer { $0.elementsEqual(other) }
            }
            guard equal else { return false }
            offset += piece.count
        }
        return true
    }
}

extension DocumentText: Hashable {
    /// From the length and the first and last 64 bytes: texts that are equal hash alike however
    /// they are cut into pieces.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        withBytes(in: 0..<min(count, 64)) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        withBytes(in: max(0, count - 64)..<count) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
