import LanguageServer
import TestSupport
import XCTest

/// Code actions at a problem with a certain repair: its quick fix, as an edit for a client that
/// takes code action literals, and the fix of every safe problem of the file at once.
final class CodeActionTests: XCTestCase {
    // Castling written with zeros, and a tag section without Site, Date, Round and Result.
    let text = "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. 0-0 Nf6 *\n"
    let literals: JSONValue = [
        "textDocument": [
            "codeAction": ["codeActionLiteralSupport": ["codeActionKind": ["valueSet": ["quickfix", "source"]]]]
        ],
        "workspace": ["applyEdit": true],
    ]

    private func actions(at character: Int) async throws -> [JSONValue] {
        let client = try await TestClient.pgn(text, capabilities: literals)
        let params: JSONValue = [
            "textDocument": textDocument(), "range": range(4, character, 4, character), "context": ["diagnostics": []],
        ]
        return try await client.result("textDocument/codeAction", params).arrayValue ?? []
    }

    func testTheQuickFixOfCastlingWithZeros() async throws {
        let all = try await actions(at: 34)
        let fix = try XCTUnwrap(all.first { $0["kind"] == "quickfix" }, "\(all)")
        XCTAssertEqual(fix["title"], "Write O-O")
        XCTAssertEqual(fix["isPreferred"], true)
        XCTAssertEqual(fix["edit"], ["changes": [testURI: [["range": range(4, 33, 4, 36), "newText": "O-O"]]]])
        XCTAssertEqual(fix["diagnostics"]?.arrayValue?.first?["code"], "non-canonical-san")
    }

    func testFixAllRepairsEverySafeProblemOfTheFile() async throws {
        let all = try await actions(at: 34)
        let fixAll = try XCTUnwrap(all.first { $0["kind"] == "source.fixAll.pgn" }, "\(all)")
        XCTAssertEqual(fixAll["title"], "Fix all safe problems (2)")
        let edits = fixAll["edit"]?["changes"]?[testURI]?.arrayValue ?? []
        XCTAssertEqual(
            edits,
            [
                [
                    "range": range(0, 0, 0, 0),
                    "newText": "[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[Result \"*\"]\n",
                ],
                ["range": range(4, 33, 4, 36), "newText": "O-O"],
            ])
    }

    func testNoQuickFixWhereNothingIsWrong() async throws {
        let all = try await actions(at: 4)
        XCTAssertFalse(all.contains { $0["kind"] == "quickfix" }, "\(all)")
    }

    /// Every action has a kind (a client filters and groups them by it): the fixes, the review,
    /// the novelty, the opening tags, saving to the database, fixing everything.
    func testEveryCodeActionHasAKind() async throws {
        let text = "[White \"Me\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. 0-0 *\n"
        try await withExplorer(capabilities: literals) { client, folder in
            let uri = client.openMine(folder, text)
            var all: [JSONValue] = []
            for character in [27, 34] {
                let params: JSONValue = [
                    "textDocument": ["uri": .string(uri)], "range": range(2, character, 2, character),
                    "context": ["diagnostics": []],
                ]
                all += try await client.result("textDocument/codeAction", params).arrayValue ?? []
            }
            let titles = Set(all.compactMap { $0["title"]?.stringValue })
            for title in [
                "Write O-O", "Mark as novelty ($146)", "Save game to database",
                "Save all games in the file to database",
                "Fill in ECO and Opening tags", "Fix all safe problems (2)", "Review and annotate game",
            ] {
                XCTAssertTrue(titles.contains(title), "\(title) in \(titles)")
            }
            for action in all {
                let kind = try XCTUnwrap(action["kind"]?.stringValue, "\(action)")
                XCTAssertTrue(["quickfix", "refactor.", "source."].contains { kind.hasPrefix($0) }, kind)
            }
            let save = all.first { $0["title"] == "Save game to database" }
            XCTAssertEqual(save?["kind"], "source.saveGame.pgn")
        }
    }

    /// `pgn.fixAll`, and `source.fixAll` asked for by the user, on a file with nothing safe to
    /// fix: a message says so (not on save, where the editor asks by itself).
    func testNothingToFixSafelyIsSaid() async throws {
        let clean =
            "[Event \"x\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"A\"]\n"
            + "[Black \"B\"]\n[Result \"*\"]\n\n1. e4 e5 *\n"
        let client = try await TestClient.pgn(clean, capabilities: literals)
        let answer = try await client.result(
            "workspace/executeCommand", ["command": "pgn.fixAll", "arguments": [.string(testURI)]])
        let said =
            "pgn-lsp: nothing to fix safely in feature.pgn (the other problems need a decision: see their quick fixes)"
        XCTAssertEqual(answer, .string(said))
        let shown = try await client.message("window/showMessage", containing: "nothing to fix")
        XCTAssertEqual(shown, said)

        func fixAll(trigger: Int) async throws -> [JSONValue] {
            let params: JSONValue = [
                "textDocument": textDocument(), "range": range(8, 0, 8, 0),
                "context": ["diagnostics": [], "only": ["source.fixAll"], "triggerKind": .integer(trigger)],
            ]
            return try await client.result("textDocument/codeAction", params).arrayValue ?? []
        }
        let onSave = try await fixAll(trigger: 2)
        XCTAssertEqual(onSave, [])
        let invoked = try await fixAll(trigger: 1)
        XCTAssertEqual(invoked, [])
        let again = try await client.message("window/showMessage", containing: "nothing to fix")
        XCTAssertEqual(again, said)
        // Once only: the request on save said nothing.
        let remaining = await client.inbox.remaining
        XCTAssertFalse(
            remaining.contains {
                if case .notification("window/showMessage", let params) = $0 {
                    return params?["message"]?.stringValue?.contains("nothing to fix") == true
                }
                return false
            })
    }
}
