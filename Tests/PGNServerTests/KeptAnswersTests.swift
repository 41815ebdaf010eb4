import LanguageServer
import TestSupport
import XCTest

@testable import PGNServer

/// The outline, folds and code lenses after an edit take the games the edit left alone from
/// the last answer (`KeptAnswers`): they must be those of a server that reads the edited text
/// for the first time, whatever the edit moved.
final class KeptAnswersTests: XCTestCase {
    private static let capabilities: JSONValue = [
        "textDocument": [
            "documentSymbol": ["hierarchicalDocumentSymbolSupport": true], "foldingRange": ["rangeLimit": 60],
        ]
    ]

    /// Thirty games: named and unnamed ones, variations, a comment over two lines, a name
    /// with a character outside ASCII, a game without moves, and one starting where the one
    /// before ends.
    private static func games() -> String {
        var text = ""
        for k in 0..<30 {
            switch k % 5 {
            case 0: text += "1. e4 e5 2. Nf3 (2. f4 exf4) 2... Nc6 *\n\n"
            case 1:
                text += "[Event \"Club \(k)\"]\n[White \"Ærø, Jens\"]\n[Black \"B\(k)\"]\n[Result \"1-0\"]\n\n"
                text += "1. d4 {a comment\nover two lines} d5 (1... Nf6 2. c4 (2. Nf3)) 2. c4 1-0\n\n"
            case 2: text += "[Event \"Empty \(k)\"]\n\n*\n\n"
            case 3: text += "[White \"W\(k)\"]\n[Black \"B\(k)\"]\n\n1. c4 c5 *  [White \"Next\"] 1. g3 *\n\n"
            default: text += "1. Nf3 d5 2. g3 *\n\n"
            }
        }
        return text
    }

    /// The text with `range` (lines and UTF-16 columns, a column past a line's end meaning its
    /// end) replaced by `new`.
    private static func replacing(_ text: String, _ range: LSPRange, with new: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func offset(_ position: LSPPosition) -> Int {
            guard position.line < lines.count else { return text.utf16.count }
            return lines[..<position.line].reduce(0) { $0 + $1.utf16.count + 1 }
                + min(position.character, lines[position.line].utf16.count)
        }
        let utf16 = Array(text.utf16)
        let (start, end) = (offset(range.start), offset(range.end))
        return String(decoding: utf16[..<start], as: UTF16.self) + new
            + String(decoding: utf16[end...], as: UTF16.self)
    }

    /// The line and column where `text` holds `piece` (first found).
    private static func position(of piece: String, in text: String) -> LSPPosition {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (line, content) in lines.enumerated() {
            if let found = content.range(of: piece) {
                return LSPPosition(line: line, character: content[..<found.lowerBound].utf16.count)
            }
        }
        return LSPPosition(line: 0, character: 0)
    }

    private static let requests = ["textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/codeLens"]

    private func answers(_ client: TestClient) async throws -> [JSONValue] {
        var answers: [JSONValue] = []
        for method in Self.requests {
            answers.append(try await client.result(method, ["textDocument": textDocument()]))
        }
        return answers
    }

    func testAnswersAfterEditsAreThoseOfTheTextReadAnew() async throws {
        var text = Self.games()
        let client = try await TestClient.pgn(text, capabilities: Self.capabilities)
        _ = try await answers(client)
        func at(_ line: Int, _ character: Int) -> LSPPosition { LSPPosition(line: line, character: character) }
        func before(_ piece: String) -> LSPRange {
            let position = Self.position(of: piece, in: text)
            return LSPRange(start: position, end: position)
        }
        let edits: [(what: String, range: () -> LSPRange, text: String)] = [
            ("a move typed in one game", { before("Nf3 d5") }, "x"),
            ("a line added: the games after it move down", { LSPRange(start: at(20, 0), end: at(20, 0)) }, "\n"),
            ("seven games taken out", { LSPRange(start: at(30, 0), end: at(62, 0)) }, ""),
            (
                "a game without a name put first: the unnamed games' numbers change",
                { LSPRange(start: at(0, 0), end: at(0, 0)) }, "1. b3 *\n\n"
            ),
            ("a game that starts inside a line moved to the right", { before("[White \"Next\"]") }, "  "),
            ("a game's name changed", { before("3\"]") }, "1"),
            (
                "the typed move taken out",
                {
                    let x = Self.position(of: "xNf3 d5", in: text)
                    return LSPRange(start: x, end: LSPPosition(line: x.line, character: x.character + 1))
                }, ""
            ),
            (
                "every game replaced but the first",
                { LSPRange(start: at(2, 0), end: at(400, 0)) }, Self.games()
            ),
        ]
        for (version, edit) in edits.enumerated() {
            let range = edit.range()
            client.change(testURI, version: version + 2, [changeEvent(range, edit.text)])
            text = Self.replacing(text, range, with: edit.text)
            let fresh = try await TestClient.pgn(text, capabilities: Self.capabilities)
            let expected = try await answers(fresh)
            let kept = try await answers(client)
            for (k, method) in Self.requests.enumerated() {
                XCTAssertEqual(kept[k], expected[k], "\(method) after \(edit.what)")
            }
            XCTAssertGreaterThan(expected[0].arrayValue?.count ?? 0, 0, "\(edit.what): an outline")
        }
    }

    func testAnOutlineEditedManyTimesIsThatOfTheTextReadAnew() async throws {
        // Each edit adds the edited game's symbol to those kept; past twice the games' count
        // they are written anew with only the games' own.
        let text = Self.games()
        let client = try await TestClient.pgn(text, capabilities: Self.capabilities)
        let move = Self.position(of: "Nf3 d5", in: text)
        for k in 0..<90 {
            let range =
                k % 2 == 0
                ? LSPRange(start: move, end: move)
                : LSPRange(start: move, end: LSPPosition(line: move.line, character: move.character + 1))
            client.change(testURI, version: k + 2, [changeEvent(range, k % 2 == 0 ? "x" : "")])
            _ = try await client.result("textDocument/documentSymbol", ["textDocument": textDocument()])
        }
        let fresh = try await TestClient.pgn(text, capabilities: Self.capabilities)
        let expected = try await fresh.result("textDocument/documentSymbol", ["textDocument": textDocument()])
        let kept = try await client.result("textDocument/documentSymbol", ["textDocument": textDocument()])
        XCTAssertEqual(kept, expected)
    }

    func testGamesAreMatchedByTheirAnalysisInOrder() {
        let analyses = (0..<12).map { k in GameAnalysis(text: GameText(Array("1. e4 e5 \(k)-0 *".utf8))) }
        let old = analyses.enumerated().map { PlacedGame($1.text.bytes.indices.shifted(by: 100 * $0), analysis: $1) }
        let edited = GameAnalysis(text: GameText(Array("1. d4 *".utf8)))
        // Game 2 edited, games 5 to 10 taken out.
        var new = Array(old[0..<2]) + [PlacedGame(200..<207, analysis: edited)] + old[3..<5] + [old[11]]
        new = new.map { $0.shifted(by: 3) }
        let alignment = GameAlignment(new, from: old)
        XCTAssertEqual(alignment.earlier, [0, 1, nil, 3, 4, 11])
        XCTAssertEqual(alignment.unmatched, [2])
        XCTAssertEqual(GameAlignment(new, from: nil).unmatched, Array(0..<6))
    }
}
