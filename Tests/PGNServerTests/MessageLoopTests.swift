import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// The thread that reads messages applies edits and nothing more: the text is read once typing
/// pauses, by the analysis that publishes diagnostics.
final class MessageLoopTests: XCTestCase {
    func testEditsAreNotAnalysedWhereMessagesAreRead() async throws {
        var features: PGNLanguageServer?
        let client = TestClient { server in
            // A pause longer than the test: only an analysis on the message loop could run.
            features = PGNLanguageServer(server: server, diagnosticsDelay: .seconds(600))
            features?.register()
        }
        try await client.initialize()
        let uri = "file:///loop.pgn"
        client.open(uri, "[Event \"x\"]\n\n1. e4 e5 2. Nf3 *\n")
        for version in 2...20 {
            client.change(
                uri, version: version,
                [["range": ["start": ["line": 2, "character": 0], "end": ["line": 2, "character": 0]], "text": " "]])
        }
        // Answered after every notification before it was handled.
        _ = try await client.error("pgn/noSuchMethod")
        XCTAssertEqual(features?.analyzer.all.count, 0, "no document was analysed")
        // A request reads the text when it needs it.
        _ = try await client.result("textDocument/documentSymbol", ["textDocument": ["uri": .string(uri)]])
        XCTAssertEqual(features?.analyzer.all.count, 1)
    }
}
