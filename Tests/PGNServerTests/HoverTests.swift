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

    func testTextFromTheFileIsShownAsTextNotAsMarkdownAndBounded() async throws {
        let squares = Array(repeating: "Ga1,Rb2,Yc3,Bd4", count: 5_000).joined(separator: ",")
        let arrows = Array(repeating: "Ga1h8,Rb2b7", count: 5_000).joined(separator: ",")
        let text = """
            [White "![t](https://example.invalid/pixel.png) `x` <img src=y>"]

            1. e4 { [%foo ![t](https://example.invalid/p.png)] [%bar <img src=z>] [%csl \(squares)] [%cal \(arrows)] [%csl *e5] } e5 *

            """
        let client = try await TestClient.pgn(text, capabilities: markdown)
        let tag = try await client.result("textDocument/hover", at(0, 3))["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(tag.hasPrefix("**White** ``![t](https://example.invalid/pixel.png) `x` <img src=y>``"), tag)
        let move = try await client.result("textDocument/hover", at(2, 4))["contents"]?["value"]?.stringValue ?? ""
        // A command ends at the first `]`: the rest is the comment's text, which the hover leaves out.
        XCTAssertTrue(move.contains("`%foo ![t` · `%bar <img src=z>`"), move)
        XCTAssertTrue(
            move.contains("Marked: a1 (green), b2 (red), c3 (yellow), d4 (blue), e5 (colour `*`) · Arrows:"), move)
        XCTAssertLessThan(move.utf8.count, 4_000, "a hover stays short, however long the comment")
        let plain = try await TestClient.pgn(text)
        let plainTag = try await plain.result("textDocument/hover", at(0, 3))["contents"]?["value"]?.stringValue
        XCTAssertEqual(plainTag?.hasPrefix("White ![t](https://example.invalid/pixel.png) x <img src=y>\n"), true)
    }
}
