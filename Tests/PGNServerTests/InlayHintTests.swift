import LanguageServer
import TestSupport
import XCTest

/// Inlay hints: the clock left after a move, from its `[%clk]` comment, at the comment's end;
/// the game's opening after the move that reached its name.
final class InlayHintTests: XCTestCase {
    func clockHints(_ hints: JSONValue) -> JSONValue {
        .array((hints.arrayValue ?? []).filter { $0["label"]?.stringValue?.hasPrefix("⏱") == true })
    }

    func testTheClockOfAMoveIsShownAfterItsComment() async throws {
        let client = try await TestClient.pgn(twoGames)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 14, 0)])
        XCTAssertEqual(
            clockHints(hints),
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
        XCTAssertEqual(clockHints(hints).arrayValue?.count, 0)
    }

    func testEachGameIsNamedAfterTheMoveThatReachedItsOpening() async throws {
        let client = try await TestClient.pgn(twoGames)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 14, 0)])
        let openings = (hints.arrayValue ?? []).filter { $0["label"]?.stringValue?.hasPrefix("⏱") == false }
        XCTAssertEqual(openings.map { $0["label"] }, ["C60 Ruy Lopez", "D06 Queen's Gambit"])
        XCTAssertEqual(openings.map { $0["position"] }, [position(6, 15), position(12, 31)])
        XCTAssertEqual(
            openings.first?["tooltip"], "Opening (lichess's names): 1. e4 e5 2. Nf3 Nc6 3. Bb5")
    }

    /// Neovim asks for the whole buffer's hints: in a file of many games the answer holds those
    /// of the first games of the range, and a range further on gets its own.
    func testAWholeDocumentRangeHasTheHintsOfItsFirstGames() async throws {
        let game = "[Event \"x\"]\n\n1. e4 { [%clk 0:03:00] } e5 { [%clk 0:03:00] } *\n\n"
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
