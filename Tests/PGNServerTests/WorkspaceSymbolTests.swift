import Foundation
import LanguageServer
import TestSupport
import XCTest

@testable import PGNServer

/// Workspace symbols: the players (kind 13), events (24) and openings of the games of the open
/// documents and of the workspace's `.pgn` files, filtered by the query without regard to case.
/// The files are those the walk of the workspace finds (`WorkspaceWalk`), read one at a time.
final class WorkspaceSymbolTests: XCTestCase {
    let club = "[Event \"Club\"]\n[White \"Emil\"]\n[Black \"Fay\"]\n\n1. e4 *\n"
    private func names(_ symbols: JSONValue) -> [String] {
        (symbols.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    func testEveryPlayerAndEventOfTheOpenDocument() async throws {
        let client = try await TestClient.pgn(twoGames)
        let all = try await client.result("workspace/symbol", ["query": ""])
        XCTAssertEqual(names(all), ["Anna", "Boris", "Casual", "Carl", "Dora", "Second"])
        XCTAssertEqual(all.arrayValue?.map { $0["kind"]?.intValue ?? 0 }, [13, 13, 24, 13, 13, 24])
        let anna = all.arrayValue?.first
        XCTAssertEqual(anna?["containerName"], "Anna – Boris, 1-0 (Casual)")
        XCTAssertEqual(anna?["location"], ["uri": .string(testURI), "range": range(0, 0, 6, 19)])
    }

    func testTheQueryMatchesAnyPartOfTheNameWhateverItsCase() async throws {
        let client = try await TestClient.pgn(twoGames)
        let dora = try await client.result("workspace/symbol", ["query": "DORA"])
        XCTAssertEqual(names(dora), ["Dora"])
        XCTAssertEqual(dora.arrayValue?.first?["location"]?["range"], range(8, 0, 12, 33))
        let an = try await client.result("workspace/symbol", ["query": "an"])
        XCTAssertEqual(names(an), ["Anna"])
        let none = try await client.result("workspace/symbol", ["query": "zz"])
        XCTAssertEqual(none, [])
    }

    func testTheGamesOfTheWorkspacesFilesThatAreNotOpen() async throws {
        try await withWorkspace(club: "[Event \"Club\"]\n[White \"Emil\"]\n[Black \"Fay\"]\n\n1. e4 *\n") {
            client, file in
            client.open(testURI, twoGames)
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(names(emil), ["Emil"])
            XCTAssertEqual(emil.arrayValue?.first?["location"]?["uri"], .string(file.absoluteString))
            XCTAssertEqual(emil.arrayValue?.first?["containerName"], "Emil – Fay (Club)")
        }
    }

    func testAFileReachedByManyLinksIsReadOnce() async throws {
        try await withWorkspaceFolder { folder in
            let file = folder.appendingPathComponent("club.pgn")
            try club.write(to: file, atomically: true, encoding: .utf8)
            for k in 0..<5 {
                try FileManager.default.createSymbolicLink(
                    at: folder.appendingPathComponent("link\(k).pgn"), withDestinationURL: file)
            }
        } _: { client, folder, _ in
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(names(emil), ["Emil"], "one file, whatever the links to it")
            XCTAssertEqual(emil.arrayValue?.first?["location"]?["uri"], .string(fileURI(folder, "club.pgn")))
        }
    }

    func testALinkToAFileOutsideTheWorkspaceIsLeftOutAndTheLogSaysSo() async throws {
        try await withWorkspaceFolder { folder, outside in
            let file = outside.appendingPathComponent("elsewhere.pgn")
            try club.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent("club.pgn"), withDestinationURL: file)
        } _: { client, _, _ in
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(emil, [])
            let logged = try await client.message("window/logMessage", containing: "club.pgn")
            XCTAssertTrue(logged.contains("outside the workspace folders"), logged)
            XCTAssertTrue(logged.hasPrefix("pgn-lsp: workspace/symbol left out:"), logged)
        }
    }

    func testHiddenFoldersAndNodeModulesAreNotLookedInto() async throws {
        try await withWorkspaceFolder { folder in
            for sub in [".git", "node_modules", "games"] {
                let made = folder.appendingPathComponent(sub)
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
                try club.replacingOccurrences(of: "Emil", with: "Emil \(sub)").write(
                    to: made.appendingPathComponent("club.pgn"), atomically: true, encoding: .utf8)
            }
        } _: { client, _, _ in
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(names(emil), ["Emil games"])
        }
    }

    func testAFileWhoseNameIsNotUTF8IsFoundByTheBytesOfItsName() async throws {
        // `Caf\xE9.pgn`: the name in Latin-1, as an old archive unpacks it.
        let name: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(".pgn".utf8)
        try await withWorkspaceFolder { folder in
            try writeFile(named: name, in: folder, club)
        } _: { client, folder, _ in
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(names(emil), ["Emil"])
            let uri = try XCTUnwrap(emil.arrayValue?.first?["location"]?["uri"]?.stringValue)
            XCTAssertEqual(uri, fileURI(folder, "Caf") + "%E9.pgn")
            XCTAssertEqual(FileURI.path(uri), FileSystem.joined(Array(folder.path.utf8), name))
        }
    }

    func testAFileOverTheLimitIsLeftOutAndTheLogSaysSo() async throws {
        try await withWorkspaceFolder { folder in
            try club.write(to: folder.appendingPathComponent("club.pgn"), atomically: true, encoding: .utf8)
            // Sparse: its size is all there is of it.
            let large = folder.appendingPathComponent("large.pgn")
            XCTAssertTrue(FileManager.default.createFile(atPath: large.path, contents: nil))
            let handle = try FileHandle(forWritingTo: large)
            try handle.truncate(atOffset: UInt64(PGNLanguageServer.largestWorkspaceFile + (1 << 20)))
            try handle.close()
        } _: { client, _, _ in
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(names(emil), ["Emil"])
            let logged = try await client.message("window/logMessage", containing: "large.pgn")
            XCTAssertTrue(logged.contains("large.pgn: 65 MB, over the 64 MB"), logged)
        }
    }

    func testTheFilesReadFromDiskLeaveNoAnalysisBehind() async throws {
        try await withWorkspaceFolder { folder in
            try club.write(to: folder.appendingPathComponent("club.pgn"), atomically: true, encoding: .utf8)
        } _: { client, _, pgn in
            client.open(testURI, twoGames)
            let before = try await client.result("workspace/symbol", ["query": "anna"])
            XCTAssertEqual(names(before), ["Anna"])
            let cache = pgn.analyzer.cacheSize
            let emil = try await client.result("workspace/symbol", ["query": "emil"])
            XCTAssertEqual(names(emil), ["Emil"])
            XCTAssertEqual(pgn.analyzer.all.map(\.uri), [testURI], "the analyses kept are the open documents'")
            XCTAssertEqual(pgn.analyzer.cacheSize.games, cache.games, "the cache holds the open documents' games")
        }
    }

    /// A file read in many pieces (`FilePieces`): its games are placed by their lines in the file.
    func testTheGamesOfAFileReadInPiecesArePlacedByTheirLines() async throws {
        let game = "[Event \"Blitz\"]\r\n[White \"Emil\"]\r\n[Black \"Fay\"]\r\n\r\n1. e4 e5 *\r\n\r\n"
        let count = 100
        let last = "[Event \"Final\"]\r\n[White \"Émile\"]\r\n[Black \"Fay\"]\r\n\r\n1. d4 *\r\n"
        let annotations: JSONValue = [
            "workspace": ["workspaceEdit": ["documentChanges": true, "changeAnnotationSupport": [:]]]
        ]
        try await withWorkspaceFolder(capabilities: annotations, pieceSize: 1_000) { folder in
            try (String(repeating: game, count: count) + last).write(
                to: folder.appendingPathComponent("large.pgn"), atomically: true, encoding: .utf8)
        } _: { client, folder, _ in
            let found = try await client.result("workspace/symbol", ["query": "émile"])
            XCTAssertEqual(names(found), ["Émile"])
            XCTAssertEqual(found.arrayValue?.first?["location"]?["range"], range(6 * count, 0, 6 * count + 4, 7))
            client.open(testURI, "[White \"Émile\"]\n\n1. e4 *\n")
            var params = at(0, 9).objectValue ?? [:]
            params["newName"] = "Émile Zola"
            let edit = try await client.result("textDocument/rename", .object(params))
            let change = edit["documentChanges"]?.arrayValue?.first {
                $0["textDocument"]?["uri"]?.stringValue == fileURI(folder, "large.pgn")
            }
            XCTAssertEqual(
                change?["edits"]?.arrayValue?.map { $0["range"] }, [range(6 * count + 1, 7, 6 * count + 1, 14)])
        }
    }

    func testWhatTheTimeOfARequestDidNotReachIsLeftOutAndTheLogSaysSo() async throws {
        try await withWorkspaceFolder(readingTime: .zero) { folder in
            try club.write(to: folder.appendingPathComponent("club.pgn"), atomically: true, encoding: .utf8)
        } _: { client, folder, _ in
            client.open(testURI, twoGames)
            let found = try await client.result("workspace/symbol", ["query": ""])
            XCTAssertEqual(names(found), ["Anna", "Boris", "Casual", "Carl", "Dora", "Second"], "the open document's")
            let logged = try await client.message("window/logMessage", containing: "ran out")
            XCTAssertTrue(
                logged.hasSuffix("- the time for one request ran out before \(folder.path)/club.pgn: it left out"),
                logged)
        }
    }
}
