import LanguageServer
import TestSupport
import XCTest

/// Diagnostics are pushed (`textDocument/publishDiagnostics`) to a client that cannot pull
/// them, and only answered (`textDocument/diagnostic`) to one that pulls and can be asked to
/// pull again (`workspace.diagnostics.refreshSupport`): the same problems either way.
final class DiagnosticsTests: XCTestCase {
    // The Seven Tag Roster short of four tags, castling written with zeros, an illegal move.
    let text = "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. 0-0 Nf6 5. Qh8 *\n"
    let pulling: JSONValue = [
        "textDocument": ["diagnostic": ["dynamicRegistration": false]],
        "workspace": ["diagnostics": ["refreshSupport": true]],
    ]

    /// What a user reads of each diagnostic, in order.
    private func problems(_ diagnostics: JSONValue?) -> [JSONValue] {
        (diagnostics?.arrayValue ?? []).map { diagnostic in
            [
                "code": diagnostic["code"] ?? .null, "severity": diagnostic["severity"] ?? .null,
                "range": diagnostic["range"] ?? .null, "message": diagnostic["message"] ?? .null,
                "source": diagnostic["source"] ?? .null,
            ]
        }
    }

    private var expected: [JSONValue] {
        [
            [
                "code": "missing-tag", "severity": 3, "range": range(0, 0, 0, 11), "source": "pgn",
                "message": "The Seven Tag Roster is incomplete: the tags Site, Date, Round, Result are missing",
            ],
            [
                "code": "non-canonical-san", "severity": 4, "range": range(4, 33, 4, 36), "source": "pgn",
                "message": "Standard notation is O-O: castling is written with the letter O, not zeros",
            ],
            [
                "code": "illegal-move", "severity": 1, "range": range(4, 44, 4, 47), "source": "pgn",
                "message": "Illegal move Qh8 (White to move): no white queen can move to h8",
            ],
        ]
    }

    func testPushedToAClientThatDoesNotPull() async throws {
        let client = try await TestClient.pgn(text)
        let published = try await client.notification("textDocument/publishDiagnostics")
        XCTAssertEqual(published?["uri"], .string(testURI))
        XCTAssertEqual(published?["version"], 1)
        XCTAssertEqual(problems(published?["diagnostics"]), expected)
    }

    func testPulledByAClientThatPullsAndNeverPushed() async throws {
        let client = try await TestClient.pgn(text, capabilities: pulling)
        let report = try await client.result("textDocument/diagnostic", ["textDocument": textDocument()])
        XCTAssertEqual(report["kind"], "full")
        XCTAssertNotNil(report["resultId"]?.stringValue)
        XCTAssertEqual(problems(report["items"]), expected)
        // A request answered after the pause before publishing shows that nothing was pushed.
        try await Task.sleep(for: .milliseconds(300))
        _ = try await client.result("textDocument/documentSymbol", ["textDocument": textDocument()])
        let pushed = await client.inbox.remaining.filter {
            if case .notification("textDocument/publishDiagnostics", _) = $0 { return true }
            return false
        }
        XCTAssertEqual(pushed.count, 0)
    }

    func testAFixedDocumentIsPublishedClean() async throws {
        let client = try await TestClient.pgn(text)
        _ = try await client.notification("textDocument/publishDiagnostics")
        let clean =
            "[Event \"x\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"A\"]\n[Black \"B\"]\n"
            + "[Result \"*\"]\n\n1. e4 e5 *\n"
        client.change(testURI, version: 2, [changeEvent(nil, clean)])
        let published = try await client.notification("textDocument/publishDiagnostics")
        XCTAssertEqual(published?["version"], 2)
        XCTAssertEqual(published?["diagnostics"], [])
    }
}
