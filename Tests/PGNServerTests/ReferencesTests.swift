import Foundation
import LanguageServer
import PGN
import TestSupport
import XCTest

/// `textDocument/references` on a move: the games that reach the position after it, in the
/// workspace's PGN files and in the databases (in a PGN file the server writes, on a line that
/// names the game), each at the move that reaches it; the database games capped.
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
            // A location has no label: clients show its line. Each game's line reads as lichess's
            // explorer lists games, and the location is the move that reaches the position.
            var shown: [String] = []
            for location in inDatabase {
                XCTAssertTrue(location["uri"]?.stringValue?.hasPrefix(cache) == true, "\(location)")
                let line = try XCTUnwrap(location["range"]?["start"]?["line"]?.intValue)
                XCTAssertEqual(location["range"]?["end"]?["line"]?.intValue, line)
                let text = try lines(location)[line]
                shown.append(text)
                let units = Array(text.utf16)
                let start = try XCTUnwrap(location["range"]?["start"]?["character"]?.intValue)
                let end = try XCTUnwrap(location["range"]?["end"]?["character"]?.intValue)
                XCTAssertTrue(["Nc6", "e5"].contains(String(decoding: units[start..<end], as: UTF16.self)), text)
            }
            XCTAssertEqual(
                shown,
                [
                    "{Anand (2800) – Botvinnik (2700), 1-0, Test} 2... Nc6 3. Bb5 a6 1-0",
                    "{Carlsen (2600) – Ding (2650), ½-½, Test} 2... Nc6 3. Bc4 Bc5 1/2-1/2",
                    "{Ivanchuk (2900) – Jobava (2850), 1-0, Test} 2... e5 1-0",
                ])
            guard let first = inDatabase.first else { return }
            let file = try lines(first).joined(separator: "\n")
            XCTAssertTrue(file.hasPrefix("% pgn-lsp: the games of \(folder.path)/games.ocgdb.db3 that reach\n"), file)
            // The file is PGN without a problem: the entries are comments.
            let problems = Checker.check(SourceText(file)).diagnostics.filter { $0.severity != .information }
            XCTAssertEqual(problems.map(\.message), [])
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
