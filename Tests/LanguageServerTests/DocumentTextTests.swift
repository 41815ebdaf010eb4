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
