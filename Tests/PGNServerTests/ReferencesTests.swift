import Foundation
import LanguageServer
import TestSupport
import XCTest

/// `textDocument/references` on a move: the games that reach the position after it, in the
/// workspace's PGN files (at the move that reaches it) and in the databases (at the first tag
/// of the game in a PGN file the server writes), the database games capped.
final class ReferencesTests: XCTestCase {
    /// Line 2 `1. e4 e5 2. Nf3 Nc6 *`; the second game reaches the same position by 1. Nf3.
    let text = """
        [White "Me"]

        1. e4 e5 2. Nf3 Nc6 *

        [White "Other"]

        1. Nf3 Nc6 2. e4 e5 3. Bc4 *

        """

    private func references(
        _ client: TestClient, _ uri: String, _ line: Int, _ character: Int, declaration: Bool = true
    )
        async throws -> [JSONValue]
    {
        var params = at(uri, line, character).objectValue ?? [:]
        params["context"] = ["includeDeclaration": .bool(declaration)]
        return try await client.result("textDocument/references", .object(params)).arrayValue ?? []
    }

    /// The lines of the file a location names.
    private func lines(_ location: JSONValue) throws -> [String] {
        let url = try XCTUnwrap(URL(string: location["uri"]?.stringValue ?? ""))
        return try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    }

    func testWorkspaceGamesAndDatabaseGamesThatReachThePosition() async throws {
        try await withExplorer { client, folder in
            try "[White \"Closed\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n".write(
                to: folder.appendingPathComponent("closed.pgn"), atomically: true, encoding: .utf8)
            let uri = client.openMine(folder, text)
            let found = try await references(client, uri, 2, 17)
            let cache = URL(fileURLWithPath: folder.path + "-cache/pgn-lsp/positions").absoluteString
            let inWorkspace = found.filter { $0["uri"]?.stringValue?.hasPrefix(cache) == false }
            XCTAssertEqual(found.count, 6, "\(found)")
            XCTAssertEqual(
                inWorkspace.map { [$0["uri"]!, $0["range"]!] },
                [
                    [.string(uri), range(2, 16, 2, 19)], [.string(uri), range(6, 17, 6, 19)],
                    [.string(fileURI(folder, "closed.pgn")), range(2, 16, 2, 19)],
                ])
            let inDatabase = found.filter { !inWorkspace.contains($0) }
            XCTAssertEqual(inDatabase.count, 3, "two games, and one by another move order")
            for location in inDatabase {
                XCTAssertTrue(location["uri"]?.stringValue?.hasPrefix(cache) == true, "\(location)")
                let line = try XCTUnwrap(location["range"]?["start"]?["line"]?.intValue)
                XCTAssertEqual(location["range"]?["start"]?["character"], 0)
                let header = try lines(location)[line]
                XCTAssertTrue(header.hasPrefix("[Event \""), header)
            }
            guard let first = inDatabase.first else { return }
            let file = try lines(first).joined(separator: "\n")
            XCTAssertTrue(file.hasPrefix("% pgn-lsp: the games of \(folder.path)/games.ocgdb.db3 that reach\n"), file)
            let whites = try inDatabase.map { location -> String in
                let all = try lines(location)
                let start = location["range"]!["start"]!["line"]!.intValue!
                return all[start...].first { $0.hasPrefix("[White ") } ?? ""
            }
            XCTAssertEqual(whites, ["[White \"Anand\"]", "[White \"Carlsen\"]", "[White \"Ivanchuk\"]"])
        }
    }

    func testWithoutTheDeclarationTheMoveItselfIsLeftOut() async throws {
        try await withExplorer(prepare: { _ in }) { client, folder in
            let uri = client.openMine(folder, text)
            let found = try await references(client, uri, 2, 17, declaration: false)
            XCTAssertEqual(found.map { $0["range"]! }, [range(6, 17, 6, 19)])
        }
    }

    func testNotOnAMoveNoReferences() async throws {
        try await withExplorer { client, folder in
            let uri = client.openMine(folder, text)
            let found = try await references(client, uri, 0, 3)
            XCTAssertEqual(found, [])
        }
    }

    func testTheDatabaseGamesAreCappedAndTheUserIsTold() async throws {
        let many = (0..<210).map { round in
            "[Event \"Big\"]\n[Round \"\(round)\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 e5 *\n"
        }
        try await withExplorer(prepare: {
            try makeDatabase($0.appendingPathComponent("games.ocgdb.db3").path, games: many)
        }) {
            client, folder in
            let uri = client.openMine(folder, text)
            let found = try await references(client, uri, 2, 4, declaration: false)
            XCTAssertEqual(found.count, 200)
            let message = try await client.notification("window/showMessage")
            XCTAssertEqual(
                message?["message"],
                "pgn-lsp: 210 database games reach this position; the first 200 are listed")
            guard let first = found.first else { return }
            let file = try lines(first).joined(separator: "\n")
            XCTAssertTrue(file.contains("% (the first 200 of 210)"), file)
        }
    }

    func testTheWorkspaceGamesAreCappedAndTheUserIsTold() async throws {
        let many = (0..<1_005).map { "[Round \"\($0)\"]\n\n1. e4 e5 *\n\n" }.joined()
        try await withWorkspaceFolder { folder in
            try many.write(to: folder.appendingPathComponent("many.pgn"), atomically: true, encoding: .utf8)
        } _: { client, _, _ in
            client.open(testURI, text)
            let found = try await references(client, testURI, 2, 4)
            XCTAssertEqual(found.count, 1_000)
            XCTAssertEqual(found.first?["uri"], .string(testURI), "the open documents first")
            let shown = try await client.message("window/showMessage", containing: "workspace games")
            XCTAssertEqual(
                shown, "pgn-lsp: more than 1,000 workspace games reach this position; the first 1,000 are listed")
        }
    }
}
