import ChessCore
import Foundation
import LanguageServer
import PGN
import PGNServer
import TestSupport
import XCTest

/// The board of a move's hover: a picture (an SVG as a `data:` image) for the clients that show
/// markdown images, a text board with the marks listed for the others, as `hover.boardImage`
/// decides; and the picture itself.
final class BoardPictureTests: XCTestCase {
    let markdown: JSONValue = ["textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]]]
    let plainText: JSONValue = ["textDocument": ["hover": ["contentFormat": ["plaintext"]]]]
    let vscode: JSONValue = ["name": "Visual Studio Code", "version": "1.96.0"]
    let neovim: JSONValue = ["name": "Neovim", "version": "0.11.4"]

    // Line 2: `1. e4 e5 2. Nf3 {…} Nc6 *`; Nf3 (a white move, so Black is to move after it) at 12.
    let text = """
        [Event "Marks"]

        1. e4 e5 2. Nf3 {[%csl Ga4,Rb5][%cal Ge2e4,Bd7d5] A plan} Nc6 *

        """

    private func hoverValue(
        clientInfo: JSONValue, capabilities: JSONValue? = nil, setting: String? = nil, character: Int = 13
    ) async throws -> (kind: String, value: String) {
        let client = try await TestClient.pgn(text, capabilities: capabilities ?? markdown, clientInfo: clientInfo)
        if let setting {
            client.notify(
                "workspace/didChangeConfiguration",
                ["settings": ["pgn": ["hover": ["boardImage": .string(setting)]]]])
        }
        let hover = try await client.result("textDocument/hover", at(2, character))
        return (hover["contents"]?["kind"]?.stringValue ?? "", hover["contents"]?["value"]?.stringValue ?? "")
    }

    /// The SVG of the hover's picture, decoded; nil when the hover has none.
    private func picture(_ value: String) -> String? {
        guard let start = value.range(of: "(data:image/svg+xml;base64,"),
            let end = value[start.upperBound...].firstIndex(of: ")"),
            let data = Data(base64Encoded: String(value[start.upperBound..<end]))
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    func testVSCodeGetsAPictureByDefault() async throws {
        let (kind, value) = try await hoverValue(clientInfo: vscode)
        XCTAssertEqual(kind, "markdown")
        XCTAssertTrue(value.contains("![The board after 2. Nf3](data:image/svg+xml;base64,"), value)
        XCTAssertFalse(value.contains("```text"), "no text board beside the picture")
        let svg = try XCTUnwrap(picture(value))
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), svg)
        // White at the bottom, whoever is to move (`board.orientation`): a1 at the bottom left.
        XCTAssertTrue(svg.contains("<use href=\"#k\" x=\"400\" y=\"700\"/>"), "the white king on e1, bottom row")
        // The marks are listed under the picture too.
        XCTAssertTrue(value.contains("Marked: a4 (green), b5 (red) · Arrows: e2→e4 (green), d7→d5 (blue)"), value)
        XCTAssertFalse(value.contains("Squares "), value)
    }

    func testEditorsBuiltOnVSCodeGetAPicture() async throws {
        for name in ["Code - OSS", "VSCodium", "Cursor", "Visual Studio Code - Insiders", "visual studio code"] {
            let (_, value) = try await hoverValue(clientInfo: ["name": .string(name)])
            XCTAssertNotNil(picture(value), name)
        }
    }

    func testOtherEditorsGetTheTextBoardWithTheMarksListed() async throws {
        for info: JSONValue in [neovim, ["name": "Emacs"], ["name": "tests"]] {
            let (kind, value) = try await hoverValue(clientInfo: info)
            XCTAssertEqual(kind, "markdown")
            XCTAssertNil(picture(value), "\(info)")
            XCTAssertFalse(value.contains("data:image"), value)
            XCTAssertTrue(value.contains("```text\n8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜"), value)
            XCTAssertTrue(
                value.contains("```\nMarked: a4 (green), b5 (red) · Arrows: e2→e4 (green), d7→d5 (blue)  \n"), value)
        }
    }

    func testAClientWithoutAName() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        _ = try await client.result("initialize", ["processId": .null, "capabilities": markdown])
        client.notify("initialized", [:])
        client.open(testURI, text)
        let value = try await client.result("textDocument/hover", at(2, 13))["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(value.contains("```text"), value)
    }

    func testAlwaysGivesEveryMarkdownClientAPicture() async throws {
        let (_, value) = try await hoverValue(clientInfo: neovim, setting: "always")
        XCTAssertNotNil(picture(value), value)
    }

    func testNeverGivesVSCodeTheTextBoard() async throws {
        let (_, value) = try await hoverValue(clientInfo: vscode, setting: "never")
        XCTAssertNil(picture(value), value)
        XCTAssertTrue(value.contains("```text"), value)
    }

