import LanguageServer
import TestSupport
import XCTest

/// Inlay hints: the clock left after a move, from its `[%clk]` comment, at the comment's end.
final class InlayHintTests: XCTestCase {
    func testTheClockOfAMoveIsShownAfterItsComment() async throws {
        let client = try await TestClient.pgn(twoGames)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 14, 0)])
        XCTAssertEqual(
            hints,
            [
                [
                    "kind": 2, "label": "⏱ 0:03:00", "paddingLeft": true, "position": position(12, 22),
                    "tooltip": "Clock after the move",
                ]
            ])
    }

    func testARangeWithoutClocksHasNoHints() async throws {
        let client = try await TestClient.pgn(twoGames)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 8, 0)])
        XCTAssertEqual(hints.arrayValue?.count, 0)
    }
}
