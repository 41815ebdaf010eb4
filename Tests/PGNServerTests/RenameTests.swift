import Foundation
import LanguageServer
import PGN
import PGNServer
import TestSupport
import XCTest

/// Renaming a player, event or site: `prepareRename` answers the value under the cursor,
/// `rename` writes the new name in every game of the workspace that has the old one, as
/// `changes`, `documentChanges` or annotated changes, whichever the client takes.
final class RenameTests: XCTestCase {
    /// Lines 1, 2, 7, 8, 13, 14: the players' tags. Carlsen plays White, then Black, then is
    /// written without the space after the comma, and once with an initial only.
    let games = """
        [Event "Norway Chess"]
        [White "Carlsen, Magnus"]
        [Black "Caruana, Fabiano"]

        1. e4 e5 1-0

        [Event "Norway Chess"]
        [White "Caruana, Fabiano"]
        [Black "Carlsen, Magnus"]

        1. d4 d5 0-1

        [Event "Blitz"]
        [White "Carlsen,Magnus"]
        [Black "Carlsen, M."]

        1. c4 *

        """

    let annotations: JSONValue = [
        "workspace": ["workspaceEdit": ["documentChanges": true, "changeAnnotationSupport": ["groupsOnLabel": true]]]
    ]

    private func rename(_ line: Int, _ character: Int, to name: String) -> JSONValue {
        var params = at(line, character).objectValue ?? [:]
        params["newName"] = .string(name)
        return .object(params)
    }

    /// The lines of the edits of one document, in `changes` or `documentChanges`.
    private func editedLines(_ edit: JSONValue, uri: String = testURI) -> [Int] {
        let edits =
            edit["changes"]?[uri]?.arrayValue
            ?? edit["documentChanges"]?.arrayValue?.first { $0["textDocument"]?["uri"]?.stringValue == uri }?["edits"]?
            .arrayValue ?? []
        return edits.compactMap { $0["range"]?["start"]?["line"]?.intValue }
    }

    func testPrepareRenameAnswersTheNameBetweenTheQuotes() async throws {
        let client = try await TestClient.pgn(games)
        let answer = try await client.result("textDocument/prepareRename", at(1, 10))
        XCTAssertEqual(answer["range"], range(1, 8, 1, 23))
        XCTAssertEqual(answer["placeholder"], "Carlsen, Magnus")
        let onTheTagName = try await client.result("textDocument/prepareRename", at(0, 2))
        XCTAssertEqual(onTheTagName["placeholder"], "Norway Chess")
    }

    func testOnlyPlayersEventsAndSitesCanBeRenamed() async throws {
        let client = try await TestClient.pgn(games + "[Date \"2024.05.27\"]\n[Site \"?\"]\n\n1. e4 *\n")
        let onAMove = try await client.result("textDocument/prepareRename", at(4, 4))
        XCTAssertEqual(onAMove, .null)
        let onADate = try await client.result("textDocument/prepareRename", at(17, 8))
        XCTAssertEqual(onADate, .null)
        let onAnUnknownSite = try await client.result("textDocument/prepareRename", at(18, 8))
        XCTAssertEqual(onAnUnknownSite, .null)
        let rename = try await client.request("textDocument/rename", rename(4, 4, to: "X"))
        guard case .failure(let error) = rename else { return XCTFail("a move was renamed") }
        XCTAssertEqual(error.code, .requestFailed)
        XCTAssertTrue(error.message.contains("White, Black, Event or Site"), error.message)
    }

    func testAPlayerIsRenamedAsWhiteAndAsBlackWhateverTheSpelling() async throws {
        let client = try await TestClient.pgn(games)
        let edit = try await client.result("textDocument/rename", rename(1, 10, to: "Carlsen, Magnus Øen"))
        // Without change annotations the abbreviation on line 14 is left alone.
        XCTAssertEqual(editedLines(edit), [1, 8, 13])
        let first = edit["changes"]?[testURI]?.arrayValue?.first
        XCTAssertEqual(first?["range"], range(1, 7, 1, 24), "the value with its quotes")
        XCTAssertEqual(first?["newText"], "\"Carlsen, Magnus Øen\"")
    }

    func testAnEventIsRenamedOnlyInEventTags() async throws {
        let client = try await TestClient.pgn(games)
        let edit = try await client.result("textDocument/rename", rename(0, 9, to: "Norway Chess 2024"))
        XCTAssertEqual(editedLines(edit), [0, 6])
    }

