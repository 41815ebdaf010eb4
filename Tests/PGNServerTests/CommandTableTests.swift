import Foundation
import LanguageServer
import TestSupport
import XCTest

@testable import PGNServer

/// The command table is the one list: what the server announces, what it runs, and the
/// table of docs/commands.md.
final class CommandTableTests: XCTestCase {
    func testTheTableIsAnnouncedAndDocumented() async throws {
        let client = TestClient { server in PGNLanguageServer(server: server).register() }
        let result = try await client.initialize()
        let table = PGNLanguageServer(server: Server(connection: InMemoryConnection())).builtInCommands
        let announced = result["capabilities"]?["executeCommandProvider"]?["commands"]?.arrayValue?.compactMap(
            \.stringValue)
        XCTAssertEqual(announced, table.map(\.name))

        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/commands.md")
        let rows = try String(contentsOf: docs, encoding: .utf8).split(separator: "\n").filter {
            $0.hasPrefix("| `pgn.")
        }
        XCTAssertEqual(
            rows.map(String.init),
            table.map { "| `\($0.name)` | \($0.reportsProgress ? "yes" : "no") | \($0.summary) |" })

        let unknown = try await client.error("workspace/executeCommand", ["command": "pgn.nothing", "arguments": []])
        XCTAssertEqual(unknown.code, .invalidParams)
        XCTAssertEqual(unknown.message, "unknown command pgn.nothing")
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }
}
