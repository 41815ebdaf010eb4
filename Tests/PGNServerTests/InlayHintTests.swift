import LanguageServer
import TestSupport
import XCTest

/// Inlay hints: the time a move took, beside its `[%clk]` comment; the game's opening at the
/// end of the line where its name was reached.
final class InlayHintTests: XCTestCase {
    func clockHints(_ hints: JSONValue) -> JSONValue {
        .array((hints.arrayValue ?? []).filter { $0["label"]?.stringValue?.hasPrefix("⏱") == true })
    }

    func testBesideAWrittenClockTheHintIsTheTimeTheMoveTook() async throws {
        let text = """
            [TimeControl "180+2"]

            1. e4 {[%clk 0:03:00]} e5 {[%clk 0:03:00]} 2. Nf3 {[%clk 0:02:50]} Nc6 {[%clk 0:02:01]} *

            """
        let client = try await TestClient.pgn(text)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 3, 0)])
        // Each side's first clock has nothing to count from: no hint, the clock is written there.
        XCTAssertEqual(
            clockHints(hints),
            [
                [
                    "kind": 2, "label": "⏱ 12 s", "paddingLeft": true, "position": position(2, 66),
                    "tooltip": "Time the move took (clock 0:02:50 after it)",
                ],
                [
                    "kind": 2, "label": "⏱ 1 min 1 s", "paddingLeft": true, "position": position(2, 87),
                    "tooltip": "Time the move took (clock 0:02:01 after it)",
                ],
            ])
    }

    func testARangeWithoutClocksHasNoHints() async throws {
        let client = try await TestClient.pgn(twoGames)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 8, 0)])
        XCTAssertEqual(clockHints(hints).arrayValue?.count, 0)
    }

    func testEachGameIsNamedAfterTheMoveThatReachedItsOpening() async throws {
        let client = try await TestClient.pgn(twoGames)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 14, 0)])
        let openings = (hints.arrayValue ?? []).filter { $0["label"]?.stringValue?.hasPrefix("⏱") == false }
        XCTAssertEqual(openings.map { $0["label"] }, ["C60 Ruy Lopez", "D06 Queen's Gambit"])
        // At the end of the line where the name was reached (after 3. Bb5 and 2. c4), not
        // among the moves.
        XCTAssertEqual(openings.map { $0["position"] }, [position(6, 19), position(12, 33)])
        XCTAssertEqual(
            openings.first?["tooltip"], "Opening (lichess's names): 1. e4 e5 2. Nf3 Nc6 3. Bb5")
    }
}
