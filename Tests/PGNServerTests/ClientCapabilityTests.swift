import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// What the server sends depends on what the client announced: a client that announces
/// nothing (`{}`, or Vim's ALE) gets plain text, flat symbols, commands and pushed
/// diagnostics; one that announces everything (VS Code, Neovim 0.11) gets markdown, symbol
/// trees, code action literals and pulls its diagnostics, never also pushed.
final class ClientCapabilityTests: XCTestCase {
    let uri = "file:///capabilities.pgn"
    // An illegal move with a fix ("Nf3" is written "nf3"), and a clock comment.
    let text = "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 {[%clk 0:05:00]} e5 2. nf3 Nc6 *\n"

    let everything: JSONValue = [
        "textDocument": [
            "hover": ["contentFormat": ["markdown", "plaintext"]],
            "documentSymbol": ["hierarchicalDocumentSymbolSupport": true],
            "codeAction": ["codeActionLiteralSupport": ["codeActionKind": ["valueSet": ["quickfix", "source"]]]],
            "diagnostic": ["dynamicRegistration": false],
        ],
        "workspace": ["applyEdit": true, "diagnostics": ["refreshSupport": true]],
    ]

    private func client(_ capabilities: JSONValue) async throws -> (TestClient, JSONValue) {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        let result = try await client.initialize(capabilities: capabilities)
        client.open(uri, text)
        return (client, result)
    }

    private var document: JSONValue { ["uri": .string(uri)] }

    private func hover(_ client: TestClient) async throws -> JSONValue {
        try await client.result(
            "textDocument/hover", ["textDocument": document, "position": ["line": 4, "character": 4]])
    }

    private func codeActions(_ client: TestClient) async throws -> [JSONValue] {
        let range: JSONValue = ["start": ["line": 4, "character": 30], "end": ["line": 4, "character": 30]]
        return try await client.result(
            "textDocument/codeAction", ["textDocument": document, "range": range, "context": ["diagnostics": []]]
        ).arrayValue ?? []
    }

    func testAClientThatAnnouncesNothing() async throws {
        let (client, result) = try await client([:])
        XCTAssertNil(result["capabilities"]?["diagnosticProvider"], "no pull offered")
        let published = try await client.notification("textDocument/publishDiagnostics")
        XCTAssertFalse(published?["diagnostics"]?.arrayValue?.isEmpty ?? true, "diagnostics are pushed")

        let contents = try await hover(client)["contents"]
        XCTAssertEqual(contents?["kind"], "plaintext")
        let value = contents?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.hasPrefix("1. e4 — White"), value)
        for mark in ["**", "`", "---"] { XCTAssertFalse(value.contains(mark), "\(mark) in \(value)") }
        XCTAssertTrue(value.contains("\nFEN rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b"), value)

        let symbols = try await client.result("textDocument/documentSymbol", ["textDocument": document])
        XCTAssertEqual(symbols.arrayValue?.count, 1)
        XCTAssertEqual(symbols.arrayValue?.first?["location"]?["uri"], .string(uri), "SymbolInformation")
        XCTAssertNil(symbols.arrayValue?.first?["children"])

        // Commands only, and none that would need the client to apply an edit.
        let actions = try await codeActions(client)
        XCTAssertFalse(actions.isEmpty)
        for action in actions {
            XCTAssertNotNil(action["command"]?.stringValue, "\(action)")
            XCTAssertNotEqual(action["command"], "pgn.applyEdit")
            XCTAssertNil(action["kind"])
        }
        let error = try await client.error(
            "workspace/executeCommand", ["command": "pgn.fixAll", "arguments": [.string(uri)]])
        XCTAssertEqual(error.code, .requestFailed)
        XCTAssertTrue(error.message.contains("cannot apply edits"), error.message)
    }

    func testAClientThatAnnouncesEverything() async throws {
        let (client, result) = try await client(everything)
        XCTAssertNotNil(result["capabilities"]?["diagnosticProvider"])
        let pulled = try await client.result("textDocument/diagnostic", ["textDocument": document])
        XCTAssertFalse(pulled["items"]?.arrayValue?.isEmpty ?? true)

        let contents = try await hover(client)["contents"]
        XCTAssertEqual(contents?["kind"], "markdown")
        XCTAssertTrue(contents?["value"]?.stringValue?.hasPrefix("**1. e4**") ?? false)

        let symbols = try await client.result("textDocument/documentSymbol", ["textDocument": document])
        XCTAssertNotNil(symbols.arrayValue?.first?["children"]?.arrayValue, "DocumentSymbol tree")

        let actions = try await codeActions(client)
        XCTAssertTrue(actions.contains { $0["kind"] == "quickfix" && $0["edit"] != nil }, "\(actions)")

        let fixAll = client.startRequest(
            "workspace/executeCommand", ["command": "pgn.fixAll", "arguments": [.string(uri)]])
        let apply = try await client.serverRequest("workspace/applyEdit")
        XCTAssertNotNil(apply.params?["edit"]?["changes"]?[uri])
        client.send(.response(id: apply.id, result: .success(["applied": true])))
        if case .failure(let error) = try await client.response(to: fixAll) { XCTFail("\(error)") }

        // Never pushed to a client that pulls: what arrived by now would be there.
        _ = try await client.result("textDocument/documentSymbol", ["textDocument": document])
        try await Task.sleep(for: .milliseconds(200))
        let pushed = await client.inbox.remaining.filter {
            if case .notification("textDocument/publishDiagnostics", _) = $0 { return true }
            return false
        }
        XCTAssertEqual(pushed.count, 0)
    }

    func testAClientThatPullsButCannotBeAskedToPullAgainIsPushedTo() async throws {
        // Neovim 0.10 and 0.11: `textDocument.diagnostic` without `refreshSupport`. After a
        // review it would never pull the review's diagnostics.
        let neovim: JSONValue = ["textDocument": ["diagnostic": ["dynamicRegistration": false]]]
        let (client, result) = try await client(neovim)
        XCTAssertNil(result["capabilities"]?["diagnosticProvider"])
        let published = try await client.notification("textDocument/publishDiagnostics")
        XCTAssertFalse(published?["diagnostics"]?.arrayValue?.isEmpty ?? true)
    }

    func testACodeActionAsACommandAppliesItsEdit() async throws {
        // Vim's ALE: edits applied, code actions as commands.
        let (client, _) = try await client(["workspace": ["applyEdit": true]])
        let actions = try await codeActions(client)
        let fix = try XCTUnwrap(actions.first { $0["command"] == "pgn.applyEdit" }, "\(actions)")
        XCTAssertEqual(fix["title"]?.stringValue?.isEmpty, false)
        let run = client.startRequest(
            "workspace/executeCommand", ["command": "pgn.applyEdit", "arguments": fix["arguments"] ?? []])
        let apply = try await client.serverRequest("workspace/applyEdit")
        XCTAssertEqual(apply.params?["edit"], fix["arguments"]?.arrayValue?.first)
        client.send(.response(id: apply.id, result: .success(["applied": true])))
        if case .failure(let error) = try await client.response(to: run) { XCTFail("\(error)") }
    }
}
