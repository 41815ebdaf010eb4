import Foundation
import GRDB
import GameStore
import LanguageServer
import TestSupport
import XCTest

/// The explorer in a move's hover: the games of the databases that reached the position after
/// the move, their results, the moves played next and the best-rated game; notes for databases
/// that cannot answer; nothing at all without a database.
final class ExplorerHoverTests: XCTestCase {
    /// Line 2: `1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 *`.
    let text = "[White \"Me\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 *\n"

    /// The hover at a column of line 2 (1. e4 by default), in a workspace that `prepare` made.
    private func hover(
        at character: Int = 4, settings: JSONValue = [:], capabilities: JSONValue = markdownHovers,
        prepare: (URL) throws -> Void = ownDatabase
    ) async throws -> String {
        var value = ""
        try await withExplorer(settings: settings, capabilities: capabilities, prepare: prepare) { client, folder in
            value = try await client.hoverText(client.openMine(folder, text), 2, character)
        }
        return value
    }

    func testTheGamesResultsContinuationsAndBestGameAfterTheMove() async throws {
        let hover = try await hover()
        XCTAssertTrue(hover.hasPrefix("**1. e4** — White"), "the move's own hover comes first: \(hover)")
        XCTAssertTrue(hover.contains("FEN `"), hover)
        XCTAssertTrue(hover.contains("  \n**Explorer** — 3 games reached this position (games.ocgdb.db3)"), hover)
        XCTAssertTrue(hover.contains("White wins 33% · draws 33% · Black wins 33%"), hover)
        // The moves played next: a compact table on one line.
        XCTAssertTrue(
            hover.contains("  \nNext (games, White's score): `1... e5` 2 (75%) · `1... c5` 1 (0%)  \n"), hover)
        XCTAssertTrue(
            hover.contains("Best-rated game: Anand (2800) – Botvinnik (2700), Test, 1-0 (games.ocgdb.db3)"), hover)
    }

    /// `explorer.*` keeps some games: the hover counts them and says which.
    func testAFilterCountsOnlyTheGamesItKeeps() async throws {
        let carlsen = try await hover(settings: ["explorer": ["player": "carlsen"]])
        XCTAssertTrue(
            carlsen.contains("**Explorer** — 1 game reached this position (games.ocgdb.db3; games of carlsen)"), carlsen
        )
        XCTAssertTrue(carlsen.contains("Next (games, White's score): `1... e5` 1 (50%)"), carlsen)
        let rated = try await hover(settings: ["explorer": ["minElo": 2500, "maxElo": 2750]])
        XCTAssertTrue(
            rated.contains("**Explorer** — 2 games reached this position (games.ocgdb.db3; average rating 2500–2750)"),
            rated)
        let none = try await hover(settings: ["explorer": ["player": "Carlsen", "color": "black"]])
        XCTAssertTrue(none.contains("no game of games.ocgdb.db3; games of Carlsen as Black reached it"), none)
        let nobody = try await hover(settings: ["explorer": ["player": "Kasparov"]])
        XCTAssertTrue(
            nobody.contains("games.ocgdb.db3: no player of the database is named Kasparov"), nobody)
    }

    /// The filter set from the editor (`pgn.setExplorerFilter`), then cleared.
    func testTheFilterIsSetFromTheEditor() async throws {
        try await withExplorer(capabilities: markdownHovers) { client, folder in
            let uri = client.openMine(folder, text)
            let set = try await client.result(
                "workspace/executeCommand",
                ["command": "pgn.setExplorerFilter", "arguments": [["player": "carlsen", "color": "white"]]])
            XCTAssertEqual(set, ["filter": "games of carlsen as White"])
            let filtered = try await client.hoverText(uri, 2, 4)
            XCTAssertTrue(
                filtered.contains("1 game reached this position (games.ocgdb.db3; games of carlsen as White)"), filtered
            )
            let cleared = try await client.result(
                "workspace/executeCommand", ["command": "pgn.setExplorerFilter", "arguments": [[:]]])
            XCTAssertEqual(cleared, ["filter": "every game"])
            let all = try await client.hoverText(uri, 2, 4)
            XCTAssertTrue(all.contains("3 games reached this position (games.ocgdb.db3)"), all)
            let wrong = try await client.response(
                to: client.startRequest(
                    "workspace/executeCommand", ["command": "pgn.setExplorerFilter", "arguments": [["rating": 2000]]]))
            XCTAssertEqual(
                wrong, .failure(ResponseError(.invalidParams, "pgn.setExplorerFilter: unknown filter rating")))
        }
    }

