import Foundation
import LanguageServer
import TestSupport
import XCTest

@testable import PGNServer

/// Twins across files: a game of the open document that copies a game of another file of the
/// workspace (on disk, or open in the editor) gets the `twin-game` diagnostic, its related
/// information in the other file, and the fix that removes it.
final class TwinsElsewhereTests: XCTestCase {
    let tags = "[White \"Carlsen, Magnus\"]\n[Black \"Nepomniachtchi, Ian\"]\n[Date \"2021.12.03\"]\n[Round \"6\"]\n"
    var earlier: String { tags + "\n1. d4 Nf6 2. Nf3 d5 *\n" }
    var finished: String { "[Event \"WCh\"]\n" + tags + "\n1. d4 Nf6 2. Nf3 d5 3. g3 e6 1-0\n" }
    let other = "[White \"Anna\"]\n[Black \"Boris\"]\n\n1. e4 *\n\n"

    let pull: JSONValue = [
        "textDocument": ["diagnostic": [:], "codeAction": ["codeActionLiteralSupport": [:]]],
        "workspace": ["diagnostics": ["refreshSupport": true]],
    ]

    private func twins(_ client: TestClient, _ uri: String = testURI) async throws -> [JSONValue] {
        let items = try await client.result("textDocument/diagnostic", ["textDocument": textDocument(uri)])["items"]
        return (items?.arrayValue ?? []).filter { $0["code"] == "twin-game" }
    }

    /// The twins of the next publications for `uri`, until one has some or `publications` came.
    private func publishedTwins(_ client: TestClient, _ uri: String, publications: Int) async throws -> [JSONValue] {
        for _ in 0..<publications {
            guard let params = try await client.notification("textDocument/publishDiagnostics"),
                params["uri"]?.stringValue == uri
            else { continue }
            let twins = (params["diagnostics"]?.arrayValue ?? []).filter { $0["code"] == "twin-game" }
            if !twins.isEmpty { return twins }
        }
        return []
    }

    func testAnEarlierCopyPointsAtTheFinishedGameInAWorkspaceFile() async throws {
        try await withWorkspace(club: other + finished) { client, file in
            client.open(testURI, earlier)
            // The first publication may come before the workspace's files are read; the next one follows it.
            let found = try await publishedTwins(client, testURI, publications: 2)
            XCTAssertEqual(found.count, 1)
            XCTAssertEqual(found.first?["range"], range(0, 0, 0, 25))
            XCTAssertEqual(found.first?["severity"], 3)
            XCTAssertEqual(
                found.first?["message"],
                "This game stops after 4 half-moves of game 2 of club.pgn, which has the same players, date and round and goes on to 6: an earlier copy of it"
            )
            let related = found.first?["relatedInformation"]?.arrayValue?.first
            XCTAssertEqual(related?["location"]?["uri"], .string(file.absoluteString))
            XCTAssertEqual(related?["location"]?["range"], range(5, 0, 5, 13), "the other game's first tag")
            XCTAssertEqual(related?["message"], "the longer copy, game 2 of club.pgn")
        }
    }

    /// A file read in many pieces (`FilePieces`): the game is pointed at by its line in the file.
    func testAGameFarIntoAFileReadInPiecesIsPointedAtByItsLine() async throws {
        try await withWorkspaceFolder(pieceSize: 1_000) { folder in
            try (String(repeating: other, count: 50) + finished).write(
                to: folder.appendingPathComponent("club.pgn"), atomically: true, encoding: .utf8)
        } _: { client, folder, _ in
            client.open(testURI, earlier)
            let found = try await publishedTwins(client, testURI, publications: 2)
            let related = found.first?["relatedInformation"]?.arrayValue?.first
            XCTAssertEqual(related?["location"]?["uri"], .string(fileURI(folder, "club.pgn")))
            XCTAssertEqual(related?["location"]?["range"], range(250, 0, 250, 13), "the other game's first tag")
            XCTAssertEqual(related?["message"], "the longer copy, game 51 of club.pgn")
        }
    }

