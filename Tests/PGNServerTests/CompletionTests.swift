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
        // The capture first, then the knight that leaves its back rank, then the others.
        XCTAssertEqual(labels(moves), ["Nxe5", "Na3", "Nc3", "Ng1", "Nd4", "Nh4", "Ng5"])
        XCTAssertEqual(moves.first?["detail"], "white knight f3e5")
        XCTAssertEqual(moves.first?["kind"], 20, "EnumMember: one of the legal moves")
        XCTAssertEqual(moves.first?["textEdit"], ["range": range(2, 23, 2, 24), "newText": "Nxe5"], "replaces the N")
        XCTAssertEqual(moves.compactMap { $0["sortText"]?.stringValue }, (0..<7).map { String(format: "%04d", $0) })
    }

    /// Captures (the most valuable piece taken first), checks, developing moves (a minor piece
    /// off its back rank, castling), the others, king moves last.
    func testTheMovesComeInTheOrderAPlayerLooksForThem() async throws {
        // White to move: Bxf7+ and Nxe5 take, Qh5 and Bb5 do not check, O-O is possible.
        let text = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. d3 Qh4 5. \n"
        let client = try await TestClient.pgn(text)
        let result = try await client.result("textDocument/completion", at(2, 44))
        let moves = labels(result["items"]?.arrayValue ?? [])
        XCTAssertEqual(Array(moves.prefix(2)), ["Nxh4", "Nxd4"], "the queen, then the knight: \(moves)")
        XCTAssertEqual(Set(moves[2..<4]), ["Nxe5", "Bxf7+"], "\(moves)")
        let developing = ["Na3", "Nc3", "Nbd2", "Bd2", "Be3", "Bf4", "Bg5", "Bh6", "O-O"]
        let firstOther = try XCTUnwrap(moves.firstIndex { !developing.contains($0) && !$0.contains("x") })
        XCTAssertTrue(developing.allSatisfy { moves.firstIndex(of: $0)! < firstOther }, "\(moves)")
        XCTAssertEqual(Set(moves.suffix(2)), ["Kd2", "Kf1"], "\(moves)")
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