    func testATranspositionCountsAndGamesThatEndedThere() async throws {
        // 2... Nc6: reached by the first two games and, by 1. Nf3 Nc6 2. e4 e5, the fifth.
        let hover = try await hover(at: 17)
        XCTAssertTrue(hover.contains("**Explorer** — 3 games reached this position"), hover)
        XCTAssertTrue(hover.contains("`3. Bb5` 1 (100%)"), hover)
        XCTAssertTrue(hover.contains("`3. Bc4` 1 (50%)"), hover)
        XCTAssertTrue(hover.contains("White wins 67% · draws 33% · Black wins 0% · 1 ended here"), hover)
        XCTAssertTrue(hover.contains("Best-rated game: Ivanchuk (2900) – Jobava (2850)"), hover)
    }

    func testAPositionNoGameReachedSaysSo() async throws {
        let hover = try await hover(at: 28)
        XCTAssertTrue(
            hover.contains("**Explorer** — no game of games.ocgdb.db3 reached it in its first 40 plies"),
            hover)
    }

    func testAPlainTextHoverHasTheSameFigures() async throws {
        let plain: JSONValue = ["textDocument": ["hover": ["contentFormat": ["plaintext"]]]]
        try await withExplorer(capabilities: plain) { client, folder in
            let hover = try await client.result("textDocument/hover", at(client.openMine(folder, text), 2, 4))
            XCTAssertEqual(hover["contents"]?["kind"], "plaintext")
            let value = hover["contents"]?["value"]?.stringValue ?? ""
            XCTAssertTrue(value.contains("Explorer — 3 games reached this position (games.ocgdb.db3)"), value)
            XCTAssertTrue(value.contains("\nNext (games, White's score): 1... e5 2 (75%) · 1... c5 1 (0%)\n"), value)
            XCTAssertFalse(value.contains("**") || value.contains("`"), value)
        }
    }

    func testReferenceDatabasesAreAddedUp() async throws {
        let settings: JSONValue = ["database": ["references": ["masters.db3", "missing.db3"]]]
        let hover = try await hover(settings: settings) { folder in
            try ownDatabase(folder)
            try makeDatabase(
                folder.appendingPathComponent("masters.db3").path,
                games: [game("Kasparov", 2851, "Karpov", 2780, "1/2-1/2", "1. e4 c5 2. Nf3 d6 3. d4")])
        }
        XCTAssertTrue(
            hover.contains("**Explorer** — 4 games reached this position (games.ocgdb.db3, masters.db3)"), hover)
        XCTAssertTrue(hover.contains("`1... c5` 2 (25%)"), hover)
        XCTAssertTrue(hover.contains("Kasparov (2851) – Karpov (2780), Test, 1/2-1/2 (masters.db3)"), hover)
        XCTAssertFalse(hover.contains("missing.db3"), "a missing file is left out silently")
    }

