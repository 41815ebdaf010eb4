import Foundation
import LanguageServer
import TestSupport
import XCTest

/// The novelty: "N" after the first mainline move whose position no database holds, when they
/// hold the one before it; its tooltip; the code action that writes `$146`; the setting.
final class NoveltyTests: XCTestCase {
    /// 3... Nf6 leaves the databases (their game went 3... a6). Line 2.
    let text = "[White \"Me\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O *\n"
    let whole: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 9, "character": 0]]

    private func hints(_ client: TestClient, _ uri: String) async throws -> [JSONValue] {
        try await client.result("textDocument/inlayHint", ["textDocument": ["uri": .string(uri)], "range": whole])
            .arrayValue ?? []
    }

    private func novelty(_ client: TestClient, _ uri: String) async throws -> JSONValue? {
        try await hints(client, uri).first { $0["label"] == "N" }
    }

    func testTheFirstMoveThatLeavesTheDatabasesIsMarked() async throws {
        try await withExplorer { client, folder in
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, text)
            let hint = try await novelty(client, uri)
            XCTAssertEqual(hint?["position"], position(2, 30), "after 3... Nf6")
            let tooltip = hint?["tooltip"]?.stringValue ?? ""
            XCTAssertEqual(
                tooltip,
                "Novelty: no game of the databases reached the position after 3... Nf6. Last known position: after 3. Bb5 "
                    + "(r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3), reached in 1 game.")
        }
    }

    func testTheCodeActionWritesTheNAGOnce() async throws {
        try await withExplorer(capabilities: ["textDocument": ["codeAction": ["codeActionLiteralSupport": [:]]]]) {
            client, folder in
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, text)
            let actions =
                try await client.result(
                    "textDocument/codeAction",
                    [
                        "textDocument": ["uri": .string(uri)], "range": range(2, 4, 2, 4),
                        "context": ["diagnostics": []],
                    ]
                ).arrayValue ?? []
            let mark = actions.first { $0["title"] == "Mark as novelty ($146)" }
            XCTAssertEqual(mark?["kind"], "refactor.rewrite")
            XCTAssertEqual(
                mark?["edit"]?["changes"]?[uri],
                [["range": range(2, 30, 2, 30), "newText": " $146"]])

            // Marked (after its `!`): no action, and the NAG's own glyph instead of the hint.
            client.change(uri, version: 2, [changeEvent(nil, text.replacingOccurrences(of: "Nf6", with: "Nf6! $146"))])
            let after =
                try await client.result(
                    "textDocument/codeAction",
                    ["textDocument": ["uri": .string(uri)], "range": range(2, 4, 2, 4), "context": ["diagnostics": []]]
                ).arrayValue ?? []
            XCTAssertNil(after.first { $0["title"] == "Mark as novelty ($146)" })
            let labels = try await hints(client, uri).map { $0["label"]?.stringValue ?? "" }
            XCTAssertEqual(labels.filter { $0 == "N" }.count, 1, "the glyph of $146 only: \(labels)")
        }
    }

    func testTheNAGGoesAfterTheMovesOtherAnnotations() async throws {
        try await withExplorer(capabilities: ["textDocument": ["codeAction": ["codeActionLiteralSupport": [:]]]]) {
            client, folder in
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, text.replacingOccurrences(of: "Nf6", with: "Nf6!?"))
            let actions =
                try await client.result(
                    "textDocument/codeAction",
                    ["textDocument": ["uri": .string(uri)], "range": range(2, 4, 2, 4), "context": ["diagnostics": []]]
                ).arrayValue ?? []
            let mark = actions.first { $0["title"] == "Mark as novelty ($146)" }
            XCTAssertEqual(mark?["edit"]?["changes"]?[uri], [["range": range(2, 32, 2, 32), "newText": " $146"]])
        }
    }

    func testNoHintWhenTheSettingIsOff() async throws {
        try await withExplorer(settings: ["inlayHints": ["novelty": false]]) { client, folder in
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, text)
            let hint = try await novelty(client, uri)
            XCTAssertNil(hint)
        }
    }

    func testNoHintWithoutADatabaseOrWhenTheGameStaysInThem() async throws {
        try await withExplorer(prepare: { _ in }) { client, folder in
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, text)
            let hint = try await novelty(client, uri)
            XCTAssertNil(hint)
        }
        try await withExplorer { client, folder in
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, "[White \"Me\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n")
            let hint = try await novelty(client, uri)
            XCTAssertNil(hint)
        }
    }

    func testNoHintWhenTheDatabasesDoNotHoldTheStart() async throws {
        try await withExplorer { client, folder in
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 Kd7 *\n")
            let hint = try await novelty(client, uri)
            XCTAssertNil(hint)
        }
    }

    func testNoHintWhileADatabaseCannotAnswer() async throws {
        let settings: JSONValue = ["database": ["references": ["other.db3"]]]
        try await withExplorer(settings: settings) { client, folder in
            try makeDatabase(folder.appendingPathComponent("other.db3").path, index: false)
            let uri = fileURI(folder, "mine.pgn")
            client.open(uri, text)
            let hint = try await novelty(client, uri)
            XCTAssertNil(hint, "other.db3 has no index: it might hold the game")
        }
    }
}
