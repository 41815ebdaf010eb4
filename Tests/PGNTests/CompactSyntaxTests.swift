import PGN
import XCTest

/// Syntax nodes and tag pairs keep their ranges in a few bytes (a 100 MB document holds ten
/// million nodes): every range a text can have comes back as it was given.
final class CompactSyntaxTests: XCTestCase {
    func testNodesAndTagsTakeSixteenAndTwentyEightBytes() {
        XCTAssertEqual(MemoryLayout<MovetextNode>.stride, 16)
        XCTAssertEqual(MemoryLayout<TagPair>.stride, 28)
    }

    func testRangesAndValuesComeBackAsGiven() {
        let starts = [0, 1, 65_535, 1 << 32 - 1, 1 << 32, 5 << 32 + 17, 1 << 40 - 80_000]
        for start in starts {
            for length in [0, 1, 300, 70_000] {
                var node = MovetextNode(kind: .moveNumber, range: start..<(start + length), value: 12, isBlack: true)
                XCTAssertEqual(node.range, start..<(start + length))
                XCTAssertEqual(node.value, 12)
                XCTAssertTrue(node.isBlack)
                XCTAssertEqual(node.kind, .moveNumber)
                node.range = start..<(start + length + 1)
                XCTAssertEqual(node.range, start..<(start + length + 1))
                let tag = TagPair(
                    range: start..<(start + length + 9), nameRange: (start + 1)..<(start + 6),
                    valueRange: length == 0 ? nil : (start + 7)..<(start + length + 8))
                XCTAssertEqual(tag.range, start..<(start + length + 9))
                XCTAssertEqual(tag.nameRange, (start + 1)..<(start + 6))
                XCTAssertEqual(tag.valueRange, length == 0 ? nil : (start + 7)..<(start + length + 8))
            }
        }
        // A NAG or move number beyond 32 bits saturates; negative values (a malformed NAG) stay.
        XCTAssertEqual(MovetextNode(kind: .nag, range: 0..<2, value: -1).value, -1)
        XCTAssertEqual(MovetextNode(kind: .moveNumber, range: 0..<2, value: 1 << 40).value, Int(Int32.max))
    }

    func testTagsCompareByTheirRanges() {
        let a = TagPair(range: 0..<10, nameRange: 1..<6, valueRange: 7..<9)
        var b = TagPair(range: 0..<10, nameRange: 1..<6, valueRange: nil)
        XCTAssertNotEqual(a, b)
        b.valueRange = 7..<9
        XCTAssertEqual(a, b)
        XCTAssertEqual(Set([a, b]).count, 1)
    }

    func testAParsedGameReadsTheSameRanges() {
        let text = Array("[Event \"x\"]\n\n1. e4 {c} e5 $1 (1... c5) 2. Nf3 1-0\n".utf8)
        let game = text.withUnsafeBufferPointer { Parser($0) }.games[0]
        XCTAssertEqual(game.tags.map(\.range), [0..<11])
        XCTAssertEqual(
            game.nodes.map { String(decoding: text[$0.range], as: UTF8.self) },
            ["1.", "e4", "{c}", "e5", "$1", "(", "1...", "c5", ")", "2.", "Nf3", "1-0"])
        XCTAssertLessThanOrEqual(game.nodes.capacity - game.nodes.count, 2, "kept without spare room")
    }
}
