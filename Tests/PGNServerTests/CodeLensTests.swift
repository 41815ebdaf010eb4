import LanguageServer
import TestSupport
import XCTest

/// Code lenses: above each game with moves, the command that reviews it with the engine.
final class CodeLensTests: XCTestCase {
    private func lens(_ index: Int, line: Int) -> JSONValue {
        [
            "range": range(line, 0, line, 0),
            "command": [
                "title": "Review game", "command": "pgn.reviewGame",
                "arguments": [.string(testURI), .integer(index)],
            ],
        ]
    }

    func testAReviewLensAtTheStartOfEveryGame() async throws {
        let client = try await TestClient.pgn(twoGames)
        let lenses = try await client.result("textDocument/codeLens", ["textDocument": textDocument()])
        XCTAssertEqual(lenses, [lens(0, line: 0), lens(1, line: 8)])
    }

    func testAGameWithoutMovesHasNoLens() async throws {
        let client = try await TestClient.pgn("[Event \"empty\"]\n\n*\n\n[Event \"x\"]\n\n1. e4 *\n")
        let lenses = try await client.result("textDocument/codeLens", ["textDocument": textDocument()])
        XCTAssertEqual(lenses, [lens(1, line: 4)])
    }
}
