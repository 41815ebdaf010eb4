import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// Documents no editor should be able to kill the server with: numbers too large to show,
/// nesting too deep to send, lines too long to walk, and a close in the middle of a publication.
final class HostileDocumentTests: XCTestCase {
    private func pgnClient(diagnosticsDelay: Duration = .milliseconds(2)) async throws -> TestClient {
        let client = TestClient { PGNLanguageServer(server: $0, diagnosticsDelay: diagnosticsDelay).register() }
        try await client.initialize()
        return client
    }

    private func whole(_ uri: String) -> JSONValue {
        [
            "textDocument": ["uri": .string(uri)],
            "range": ["start": ["line": 0, "character": 0], "end": ["line": 99, "character": 0]],
        ]
    }

    func testHugeClockAndEvaluationCommentsAreShownWithoutATrap() async throws {
        let client = try await pgnClient()
        let text = """
            [Event "x"]

            1. e4 { [%eval 1e300] [%clk 1e300] } e5 { [%emt 1e300] [%clk 1e308:1e308] } 2. Nf3 { [%eval #-9223372036854775808] [%clk 0:05:00] } *

            """
        client.open("file:///huge.pgn", text)
        let hints = try await client.result("textDocument/inlayHint", whole("file:///huge.pgn"))
        // The one readable clock is White's first: no time the move took to show.
        XCTAssertEqual(
            hints.arrayValue?.compactMap { $0["label"]?.stringValue }.filter { $0.hasPrefix("⏱") }, [])
        let line = text.split(separator: "\n")[1]
        for move in ["e4", "e5", "Nf3"] {
            let character = line.utf16.distance(from: line.startIndex, to: line.range(of: " \(move) ")!.lowerBound) + 1
            let hover = try await client.result(
                "textDocument/hover",
                [
                    "textDocument": ["uri": "file:///huge.pgn"],
                    "position": ["line": 2, "character": .integer(character)],
                ])
            XCTAssertFalse(hover.isNull, "hover on \(move)")
            if move == "Nf3" {
                let value = hover["contents"]?["value"]?.stringValue ?? ""
                // The clock beside the board; the evaluation beyond any range is a command in words.
                XCTAssertTrue(value.contains("   Clock 0:05:00\n"), value)
                XCTAssertTrue(value.contains("\n%eval #-9223372036854775808\n"), value)
            }
        }
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }

    func testATimeControlWithAnIncrementNoClockGivesShowsNoMoveTime() async throws {
        let client = try await pgnClient()
        for (index, increment) in ["1e300", "9223372036854775807", "1e18", "-5", "nan", "inf"].enumerated() {
            let uri = "file:///increment-\(index).pgn"
            client.open(
                uri,
                """
                [TimeControl "60+\(increment)"]

                1. e4 { [%clk 0:01:00] } e5 { [%clk 0:01:00] } 2. Nf3 { [%clk 0:00:50] } Nc6 { [%clk 0:00:55] } *

                """)
            let hints = try await client.result("textDocument/inlayHint", whole(uri))
            // The increment is left out: the time of a move whose clock went down, none where it went up.
            XCTAssertEqual(
                hints.arrayValue?.compactMap { $0["label"]?.stringValue }.filter { $0.hasPrefix("⏱") },
                ["⏱ 10 s", "⏱ 5 s"], increment)
        }
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }

    func testSelectionRangeInSixtyThousandNestedVariations() async throws {
        let client = try await pgnClient()
        let depth = 60_000
        let text =
            "[Event \"deep\"]\n\n1. e4 " + String(repeating: "(1. d4 ", count: depth)
            + String(repeating: ")", count: depth)
            + " *\n"
        client.open("file:///deep.pgn", text)
        let innermost = 6 + 7 * depth - 3
        let result = try await client.result(
            "textDocument/selectionRange",
            [
                "textDocument": ["uri": "file:///deep.pgn"],
                "positions": [["line": 2, "character": .integer(innermost)]],
            ])
        // The answer reads back within the nesting any JSON reader accepts, the server's own too.
        let json = try JSONValue(parsing: result.serialized())
        var levels = 0
        var range = json.arrayValue?.first
        while let current = range, !current.isNull {
            levels += 1
            range = current["parent"]
        }
        XCTAssertGreaterThan(levels, 32)
        XCTAssertLessThan(levels, 64)
        XCTAssertEqual(json.arrayValue?.first?["range"]?["start"]?["character"], .integer(innermost))
    }

