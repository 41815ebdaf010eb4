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

    /// A draw written `1/2`, a result against its move and notes among the moves: each has its
    /// fix, and "Fix all" applies them all, leaving a text that says the same with nothing to fix.
    func testShortResultsGluedResultsAndNotesAreFixedOneByOneOrAllAtOnce() async throws {
        let uri = "untitled:notes.pgn"
        let client = TestClient { server in PGNLanguageServer(server: server).register() }
        try await client.initialize(capabilities: [
            "textDocument": ["codeAction": ["codeActionLiteralSupport": ["codeActionKind": ["valueSet": ["quickfix"]]]]]
        ])
        let roster = "[Event \"A\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n"
        let text =
            roster + "[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 1/2\n\n" + roster
            + "[Result \"1-0\"]\n\n1. e4 d5 2. e5 f5 3. exf6 e.p. (3. d4 keep Nc6) 3... Nxf6 4. d41-0\n"
        client.open(uri, text)
        let report = try await client.result("textDocument/diagnostic", ["textDocument": ["uri": .string(uri)]])
        let items = (report["items"]?.arrayValue ?? []).filter {
            $0["code"] == "result-notation" || $0["code"] == "movetext-note"
        }
        XCTAssertEqual(items.count, 4, "\(items)")
        var titles: [String] = []
        for item in items {
            let actions = try await client.result(
                "textDocument/codeAction",
                ["textDocument": ["uri": .string(uri)], "range": item["range"]!, "context": ["diagnostics": [item]]])
            titles += (actions.arrayValue ?? []).filter { $0["kind"] == "quickfix" }.compactMap {
                $0["title"]?.stringValue
            }
        }
        XCTAssertEqual(
            titles,
            ["Write 1/2-1/2", "Make it a comment: {e.p.}", "Make it a comment: {keep}", "Put a space before 1-0"])
        let all = try await client.result(
            "textDocument/codeAction",
            [
                "textDocument": ["uri": .string(uri)],
                "range": ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 0]],
                "context": ["diagnostics": [], "only": ["source.fixAll"]],
            ])
        let edits = try XCTUnwrap(all.arrayValue?.first?["edit"]?["changes"]?[uri]?.arrayValue)
        let newTexts = edits.compactMap { $0["newText"]?.stringValue }
        for expected in ["1/2-1/2", "{e.p.}", "{keep}", " "] { XCTAssertTrue(newTexts.contains(expected), expected) }
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }
}
