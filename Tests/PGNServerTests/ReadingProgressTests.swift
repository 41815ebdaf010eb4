import Foundation
import LanguageServer
import PGN
import TestSupport
import XCTest

@testable import PGNServer

/// A large document read whole shows work-done progress: how much of it is read and how many
/// games were found, then the number of games, before its diagnostics.
final class ReadingProgressTests: XCTestCase {
    /// 20,000 games (1.7 MB): `LargeDocumentTests.text`.
    let text = LargeDocumentTests.text
    let uri = "file:///club/month.pgn"

    func testTheAnalyzerTellsHowMuchOfAWholeReadingIsDone() async {
        let analyzer = PGNAnalyzer(progressBytes: 1 << 20)
        let readings = Locked<[WholeReading]>([])
        analyzer.onWholeReading { reading in readings.withLock { $0.append(reading) } }
        let document = Document(uri: uri, version: 1, text: text)
        _ = analyzer.analysis(of: document)
        let reading = readings.withLock { $0 }
        XCTAssertEqual(reading.count, 1)
        XCTAssertEqual(reading[0].uri, uri)
        XCTAssertEqual(reading[0].length, document.bytes.count)
        var events: [WholeReading.Event] = []
        for await event in reading[0].events { events.append(event) }
        XCTAssertEqual(events.last, .finished(games: 20_000))
        let read = events.dropLast().map { event -> (bytes: Int, games: Int) in
            guard case .read(let bytes, let games) = event else { return (-1, -1) }
            return (bytes, games)
        }
        XCTAssertFalse(read.isEmpty)
        XCTAssertEqual(read.map(\.bytes), read.map(\.bytes).sorted(), "counts only grow")
        XCTAssertEqual(read.map(\.games), read.map(\.games).sorted())
        XCTAssertEqual(read.last?.bytes, document.bytes.count)
        XCTAssertEqual(read.last?.games, 20_000)

        // An edit is read around it: no whole reading.
        var edited = document
        let at = LSPPosition(line: 2, character: 0)
        edited.apply(
            [TextDocumentContentChangeEvent(range: LSPRange(start: at, end: at), text: " ")], version: 2,
            encoding: .utf16)
        _ = analyzer.analysis(of: edited)
        XCTAssertEqual(readings.withLock { $0.count }, 1)
        // Nor is a smaller document's reading followed.
        _ = analyzer.analysis(of: Document(uri: "file:///club/small.pgn", version: 1, text: "1. e4 e5 *\n"))
        XCTAssertEqual(readings.withLock { $0.count }, 1)
    }

    /// A client of a new PGN server that shows progress for documents of 1 MB and more.
    static func client() -> TestClient {
        TestClient { server in
            PGNLanguageServer(
                server: server, workspacePieceSize: FilePieces.size, workspaceReadingTime: .seconds(4),
                readingProgressBytes: 1 << 20
            ).register()
        }
    }

    func testAClientThatShowsProgressSeesTheReadingThenTheDiagnostics() async throws {
        let client = Self.client()
        try await client.initialize(capabilities: ["window": ["workDoneProgress": true]])
        client.open(uri, text + "1. e4 e5 2. Ke3 *\n")
        let create = try await client.serverRequest("window/workDoneProgress/create")
        let token = try XCTUnwrap(create.params?["token"])
        client.send(.response(id: create.id, result: .success(.null)))
        let begin = try await client.notification("$/progress")
        XCTAssertEqual(begin?["token"], token)
        XCTAssertEqual(begin?["value"]?["kind"], "begin")
        XCTAssertEqual(begin?["value"]?["title"], "Reading month.pgn")
        XCTAssertEqual(begin?["value"]?["cancellable"], false)
        var percents: [Int] = []
        var end: JSONValue?
        while end == nil {
            let value = try await client.notification("$/progress")?["value"]
            if value?["kind"] == "end" { end = value } else { percents.append(value?["percentage"]?.intValue ?? -1) }
        }
        XCTAssertEqual(end?["message"], "20001 games")
        XCTAssertFalse(percents.isEmpty)
        XCTAssertEqual(percents, percents.sorted())
        XCTAssertEqual(percents.last, 100)
        let diagnostics = try await client.notification("textDocument/publishDiagnostics")
        let codes = diagnostics?["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        XCTAssertTrue(codes.contains("illegal-move"), "\(codes)")
    }

    func testAClientWithoutProgressIsNotAskedToShowIt() async throws {
        let client = Self.client()
        try await client.initialize()
        client.open(uri, text)
        _ = try await client.notification("textDocument/publishDiagnostics")
        let asked = await client.inbox.remaining.contains {
            if case .request(_, "window/workDoneProgress/create", _) = $0 { return true }
            if case .notification("$/progress", _) = $0 { return true }
            return false
        }
        XCTAssertFalse(asked)
    }
}
