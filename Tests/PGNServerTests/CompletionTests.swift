import LanguageServer
import TestSupport
import XCTest

/// Completion: the legal moves where a move goes, filtered by what is typed; NAGs after `$`;
/// tag names after `[`, and the values a tag takes inside its quotes.
final class CompletionTests: XCTestCase {
    /// By line: a game whose next move is being typed (`3. N`), a NAG, a tag name, a tag value.
    let text = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. N\n$1\n[Res\n[Result \""

    private func items(_ line: Int, _ character: Int) async throws -> [JSONValue] {
        let client = try await TestClient.pgn(text)
        let result = try await client.result("textDocument/completion", at(line, character))
        return result["items"]?.arrayValue ?? result.arrayValue ?? []
    }

    private func labels(_ items: [JSONValue]) -> [String] { items.compactMap { $0["label"]?.stringValue } }

    func testTheLegalMovesOfThePieceTyped() async throws {
        let moves = try await items(2, 24)
        XCTAssertEqual(labels(moves), ["Na3", "Nc3", "Ng1", "Nd4", "Nh4", "Nxe5", "Ng5"])
        XCTAssertEqual(moves.first?["detail"], "white knight b1a3")
        XCTAssertEqual(moves.first?["kind"], 6)
        XCTAssertEqual(moves.first?["textEdit"], ["range": range(2, 23, 2, 24), "newText": "Na3"], "replaces the N")
    }

    func testNAGsThatStartWithWhatIsTyped() async throws {
        let nags = try await items(3, 2)
        XCTAssertEqual(labels(nags), ["$1"] + (10...19).map { "$\($0)" } + (140...146).map { "$\($0)" })
        XCTAssertEqual(nags.first?["detail"], "! good move")
        XCTAssertEqual(nags.first?["textEdit"]?["range"], range(3, 0, 3, 2))
    }

    func testTagNamesAfterABracket() async throws {
        let names = try await items(4, 4)
        XCTAssertEqual(labels(names), ["Result"])
        XCTAssertEqual(names.first?["kind"], 10)
        XCTAssertEqual(names.first?["textEdit"]?["range"], range(4, 1, 4, 4))
    }

    func testTheValuesOfATag() async throws {
        let values = try await items(5, 9)
        XCTAssertEqual(labels(values), ["1-0", "0-1", "1/2-1/2", "*"])
        XCTAssertEqual(
            values.map { $0["detail"]?.stringValue }, ["White wins", "Black wins", "Draw", "Unknown or ongoing"])
        XCTAssertEqual(values.first?["textEdit"]?["range"], range(5, 9, 5, 9))
    }
}
