import LanguageServer
import TestSupport
import XCTest

/// Hover: on a move, its number, side and the position after it; on a tag, what the tag means.
final class HoverTests: XCTestCase {
    let markdown: JSONValue = ["textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]]]

    func testAMoveShowsItsNumberSideAndPositionAfter() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(5, 4))
        XCTAssertEqual(hover["range"], range(5, 3, 5, 5), "the move e4")
        XCTAssertEqual(hover["contents"]?["kind"], "markdown")
        let value = hover["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.hasPrefix("**1. e4** — White"), value)
        XCTAssertTrue(value.contains("`rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1`"), value)
        // White at the bottom, whoever is to move: rank 8 first.
        XCTAssertTrue(value.contains("```text\n8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜\n"), value)
        XCTAssertTrue(value.contains("4 · · · · ♙ · · ·"), value)
    }

    /// The first row of the text board in the hover of the move at (`line`, `character`) under
    /// the `board` settings.
    private func firstRow(_ board: JSONValue, _ line: Int, _ character: Int, text: String? = nil) async throws -> String
    {
        let client = try await TestClient.pgn(text ?? twoGames, capabilities: markdown)
        client.notify("workspace/didChangeConfiguration", ["settings": ["pgn": ["board": board]]])
        let value = try await client.result("textDocument/hover", at(line, character))["contents"]?["value"]
        let board = value?.stringValue?.components(separatedBy: "```text\n").dropFirst().first ?? ""
        return String(board.prefix { $0 != "\n" })
    }

    func testAThousandClocksInACommentGiveFourNotes() async throws {
        let clocks = Array(repeating: "[%clk 0:01:00]", count: 1_000).joined(separator: " ")
        let text = "[White \"A\"]\n\n1. e4 { \(clocks) } e5 *\n"
        for clientInfo: JSONValue in [["name": "Neovim"], ["name": "Visual Studio Code"]] {
            let client = try await TestClient.pgn(text, capabilities: markdown, clientInfo: clientInfo)
            let value = try await client.result("textDocument/hover", at(2, 4))["contents"]?["value"]?.stringValue
            XCTAssertEqual(value?.components(separatedBy: "Clock 0:01:00").count, 5, value ?? "")
        }
    }

    func testTheBoardOrientationSetting() async throws {
        let fromWhite = "8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜"
        let fromBlack = "1 ♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖"
        // 1. e4 (Black to move after it) and 1... e5 (White to move).
        var rows: [String] = []
        for orientation in ["white", "black", "sideToMove"] {
            rows.append(try await firstRow(["orientation": .string(orientation)], 5, 4))
            rows.append(try await firstRow(["orientation": .string(orientation)], 5, 7))
        }
        XCTAssertEqual(
            rows.map { String($0.prefix(fromWhite.count)) },
            [
                fromWhite, fromWhite, fromBlack, fromBlack, fromBlack, fromWhite,
            ])
    }

