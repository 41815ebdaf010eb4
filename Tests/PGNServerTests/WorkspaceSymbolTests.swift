import Foundation
import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// Workspace symbols: the players (kind 13), events (24) and openings of the games of the open
/// documents and of the workspace's `.pgn` files, filtered by the query without regard to case.
final class WorkspaceSymbolTests: XCTestCase {
    private func names(_ symbols: JSONValue) -> [String] {
        (symbols.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    func testEveryPlayerAndEventOfTheOpenDocument() async throws {
        let client = try await TestClient.pgn(twoGames)
        let all = try await client.result("workspace/symbol", ["query": ""])
        XCTAssertEqual(names(all), ["Anna", "Boris", "Casual", "Carl", "Dora", "Second"])
        XCTAssertEqual(all.arrayValue?.map { $0["kind"]?.intValue ?? 0 }, [13, 13, 24, 13, 13, 24])
        let anna = all.arrayValue?.first
        XCTAssertEqual(anna?["containerName"], "Anna – Boris, 1-0 (Casual)")
        XCTAssertEqual(anna?["location"], ["uri": .string(testURI), "range": range(0, 0, 6, 19)])
    }

    func testTheQueryMatchesAnyPartOfTheNameWhateverItsCase() async throws {
        let client = try await TestClient.pgn(twoGames)
        let dora = try await client.result("workspace/symbol", ["query": "DORA"])
        XCTAssertEqual(names(dora), ["Dora"])
        XCTAssertEqual(dora.arrayValue?.first?["location"]?["range"], range(8, 0, 12, 33))
        let an = try await client.result("workspace/symbol", ["query": "an"])
        XCTAssertEqual(names(an), ["Anna"])
        let none = try await client.result("workspace/symbol", ["query": "zz"])
        XCTAssertEqual(none, [])
    }

    func testTheGamesOfTheWorkspacesFilesThatAreNotOpen() async throws {
        try await withWorkspace(club: "[Event \"Club\"]\n[White \"Emil\"]\n[Black \"Fay\"]\n\n1. e4 *\n") {
            client, file in
            client.open(testURI, twoGames)
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(names(emil), ["Emil"])
            XCTAssertEqual(emil.arrayValue?.first?["location"]?["uri"], .string(file.absoluteString))
            XCTAssertEqual(emil.arrayValue?.first?["containerName"], "Emil – Fay (Club)")
        }
    }
}
