import Foundation
import LanguageServer
import TestSupport
import XCTest

/// In the games of `repertoire.player`, an inlay hint after the move where the game left the
/// player's repertoire (`repertoire.white`, `repertoire.black`: files or patterns of the
/// workspace), saying who left it and what the repertoire plays there.
final class RepertoireHintTests: XCTestCase {
    static let white = """
        [Event "Ruy Lopez"]

        1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 (3... Nf6 4. O-O) 4. Ba4 *

        """
    static let black = """
        [Event "Nimzo-Indian"]

        1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 *

        [Event "English"]

        1. c4 Nf6 2. Nc3 e6 *

        """
    /// Line 4: Carlsen as White leaves with 3. Bc4; line 9: Black's 2... d6 leaves; line 14:
    /// Carlsen as Black transposes (1. c4 Nf6 2. d4) and reaches the end of the line; line 19:
    /// not Carlsen's game.
    static let games = """
        [White "Carlsen, Magnus"]
        [Black "Other"]

        1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 1-0

        [White "Carlsen, Magnus"]
        [Black "Other"]

        1. e4 e5 2. Nf3 d6 3. d4 1/2-1/2

        [White "Someone"]
        [Black "Carlsen, Magnus"]

        1. c4 Nf6 2. d4 e6 3. Nc3 Bb4 4. e3 O-O 0-1

        [White "Someone"]
        [Black "Else"]

        1. e4 c5 *

        """

    private func hints(_ settings: JSONValue) async throws -> [JSONValue] {
        var found: [JSONValue] = []
        try await withExplorer(
            settings: settings,
            prepare: { folder in
                try Self.white.write(
                    to: folder.appendingPathComponent("white-e4.pgn"), atomically: true, encoding: .utf8)
                try Self.black.write(to: folder.appendingPathComponent("black.pgn"), atomically: true, encoding: .utf8)
            }
        ) { client, folder in
            let uri = client.openMine(folder, Self.games)
            let all =
                try await client.result(
                    "textDocument/inlayHint",
                    ["textDocument": ["uri": .string(uri)], "range": range(0, 0, 20, 0)]
                ).arrayValue ?? []
            found = all.filter { $0["label"]?.stringValue?.hasPrefix("⤷") == true }
        }
        return found
    }

    func testEachGameOfThePlayerSaysWhereItLeftTheRepertoire() async throws {
        let found = try await hints([
            "repertoire": ["white": ["white-*.pgn"], "black": ["black.pgn"], "player": "carlsen m"]
        ])
        XCTAssertEqual(
            found.map { [$0["position"]?["line"], $0["position"]?["character"], $0["label"]] },
            [
                [3, 26, "⤷ repertoire: Bb5"],
                [8, 18, "⤷ not prepared"],
                [13, 35, "⤷ end of repertoire"],
            ])
        XCTAssertEqual(
            found.map { $0["tooltip"]?.stringValue },
            [
                "You left your repertoire with 3. Bc4: it plays Bb5 here (white-e4.pgn:3, Ruy Lopez).",
                "Your opponent left your repertoire with 2... d6: it prepares Nc6 here (white-e4.pgn:3, Ruy Lopez).",
                "Your repertoire ends before 4. e3 (black.pgn:3, Nimzo-Indian).",
            ])
    }

    func testNoHintsWithoutAPlayerOrRepertoireFiles() async throws {
        let noPlayer = try await hints(["repertoire": ["white": ["white-*.pgn"]]])
        XCTAssertEqual(noPlayer.count, 0)
        let noFiles = try await hints(["repertoire": ["player": "carlsen"], "board": ["player": "carlsen"]])
        XCTAssertEqual(noFiles.count, 0)
        // `board.player` stands in for `repertoire.player`; a pattern that finds no file is none.
        let board = try await hints([
            "repertoire": ["white": ["white-*.pgn", "none-*.pgn"]], "board": ["player": "carlsen"],
        ])
        XCTAssertEqual(board.count, 2)
    }
}
