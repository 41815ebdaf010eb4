import Foundation
import LanguageServer
import PGN
import PGNServer
import TestSupport
import XCTest

/// A large document just opened: its whole reading is made once however many requests ask at
/// the same time, and what the editor shows (tokens and hints of the visible lines, a hover) is
/// answered from the games on screen before that reading is done, then asked for again.
final class LargeDocumentTests: XCTestCase {
    /// 20,000 games of about 85 bytes (1.7 MB), each named by its number, on 4 lines each.
    static let text = (0..<20_000).map {
        "[Event \"game \($0)\"]\n\n1. e4 { [%clk 0:05:00] } e5 2. Nf3 $1 { [%clk 0:04:58] } Nc6 *\n\n"
    }
    .joined()
    static let uri = "file:///large.pgn"

    func testTheWholeReadingIsMadeOnceForRequestsThatAskAtOnce() async {
        let analyzer = PGNAnalyzer()
        let document = Document(uri: Self.uri, version: 1, text: Self.text)
        let analyses = await withTaskGroup(of: DocumentAnalysis.self) { group in
            for _ in 0..<6 { group.addTask { await analyzer.analysis(sharing: document) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(analyses.count, 6)
        XCTAssertEqual(analyses[0].games.count, 20_000)
        // Made twice, the games would be read twice, into other objects.
        for analysis in analyses {
            XCTAssertTrue(analysis.games[6_000].analysis === analyses[0].games[6_000].analysis)
        }
    }

    func testTheScreensGamesAreReadAsTheWholeReadingReadsThem() {
        let analyzer = PGNAnalyzer()
        let document = Document(uri: Self.uri, version: 1, text: Self.text)
        // Lines 40,000–40,060: games 10,000 to 10,015, the first begun on an earlier line.
        let range = document.byteRange(
            of: LSPRange(start: LSPPosition(line: 40_002, character: 0), end: LSPPosition(line: 40_062, character: 0)),
            encoding: .utf16)
        let screen = analyzer.screenAnalysis(of: document, covering: range)
        XCTAssertFalse(analyzer.hasAnalysis(of: document), "the screen alone is read")
        XCTAssertEqual(screen.games.count, 16)
        XCTAssertTrue(screen.diagnostics.isEmpty)
        let whole = analyzer.analysis(of: document)
        let first = whole.gameIndex(at: range.lowerBound)!
        XCTAssertEqual(first, 10_000)
        for (index, game) in screen.games.enumerated() {
            let expected = whole.games[first + index]
            XCTAssertEqual(game.start, expected.start)
            XCTAssertTrue(game.analysis === expected.analysis, "the whole reading takes the screen's games")
        }
        // From the first byte and the last.
        XCTAssertEqual(analyzer.screenAnalysis(of: document, covering: 0..<0).games.first?.start, 0)
        let end = document.bytes.count
        XCTAssertEqual(
            analyzer.screenAnalysis(of: document, covering: end..<end).games.last?.start, whole.games.last?.start)
    }

    /// A client that can be asked to ask again for tokens and hints, with the large document
    /// open. No diagnostics are published before the screen's requests: nothing else starts the
    /// whole reading.
    private func screenClient() async throws -> TestClient {
        let client = TestClient { PGNLanguageServer(server: $0, diagnosticsDelay: .seconds(60)).register() }
        try await client.initialize(
            positionEncodings: ["utf-16"],
            capabilities: [
                "workspace": ["semanticTokens": ["refreshSupport": true], "inlayHint": ["refreshSupport": true]]
            ])
        client.open(Self.uri, Self.text)
        return client
    }

    func testTheScreenIsAnsweredAtOnceAndAskedForAgainWhenTheWholeReadingIsMade() async throws {
        let client = try await screenClient()
        let screen: JSONValue = [
            "textDocument": ["uri": .string(Self.uri)],
            "range": ["start": ["line": 0, "character": 0], "end": ["line": 60, "character": 0]],
        ]
        let hints = try await client.result("textDocument/inlayHint", screen)
        XCTAssertEqual(hints.arrayValue?.count, 15 * 3, "the move time, the NAG and the opening of each game shown")
        let tokens = try await client.result("textDocument/semanticTokens/range", screen)
        // Asked again once the whole reading is made: the same answer then.
        for method in ["workspace/semanticTokens/refresh", "workspace/inlayHint/refresh"] {
            let request = try await client.serverRequest(method)
            client.send(.response(id: request.id, result: .success(.null)))
        }
        let tokensAfter = try await client.result("textDocument/semanticTokens/range", screen)
        let hintsAfter = try await client.result("textDocument/inlayHint", screen)
        XCTAssertEqual(tokensAfter, tokens)
        XCTAssertEqual(hintsAfter, hints)
    }

    /// After an edit, a hover is answered from the games around it, not after the edit's
    /// reading of the whole document: the reading of the edited version is not made by it.
    func testAHoverAfterAnEditDoesNotWaitForTheEditsReading() async throws {
        let box = Locked<PGNLanguageServer?>(nil)
        let client = TestClient { server in
            let language = PGNLanguageServer(server: server, diagnosticsDelay: .seconds(60))
            language.register()
            box.withLock { $0 = language }
        }
        try await client.initialize(positionEncodings: ["utf-16"])
        client.open(Self.uri, Self.text)
        let language = try XCTUnwrap(box.withLock { $0 })
        let document: JSONValue = ["uri": .string(Self.uri)]
        // The whole reading of the opened text, as the diagnostics or the whole tokens make it.
        _ = try await client.result("textDocument/foldingRange", ["textDocument": document])
        // A keystroke near the end, a hover at the top.
        client.notify(
            "textDocument/didChange",
            [
                "textDocument": ["uri": .string(Self.uri), "version": 2],
                "contentChanges": [
                    [
                        "range": [
                            "start": ["line": 79_990, "character": 0], "end": ["line": 79_990, "character": 0],
                        ],
                        "text": " ",
                    ]
                ],
            ])
        // 1. e4 of game 5.
        let hover = try await client.result(
            "textDocument/hover", ["textDocument": document, "position": ["line": 22, "character": 3]])
        XCTAssertTrue(hover["contents"]?["value"]?.stringValue?.contains("FEN") ?? false, "\(hover)")
        let edited = try XCTUnwrap(language.server.documents[Self.uri])
        XCTAssertEqual(edited.version, 2)
        XCTAssertFalse(language.analyzer.hasAnalysis(of: edited), "the hover read the games around it only")
        // The next request about the whole document reads the edited version.
        _ = try await client.result("textDocument/foldingRange", ["textDocument": document])
        XCTAssertTrue(language.analyzer.hasAnalysis(of: edited))
    }

    /// Once the opened text is read, the document's text shares the bytes its games' analyses
    /// copied and the array it arrived in is let go; edits then read as on the text alone.
    func testTheTextSharesItsGamesBytesOnceRead() async throws {
        let client = TestClient { PGNLanguageServer(server: $0, diagnosticsDelay: .milliseconds(1)).register() }
        try await client.initialize(positionEncodings: ["utf-16"])
        client.open(Self.uri, Self.text)
        _ = try await client.notification("textDocument/publishDiagnostics")
        var waited = 0
        while client.server.documents[Self.uri]?.content.whole != nil && waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        let shared = try XCTUnwrap(client.server.documents[Self.uri])
        XCTAssertNil(shared.content.whole, "the opened array is let go")
        XCTAssertEqual(shared.text, Self.text)
        // Game 3's `Nf3` made illegal, then game 19,999's `e5` too.
        var lines = Self.text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        for (version, line, columns, inserted) in [(2, 14, 31..<32, "K"), (3, 79_998, 25..<27, "e4")] {
            let range = LSPRange(
                start: LSPPosition(line: line, character: columns.lowerBound),
                end: LSPPosition(line: line, character: columns.upperBound))
            client.change(Self.uri, version: version, [changeEvent(range, inserted)])
            lines[line].replaceSubrange(columns, with: Array(inserted.utf8))
        }
        let expected = String(decoding: Array(lines.joined(separator: [0x0A])), as: UTF8.self)
        var published: JSONValue?
        while published?["version"]?.intValue != 3 {
            published = try await client.notification("textDocument/publishDiagnostics")
        }
        XCTAssertEqual(client.server.documents[Self.uri]?.text, expected)
        let flagged = published?["diagnostics"]?.arrayValue?.filter { $0["code"] == "illegal-move" }
        XCTAssertEqual(flagged?.compactMap { $0["range"]?["start"]?["line"]?.intValue }, [14, 79_998])
    }

    /// A client that asks for the whole tokens and the screen's hints (Neovim 0.11, which makes
    /// no range request for tokens) is asked again for the hints only: a refresh of the tokens
    /// would make it drop the whole tokens it is waiting for and ask for them again.
    func testOnlyWhatWasAnsweredFromTheScreenIsAskedForAgain() async throws {
        let client = try await screenClient()
        let document: JSONValue = ["uri": .string(Self.uri)]
        let screen: JSONValue = [
            "textDocument": document,
            "range": ["start": ["line": 0, "character": 0], "end": ["line": 60, "character": 0]],
        ]
        _ = try await client.result("textDocument/inlayHint", screen)
        _ = try await client.result(
            "textDocument/hover", ["textDocument": document, "position": ["line": 20, "character": 3]])
        let tokens = try await client.result("textDocument/semanticTokens/full", ["textDocument": document])
        XCTAssertNotNil(tokens["resultId"]?.stringValue)
        let refresh = try await client.serverRequest("workspace/inlayHint/refresh")
        client.send(.response(id: refresh.id, result: .success(.null)))
        // The whole reading is made: any other refresh would have been sent with this one.
        _ = try await client.result("textDocument/semanticTokens/full", ["textDocument": document])
        let asked = await client.inbox.remaining.compactMap { message -> String? in
            if case .request(_, let method, _) = message { return method }
            return nil
        }
        XCTAssertEqual(asked, [], "no other request of the server")
    }
}
