import LanguageServer
import PGN
import TestSupport
import XCTest

/// Name variants in the editor: a hint on a player, event or site written otherwise than the
/// file's usual spelling, with the fix that writes the usual one, and a hint that initials may
/// stand for the file's one longer name.
final class NameVariantTests: XCTestCase {
    func game(white: String, black: String, event: String = "Casual", result: String = "*") -> String {
        """
        [Event "\(event)"]
        [White "\(white)"]
        [Black "\(black)"]
        [Result "\(result)"]

        1. e4 e5 \(result)

        """
    }

    private func hints(_ client: TestClient) async throws -> [JSONValue] {
        let items = try await client.result("textDocument/diagnostic", ["textDocument": textDocument()])["items"]
        return (items?.arrayValue ?? []).filter { $0["code"] == "name-variant" }
    }

    let pull: JSONValue = [
        "textDocument": ["diagnostic": [:], "codeAction": ["codeActionLiteralSupport": [:]]],
        "workspace": ["diagnostics": ["refreshSupport": true]],
    ]

    func testOtherSpellingsGetAHintAndAFixThatWritesTheUsualOne() async throws {
        let text = [
            game(white: "Carlsen, Magnus", black: "Caruana, Fabiano"),
            game(white: "Caruana, Fabiano", black: "Carlsen, Magnus"),
            game(white: "Carlsen,Magnus", black: "caruana, fabiano", event: "casual"),
        ].joined(separator: "\n")
        let client = try await TestClient.pgn(text, capabilities: pull)
        let found = try await hints(client)
        XCTAssertEqual(
            found.map { $0["message"] },
            [
                "“casual” is written “Casual” in 2 tags of this file",
                "“Carlsen,Magnus” is written “Carlsen, Magnus” in 2 tags of this file",
                "“caruana, fabiano” is written “Caruana, Fabiano” in 2 tags of this file",
            ])
        XCTAssertEqual(found.map { $0["severity"] }, [4, 4, 4])
        // Game 3 starts on line 14: its White tag's value.
        XCTAssertEqual(found[1]["range"], range(15, 7, 15, 23))
        let actions = try await client.result(
            "textDocument/codeAction",
            [
                "textDocument": textDocument(), "range": range(15, 8, 15, 8),
                "context": ["diagnostics": [found[1]], "only": ["quickfix"]],
            ])
        let fix = try XCTUnwrap(actions.arrayValue?.first { $0["title"] == "Write “Carlsen, Magnus”" })
        XCTAssertEqual(fix["isPreferred"], true)
        let edits = fix["edit"]?["changes"]?[testURI]?.arrayValue ?? []
        XCTAssertEqual(edits.map { $0["newText"] }, ["\"Carlsen, Magnus\""])
        XCTAssertEqual(edits.first?["range"], range(15, 7, 15, 23))
    }

    func testInitialsMayStandForTheOneLongerNameOnly() async throws {
        let text = [
            game(white: "Carlsen, Magnus", black: "Ding, Liren"),
            game(white: "Carlsen, M.", black: "Ding, L."),
            game(white: "Ding, Liren", black: "Ding, Lina"),
        ].joined(separator: "\n")
        let client = try await TestClient.pgn(text, capabilities: pull)
        let found = try await hints(client)
        // `Ding, L.` may be Liren or Lina: no hint.
        XCTAssertEqual(
            found.map { $0["message"] }, ["“Carlsen, M.” may be “Carlsen, Magnus”, as 1 tag of this file write it"])
        let actions = try await client.result(
            "textDocument/codeAction",
            [
                "textDocument": textDocument(), "range": range(8, 8, 8, 8),
                "context": ["diagnostics": .array(found), "only": ["quickfix"]],
            ])
        let fix = try XCTUnwrap(actions.arrayValue?.first { $0["title"] == "Write “Carlsen, Magnus”" })
        XCTAssertNotEqual(fix["isPreferred"], true, "a person decides")
    }

    func testOneSpellingEachOrTheSettingOffGivesNoHint() async throws {
        let same = [
            game(white: "Carlsen, Magnus", black: "Caruana, Fabiano"),
            game(white: "Caruana, Fabiano", black: "Carlsen, Magnus"),
        ]
        let client = try await TestClient.pgn(same.joined(separator: "\n"), capabilities: pull)
        let none = try await hints(client)
        XCTAssertEqual(none, [])
        let variants = [game(white: "Carlsen, Magnus", black: "X"), game(white: "Carlsen,Magnus", black: "X")]
        let off = try await TestClient.pgn(variants.joined(separator: "\n"), capabilities: pull)
        let shown = try await hints(off)
        XCTAssertEqual(shown.count, 1)
        off.notify("workspace/didChangeConfiguration", ["settings": ["pgn": ["diagnostics": ["nameVariants": false]]]])
        let hidden = try await hints(off)
        XCTAssertEqual(hidden, [])
    }

    func testTheUsualSpellingIsTheMostUsedThenLastCommaFirst() {
        XCTAssertTrue(NameVariants.isStandard("Carlsen, Magnus"))
        XCTAssertFalse(NameVariants.isStandard("Carlsen,Magnus"))
        XCTAssertFalse(NameVariants.isStandard("carlsen, magnus"))
        XCTAssertFalse(NameVariants.isStandard("Carlsen,  Magnus"))
        XCTAssertTrue(NameVariants.isStandard("Dubai"))
    }

    /// Typing in a game's moves keeps the hints (the names did not change, so they are reused,
    /// moved with the text); an edit of a name finds them again.
    func testEditsOfMovesKeepTheHintsAndEditsOfNamesRenewThem() async throws {
        let text = [
            game(white: "Carlsen, Magnus", black: "Anna"),
            game(white: "Anna", black: "Carlsen, Magnus"),
            game(white: "Carlsen,Magnus", black: "Anna"),
        ].joined(separator: "\n")
        let client = try await TestClient.pgn(text, capabilities: pull)
        let before = try await hints(client)
        XCTAssertEqual(before.map { $0["range"] }, [range(15, 7, 15, 23)])
        // A move of the first game: a line more before the hint.
        let moves = LSPPosition(line: 5, character: 8)
        client.change(testURI, version: 2, [changeEvent(LSPRange(start: moves, end: moves), "\n2. Nf3")])
        let moved = try await hints(client)
        XCTAssertEqual(moved.map { $0["range"] }, [range(16, 7, 16, 23)])
        // The second game's Black written the third game's way: now one tag writes each spelling
        // of the name beside the first's; the hints follow.
        let black = LSPRange(start: LSPPosition(line: 10, character: 7), end: LSPPosition(line: 10, character: 24))
        client.change(testURI, version: 3, [changeEvent(black, "\"Carlsen,Magnus\"")])
        let renewed = try await hints(client)
        XCTAssertEqual(
            renewed.map { $0["message"] },
            ["“Carlsen, Magnus” is written “Carlsen,Magnus” in 2 tags of this file"])
    }
}