    func testTheMovesPlayedNextFitOneLineOfEightyColumns() async throws {
        // Eight different second moves after 1. e4 e5.
        let seconds = ["Nf3", "Nc3", "Bc4", "d4", "f4", "Qh5", "d3", "c3"]
        let hover = try await hover(at: 7) { folder in
            try makeDatabase(
                folder.appendingPathComponent("games.ocgdb.db3").path,
                games: seconds.enumerated().map { k, move in
                    game("W\(k)", 2000, "B\(k)", 2000, k % 2 == 0 ? "1-0" : "1/2-1/2", "1. e4 e5 2. \(move)")
                })
        }
        let row = try XCTUnwrap(hover.components(separatedBy: "\n").first { $0.hasPrefix("Next (games") }, hover)
        let shown = row.replacingOccurrences(of: "`", with: "").trimmingCharacters(in: .whitespaces)
        XCTAssertLessThanOrEqual(shown.count, 80, shown)
        XCTAssertTrue(shown.hasPrefix("Next (games, White's score): 2. Bc4 1 (100%) · "), shown)
        XCTAssertNotNil(shown.range(of: #" · [1-7] others$"#, options: .regularExpression), shown)
    }

    func testNoDatabaseNoExplorer() async throws {
        let hover = try await hover(prepare: { _ in })
        XCTAssertTrue(hover.hasPrefix("**1. e4** — White"), hover)
        XCTAssertFalse(hover.contains("Explorer"), hover)
    }

    func testAReferenceWithoutIndexSaysHowToBuildItAndIsNotWritten() async throws {
        let settings: JSONValue = ["database": ["references": ["other.db3"]]]
        try await withExplorer(settings: settings, capabilities: markdownHovers) { client, folder in
            let other = folder.appendingPathComponent("other.db3").path
            try makeDatabase(other, index: false)
            let before = try Data(contentsOf: URL(fileURLWithPath: other))
            let hover = try await client.hoverText(client.openMine(folder, text), 2, 4)
            XCTAssertTrue(hover.contains("(games.ocgdb.db3)"), "the own database still answers: \(hover)")
            XCTAssertTrue(
                hover.contains(
                    "Note: other.db3: the database has no position index; build it with `pgn-lsp index --db \(other)`"),
                hover)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other)), before, "a reference is never written")
        }
    }

    func testTheOwnDatabaseGetsItsIndexBuiltInTheBackground() async throws {
        let unindexed = { (folder: URL) in
            try makeDatabase(folder.appendingPathComponent("games.ocgdb.db3").path, index: false)
        }
        try await withExplorer(capabilities: markdownHovers, prepare: unindexed) { client, folder in
            let uri = client.openMine(folder, text)
            var hover = try await client.hoverText(uri, 2, 4)
            let building = hover.contains("games.ocgdb.db3: building its position index")
            XCTAssertTrue(building || hover.contains("3 games reached this position"), hover)
            let deadline = Date().addingTimeInterval(20)
            while !hover.contains("3 games reached this position") && Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
                hover = try await client.hoverText(uri, 2, 4)
            }
            XCTAssertTrue(hover.contains("**Explorer** — 3 games reached this position (games.ocgdb.db3)"), hover)
            let status = try GameDatabase.openForReading(path: folder.appendingPathComponent("games.ocgdb.db3").path)
                .positionIndexStatus()
            XCTAssertEqual(status, .current)
        }
    }

    func testAFileThatIsNotADatabaseGivesANoteAndTheHoverStays() async throws {
        let settings: JSONValue = ["database": ["references": ["notes.txt", "folder"]]]
        let hover = try await hover(settings: settings) { folder in
            try ownDatabase(folder)
            try "not a database".write(
                to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("folder"), withIntermediateDirectories: true)
        }
        XCTAssertTrue(hover.hasPrefix("**1. e4** — White"), hover)
        XCTAssertTrue(hover.contains("3 games reached this position (games.ocgdb.db3)"), hover)
        XCTAssertTrue(hover.contains("Note: notes.txt cannot be read: "), hover)
        XCTAssertTrue(hover.contains("Note: folder cannot be read: "), hover)
    }

    func testACorruptDatabaseGivesANote() async throws {
        let hover = try await hover { folder in
            let path = folder.appendingPathComponent("games.ocgdb.db3").path
            try makeDatabase(path)
            // The header stays, the pages after it are garbage.
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            for k in 100..<bytes.count { bytes[k] = UInt8(truncatingIfNeeded: k &* 31) }
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        XCTAssertTrue(hover.hasPrefix("**1. e4** — White"), hover)
        XCTAssertTrue(hover.contains("Note: games.ocgdb.db3"), hover)
    }

    func testANewGameSavedToTheDatabaseIsCountedAtTheNextHover() async throws {
        try await withExplorer(capabilities: markdownHovers) { client, folder in
            let uri = client.openMine(folder, text)
            var hover = try await client.hoverText(uri, 2, 4)
            XCTAssertTrue(hover.contains("3 games reached this position"), hover)
            _ = try await client.result(
                "workspace/executeCommand", ["command": "pgn.saveGame", "arguments": [.string(uri), 0]])
            hover = try await client.hoverText(uri, 2, 4)
            XCTAssertTrue(hover.contains("4 games reached this position"), hover)
        }
    }

    func testNamesFromADatabaseAreShownAsTextNotAsMarkdown() async throws {
        let image = "![t](https://example.invalid/pixel.png)"
        let hover = try await hover { folder in
            try makeDatabase(
                folder.appendingPathComponent("games.ocgdb.db3").path,
                games: [
                    game(image, 2900, "<img src=https://example.invalid/a.png>", 2800, "1-0", "1. e4 e5"),
                    game("# Heading [x](command:workbench.action.quit)", 2000, "Me", nil, "0-1", "1. e4 c5"),
                ])
        }
        // Each markup character comes escaped: no image, tag, heading or link is left to render.
        XCTAssertFalse(hover.contains(image), hover)
        XCTAssertFalse(hover.replacingOccurrences(of: #"\<"#, with: "").contains("<img"), hover)
        XCTAssertFalse(hover.contains("[x](command:"), hover)
        XCTAssertTrue(
            hover.contains(#"Best-rated game: \!\[t\](https://example.invalid/pixel.png) (2900) – \<img"#), hover)
    }

    /// A file made elsewhere to look current (its state says no change was made), whose tree
    /// holds counts no import writes.
    func testAReferenceDatabaseWithCountsNoImportWritesIsShownBounded() async throws {
        let settings: JSONValue = ["database": ["references": ["elsewhere.db3"]]]
        try await withExplorer(settings: settings, capabilities: markdownHovers) { folder in
            try ownDatabase(folder)
            let path = folder.appendingPathComponent("elsewhere.db3").path
            try makeDatabase(path)
            try DatabaseQueue(path: path).write { db in
                try db.execute(
                    sql: """
                        UPDATE PositionTree SET Games = 9223372036854775807, WhiteWins = 9223372036854775807,
                            Draws = -5, BlackWins = 'many', BestElo = 9223372036854775807;
                        UPDATE PositionIndexState SET Edits = 0;
                        """)
            }
        } _: { client, folder in
            let uri = client.openMine(folder, text)
            let hover = try await client.hoverText(uri, 2, 4)
            XCTAssertTrue(hover.contains("**Explorer** — 1,099,511,627,776 games reached this position"), hover)
            let completion = try await client.result(
                "textDocument/completion", at(uri, 2, 6))
            XCTAssertFalse(completion.isNull)
            let hints = try await client.result(
                "textDocument/inlayHint",
                [
                    "textDocument": ["uri": .string(uri)],
                    "range": ["start": ["line": 0, "character": 0], "end": ["line": 9, "character": 0]],
                ])
            XCTAssertNotNil(hints.arrayValue)
            let status = try await client.shutdownAndExit()
            XCTAssertEqual(status, 0)
        }
    }

    func testANoteNamingAFileFromElsewhereKeepsItsCodeAndEscapesTheName() async throws {
        let name = "![x](https:example.invalid).db3"
        let settings: JSONValue = ["database": ["references": .array([.string(name)])]]
        try await withExplorer(settings: settings, capabilities: markdownHovers) { client, folder in
            let path = folder.appendingPathComponent(name).path
            try makeDatabase(path, index: false)
            let hover = try await client.hoverText(client.openMine(folder, text), 2, 4)
            XCTAssertTrue(
                hover.contains(
                    #"Note: \!\[x\](https:example.invalid).db3: the database has no position index; build it with "#
                        + "`pgn-lsp index --db \(path)`"),
                hover)
        }
    }
}
