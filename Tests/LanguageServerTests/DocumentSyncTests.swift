import LanguageServer
import TestSupport
import XCTest

final class DocumentSyncTests: XCTestCase {
    func text(_ client: TestClient, _ uri: String) async throws -> JSONValue {
        try await client.result("test/documentText", ["textDocument": ["uri": .string(uri)]])
    }

    func testManyIncrementalEditsAreAppliedInOrder() async throws {
        let client = TestClient(configure: registerDocumentText)
        try await client.initialize()
        client.open("file:///game.pgn", "")
        var expected = ""
        for n in 1...200 {
            let piece = n % 10 == 0 ? "\n" : "\(n)é "
            let lines = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let end = LSPPosition(line: lines.count - 1, character: lines.last!.utf16.count)
            client.change("file:///game.pgn", version: n + 1, [changeEvent(LSPRange(start: end, end: end), piece)])
            expected += piece
        }
        let appended = try await text(client, "file:///game.pgn")
        XCTAssertEqual(appended, ["text": .string(expected), "version": 201])
        // Each change replaces what the previous one inserted: only the order gives the right text.
        client.change(
            "file:///game.pgn", version: 300, [changeEvent(nil, "a"), changeEvent(LSPRange(0, 1, 0, 1), "b")])
        client.change("file:///game.pgn", version: 301, [changeEvent(LSPRange(0, 0, 0, 2), "c")])
        let result = try await text(client, "file:///game.pgn")
        XCTAssertEqual(result, ["text": "c", "version": 301])
    }

    func testEditsUseTheNegotiatedEncoding() async throws {
        let original = "[White \"Жук 日本 😀\"]\n1. e4"
        for (encodings, start, end) in [(["utf-8"], 8, 14), (["utf-16"], 8, 9), (nil, 8, 9)] {
            let client = TestClient(configure: registerDocumentText)
            try await client.initialize(positionEncodings: encodings)
            client.open("file:///game.pgn", original)
            // "Жук" is 6 bytes in UTF-8: the UTF-8 range covers the word, the UTF-16 one its first letter.
            client.change("file:///game.pgn", version: 2, [changeEvent(LSPRange(0, start, 0, end), "B")])
            let expected = encodings == ["utf-8"] ? "[White \"B 日本 😀\"]\n1. e4" : "[White \"Bук 日本 😀\"]\n1. e4"
            let edited = try await text(client, "file:///game.pgn")
            XCTAssertEqual(edited, ["text": .string(expected), "version": 2])
        }
    }

    func testEmojiRangesInUTF16AndUTF8() async throws {
        for (encodings, emojiStart, emojiEnd) in [(["utf-16"], 2, 4), (["utf-8"], 2, 6)] {
            let client = TestClient(configure: registerDocumentText)
            try await client.initialize(positionEncodings: encodings)
            client.open("file:///a.pgn", "ab\n1 😀 2\nend")
            client.change("file:///a.pgn", version: 2, [changeEvent(LSPRange(1, emojiStart, 1, emojiEnd), "♞")])
            // Positions past the line end and past the document end are clamped.
            client.change("file:///a.pgn", version: 3, [changeEvent(LSPRange(0, 50, 0, 80), "!")])
            client.change("file:///a.pgn", version: 4, [changeEvent(LSPRange(9, 0, 12, 3), "?")])
            let edited = try await text(client, "file:///a.pgn")
            XCTAssertEqual(edited, ["text": "ab!\n1 ♞ 2\nend?", "version": 4])
        }
    }

    func testObserversSeeEveryChangeWithItsByteRanges() async throws {
        let events = EventLog()
        let stamp = Locked<UInt64>(0)
        let client = TestClient { server in
            registerDocumentText(server)
            server.observeDocuments { event, _ in
                switch event {
                case .opened(let document):
                    stamp.withLock { $0 = document.history.stamp }
                    events.append("open \(document.version) \(document.text)")
                case .changed(let document):
                    let edits = stamp.withLock { stamp in
                        defer { stamp = document.history.stamp }
                        return document.history.edits(since: stamp) ?? []
                    }
                    events.append("change \(document.version) \(edits.map(\.description).joined(separator: ", "))")
                case .saved(let document, _): events.append("save \(document.version)")
                case .closed(let document): events.append("close \(document.uri)")
                }
            }
        }
        try await client.initialize()
        client.open("file:///a.pgn", "é1. e4")
        client.change(
            "file:///a.pgn", version: 2,
            [changeEvent(LSPRange(0, 0, 0, 1), "Ж日"), changeEvent(LSPRange(0, 7, 0, 7), " e5")])
        client.notify("textDocument/didSave", ["textDocument": ["uri": "file:///a.pgn"]])
        let edited = try await text(client, "file:///a.pgn")
        XCTAssertEqual(edited, ["text": "Ж日1. e4 e5", "version": 2])
        client.notify("textDocument/didClose", ["textDocument": ["uri": "file:///a.pgn"]])
        let afterClose = try await client.error("test/documentText", ["textDocument": ["uri": "file:///a.pgn"]]).code
        XCTAssertEqual(afterClose, .invalidParams)
        XCTAssertEqual(
            events.all,
            ["open 1 é1. e4", "change 2 0..<2 → 5 bytes, 10..<10 → 3 bytes", "save 2", "close file:///a.pgn"])
    }

    func testChangeOfADocumentNotOpenIsReportedAndIgnored() async throws {
        let client = TestClient(configure: registerDocumentText)
        try await client.initialize()
        client.change("file:///nowhere.pgn", version: 2, [changeEvent(nil, "x")])
        let log = try await client.inbox.take("error log") { message in
            if case .notification("window/logMessage", let params) = message {
                return params?["type"] == .integer(MessageType.error.rawValue)
            }
            return false
        }
        guard case .notification(_, let params) = log else { return XCTFail("\(log)") }
        XCTAssertEqual(params?["message"], "textDocument/didChange: document not open: file:///nowhere.pgn")
        XCTAssertEqual(client.server.documents.count, 0)
    }

    func testReopeningReplacesTheText() async throws {
        let client = TestClient(configure: registerDocumentText)
        try await client.initialize()
        client.open("file:///a.pgn", "first", version: 1)
        client.open("file:///a.pgn", "second", version: 5)
        let reopened = try await text(client, "file:///a.pgn")
        XCTAssertEqual(reopened, ["text": "second", "version": 5])
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    func append(_ event: String) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }
}
