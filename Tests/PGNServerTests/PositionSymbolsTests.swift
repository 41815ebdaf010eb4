import Foundation
import LanguageServer
import TestSupport
import XCTest

/// `workspace/symbol` with a `fen:` query: the games of the workspace and of the databases that
/// reach the position, named by their players; a query that names no position gives nothing.
final class PositionSymbolsTests: XCTestCase {
    let text = "[White \"Me\"]\n[Black \"You\"]\n\n1. e4 c5 2. Nf3 *\n"

    /// The symbols `query` gives, with `text` open as mine.pgn; `body` gets them and the URI.
    private func symbols(_ query: String, _ body: ([JSONValue], String) throws -> Void) async throws {
        try await withExplorer { client, folder in
            let uri = client.openMine(folder, text)
            let symbols = try await client.result("workspace/symbol", ["query": .string(query)]).arrayValue ?? []
            try body(symbols, uri)
        }
    }

    func testAFENQueryFindsTheGamesThatReachThePosition() async throws {
        // After 1. e4 c5, by its first two fields.
        try await symbols("fen: rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w") { symbols, uri in
            XCTAssertEqual(
                symbols.compactMap { $0["name"]?.stringValue },
                ["Me – You", "Euwe (2500) – Fischer (2400), 0-1, Test"])
            XCTAssertEqual(symbols.first?["location"], ["uri": .string(uri), "range": range(3, 6, 3, 8)])
            XCTAssertEqual(symbols.first?["containerName"], "mine.pgn")
            XCTAssertEqual(symbols.last?["containerName"], "games.ocgdb.db3")
            XCTAssertEqual(symbols.last?["kind"], 5)
        }
    }

    func testTheStartPositionListsEveryGameAtItsEntry() async throws {
        try await symbols("fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") { symbols, _ in
            let database = symbols.filter { $0["containerName"] == "games.ocgdb.db3" }
            XCTAssertEqual(database.count, 5)
            XCTAssertEqual(database.last?["name"], "Ivanchuk (2900) – Jobava (2850), 1-0, Test")
            // No move reaches it: the location is the game's entry, before its first move.
            let location = try XCTUnwrap(database.last?["location"])
            let url = try XCTUnwrap(URL(string: location["uri"]?.stringValue ?? ""))
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            let line = try XCTUnwrap(location["range"]?["start"]?["line"]?.intValue)
            XCTAssertEqual(lines[line], "{Ivanchuk (2900) – Jobava (2850), 1-0, Test} 1. Nf3 Nc6 2. e4 e5 1-0")
            XCTAssertEqual(location["range"]?["start"]?["character"], 0)
            XCTAssertEqual(location["range"]?["end"]?["character"]?.intValue, 44)
        }
    }

    func testAFullFENWithItsCountersFindsThemToo() async throws {
        try await symbols("FEN:rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1") { symbols, _ in
            XCTAssertEqual(symbols.count, 4, "this game and three of the database")
        }
    }

    func testOtherQueriesAreNamesAsBefore() async throws {
        try await symbols("you") { symbols, _ in
            XCTAssertEqual(symbols.compactMap { $0["name"]?.stringValue }, ["You"])
        }
    }

    func testAQueryThatIsNotAPositionGivesNothing() async throws {
        try await withExplorer { client, folder in
            _ = client.openMine(folder, text)
            for query in ["fen:", "fen: rnbqk", "fen: 8/8/8/8/8/8/8/8 w", "fen: not a position at all"] {
                let symbols = try await client.result("workspace/symbol", ["query": .string(query)])
                XCTAssertEqual(symbols, [], query)
            }
            var messages: [String] = []
            while messages.count < 10, let log = try await client.notification("window/logMessage") {
                messages.append(log["message"]?.stringValue ?? "")
                if messages.last?.hasPrefix("pgn-lsp: fen: ") == true { break }
            }
            XCTAssertTrue(
                messages.last?.hasPrefix("pgn-lsp: fen: (empty) is not a position: ") == true, "\(messages)")
        }
    }
}
