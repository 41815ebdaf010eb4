import Foundation
import LanguageServer
import TestSupport
import XCTest

/// Completion of moves with the explorer: the moves the databases played in the position come
/// first, most played first, with their figures as detail; the others follow as before.
final class ExplorerCompletionTests: XCTestCase {
    private func items(
        _ client: TestClient, _ uri: String, _ line: Int, _ character: Int
    ) async throws
        -> [JSONValue]
    {
        let result = try await client.result("textDocument/completion", at(uri, line, character))
        let items = result["items"]?.arrayValue ?? []
        // The order a client shows: by sortText.
        return items.sorted { ($0["sortText"]?.stringValue ?? "") < ($1["sortText"]?.stringValue ?? "") }
    }

    func testThePlayedMovesComeFirstWithTheirFigures() async throws {
        try await withExplorer { client, folder in
            let uri = client.openMine(folder, "[White \"Me\"]\n\n1. e4 \n")
            let moves = try await items(client, uri, 2, 6)
            XCTAssertEqual(moves.count, 20)
            XCTAssertEqual(moves.prefix(2).compactMap { $0["label"]?.stringValue }, ["e5", "c5"])
            XCTAssertEqual(moves[0]["detail"], "2 games · 75% white score")
            XCTAssertEqual(moves[1]["detail"], "1 game · 0% white score")
            XCTAssertEqual(moves[2]["detail"]?.stringValue?.hasPrefix("black "), true, "the others as before")
        }
    }

    func testWhatIsTypedStillFilters() async throws {
        try await withExplorer { client, folder in
            let uri = client.openMine(folder, "[White \"Me\"]\n\n1. e4 e5 2. N\n")
            let moves = try await items(client, uri, 2, 13)
            XCTAssertEqual(moves.first?["label"], "Nf3")
            XCTAssertEqual(moves.first?["detail"], "2 games · 75% white score")
            XCTAssertEqual(moves.compactMap { $0["label"]?.stringValue }.sorted(), ["Na3", "Nc3", "Ne2", "Nf3", "Nh3"])
        }
    }

    func testWithoutADatabaseTheDevelopingMovesComeFirst() async throws {
        try await withExplorer(prepare: { _ in }) { client, folder in
            let uri = client.openMine(folder, "[White \"Me\"]\n\n1. e4 \n")
            let moves = try await items(client, uri, 2, 6)
            XCTAssertEqual(moves.count, 20)
            XCTAssertTrue(moves.allSatisfy { $0["detail"]?.stringValue?.hasPrefix("black ") == true })
            XCTAssertEqual(moves.prefix(4).compactMap { $0["label"]?.stringValue }, ["Na6", "Nc6", "Nf6", "Nh6"])
        }
    }
}
