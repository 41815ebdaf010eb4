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
}