    func testTheIndexHoldsAtMostItsGamesAndSaysWhatItLeftOut() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-twins-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rounds = { (first: Int) in
            (first..<(first + 2)).map { self.finished.replacingOccurrences(of: "\"6\"", with: "\"\($0)\"") }
                .joined(separator: "\n")
        }
        try rounds(1).write(to: folder.appendingPathComponent("a.pgn"), atomically: true, encoding: .utf8)
        try rounds(3).write(to: folder.appendingPathComponent("b.pgn"), atomically: true, encoding: .utf8)
        let index = WorkspaceTwinIndex(largestIndex: 3)
        var notes: [String] = []
        XCTAssertTrue(index.refresh(WorkspaceWalk.pgnFiles(under: [Array(folder.path.utf8)]).files, notes: &notes))
        XCTAssertEqual(index.snapshot.identityCount, 2, "the games of a.pgn")
        XCTAssertEqual(
            notes,
            ["the index of twins across files holds 3 games: \(folder.path)/b.pgn and the files after it are left out"])
    }

    func testOfTwoEqualGamesTheFileThatSortsLaterHasTheCopy() async throws {
        try await withWorkspace(club: finished) { client, file in
            let later = file.deletingLastPathComponent().appendingPathComponent("zz.pgn").absoluteString
            client.open(later, finished)
            let found = try await publishedTwins(client, later, publications: 2)
            XCTAssertEqual(
                found.first?["message"],
                "This game is a copy of game 1 of club.pgn: the same players, date, round and moves")
            XCTAssertEqual(
                found.first?["relatedInformation"]?.arrayValue?.first?["message"], "the first copy, game 1 of club.pgn")
            let earlierName = file.deletingLastPathComponent().appendingPathComponent("aa.pgn").absoluteString
            client.open(earlierName, finished)
            let none = try await twins(client, earlierName)
            XCTAssertEqual(none, [], "the first of the files keeps its game")
        }
    }

    func testOpenDocumentsAreComparedAsTheEditorHasThem() async throws {
        let client = try await TestClient.pgn(earlier, capabilities: pull)
        let otherURI = "file:///other.pgn"
        client.open(otherURI, other + finished)
        let found = try await twins(client)
        XCTAssertEqual(found.count, 1)
        let related = found.first?["relatedInformation"]?.arrayValue?.first
        XCTAssertEqual(related?["location"]?["uri"], .string(otherURI))
        XCTAssertEqual(related?["location"]?["range"], range(5, 0, 5, 13))
        // The longer game is not a copy of the shorter one.
        let none = try await twins(client, otherURI)
        XCTAssertEqual(none, [])

        // An edit of the other document that makes the games differ takes the diagnostic away.
        client.change(
            otherURI, version: 2, [["text": .string(other + finished.replacingOccurrences(of: "d5", with: "e6"))]])
        let after = try await twins(client)
        XCTAssertEqual(after, [])
    }

    func testTheFixRemovesTheCopy() async throws {
        let client = try await TestClient.pgn(other + earlier, capabilities: pull)
        client.open("file:///other.pgn", finished)
        let found = try await twins(client)
        XCTAssertEqual(found.count, 1)
        let actions = try await client.result(
            "textDocument/codeAction",
            [
                "textDocument": textDocument(), "range": range(5, 3, 5, 3),
                "context": ["diagnostics": .array(found), "only": ["quickfix"]],
            ])
        let fixes = (actions.arrayValue ?? []).filter { $0["diagnostics"]?.arrayValue?.first?["code"] == "twin-game" }
        XCTAssertEqual(fixes.map { $0["title"] }, ["Remove this copy"])
        let edits = fixes.first?["edit"]?["changes"]?[testURI]?.arrayValue ?? []
        XCTAssertEqual(edits.map { $0["newText"] }, [""])
        XCTAssertEqual(edits.first?["range"]?["start"], position(5, 0), "from the copy's first tag")
        XCTAssertEqual(edits.first?["range"]?["end"], position(10, 21), "to its result")
    }

    func testKeepingTheLongerCopyMergesTheTagsIntoTheOtherFile() async throws {
        let annotated = "[Annotator \"Broadcast\"]\n" + earlier
        let client = try await TestClient.pgn(annotated, capabilities: pull)
        let otherURI = "file:///other.pgn"
        client.open(otherURI, other + finished)
        let found = try await twins(client)
        let actions = try await client.result(
            "textDocument/codeAction",
            [
                "textDocument": textDocument(), "range": range(0, 3, 0, 3),
                "context": ["diagnostics": .array(found), "only": ["quickfix"]],
            ])
        let fixes = (actions.arrayValue ?? []).filter { $0["diagnostics"]?.arrayValue?.first?["code"] == "twin-game" }
        XCTAssertEqual(fixes.map { $0["title"] }, ["Remove this copy", "Keep the longer copy, merging their tags"])
        let changes = fixes.last?["edit"]?["changes"]
        XCTAssertEqual(changes?[testURI]?.arrayValue?.map { $0["newText"] }, [""])
        let merged = changes?[otherURI]?.arrayValue ?? []
        XCTAssertEqual(merged.map { $0["newText"] }, ["\n[Annotator \"Broadcast\"]"])
        XCTAssertEqual(merged.first?["range"], range(9, 11, 9, 11), "after the kept game's last tag")

        // A client that takes versioned edits gets the open document's version.
        let versioned = try await TestClient.pgn(
            annotated,
            capabilities: [
                "textDocument": ["diagnostic": [:], "codeAction": ["codeActionLiteralSupport": [:]]],
                "workspace": ["workspaceEdit": ["documentChanges": true]],
            ])
        versioned.open(otherURI, other + finished, version: 7)
        let again = try await twins(versioned)
        let answer = try await versioned.result(
            "textDocument/codeAction",
            [
                "textDocument": textDocument(), "range": range(0, 3, 0, 3),
                "context": ["diagnostics": .array(again), "only": ["quickfix"]],
            ])
        let merge = answer.arrayValue?.first { $0["title"] == "Keep the longer copy, merging their tags" }
        let documents = merge?["edit"]?["documentChanges"]?.arrayValue ?? []
        XCTAssertEqual(documents.map { $0["textDocument"]?["version"] }, [1, 7])
    }

    func testACopyInItsOwnFileIsLeftToThatDiagnostic() async throws {
        let client = try await TestClient.pgn(earlier + "\n" + finished, capabilities: pull)
        client.open("file:///aa.pgn", finished)
        let found = try await twins(client)
        XCTAssertEqual(
            found.map { $0["message"] },
            [
                "This game stops after 4 half-moves of game 2, which has the same players, date and round and goes on to 6: an earlier copy of it",
                "This game is a copy of game 1 of aa.pgn: the same players, date, round and moves",
            ].map { JSONValue.string($0) })
    }

    func testTheSettingSwitchesThemOff() async throws {
        let client = try await TestClient.pgn(earlier, capabilities: pull)
        client.open("file:///other.pgn", finished)
        client.notify("workspace/didChangeConfiguration", ["settings": ["pgn": ["diagnostics": ["twins": false]]]])
        let found = try await twins(client)
        XCTAssertEqual(found, [])
    }
}