    func testAnUnknownOrientationIsReportedAndLeavesWhiteAtTheBottom() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        client.notify(
            "workspace/didChangeConfiguration", ["settings": ["pgn": ["board": ["orientation": "top", "player": 3]]]])
        var warning = ""
        while !warning.contains("board.") {
            warning = try await client.notification("window/logMessage")?["message"]?.stringValue ?? ""
        }
        XCTAssertTrue(warning.contains("board.orientation (expected white, black, sideToMove or player)"), warning)
        XCTAssertTrue(warning.contains("board.player (expected a string)"), warning)
        let value = try await client.result("textDocument/hover", at(5, 7))["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.contains("```text\n8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜\n"), value)
    }

    func testTheBoardIsSeenFromThePlayersSideInTheirGames() async throws {
        // Boris plays Black in the first game; Carl and Dora play the second: White at the bottom.
        let boris: JSONValue = ["orientation": "player", "player": "boris"]
        let borisBlack = try await firstRow(boris, 5, 4)
        let others = try await firstRow(boris, 12, 30)
        // An abbreviation of the name is the player too; White in every game of Anna's.
        let games = "[White \"Anna\"]\n[Black \"Carlsen, Magnus\"]\n\n1. e4 *\n"
        let carlsen = try await firstRow(["orientation": "player", "player": "Carlsen, M."], 3, 4, text: games)
        let anna = try await firstRow(["orientation": "player", "player": "Anna"], 3, 4, text: games)
        XCTAssertEqual(
            [borisBlack, others, carlsen, anna].map { String($0.prefix(11)) },
            ["1 ♖ ♘ ♗ ♔ ♕", "8 ♜ ♞ ♝ ♛ ♚", "1 ♖ ♘ ♗ ♔ ♕", "8 ♜ ♞ ♝ ♛ ♚"])
    }

    /// A lichess game's move with its clock, evaluation and captures, in a database's workspace:
    /// the move, the opening, the board with the comment's figures beside it, the FEN and the
    /// explorer, in that order, in at most 20 lines of at most 80 columns.
    func testTheHoverIsOrderedAndFitsTwentyLinesOfEightyColumns() async throws {
        let text = """
            [White "Me"]

            1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 { [%eval 0.12] [%clk 0:02:55] } dxc6 *

            """
        try await withExplorer(capabilities: markdown, clientInfo: ["name": "Neovim"]) { client, folder in
            let uri = client.openMine(folder, text)
            // 4. Bxc6: the Exchange Variation.
            let value = try await client.hoverText(uri, 2, 34)
            let lines = value.components(separatedBy: "\n")
            XCTAssertLessThanOrEqual(lines.count, 20, value)
            for line in lines {
                let shown = line.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "`", with: "")
                XCTAssertLessThanOrEqual(shown.count, 80, line)
            }
            XCTAssertEqual(lines.first, "**4. Bxc6** — White  ")
            XCTAssertEqual(lines[1], "Opening: **C68 Ruy Lopez: Exchange Variation**")
            XCTAssertEqual(lines[2], "```text")
            XCTAssertEqual(lines[3], "8 ♜ · ♝ ♛ ♚ ♝ ♞ ♜   Evaluation +0.12")
            XCTAssertEqual(lines[4], "7 · ♟ ♟ ♟ · ♟ ♟ ♟   Clock 0:02:55")
            XCTAssertEqual(lines[5], "6 ♟ · ♗ · · · · ·   White lost nothing")
            XCTAssertEqual(lines[6], "5 · · · · ♟ · · ·   Black lost ♞")
            XCTAssertEqual(lines[7], "4 · · · · ♙ · · ·   White is 3 up")
            XCTAssertEqual(lines[12], "```")
            XCTAssertTrue(lines[13].hasPrefix("FEN `r1bqkbnr/1ppp1ppp/p1B5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 4`"))
            XCTAssertTrue(lines[14].hasPrefix("**Explorer** — no game of games.ocgdb.db3 reached"), value)
        }
    }

    func testAMoveOfTheSecondGameIsReplayedInItsOwnGame() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(12, 30))
        XCTAssertEqual(hover["range"], range(12, 29, 12, 31), "the move c4")
        let value = hover["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.hasPrefix("**2. c4** — White"), value)
        XCTAssertTrue(value.contains("`rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2`"), value)
    }

    func testATagShowsItsMeaning() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(1, 2))
        XCTAssertEqual(hover["range"], range(1, 0, 1, 14))
        XCTAssertEqual(
            hover["contents"]?["value"],
            "**White** `Anna`\n\nThe player of the white pieces, `Last, First` (Seven Tag Roster).")
    }

    func testABlankLineBetweenGamesHasNoHover() async throws {
        let client = try await TestClient.pgn(twoGames, capabilities: markdown)
        let hover = try await client.result("textDocument/hover", at(7, 0))
        XCTAssertEqual(hover, .null)
    }

    func testTextFromTheFileIsShownAsTextNotAsMarkdownAndBounded() async throws {
        let squares = Array(repeating: "Ga1,Rb2,Yc3,Bd4", count: 5_000).joined(separator: ",")
        let arrows = Array(repeating: "Ga1h8,Rb2b7", count: 5_000).joined(separator: ",")
        let text = """
            [White "![t](https://example.invalid/pixel.png) `x` <img src=y>"]

            1. e4 { [%foo ![t](https://example.invalid/p.png)] [%bar <img src=z>] [%csl \(squares)] [%cal \(arrows)] [%csl *e5] } e5 *

            """
        let client = try await TestClient.pgn(text, capabilities: markdown)
        let tag = try await client.result("textDocument/hover", at(0, 3))["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(tag.hasPrefix("**White** ``![t](https://example.invalid/pixel.png) `x` <img src=y>``"), tag)
        let move = try await client.result("textDocument/hover", at(2, 4))["contents"]?["value"]?.stringValue ?? ""
        // A command ends at the first `]`: the rest is the comment's text, which the hover leaves out.
        XCTAssertTrue(move.contains("`%foo ![t` · `%bar <img src=z>`"), move)
        XCTAssertTrue(
            move.contains("Marked: a1 (green), b2 (red), c3 (yellow), d4 (blue), e5 (colour `*`) · Arrows:"), move)
        XCTAssertLessThan(move.utf8.count, 4_000, "a hover stays short, however long the comment")
        let plain = try await TestClient.pgn(text)
        let plainTag = try await plain.result("textDocument/hover", at(0, 3))["contents"]?["value"]?.stringValue
        XCTAssertEqual(plainTag?.hasPrefix("White ![t](https://example.invalid/pixel.png) x <img src=y>\n"), true)
    }
}
