import Foundation
import LanguageServer
import PGN
import TestSupport
import XCTest

@testable import PGNServer

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

    private func rename(_ line: Int, _ character: Int, to name: String, uri: String = testURI) -> JSONValue {
        var params = at(line, character, uri: uri).objectValue ?? [:]
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

    func testAPlayerIsRenamedAsWhiteAndAsBlack() async throws {
        let client = try await TestClient.pgn(games)
        let edit = try await client.result("textDocument/rename", rename(1, 10, to: "Carlsen, Magnus Øen"))
        XCTAssertEqual(editedLines(edit), [1, 8])
        let first = edit["changes"]?[testURI]?.arrayValue?.first
        XCTAssertEqual(first?["range"], range(1, 7, 1, 24), "the value with its quotes")
        XCTAssertEqual(first?["newText"], "\"Carlsen, Magnus Øen\"")
    }

    /// A client without change annotations applies the edit without asking: it gets the name as
    /// written in the open documents, and is told what was left out.
    func testWithoutChangeAnnotationsOtherSpellingsAndFilesNotOpenAreLeftOutAndSaid() async throws {
        let club = "[White \"Emil\"]\n[Black \"Carlsen, Magnus\"]\n\n1. e4 *\n"
        for capabilities: JSONValue in [[:], ["workspace": ["workspaceEdit": ["documentChanges": true]]]] {
            try await withWorkspace(club: club, capabilities: capabilities) { client, file in
                client.open(testURI, games)
                let edit = try await client.result("textDocument/rename", rename(1, 10, to: "Carlsen, M."))
                XCTAssertEqual(editedLines(edit), [1, 8], "the abbreviation and the other spelling are left alone")
                XCTAssertEqual(editedLines(edit, uri: file.absoluteString), [], "the file that is not open too")
                let shown = try await client.message("window/showMessage", containing: "left out")
                XCTAssertEqual(
                    shown,
                    "pgn-lsp: renamed where the name is written the same in the open documents; left out, as this "
                        + "editor cannot ask to confirm them: 1 tag in 1 file that is not open, 1 tag with the name "
                        + "written differently (\"Carlsen,Magnus\")")
            }
        }
    }

    func testAnOpenDocumentOfTheWorkspaceIsRenamedOnceAsTheEditorHasIt() async throws {
        let club = "[White \"Emil\"]\n[Black \"Carlsen, Magnus\"]\n\n1. e4 *\n"
        try await withWorkspace(club: club, capabilities: annotations) { client, file in
            // The editor's text differs from the file's: a game was added above.
            client.open(file.absoluteString, "[White \"A\"]\n[Black \"B\"]\n\n1. d4 *\n\n" + club)
            let edit = try await client.result(
                "textDocument/rename", rename(6, 10, to: "Carlsen, M.", uri: file.absoluteString))
            let changes = edit["documentChanges"]?.arrayValue ?? []
            XCTAssertEqual(changes.count, 1, "\(changes)")
            XCTAssertEqual(changes.first?["textDocument"]?["version"], 1)
            XCTAssertEqual(editedLines(edit, uri: file.absoluteString), [6])
        }
    }

    func testALinkToAFileOutsideTheWorkspaceIsNotRenamed() async throws {
        let club = "[White \"Emil\"]\n[Black \"Carlsen, Magnus\"]\n\n1. e4 *\n"
        try await withWorkspaceFolder(capabilities: annotations) { folder, outside in
            try club.write(to: folder.appendingPathComponent("club.pgn"), atomically: true, encoding: .utf8)
            let elsewhere = outside.appendingPathComponent("elsewhere.pgn")
            try club.write(to: elsewhere, atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent("linked.pgn"), withDestinationURL: elsewhere)
        } _: { client, folder, _ in
            client.open(testURI, games)
            let edit = try await client.result("textDocument/rename", rename(1, 10, to: "Carlsen, M."))
            let uris = edit["documentChanges"]?.arrayValue?.compactMap { $0["textDocument"]?["uri"]?.stringValue }
            XCTAssertEqual(uris, [testURI, fileURI(folder, "club.pgn")])
            let shown = try await client.message("window/showMessage", containing: "may be incomplete")
            XCTAssertTrue(shown.contains("linked.pgn: a link to "), shown)
            XCTAssertTrue(shown.contains("outside the workspace folders"), shown)
        }
    }

    func testAFileWhoseNameIsNotUTF8IsRenamedThroughTheBytesOfItsName() async throws {
        let club = "[White \"Emil\"]\n[Black \"Carlsen, Magnus\"]\n\n1. e4 *\n"
        let name: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(".pgn".utf8)
        try await withWorkspaceFolder(capabilities: annotations) { folder in
            try writeFile(named: name, in: folder, club)
        } _: { client, folder, _ in
            client.open(testURI, games)
            let edit = try await client.result("textDocument/rename", rename(1, 10, to: "Carlsen, M."))
            let other = try XCTUnwrap(edit["documentChanges"]?.arrayValue?.last)
            let uri = try XCTUnwrap(other["textDocument"]?["uri"]?.stringValue)
            XCTAssertEqual(FileURI.path(uri), FileSystem.joined(Array(folder.path.utf8), name))
            XCTAssertEqual(other["edits"]?.arrayValue?.first?["range"], range(1, 7, 1, 24))
        }
    }

    func testARenameThatCouldNotReadEveryFileSaysItMayBeIncomplete() async throws {
        try await withWorkspaceFolder(capabilities: annotations) { folder in
            let large = folder.appendingPathComponent("large.pgn")
            XCTAssertTrue(FileManager.default.createFile(atPath: large.path, contents: nil))
            let handle = try FileHandle(forWritingTo: large)
            try handle.truncate(atOffset: UInt64(PGNLanguageServer.largestWorkspaceFile))
            try handle.close()
        } _: { client, _, _ in
            client.open(testURI, games)
            let edit = try await client.result("textDocument/rename", rename(1, 10, to: "Carlsen, M."))
            XCTAssertEqual(editedLines(edit), [1, 8, 13, 14])
            let shown = try await client.message("window/showMessage", containing: "may be incomplete")
            XCTAssertTrue(shown.hasPrefix("pgn-lsp: the rename may be incomplete: /"), shown)
            XCTAssertTrue(
                shown.hasSuffix("/large.pgn: 64 MB, over the 64 MB that requests over the whole workspace read"), shown)
        }
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