    func testAPlainTextHoverNeverHasAPicture() async throws {
        for setting in ["auto", "always"] {
            let (kind, value) = try await hoverValue(clientInfo: vscode, capabilities: plainText, setting: setting)
            XCTAssertEqual(kind, "plaintext")
            XCTAssertFalse(value.contains("data:"), value)
            XCTAssertTrue(value.contains("1 ♖ ♘ ♗ ♕ ♔ ♗ · ♖"), value)
            XCTAssertTrue(value.contains("Marked: a4 (green), b5 (red)"), value)
        }
    }

    func testAnUnknownValueIsReportedAndLeavesTheSettingAsItWas() async throws {
        let client = try await TestClient.pgn(text, capabilities: markdown, clientInfo: vscode)
        client.notify(
            "workspace/didChangeConfiguration", ["settings": ["pgn": ["hover": ["boardImage": "sometimes"]]]])
        var warning = ""
        while !warning.contains("hover.boardImage") {
            warning = try await client.notification("window/logMessage")?["message"]?.stringValue ?? ""
        }
        XCTAssertTrue(warning.contains("hover.boardImage (expected auto, always or never)"), warning)
        let value = try await client.result("textDocument/hover", at(2, 13))["contents"]?["value"]?.stringValue ?? ""
        XCTAssertNotNil(picture(value), "still auto")
    }

    func testAMoveWithoutMarksHasNoMarksLine() async throws {
        let (_, value) = try await hoverValue(clientInfo: neovim, character: 4)
        XCTAssertTrue(value.hasPrefix("**1. e4** — White"), value)
        XCTAssertFalse(value.contains("Marked:") || value.contains("Arrows:"), value)
    }

    func testTheOrientationTurnsThePictureAndItsMarks() async throws {
        let client = try await TestClient.pgn(text, capabilities: markdown, clientInfo: vscode)
        client.notify(
            "workspace/didChangeConfiguration", ["settings": ["pgn": ["board": ["orientation": "black"]]]])
        let value = try await client.result("textDocument/hover", at(2, 13))["contents"]?["value"]?.stringValue ?? ""
        let svg = try XCTUnwrap(picture(value))
        // From Black's side: e1 at the top, h-file on the left; the arrow e2→e4 drawn down the
        // e-file from (350, 150) to (350, 350), the square a4 at the right.
        XCTAssertTrue(svg.contains("<use href=\"#k\" x=\"300\" y=\"0\"/>"), svg)
        XCTAssertTrue(svg.contains("<path fill=\"#15781b\" fill-opacity=\"0.6\" d=\"M700 300h100v100h-100z\"/>"), svg)
        XCTAssertTrue(svg.contains("d=\"M340 150 340 308 324 308 350 350 376 308 360 308 360 150z\""), svg)
    }

    // MARK: The picture

    func testThePictureIsSeenFromTheGivenSide() throws {
        let start = Position.startingPosition
        let white = BoardPicture.svg(start, from: .white)
        let black = BoardPicture.svg(start, from: .black)
        // The white king on e1: bottom row from White's side, top row from Black's, mirrored.
        XCTAssertTrue(white.contains("<use href=\"#k\" x=\"400\" y=\"700\"/>"), white)
        XCTAssertTrue(black.contains("<use href=\"#k\" x=\"300\" y=\"0\"/>"), black)
        // The black queen on d8.
        XCTAssertTrue(white.contains("<use href=\"#q\" x=\"300\" y=\"0\"/>"), white)
        XCTAssertTrue(black.contains("<use href=\"#q\" x=\"400\" y=\"700\"/>"), black)
        // Coordinates: file a at the bottom left from White's side, h from Black's; rank 8 at
        // the top from White's side, 1 from Black's.
        XCTAssertTrue(white.contains("<text x=\"84\" y=\"794\">a</text>"), white)
        XCTAssertTrue(black.contains("<text x=\"84\" y=\"794\">h</text>"), black)
        XCTAssertTrue(white.contains("<text x=\"4\" y=\"22\">8</text>"), white)
        XCTAssertTrue(black.contains("<text x=\"4\" y=\"22\">1</text>"), black)
    }