    func testTheNewNameIsEscaped() async throws {
        let client = try await TestClient.pgn(games)
        let edit = try await client.result("textDocument/rename", rename(0, 9, to: "The \"Norway\" \\ Chess"))
        XCTAssertEqual(edit["changes"]?[testURI]?.arrayValue?.first?["newText"], #""The \"Norway\" \\ Chess""#)
        let empty = try await client.request("textDocument/rename", rename(0, 9, to: "  "))
        guard case .failure(let error) = empty else { return XCTFail("an empty name was accepted") }
        XCTAssertEqual(error.code, .invalidParams)
    }

    func testAnnotatedChangesGroupSpellingsAndPossibleAbbreviations() async throws {
        let client = try await TestClient.pgn(games, capabilities: annotations)
        let edit = try await client.result("textDocument/rename", rename(8, 10, to: "Carlsen, Magnus"))
        let change = edit["documentChanges"]?.arrayValue?.first
        XCTAssertEqual(change?["textDocument"], ["uri": .string(testURI), "version": .integer(1)])
        let ids = change?["edits"]?.arrayValue?.map { $0["annotationId"]?.stringValue ?? "" }
        XCTAssertEqual(ids, ["same", "same", "spelling", "abbreviation"])
        XCTAssertEqual(editedLines(edit), [1, 8, 13, 14])
        let groups = edit["changeAnnotations"]
        XCTAssertEqual(groups?["same"]?["needsConfirmation"], false)
        XCTAssertEqual(groups?["spelling"]?["needsConfirmation"], true)
        XCTAssertEqual(groups?["abbreviation"]?["needsConfirmation"], true)
        XCTAssertEqual(groups?["abbreviation"]?["label"], "Possibly the same player")
    }

    func testTheWorkspacesFilesThatAreNotOpenAreRenamedToo() async throws {
        let club = "[White \"Emil\"]\n[Black \"Carlsen, Magnus\"]\n\n1. e4 *\n"
        try await withWorkspace(club: club, capabilities: annotations) { client, file in
            client.open(testURI, games)
            let edit = try await client.result("textDocument/rename", rename(1, 10, to: "Carlsen, M."))
            let other = edit["documentChanges"]?.arrayValue?.first {
                $0["textDocument"]?["uri"]?.stringValue == file.absoluteString
            }
            XCTAssertEqual(other?["textDocument"]?["version"], .null, "a file that is not open has no version")
            XCTAssertEqual(other?["edits"]?.arrayValue?.first?["range"], range(1, 7, 1, 24))
            XCTAssertEqual(other?["edits"]?.arrayValue?.first?["annotationId"], "elsewhere")
            XCTAssertEqual(edit["changeAnnotations"]?["elsewhere"]?["needsConfirmation"], true)
        }
    }

    func testTheServerAnnouncesRenameWithPrepare() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        let result = try await client.initialize(capabilities: [:])
        XCTAssertEqual(result["capabilities"]?["renameProvider"], ["prepareProvider": true])
    }
}

/// Names that are one name written differently, and names that may abbreviate another.
final class NameKeyTests: XCTestCase {
    func testSpacingCaseCommasAndAccentsDoNotMatter() {
        let key = NameKey("Carlsen, Magnus")
        for variant in ["Carlsen,Magnus", "carlsen,  magnus", "Cärlsen, Magnus", " Carlsen Magnus "] {
            XCTAssertEqual(NameKey(variant), key, variant)
        }
        XCTAssertNotEqual(NameKey("Carlsen, Henrik"), key)
    }

    /// `NameKey.hash` (twins hash names without making their words) agrees with the words.
    func testTheHashOfANameIsThatOfItsWords() {
        func hash(_ name: String) -> Int {
            var hasher = Hasher()
            NameKey.hash(name, into: &hasher)
            return hasher.finalize()
        }
        let key = hash("Carlsen, Magnus")
        for variant in ["Carlsen,Magnus", "carlsen,  magnus", "Cärlsen, Magnus", " Carlsen Magnus ", "CARLSEN.MAGNUS"] {
            XCTAssertEqual(hash(variant), key, variant)
        }
        XCTAssertNotEqual(hash("Carlsen, Henrik"), key)
        XCTAssertNotEqual(hash("Carl, Sen Magnus"), key, "words are told apart")
    }

    func testInitialsAndMissingGivenNamesMayAbbreviate() {
        let key = NameKey("Carlsen, Magnus")
        XCTAssertTrue(NameKey("Carlsen, M.").mayAbbreviate(key))
        XCTAssertTrue(NameKey("Carlsen").mayAbbreviate(key))
        XCTAssertFalse(NameKey("Carlsen, H.").mayAbbreviate(key))
        XCTAssertFalse(NameKey("Caruana, M.").mayAbbreviate(key))
        XCTAssertFalse(key.mayAbbreviate(key), "the same name is not an abbreviation of itself")
    }
}
