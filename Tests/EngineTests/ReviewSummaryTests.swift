import Engine
import PGN
import XCTest

/// The one JSON shape of a review, for the server's commands and `review --format json`.
final class ReviewSummaryTests: XCTestCase {
    func testAGameThatCannotBeReviewedIsNumberedFromOneWithNullsForWhatIsMissing() {
        let source = SourceText("[White \"A \\\"B\\\"\"]\n[FEN \"bad\"]\n\n1. e4 *\n\n[White \"C\"]\n\n*\n")
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        let replay = GameReplay(source: source, syntax: parser.games[1], index: 1)
        let summary = ReviewSummary(unreviewed: replay, index: 1, error: "the game cannot be played from its start")
        XCTAssertEqual(
            ReviewSummary.json([summary]),
            """
            [{"black":{"accuracy":null,"acpl":null,"name":"?"},"error":"the game cannot be played from its start",\
            "errors":[],"game":2,"moves":[],"white":{"accuracy":null,"acpl":null,"name":"C"}}]
            """)
        XCTAssertEqual(ReviewSummary.json([]), "[]")
    }
}