    func testTheMarksAreDrawnInTheirColours() throws {
        let (e2, e4) = (Square("e2")!, Square("e4")!)
        let marks = BoardMarks(
            move: [e2, e4],
            squares: [.init(color: "G", square: Square("a4")!), .init(color: "r", square: Square("b5")!)],
            arrows: [.init(color: "B", from: e2, to: e4), .init(color: "Y", from: .h1, to: .h1)])
        let svg = BoardPicture.svg(Position.startingPosition, marks: marks, from: .white)
        XCTAssertTrue(
            svg.contains(
                "<path fill=\"#9bc700\" fill-opacity=\"0.41\" d=\"M400 600h100v100h-100zM400 400h100v100h-100z\"/>"),
            svg)
        XCTAssertTrue(svg.contains("<path fill=\"#15781b\" fill-opacity=\"0.6\" d=\"M0 400h100v100h-100z\"/>"), svg)
        XCTAssertTrue(svg.contains("<path fill=\"#882020\" fill-opacity=\"0.6\" d=\"M100 300h100v100h-100z\"/>"), svg)
        // e2 → e4: from the centre of e2 (450, 650) up to the centre of e4 (450, 450).
        XCTAssertTrue(
            svg.contains(
                "<path fill=\"#003088\" fill-opacity=\"0.8\" d=\"M460 650 460 492 476 492 450 450 424 492 440 492 440 650z\"/>"
            ),
            svg)
        // An arrow from a square to itself is a ring.
        XCTAssertTrue(svg.contains("<circle cx=\"750\" cy=\"750\" r=\"42\" fill=\"none\" stroke=\"#e68f00\""), svg)
    }

    func testMarksInAColourNoBoardDrawsAreLeftOutOfThePictureAndNamedInTheList() throws {
        let marks = BoardMarks(
            move: nil, commands: CommentCommand.parse("[%csl Xa4,Gb4,Xb4][%cal Xa1a8]").map(\.command))
        // A square marked again keeps its first colour.
        XCTAssertEqual(marks.summary, "Marked: a4 (colour `X`), b4 (green) · Arrows: a1→a8 (colour `X`)")
        let svg = BoardPicture.svg(Position.startingPosition, marks: marks, from: .white)
        XCTAssertEqual(svg.components(separatedBy: "fill-opacity").count, 2, "b4 alone")
        XCTAssertTrue(svg.contains("<path fill=\"#15781b\" fill-opacity=\"0.6\" d=\"M100 400h100v100h-100z\"/>"), svg)
    }

    func testThePictureStaysUnderEightKilobytes() throws {
        // Every square marked, arrows beyond the limit, as many pieces as a position holds (32),
        // the move marked.
        let crowded = Position.startingPosition
        var squares: [CommentCommand.ColoredSquare] = []
        for square in Square.all { squares.append(.init(color: Array("GRYB")[square.index % 4], square: square)) }
        var arrows: [CommentCommand.ColoredArrow] = []
        for from in Square.all { arrows.append(.init(color: "R", from: from, to: Square(63 - from.index))) }
        let marks = BoardMarks(move: [.a1, .h8], squares: squares, arrows: arrows)
        for side in [Color.white, .black] {
            let svg = BoardPicture.svg(crowded, marks: marks, from: side)
            XCTAssertLessThanOrEqual(svg.utf8.count, BoardPicture.maximumBytes)
            XCTAssertEqual(
                svg.components(separatedBy: "fill-opacity=\"0.8\"").count - 1, BoardPicture.maximumArrows)
        }
        // The starting position with a few marks, as annotators write them, is far smaller.
        let usual = BoardPicture.svg(
            Position.startingPosition,
            marks: BoardMarks(
                move: [Square("e2")!, Square("e4")!], squares: Array(squares.prefix(3)), arrows: Array(arrows.prefix(2))
            ),
            from: .black)
        XCTAssertLessThan(usual.utf8.count, 5 * 1024)
    }

    func testTheMarkdownImageHoldsTheSVGInBase64() throws {
        let svg = BoardPicture.svg(Position.startingPosition, from: .white)
        let image = BoardPicture.markdownImage(svg, title: "The board [after] 1. e4")
        XCTAssertTrue(image.hasPrefix("![The board (after) 1. e4](data:image/svg+xml;base64,"), image)
        XCTAssertEqual(picture(image), svg)
    }
}