    func testOneLongLineInUTF16IsAnsweredInLinearTime() async throws {
        // Each conversion once walked the line from its start: minutes for these texts.
        let client = try await pgnClient()
        let annotations = "[Event \"x\"] 1. e4 " + String(repeating: "$1 ", count: 60_000) + "*"
        let nul = String(repeating: "\u{0}", count: 40_000)
        let wide = "[Event \"é\"] 1. e4 {" + String(repeating: "日😀 ", count: 30_000) + "} e5 *"
        for (uri, text) in [("file:///nags.pgn", annotations), ("file:///nul.pgn", nul), ("file:///wide.pgn", wide)] {
            client.open(uri, text)
            let tokens = try await client.result(
                "textDocument/semanticTokens/full", ["textDocument": ["uri": .string(uri)]])
            let diagnostics = try await client.result(
                "textDocument/diagnostic", ["textDocument": ["uri": .string(uri)]])
            XCTAssertNotNil(tokens["data"]?.arrayValue, uri)
            XCTAssertNotNil(diagnostics["items"]?.arrayValue, uri)
        }
        let tokens = try await client.result(
            "textDocument/semanticTokens/full", ["textDocument": ["uri": "file:///wide.pgn"]])
        // The last token, the result `*`, starts after 30,000 × 4 UTF-16 units of comment.
        let data = tokens["data"]?.arrayValue?.compactMap(\.intValue) ?? []
        var character = 0
        for index in stride(from: 0, to: data.count, by: 5) {
            character = data[index] == 0 ? character + data[index + 1] : data[index + 1]
        }
        XCTAssertEqual(character, "[Event \"é\"] 1. e4 {".utf16.count + 30_000 * 4 + "} e5 ".utf16.count)
    }

    func testNoDiagnosticsArePublishedAfterTheClosingOnes() async throws {
        let client = try await pgnClient(diagnosticsDelay: .zero)
        // Games with an error each, so the analysis takes a while and has much to publish.
        let game = "[Event \"x\"]\n\n1. e4 e5 2. Nf9 *\n\n"
        let text = String(repeating: game, count: 4_000)
        for cycle in 0..<6 {
            let uri = "file:///closing-\(cycle).pgn"
            client.open(uri, text)
            try await Task.sleep(for: .milliseconds(cycle * 4))
            client.notify("textDocument/didClose", ["textDocument": ["uri": .string(uri)]])
        }
        // A request after the closes, answered once every earlier notification was handled;
        // then time for any publication still under way.
        _ = try await client.result("workspace/symbol", ["query": "x"])
        try await Task.sleep(for: .seconds(1))
        let messages = await client.inbox.remaining
        for cycle in 0..<6 {
            let uri = "file:///closing-\(cycle).pgn"
            let published = messages.compactMap { message -> JSONValue? in
                guard case .notification("textDocument/publishDiagnostics", let params) = message,
                    params?["uri"]?.stringValue == uri
                else { return nil }
                return params?["diagnostics"]
            }
            XCTAssertEqual(published.last?.arrayValue?.count, 0, "the last publication for \(uri) clears it")
        }
    }

    func testTypingInALargeGameKeepsTheCacheBounded() {
        let analyzer = PGNAnalyzer()
        let moves = String(repeating: "1. e4 e5 ", count: 40_000)
        var document = Document(uri: "file:///big.pgn", version: 1, text: "[Event \"x\"]\n\n" + moves + "*\n")
        for version in 2...200 {
            document.apply(
                [TextDocumentContentChangeEvent(range: LSPRange(2, 0, 2, 0), text: version % 2 == 0 ? "{" : "}")],
                version: version, encoding: .utf16)
            _ = analyzer.analysis(of: document)
        }
        let size = analyzer.cacheSize
        // About 360 KB a version: twice the live text and the spare allowance, not 200 versions.
        XCTAssertLessThanOrEqual(size.bytes, 2 * document.bytes.count + PGNAnalyzer.spareCacheBytes)
        analyzer.close(document.uri)
        XCTAssertEqual(analyzer.cacheSize.games, 0)
        XCTAssertEqual(analyzer.cacheSize.bytes, 0)
    }
}
