import LanguageServer
import TestSupport
import XCTest

/// Hover: on a move, its number, side and the position after it; on a tag, what the tag means.
final class HoverTests: XCTestCase {
    let markdown: JSONValue = ["textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]]]

    func testAMoveShowsItsNumberSideAndPositionAfter() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(5, 4))
        XCTAssertEqual(hover["range"], range(5, 3, 5, 5), "the move e4")
        XCTAssertEqual(hover["contents"]?["kind"], "markdown")
        let value = hover["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.hasPrefix("**1. e4** — White"), value)
        XCTAssertTrue(value.contains("`rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1`"), value)
        // The board from White's side of the screen is drawn from Black's: rank 1 first.
        XCTAssertTrue(value.contains("4 · · · ♙ · · · ·"), value)
    }

    func testAMoveOfTheSecondGameIsReplayedInItsOwnGame() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(12, 30))
        XCTAssertEqual(hover["range"], range(12, 29, 12, 31), "the move c4")
        let value = hover["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.hasPrefix("**2. c4** — White"), value)
        XCTAssertTrue(value.contains("`rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2`"), value)
    }

    func testATagShowsItsMeaning() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(1, 2))
        XCTAssertEqual(hover["range"], range(1, 0, 1, 14))
        XCTAssertEqual(
            hover["contents"]?["value"],
            "**White** `Anna`\n\nThe player of the white pieces, `Last, First` (Seven Tag Roster).")
    }

    func testABlankLineBetweenGamesHasNoHover() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(7, 0))
        XCTAssertEqual(hover, .null)
    }
}
