import ChessCore
import XCTest

final class MaterialTests: XCTestCase {
    func testDiagramFromEitherSide() {
        let start = Position.startingPosition
        let white = start.diagram(from: .white).split(separator: "\n")
        XCTAssertEqual(white.first, "8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜")
        XCTAssertEqual(white[7], "1 ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖")
        XCTAssertEqual(white.last, "  a b c d e f g h")
        let black = start.diagram(from: .black).split(separator: "\n")
        XCTAssertEqual(black.first, "1 ♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖")
        XCTAssertEqual(black.last, "  h g f e d c b a")
        XCTAssertEqual(white[3], "5 · · · · · · · ·")
    }

    func testCapturedMaterialAndBalance() throws {
        let position = try Position(fen: "r1b1k2r/ppp2ppp/8/8/8/8/PPP2PPP/R3K2R w KQkq - 0 1")
        XCTAssertEqual(position.captured(.white), [.queen, .bishop, .bishop, .knight, .knight, .pawn, .pawn])
        XCTAssertEqual(position.captured(.black), [.queen, .bishop, .knight, .knight, .pawn, .pawn])
        XCTAssertEqual(position.materialBalance, -3)
        XCTAssertEqual(Position.startingPosition.material(.white).value, 39)
    }
}
