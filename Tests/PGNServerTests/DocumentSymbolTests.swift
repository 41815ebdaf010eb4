import LanguageServer
import TestSupport
import XCTest

/// The outline: one symbol per game, named by its players, result and event, with its
/// mainline's variations as children for a client that takes a tree; the games alone, as
/// `SymbolInformation`, for one that does not.
final class DocumentSymbolTests: XCTestCase {
    func testATreeOfGamesAndTheirVariations() async throws {
        let client = try await TestClient.pgn(
            twoGames, capabilities: ["textDocument": ["documentSymbol": ["hierarchicalDocumentSymbolSupport": true]]])
        let symbols = try await client.result("textDocument/documentSymbol", ["textDocument": textDocument()])
        let games = symbols.arrayValue ?? []
        XCTAssertEqual(games.count, 2)
        XCTAssertEqual(games.first?["name"], "Anna – Boris, 1-0 (Casual)")
        XCTAssertEqual(games.first?["detail"], "3 moves")
        XCTAssertEqual(games.first?["kind"], 5)
        XCTAssertEqual(games.first?["range"], range(0, 0, 6, 19))
        XCTAssertEqual(games.first?["selectionRange"], range(0, 0, 0, 16), "the first tag")
        XCTAssertEqual(
            games.first?["children"],
            [["kind": 6, "name": "2. f4", "range": range(5, 16, 5, 28), "selectionRange": range(5, 16, 5, 28)]])
        XCTAssertEqual(games.last?["name"], "Carl – Dora (Second)", "no result: the game goes on")
        XCTAssertEqual(games.last?["detail"], "2 moves")
        XCTAssertEqual(games.last?["range"], range(8, 0, 12, 33))
        XCTAssertEqual(games.last?["children"], [])
    }

    func testFlatGamesForAClientWithoutTrees() async throws {
        let client = try await TestClient.pgn(twoGames)
        let symbols = try await client.result("textDocument/documentSymbol", ["textDocument": textDocument()])
        XCTAssertEqual(
            symbols,
            [
                [
                    "kind": 5, "name": "Anna – Boris, 1-0 (Casual)",
                    "location": ["uri": .string(testURI), "range": range(0, 0, 6, 19)],
                ],
                [
                    "kind": 5, "name": "Carl – Dora (Second)",
                    "location": ["uri": .string(testURI), "range": range(8, 0, 12, 33)],
                ],
            ])
    }

    func testAGameThatNamesNobodyIsNamedByItsNumber() async throws {
        let client = try await TestClient.pgn("1. e4 e5 *\n\n1. d4 d5 *\n")
        let symbols = try await client.result("textDocument/documentSymbol", ["textDocument": textDocument()])
        XCTAssertEqual(symbols.arrayValue?.compactMap { $0["name"]?.stringValue }, ["Game 1", "Game 2"])
    }
}
