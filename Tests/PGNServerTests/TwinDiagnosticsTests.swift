import LanguageServer
import TestSupport
import XCTest

/// Twins in the editor: an information diagnostic on the copy with related information at the
/// other copy, and fixes that remove the copy or keep the other with the copy's tags.
final class TwinDiagnosticsTests: XCTestCase {
    /// Lines 0–6: the broadcast's earlier copy; 8–15: the finished game, with an Annotator.
    let text = """
        [White "Carlsen, Magnus"]
        [Black "Nepomniachtchi, Ian"]
        [Date "2021.12.03"]
        [Round "6"]
        [Site "Dubai"]

        1. d4 Nf6 2. Nf3 d5 *

        [White "Carlsen,Magnus"]
        [Black "Nepomniachtchi, Ian"]
        [Date "2021.12.03"]
        [Round "6"]
        [Annotator "Broadcast"]

        1. d4 Nf6 2. Nf3 d5 3. g3 e6 1-0

        """

    private func twins(_ client: TestClient) async throws -> [JSONValue] {
        let items = try await client.result("textDocument/diagnostic", ["textDocument": textDocument()])["items"]
        return (items?.arrayValue ?? []).filter { $0["code"] == "twin-game" }
    }

    let pull: JSONValue = [
        "textDocument": ["diagnostic": [:], "codeAction": ["codeActionLiteralSupport": [:]]],
        "workspace": ["diagnostics": ["refreshSupport": true]],
    ]

    func testTheEarlierCopyPointsAtTheLongerOne() async throws {
        let client = try await TestClient.pgn(text, capabilities: pull)
        let found = try await twins(client)
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?["range"], range(0, 0, 0, 25))
        XCTAssertEqual(found.first?["severity"], 3)
        XCTAssertEqual(
            found.first?["message"],
            "This game stops after 4 half-moves of game 2, which has the same players, date and round and goes on to 6: an earlier copy of it"
        )
        let related = found.first?["relatedInformation"]?.arrayValue?.first
        XCTAssertEqual(related?["location"]?["range"], range(8, 0, 8, 24))
        XCTAssertEqual(related?["location"]?["uri"], .string(testURI))
        XCTAssertEqual(related?["message"], "the longer copy, game 2")
    }

    func testTheFixesRemoveTheCopyOrMergeItsTagsIntoTheOther() async throws {
        let client = try await TestClient.pgn(text, capabilities: pull)
        let found = try await twins(client)
        let actions = try await client.result(
            "textDocument/codeAction",
            [
                "textDocument": textDocument(), "range": range(0, 0, 0, 0),
                "context": ["diagnostics": .array(found), "only": ["quickfix"]],
            ])
        let fixes = (actions.arrayValue ?? []).filter { $0["diagnostics"]?.arrayValue?.first?["code"] == "twin-game" }
        XCTAssertEqual(fixes.map { $0["title"] }, ["Remove this copy", "Keep the longer copy, merging their tags"])
        let merge = fixes.last?["edit"]?["changes"]?[testURI]?.arrayValue ?? []
        XCTAssertEqual(merge.map { $0["newText"] }, ["", "\n[Site \"Dubai\"]"])
        XCTAssertEqual(merge.first?["range"]?["start"], position(0, 0))
        XCTAssertEqual(merge.last?["range"], range(12, 23, 12, 23), "after the kept game's last tag")
    }

    func testTheSettingSwitchesThemOff() async throws {
        let client = try await TestClient.pgn(text, capabilities: pull)
        client.notify("workspace/didChangeConfiguration", ["settings": ["pgn": ["diagnostics": ["twins": false]]]])
        let found = try await twins(client)
        XCTAssertEqual(found, [])
    }
}
