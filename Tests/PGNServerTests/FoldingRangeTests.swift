import LanguageServer
import TestSupport
import XCTest

/// Folding: each game, its tag section, and the comments and variations that span lines. A
/// client that keeps at most `rangeLimit` folds gets the games' folds first, in document order,
/// then what lies inside them.
final class FoldingRangeTests: XCTestCase {
    private func folds(limit: Int? = nil) async throws -> [JSONValue] {
        var capabilities: JSONValue = [:]
        if let limit { capabilities = ["textDocument": ["foldingRange": ["rangeLimit": .integer(limit)]]] }
        let client = try await TestClient.pgn(twoGames, capabilities: capabilities)
        return try await client.result("textDocument/foldingRange", ["textDocument": textDocument()]).arrayValue ?? []
    }

    private func fold(_ start: Int, _ end: Int, _ kind: String) -> JSONValue {
        ["startLine": .integer(start), "endLine": .integer(end), "kind": .string(kind)]
    }

    func testEveryFoldWithoutALimit() async throws {
        let all = try await folds()
        XCTAssertEqual(
            all,
            [
                fold(0, 6, "region"), fold(0, 3, "imports"), fold(5, 6, "comment"),
                fold(8, 12, "region"), fold(8, 10, "imports"),
            ])
    }

    func testALimitOfOneKeepsTheFirstGame() async throws {
        let kept = try await folds(limit: 1)
        XCTAssertEqual(kept, [fold(0, 6, "region")])
    }

    func testALimitOfTwoKeepsEveryGameAndNothingInside() async throws {
        let kept = try await folds(limit: 2)
        XCTAssertEqual(kept, [fold(0, 6, "region"), fold(8, 12, "region")])
    }

    func testALimitOfFourKeepsTheGamesThenTheFirstInnerFoldsInDocumentOrder() async throws {
        let kept = try await folds(limit: 4)
        XCTAssertEqual(kept.count, 4)
        XCTAssertEqual(
            Set(kept), [fold(0, 6, "region"), fold(8, 12, "region"), fold(0, 3, "imports"), fold(5, 6, "comment")])
    }

    func testALimitAboveTheCountKeepsEverything() async throws {
        let kept = try await folds(limit: 100)
        XCTAssertEqual(kept.count, 5)
    }
}
