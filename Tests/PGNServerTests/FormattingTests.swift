import LanguageServer
import TestSupport
import XCTest

/// Formatting writes the document in the PGN export format, as one edit of the whole text;
/// a document already in it gets no edit.
final class FormattingTests: XCTestCase {
    let options: JSONValue = ["tabSize": 4, "insertSpaces": true]

    func testADocumentIsWrittenInTheExportFormat() async throws {
        let text = "[Event \"x\"]\n[White   \"A\"]\n[Black \"B\"]\n1.e4    e5 2.Nf3 {good}   Nc6 *"
        let client = try await TestClient.pgn(text)
        let edits = try await client.result(
            "textDocument/formatting", ["textDocument": textDocument(), "options": options])
        XCTAssertEqual(
            edits,
            [
                [
                    "range": range(0, 0, 3, 31),
                    "newText": "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 {good} 2... Nc6 *\n",
                ]
            ])
    }

    func testAFormattedDocumentGetsNoEdit() async throws {
        let client = try await TestClient.pgn(
            "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 {good} 2... Nc6 *\n")
        let edits = try await client.result(
            "textDocument/formatting", ["textDocument": textDocument(), "options": options])
        XCTAssertEqual(edits, [])
    }
}
