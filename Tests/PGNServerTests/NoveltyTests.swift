import Foundation
import LanguageServer
import TestSupport
import XCTest

/// The novelty: "N" after the first mainline move whose position no database holds, when they
/// hold the one before it; its tooltip; the code action that writes `$146`; the setting.
final class NoveltyTests: XCTestCase {
    /// 3... Nf6 leaves the databases (their game went 3... a6). Line 2.
    let text = "[White \"Me\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O *\n"
    let literals: JSONValue = ["textDocument": ["codeAction": ["codeActionLiteralSupport": [:]]]]

    private func hints(_ client: TestClient, _ uri: String) async throws -> [JSONValue] {
        let whole: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 9, "character": 0]]
        return try await client.result(
            "textDocument/inlayHint", ["textDocument": ["uri": .string(uri)], "range": whole]
        ).arrayValue ?? []
    }

    /// The novelty hint of `text` open in a workspace that `prepare` made.
    private func novelty(
        _ text: String, settings: JSONValue = [:], prepare: (URL) throws -> Void = ownDatabase
    ) async throws -> JSONValue? {
        var hint: JSONValue?
        try await withExplorer(settings: settings, prepare: prepare) { client, folder in
            hint = try await hints(client, client.openMine(folder, text)).first { $0["label"] == "N" }
        }
        return hint
    }

    /// The code action "Mark as novelty ($146)" at the start of line 2 of the document at `uri`.
    private func markAction(_ client: TestClient, _ uri: String) async throws -> JSONValue? {
        let actions =
            try await client.result(
                "textDocument/codeAction",
                ["textDocument": ["uri": .string(uri)], "range": range(2, 4, 2, 4), "context": ["diagnostics": []]]
            ).arrayValue ?? []
        return actions.first { $0["title"] == "Mark as novelty ($146)" }
    }

    func testTheFirstMoveThatLeavesTheDatabasesIsMarked() async throws {
        let hint = try await novelty(text)
        XCTAssertEqual(hint?["position"], position(2, 30), "after 3... Nf6")
        XCTAssertEqual(
            hint?["tooltip"],
            .string(
                "Novelty: no game of the databases reached the position after 3... Nf6. Last known position: after 3. Bb5 "
                    + "(r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3), reached in 1 game."))
    }

    func testTheCodeActionWritesTheNAGOnce() async throws {
        try await withExplorer(capabilities: literals) { client, folder in
            let uri = client.openMine(folder, text)
            let mark = try await markAction(client, uri)
            XCTAssertEqual(mark?["kind"], "refactor.rewrite")
            XCTAssertEqual(mark?["edit"]?["changes"]?[uri], [["range": range(2, 30, 2, 30), "newText": " $146"]])

            // Marked (after its `!`): no action, and the NAG's own glyph instead of the hint.
            client.change(uri, version: 2, [changeEvent(nil, text.replacingOccurrences(of: "Nf6", with: "Nf6! $146"))])
            let after = try await markAction(client, uri)
            XCTAssertNil(after)
            let labels = try await hints(client, uri).map { $0["label"]?.stringValue ?? "" }
            XCTAssertEqual(labels.filter { $0 == "N" }.count, 1, "the glyph of $146 only: \(labels)")
        }
    }

    func testTheNAGGoesAfterTheMovesOtherAnnotations() async throws {
        try await withExplorer(capabilities: literals) { client, folder in
            let uri = client.openMine(folder, text.replacingOccurrences(of: "Nf6", with: "Nf6!?"))
            let mark = try await markAction(client, uri)
            XCTAssertEqual(mark?["edit"]?["changes"]?[uri], [["range": range(2, 32, 2, 32), "newText": " $146"]])
        }
    }

    func testNoHintWhenTheSettingIsOff() async throws {
        let hint = try await novelty(text, settings: ["inlayHints": ["novelty": false]])
        XCTAssertNil(hint)
    }

    func testNoHintWithoutADatabase() async throws {
        let hint = try await novelty(text, prepare: { _ in })
        XCTAssertNil(hint)
    }

    func testNoHintWhenTheGameStaysInTheDatabases() async throws {
        let hint = try await novelty("[White \"Me\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n")
        XCTAssertNil(hint)
    }

    func testNoHintWhenTheDatabasesDoNotHoldTheStart() async throws {
        let hint = try await novelty("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 Kd7 *\n")
        XCTAssertNil(hint)
    }

    func testNoHintWhileADatabaseCannotAnswer() async throws {
        let hint = try await novelty(text, settings: ["database": ["references": ["other.db3"]]]) { folder in
            try ownDatabase(folder)
            try makeDatabase(folder.appendingPathComponent("other.db3").path, index: false)
        }
        XCTAssertNil(hint, "other.db3 has no index: it might hold the game")
    }
}
