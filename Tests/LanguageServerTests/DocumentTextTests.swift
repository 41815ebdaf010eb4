import LanguageServer
import XCTest

/// A document's text in pieces (`DocumentText`) reads and edits as one array would, across
/// pieces, and a copy keeps its text when the other is edited.
final class DocumentTextTests: XCTestCase {
    /// 300 KB of lines (five pieces), with characters of two and three bytes.
    static let opened: [UInt8] = Array(
        (0..<6_000).map { "line \($0): 1. e4 é5 2. Nf3 ♘c6\n" }.joined().utf8)

    func testRandomEditsReadAsTheSameEditsOfAnArray() {
        var random = SystemRandomNumberGenerator()
        var text = DocumentText(Self.opened)
        var expected = Self.opened
        XCTAssertEqual(text.whole, expected, "the opened array is kept until an edit")
        for step in 0..<400 {
            // Small edits, and some that span pieces or cut one in two.
            let length =
                step % 10 == 0 ? Int.random(in: 0...150_000, using: &random) : Int.random(in: 0...8, using: &random)
            let start = Int.random(in: 0...expected.count, using: &random)
            let end = min(expected.count, start + length)
            let insertedLength =
                step % 7 == 0 ? Int.random(in: 0...140_000, using: &random) : Int.random(in: 0...5, using: &random)
            let inserted = (0..<insertedLength).map { UInt8(truncatingIfNeeded: 0x41 + ($0 + step) % 26) }
            text.replace(start..<end, with: inserted)
            expected.replaceSubrange(start..<end, with: inserted)
            XCTAssertNil(text.whole)
            XCTAssertEqual(text.count, expected.count, "step \(step)")
            if step % 25 == 0 || expected.count < 10 {
                XCTAssertEqual(text.array, expected, "step \(step)")
            }
            guard !expected.isEmpty else { continue }
            let low = Int.random(in: 0..<expected.count, using: &random)
            let high = min(expected.count, low + Int.random(in: 0...100_000, using: &random))
            XCTAssertEqual(text[low], expected[low], "step \(step)")
            XCTAssertEqual(text.bytes(in: low..<high), Array(expected[low..<high]), "step \(step)")
            XCTAssertEqual(text.withBytes(in: low..<high) { Array($0) }, Array(expected[low..<high]), "step \(step)")
        }
        XCTAssertEqual(text, DocumentText(expected), "equal however cut")
        XCTAssertEqual(text.hashValue, DocumentText(expected).hashValue)
    }

    func testACopyKeepsItsTextWhenTheOtherIsEdited() {
        var text = DocumentText(Self.opened)
        let copy = text
        text.replace(100_000..<100_010, with: Array("edited".utf8))
        text.replace(0..<0, with: Array("[Event \"x\"]\n".utf8))
        XCTAssertEqual(copy.array, Self.opened)
        XCTAssertEqual(copy.whole, Self.opened)
        var expected = Self.opened
        expected.replaceSubrange(100_000..<100_010, with: Array("edited".utf8))
        expected.insert(contentsOf: Array("[Event \"x\"]\n".utf8), at: 0)
        XCTAssertEqual(text.array, expected)
        XCTAssertNotEqual(text, copy)
    }

    /// Parts of the text as a reader copied them: lines 100–199, 1,000–5,999 (a part of more
    /// than two pieces) and every tenth line between.
    static func copiedParts() -> [(offset: Int, bytes: [UInt8])] {
        var starts = [0]
        for (offset, byte) in opened.enumerated() where byte == 0x0A { starts.append(offset + 1) }
        let lines = [100..<200] + stride(from: 200, to: 1_000, by: 10).map { $0..<$0 + 1 } + [1_000..<6_000]
        return lines.compactMap { lines in
            let range = starts[lines.lowerBound]..<starts[min(lines.upperBound, starts.count - 1)]
            return range.isEmpty ? nil : (range.lowerBound, Array(opened[range]))
        }
    }

    func testATextSharingItsPartsReadsAndEditsAsTheText() throws {
        let parts = Self.copiedParts()
        let opened = DocumentText(Self.opened)
        var text = try XCTUnwrap(opened.sharing(parts))
        XCTAssertNil(text.whole, "the opened array is no longer held")
        XCTAssertEqual(text, opened)
        XCTAssertEqual(text.array, Self.opened)
        // The text reads a part's own storage.
        let part = parts[0]
        let address = text.withBytes(in: part.offset..<part.offset + 10) { $0.baseAddress }
        XCTAssertEqual(address, part.bytes.withUnsafeBufferPointer { $0.baseAddress })
        // Edits in a part, in a gap, across both: the parts keep their bytes.
        var expected = Self.opened
        for (range, inserted) in [
            (part.offset + 5..<part.offset + 9, "edited"), (10..<20, ""), (part.offset - 3..<part.offset + 3, "x"),
            (parts.last!.offset + 70_000..<parts.last!.offset + 70_001, "é"),
            (Self.opened.count - 20..<Self.opened.count - 20, "\n1. d4"),
        ] {
            text.replace(range, with: Array(inserted.utf8))
            expected.replaceSubrange(range, with: Array(inserted.utf8))
            XCTAssertEqual(text.array, expected)
        }
        XCTAssertEqual(parts[0].bytes, Array(Self.opened[part.offset..<part.offset + part.bytes.count]))
        let last = parts.last!
        XCTAssertEqual(last.bytes, Array(Self.opened[last.offset..<last.offset + last.bytes.count]))
    }

    func testPartsThatAreNotTheTextAreNotShared() {
        let opened = DocumentText(Self.opened)
        var parts = Self.copiedParts()
        parts[3].bytes[0] ^= 1
        XCTAssertNil(opened.sharing(parts), "a part's bytes differ")
        XCTAssertNil(opened.sharing(Array(Self.copiedParts().reversed())), "out of order")
        XCTAssertNil(opened.sharing([(Self.opened.count - 2, [0x0A, 0x0A, 0x0A])]), "past the end")
        XCTAssertEqual(opened.sharing([])?.array, Self.opened, "no part: one copy of the text")
    }

    func testAnEmptyTextTakesAnInsertion() {
        var text = DocumentText([])
        XCTAssertTrue(text.isEmpty)
        text.replace(0..<0, with: Array("1. e4 *".utf8))
        XCTAssertEqual(text.array, Array("1. e4 *".utf8))
        text.replace(0..<7, with: [])
        XCTAssertTrue(text.isEmpty)
        XCTAssertEqual(text.bytes(in: 0..<0), [])
    }
}
