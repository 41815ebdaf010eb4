import LanguageServer
import TestSupport
import XCTest

/// Selection ranges grow from a move to its variation, the game's movetext, the game and the
/// whole document; from a tag value to its tag.
final class SelectionRangeTests: XCTestCase {
    /// The ranges of a selection range and its parents, innermost first.
    private func chain(_ selection: JSONValue?) -> [JSONValue] {
        var ranges: [JSONValue] = []
        var next = selection
        while let current = next, let range = current["range"] {
            ranges.append(range)
            next = current["parent"]
        }
        return ranges
    }

    func testAMoveInAVariationGrowsToTheDocument() async throws {
        let client = try await TestClient.pgn(twoGames)
        let result = try await client.result(
            "textDocument/selectionRange", ["textDocument": textDocument(), "positions": [position(5, 21)]])
        XCTAssertEqual(result.arrayValue?.count, 1)
        XCTAssertEqual(
            chain(result.arrayValue?.first),
            [
                range(5, 20, 5, 22),  // f4
                range(5, 16, 5, 28),  // (2. f4 exf4)
                range(5, 0, 6, 19),  // the movetext
                range(0, 0, 6, 19),  // the game
                range(0, 0, 13, 0),  // the document
            ])
    }

    func testOnePerPositionInTheirOrder() async throws {
        let client = try await TestClient.pgn(twoGames)
        let result = try await client.result(
            "textDocument/selectionRange",
            ["textDocument": textDocument(), "positions": [position(12, 30), position(9, 9)]])
        let chains = (result.arrayValue ?? []).map { chain($0) }
        XCTAssertEqual(chains.count, 2)
        XCTAssertEqual(chains.first?.first, range(12, 29, 12, 31), "c4")
        XCTAssertEqual(chains.first?.dropFirst(2).first, range(8, 0, 12, 33), "the second game")
        XCTAssertEqual(chains.last?.first, range(9, 7, 9, 13), "the value \"Carl\"")
        XCTAssertEqual(chains.last?.dropFirst().first, range(9, 0, 9, 14), "its tag")
    }
}
