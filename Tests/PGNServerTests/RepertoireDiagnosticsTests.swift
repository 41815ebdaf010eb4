import Foundation
import LanguageServer
import TestSupport
import XCTest

/// A repertoire (a game whose `Orientation` tag names its side) told its gaps against the
/// databases, with their quick fixes, and its conflicts; transpositions count as answered.
final class RepertoireDiagnosticsTests: XCTestCase {
    /// White's repertoire: 1. e4 e5 2. Nf3 Nc6 3. Bb5, and 1... Nc6 2. Nf3. Line 3.
    static let repertoire = """
        [Event "e4"]
        [Orientation "white"]

        1. e4 e5 (1... Nc6 2. Nf3) 2. Nf3 Nc6 3. Bb5 *

        """

    /// Twelve games after 1. e4: 1... e5 five times (2... Nc6 three, 2... d6 two), 1... c5 four,
    /// 1... Nc6 three (2... e5 twice, which transposes into the repertoire, 2... d5 once). Five
    /// reach 3. Bb5, two of them by 1... Nc6.
    static let games: [String] = {
        var games: [String] = []
        func add(_ count: Int, _ result: String, _ moves: String) {
            for k in 0..<count { games.append(game("W\(games.count)", 2000, "B\(k)", 2000, result, moves)) }
        }
        add(3, "1-0", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6")
        add(2, "0-1", "1. e4 e5 2. Nf3 d6 3. d4 exd4")
        add(4, "1/2-1/2", "1. e4 c5 2. Nf3 d6")
        add(2, "1-0", "1. e4 Nc6 2. Nf3 e5 3. Bb5")
        add(1, "1-0", "1. e4 Nc6 2. Nf3 d5 3. exd5")
        return games
    }()

    static let settings: JSONValue = ["repertoire": ["minGames": 1, "minShare": 5]]

    private func diagnostics(_ client: TestClient, _ uri: String) async throws -> [JSONValue] {
        while true {
            let published = try await client.notification("textDocument/publishDiagnostics")
            if published?["uri"]?.stringValue == uri { return published?["diagnostics"]?.arrayValue ?? [] }
        }
    }

    private static func prepare(_ folder: URL) throws {
        try makeDatabase(folder.appendingPathComponent("games.ocgdb.db3").path, games: games)
    }

    func testGapsAreTheRepliesNoLineAnswersWithTheirFiguresAndFixes() async throws {
        let literals: JSONValue = ["textDocument": ["codeAction": ["codeActionLiteralSupport": [:]]]]
        try await withExplorer(settings: Self.settings, capabilities: literals, prepare: Self.prepare) {
            client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            let found = try await diagnostics(client, uri)
            // 2... e5 after 1... Nc6 2. Nf3 is answered by the mainline's order: a hint says where.
            let transposed = found.filter { $0["code"] == "repertoire-transposition" }
            XCTAssertEqual(
                transposed.compactMap { $0["message"]?.stringValue },
                ["2... e5: 67% of 3 games — answered by transposition, line 4 (e4)"])
            XCTAssertEqual(transposed.first?["severity"], 4)
            XCTAssertEqual(transposed.first?["range"]?["start"]?["character"], 22)
            let gaps = found.filter { $0["code"] == "repertoire-gap" }
            XCTAssertEqual(
                gaps.compactMap { $0["message"]?.stringValue },
                [
                    "1... c5: 33% of 12 games — not prepared; most played answer: Nf3",
                    "2... d5: 33% of 3 games — not prepared; most played answer: exd5",
                    "2... d6: 40% of 5 games — not prepared; most played answer: d4",
                    "3... a6: 60% of 5 games — not prepared",
                ])
            // 1... c5 stands at 1. e4; 2... d5 at the variation's 2. Nf3; 3... a6 at 3. Bb5.
            XCTAssertEqual(gaps.map { $0["range"]?["start"]?["character"]?.intValue }, [3, 22, 30, 41])
            XCTAssertEqual(gaps.first?["severity"], 3)
            // The quick fixes, applied one by one, each on the text as it is.
            for (character, expected) in [
                (3, "1. e4 e5 (1... c5 2. Nf3) (1... Nc6 2. Nf3) 2. Nf3 Nc6 3. Bb5 *"),
                (22, "1. e4 e5 (1... Nc6 2. Nf3 2... d5 3. exd5) 2. Nf3 Nc6 3. Bb5 *"),
                (30, "1. e4 e5 (1... Nc6 2. Nf3) 2. Nf3 Nc6 (2... d6 3. d4) 3. Bb5 *"),
                (41, "1. e4 e5 (1... Nc6 2. Nf3) 2. Nf3 Nc6 3. Bb5 3... a6 *"),
            ] {
                let actions =
                    try await client.result(
                        "textDocument/codeAction",
                        [
                            "textDocument": ["uri": .string(uri)], "range": range(3, character, 3, character),
                            "context": ["diagnostics": []],
                        ]
                    ).arrayValue ?? []
                let fix = try XCTUnwrap(actions.first { $0["title"]?.stringValue?.hasPrefix("Prepare") == true })
                XCTAssertEqual(fix["kind"], "quickfix")
                let edit = try XCTUnwrap(fix["edit"]?["changes"]?[uri]?.arrayValue?.first)
                var lines = Self.repertoire.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let at = try XCTUnwrap(edit["range"]?["start"]?["character"]?.intValue)
                var line = Array(lines[3].utf8)
                line.insert(contentsOf: Array(edit["newText"]!.stringValue!.utf8), at: at)
                lines[3] = String(decoding: line, as: UTF8.self)
                XCTAssertEqual(lines[3], expected)
            }
        }
    }

    /// The lens above a repertoire game: of the 12 games after 1. e4, 10 leave it (1... c5
    /// four times, 2... d6 twice, 2... d5 once, 3... a6 three times); its command shows the
    /// biggest gap, 1... c5, where the client can be asked to.
    func testTheCodeLensGivesTheCoverageAndGoesToTheBiggestGap() async throws {
        let capabilities: JSONValue = ["window": ["showDocument": ["support": true]]]
        try await withExplorer(settings: Self.settings, capabilities: capabilities, prepare: Self.prepare) {
            client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            let lenses =
                try await client.result("textDocument/codeLens", ["textDocument": ["uri": .string(uri)]]).arrayValue
                ?? []
            let lens = try XCTUnwrap(lenses.first { $0["command"]?["command"] == "pgn.goToRepertoireGap" })
            XCTAssertEqual(lens["command"]?["title"], "Repertoire: 17% of 12 games answered · biggest gap 1... c5 (4)")
            XCTAssertEqual(lens["range"], range(0, 0, 0, 0))
            let arguments = try XCTUnwrap(lens["command"]?["arguments"])
            XCTAssertEqual(arguments, [.string(uri), ["line": 3, "character": 3]])
            let id = client.startRequest(
                "workspace/executeCommand", ["command": "pgn.goToRepertoireGap", "arguments": arguments])
            let shown = try await client.serverRequest("window/showDocument")
            XCTAssertEqual(shown.params?["uri"]?.stringValue, uri)
            XCTAssertEqual(shown.params?["selection"], range(3, 3, 3, 3))
            client.send(.response(id: shown.id, result: .success(["success": true])))
            let answer = try await client.response(to: id)
            XCTAssertEqual(answer, .success(["shown": true]))
        }
    }

    /// The second fix of a gap: the reply with Stockfish's answer, written through the client.
    func testAGapIsPreparedWithTheEnginesAnswer() async throws {
        let stockfish = "/usr/games/stockfish"
        guard FileManager.default.isExecutableFile(atPath: stockfish) else {
            throw XCTSkip("Stockfish is installed by scripts/bootstrap")
        }
        let settings: JSONValue = [
            "repertoire": ["minGames": 1], "engine": ["path": .string(stockfish), "hoverMs": 0], "review": ["depth": 6],
        ]
        let capabilities: JSONValue = [
            "textDocument": ["codeAction": ["codeActionLiteralSupport": [:]]], "workspace": ["applyEdit": true],
        ]
        try await withExplorer(settings: settings, capabilities: capabilities, prepare: Self.prepare) {
            client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            _ = try await diagnostics(client, uri)
            let actions =
                try await client.result(
                    "textDocument/codeAction",
                    ["textDocument": ["uri": .string(uri)], "range": range(3, 3, 3, 3), "context": ["diagnostics": []]]
                ).arrayValue ?? []
            let engine = try XCTUnwrap(actions.first { $0["title"] == "Prepare 1... c5 with the engine's answer" })
            XCTAssertEqual(engine["kind"], "quickfix")
            let command = try XCTUnwrap(engine["command"])
            let id = client.startRequest(
                "workspace/executeCommand", ["command": command["command"]!, "arguments": command["arguments"]!])
            let apply = try await client.serverRequest("workspace/applyEdit")
            let edit = try XCTUnwrap(apply.params?["edit"]?["changes"]?[uri]?.arrayValue?.first)
            XCTAssertEqual(edit["range"], range(3, 8, 3, 8))
            let written = try XCTUnwrap(edit["newText"]?.stringValue)
            XCTAssertTrue(written.hasPrefix(" (1... c5 2. ") && written.hasSuffix(")"), written)
            client.send(.response(id: apply.id, result: .success(["applied": true])))
            let answer = try await client.response(to: id)
            XCTAssertEqual(answer, .success(["applied": true]))
        }
    }

    /// The lens "Check the repertoire with the engine": every move of White's judged, and
    /// 3. Qxe5+, which loses the queen, a warning with the engine's move.
    func testTheEngineJudgesEveryMoveOfTheRepertoiresSide() async throws {
        let stockfish = "/usr/games/stockfish"
        guard FileManager.default.isExecutableFile(atPath: stockfish) else {
            throw XCTSkip("Stockfish is installed by scripts/bootstrap")
        }
        let text = "[Event \"Early queen\"]\n[Orientation \"white\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxe5+ (3. Bc4) *\n"
        let settings: JSONValue = ["engine": ["path": .string(stockfish), "hoverMs": 0], "review": ["depth": 8]]
        try await withExplorer(settings: settings, prepare: { _ in }) { client, folder in
            let uri = client.openMine(folder, text)
            _ = try await diagnostics(client, uri)
            let lenses =
                try await client.result("textDocument/codeLens", ["textDocument": ["uri": .string(uri)]]).arrayValue
                ?? []
            let lens = try XCTUnwrap(lenses.first { $0["command"]?["command"] == "pgn.reviewRepertoire" }, "\(lenses)")
            XCTAssertEqual(lens["command"]?["title"], "Check the repertoire with the engine")
            let answer = try await client.result(
                "workspace/executeCommand",
                ["command": "pgn.reviewRepertoire", "arguments": lens["command"]?["arguments"] ?? []])
            XCTAssertEqual(answer["moves"], 4)
            XCTAssertGreaterThanOrEqual(answer["errors"]?.intValue ?? 0, 1)
            var mistakes: [JSONValue] = []
            while mistakes.isEmpty {
                mistakes = try await diagnostics(client, uri).filter { $0["code"] == "repertoire-mistake" }
            }
            let blunder = try XCTUnwrap(mistakes.first { $0["range"]?["start"]?["character"] == 23 }, "\(mistakes)")
            XCTAssertTrue(
                blunder["message"]?.stringValue?.hasPrefix("3. Qxe5+: a blunder for the engine (") == true,
                "\(blunder)")
            XCTAssertEqual(blunder["severity"], 2)
            XCTAssertFalse(mistakes.contains { $0["range"]?["start"]?["character"] == 3 }, "1. e4 is no mistake")
        }
    }

    func testNoGapsWithoutADatabaseOrWhenSwitchedOffAndNoneForOtherGames() async throws {
        try await withExplorer(settings: Self.settings, prepare: { _ in }) { client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            let found = try await diagnostics(client, uri)
            XCTAssertEqual(found.filter { $0["code"] == "repertoire-gap" }.count, 0)
        }
        let off: JSONValue = ["repertoire": ["minGames": 1, "gaps": false]]
        try await withExplorer(settings: off, prepare: Self.prepare) { client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            let found = try await diagnostics(client, uri)
            XCTAssertEqual(found.filter { $0["code"] == "repertoire-gap" }.count, 0)
        }
        try await withExplorer(settings: Self.settings, prepare: Self.prepare) { client, folder in
            let uri = client.openMine(
                folder, Self.repertoire.replacingOccurrences(of: "[Orientation \"white\"]\n", with: ""))
            let found = try await diagnostics(client, uri)
            XCTAssertEqual(found.filter { $0["code"] == "repertoire-gap" }.count, 0)
        }
    }

    func testTheSameDepthLimitsTheGaps() async throws {
        let shallow: JSONValue = ["repertoire": ["minGames": 1, "depth": 2]]
        try await withExplorer(settings: shallow, prepare: Self.prepare) { client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            let gaps = try await diagnostics(client, uri).filter { $0["code"] == "repertoire-gap" }
            XCTAssertEqual(gaps.compactMap { $0["message"]?.stringValue?.prefix(8) }, ["1... c5:"])
        }
    }

    /// A game that looks like a repertoire (variations, or no players) and names no side gets
    /// the actions that write its `Orientation` tag; a played game does not.
    func testAGameIsMarkedAsARepertoireByItsOrientationTag() async throws {
        let text = """
            [Event "Lines"]

            1. e4 e5 (1... c5 2. Nf3) 2. Nf3 *

            [White "Carlsen, Magnus"]
            [Black "Anand, Viswanathan"]

            1. e4 e5 2. Nf3 *

            """
        let literals: JSONValue = ["textDocument": ["codeAction": ["codeActionLiteralSupport": [:]]]]
        try await withExplorer(capabilities: literals, prepare: { _ in }) { client, folder in
            let uri = client.openMine(folder, text)
            func actions(_ line: Int) async throws -> [JSONValue] {
                let all =
                    try await client.result(
                        "textDocument/codeAction",
                        [
                            "textDocument": ["uri": .string(uri)], "range": range(line, 3, line, 3),
                            "context": ["diagnostics": [], "only": ["refactor.rewrite"]],
                        ]
                    ).arrayValue ?? []
                return all.filter { $0["title"]?.stringValue?.hasPrefix("Mark as") == true }
            }
            let marks = try await actions(2)
            XCTAssertEqual(marks.map(\.["title"]), ["Mark as White's repertoire", "Mark as Black's repertoire"])
            XCTAssertEqual(
                marks.first?["edit"]?["changes"]?[uri],
                [["range": range(0, 15, 0, 15), "newText": "\n[Orientation \"white\"]"]])
            let played = try await actions(7)
            XCTAssertEqual(played.count, 0)
        }
    }

    /// The player's other repertoire files (`repertoire.white`): the Sicilian answered there is
    /// no gap here, and the Italian there is a conflict with this file's 3. Bb5.
    func testTheOtherRepertoireFilesAnswerRepliesAndConflict() async throws {
        let settings: JSONValue = ["repertoire": ["minGames": 1, "white": ["white-*.pgn", "mine.pgn"]]]
        try await withExplorer(
            settings: settings,
            prepare: { folder in
                try Self.prepare(folder)
                try Self.repertoire.write(
                    to: folder.appendingPathComponent("mine.pgn"), atomically: true, encoding: .utf8)
                try "[Event \"Sicilian\"]\n\n1. e4 c5 2. Nf3 *\n".write(
                    to: folder.appendingPathComponent("white-sicilian.pgn"), atomically: true, encoding: .utf8)
                try "[Event \"Italian\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n".write(
                    to: folder.appendingPathComponent("white-italian.pgn"), atomically: true, encoding: .utf8)
            }
        ) { client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            let found = try await diagnostics(client, uri)
            let gaps = found.filter { $0["code"] == "repertoire-gap" }.compactMap { $0["message"]?.stringValue }
            XCTAssertFalse(gaps.contains { $0.hasPrefix("1... c5") }, "\(gaps)")
            XCTAssertEqual(gaps.count, 3)
            let conflicts = found.filter { $0["code"] == "repertoire-conflict" }
            XCTAssertEqual(
                conflicts.compactMap { $0["message"]?.stringValue },
                ["3. Bb5 here, but 3. Bc4 in the same position in white-italian.pgn:3 (Italian)"])
        }
    }

    /// 3. d4 after 1. e4 Nc6 2. Nf3 e5, where the other line plays 3. Bb5: a warning at d4
    /// pointing at Bb5. 3. Bb5 (3. Bc4), alternatives at one place, is no conflict, nor is 3. Bc4
    /// in a third line, which one of them plays.
    func testAPositionAnsweredTwoWaysInTwoLinesIsAConflict() async throws {
        let text = """
            [Event "Ruy"]
            [Orientation "white"]

            1. e4 e5 2. Nf3 Nc6 3. Bb5 (3. Bc4) *

            [Event "Other order"]
            [Orientation "white"]

            1. e4 Nc6 2. Nf3 e5 3. d4 *

            [Event "Italian"]
            [Orientation "white"]

            1. e4 Nc6 2. Nf3 e5 3. Bc4 *

            """
        try await withExplorer(prepare: { _ in }) { client, folder in
            let uri = client.openMine(folder, text)
            let conflicts = try await diagnostics(client, uri).filter { $0["code"] == "repertoire-conflict" }
            XCTAssertEqual(conflicts.count, 1)
            let conflict = try XCTUnwrap(conflicts.first)
            XCTAssertEqual(conflict["message"], "3. d4 here, but 3. Bb5 in the same position in another line")
            XCTAssertEqual(conflict["severity"], 2)
            XCTAssertEqual(conflict["range"]?["start"]?["line"], 8)
            XCTAssertEqual(
                conflict["relatedInformation"]?.arrayValue?.first?["location"]?["range"]?["start"]?["line"], 3)
        }
    }

    /// The gaps follow the settings and the explorer's filter when they change without an edit.
    func testTheGapsFollowTheSettingsAndTheFilter() async throws {
        try await withExplorer(settings: Self.settings, prepare: Self.prepare) { client, folder in
            let uri = client.openMine(folder, Self.repertoire)
            func gaps() async throws -> [String] {
                try await diagnostics(client, uri).filter { $0["code"] == "repertoire-gap" }.compactMap {
                    $0["message"]?.stringValue
                }
            }
            let first = try await gaps()
            XCTAssertEqual(first.count, 4, "\(first)")
            // Only replies of 4 games or more now: 1... c5 (4) and 3... a6 (3 of 5 is not 4).
            client.notify(
                "workspace/didChangeConfiguration",
                ["settings": ["pgn": ["repertoire": ["minGames": 4, "minShare": 5]]]])
            let fewer = try await gaps()
            XCTAssertEqual(fewer, ["1... c5: 33% of 12 games — not prepared; most played answer: Nf3"])
            // B1's four games: 1... c5 in one of the four after 1. e4, no 2... d5 at all.
            client.notify(
                "workspace/didChangeConfiguration",
                ["settings": ["pgn": ["repertoire": ["minGames": 1, "minShare": 5], "explorer": ["player": "B1"]]]])
            let theirs = try await gaps()
            XCTAssertEqual(
                theirs,
                [
                    "1... c5: 25% of 4 games — not prepared; most played answer: Nf3",
                    "2... d6: 50% of 2 games — not prepared; most played answer: d4",
                    "3... a6: 50% of 2 games — not prepared",
                ])
        }
    }
}
