import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// Diagnostics carry no `data`: code actions find the fixes in the analysis of the version
/// they are asked about.
final class QuickFixTests: XCTestCase {
    func testCodeActionsOfferTheFixesOfADiagnosticSentWithoutData() async throws {
        let uri = "untitled:fix.pgn"
        let client = TestClient { server in PGNLanguageServer(server: server).register() }
        try await client.initialize(capabilities: [
            "textDocument": ["codeAction": ["codeActionLiteralSupport": ["codeActionKind": ["valueSet": ["quickfix"]]]]]
        ])
        client.open(uri, "[Event \"A\"]\n[Result \"*\"]\n\n1. e2e4 e5 *\n")
        let report = try await client.result("textDocument/diagnostic", ["textDocument": ["uri": .string(uri)]])
        let items = report["items"]?.arrayValue ?? []
        let hint = try XCTUnwrap(items.first { $0["code"] == "non-canonical-san" }, "\(items)")
        XCTAssertNil(hint["data"])
        let actions = try await client.result(
            "textDocument/codeAction",
            ["textDocument": ["uri": .string(uri)], "range": hint["range"]!, "context": ["diagnostics": [hint]]])
        let fix = try XCTUnwrap(actions.arrayValue?.first { $0["kind"] == "quickfix" }, "\(actions)")
        XCTAssertEqual(fix["title"], "Write e4")
        XCTAssertEqual(
            fix["edit"]?["changes"]?[uri]?.arrayValue?.first, ["range": hint["range"]!, "newText": "e4"])
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }
}
