import LanguageServer
import TestSupport
import XCTest

/// Document highlight: on a move, the moves of its line that go to its square (written, kind 3)
/// or leave it (read, kind 2).
final class DocumentHighlightTests: XCTestCase {
    func testTheMovesToAndFromTheSquareOfAMove() async throws {
        // Nf3 goes to f3; the knight leaves f3 for g5, and the queen goes to f3 later.
        let text = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Ng5 d5 4. Qf3 *\n"
        let client = try await TestClient.pgn(text)
        let highlights = try await client.result("textDocument/documentHighlight", at(2, 13))
        XCTAssertEqual(
            highlights,
            [
                ["kind": 3, "range": range(2, 12, 2, 15)],
                ["kind": 2, "range": range(2, 23, 2, 26)],
                ["kind": 3, "range": range(2, 33, 2, 36)],
            ])
    }

    func testAMoveAloneOnItsSquare() async throws {
        let client = try await TestClient.pgn(twoGames)
        let highlights = try await client.result("textDocument/documentHighlight", at(5, 13))
        XCTAssertEqual(highlights, [["kind": 3, "range": range(5, 12, 5, 15)]])
    }

    func testNoHighlightOutsideMoves() async throws {
        let client = try await TestClient.pgn(twoGames)
        let highlights = try await client.result("textDocument/documentHighlight", at(0, 3))
        XCTAssertEqual(highlights, .null)
    }
}
