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

    /// Neovim asks for the whole buffer's hints: in a file of many games the answer holds those
    /// of the first games of the range, and a range further on gets its own.
    func testAWholeDocumentRangeHasTheHintsOfItsFirstGames() async throws {
        // Each side's second clock shows the time its move took (the first has none to compare).
        let game =
            "[Event \"x\"]\n\n1. e4 { [%clk 0:03:00] } e5 { [%clk 0:03:00] } 2. Nf3 { [%clk 0:02:55] } Nc6 { [%clk 0:02:50] } *\n\n"
        let count = 300
        let client = try await TestClient.pgn(String(repeating: game, count: count))
        func clocks(_ from: Int, _ to: Int) async throws -> [Int] {
            let hints = try await client.result(
                "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(from, 0, to, 0)])
            return (clockHints(hints).arrayValue ?? []).compactMap { $0["position"]?["line"]?.intValue }
        }
        let whole = try await clocks(0, 4 * count)
        XCTAssertEqual(whole.count, 2 * 200, "two clocks in each of the first 200 games")
        XCTAssertEqual(whole.last, 4 * 199 + 2)
        let further = try await clocks(4 * 250, 4 * 251)
        XCTAssertEqual(further, [4 * 250 + 2, 4 * 250 + 2], "the range's own game")
    }
}
