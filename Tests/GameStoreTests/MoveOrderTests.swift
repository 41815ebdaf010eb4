import ChessCore
import GameStore
import TestSupport
import XCTest

final class MoveOrderTests: XCTestCase {
    /// Every line of the reference file: the whole ordered list, and each move's index both ways.
    /// The file (made with shakmaty, GPL-3) is in the shared folder only.
    func testAgreesWithEveryPositionOfTheReferenceList() throws {
        let lines = try SharedMaterial.text("fixtures/encroissant-move-order.tsv").split(separator: "\n")
        var positions = 0
        var moves = 0
        for line in lines where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            XCTAssertEqual(fields.count, 2, "malformed line: \(line)")
            let fen = String(fields[0])
            let expected = fields[1].split(separator: " ").map(String.init)
            let position = try Position(fen: fen)
            let ordered = MoveOrder.orderedMoves(in: position)
            XCTAssertEqual(ordered.map { position.uci($0) }, expected, fen)
            for (index, move) in ordered.enumerated() {
                XCTAssertEqual(MoveOrder.index(of: move, in: position), index, "\(fen) \(position.uci(move))")
                XCTAssertEqual(MoveOrder.move(at: index, in: position), move, "\(fen) index \(index)")
            }
            XCTAssertNil(MoveOrder.move(at: ordered.count, in: position))
            positions += 1
            moves += ordered.count
        }
        XCTAssertEqual(positions, 3_000)
        XCTAssertGreaterThan(moves, 3_000 * 15, "every move of every line was compared")
    }

    func testStartPositionGoldenIndices() throws {
        let start = Position.startingPosition
        let names = ["a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4"]
        for (index, san) in names.enumerated() {
            XCTAssertEqual(MoveOrder.index(of: start.move(san: san)!, in: start), index, san)
        }
        for (offset, san) in ["Na3", "Nc3", "Nf3", "Nh3"].enumerated() {
            XCTAssertEqual(MoveOrder.index(of: start.move(san: san)!, in: start), 16 + offset, san)
        }
    }

    func testAMoveThatIsNotLegalHasNoIndex() throws {
        let start = Position.startingPosition
        XCTAssertNil(MoveOrder.index(of: Move(from: .e1, to: Square(12)), in: start))
        XCTAssertNil(MoveOrder.move(at: -1, in: start))
    }

    /// Chess960: castling comes after every king step, king-side first, even when the king's
    /// step and castling end on the same square.
    func testChess960CastlingComesLastKingSideFirst() throws {
        var position = try Position(fen: "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1")
        position.isChess960 = true
        let ordered = MoveOrder.orderedMoves(in: position)
        let castles = ordered.filter(\.isCastle)
        XCTAssertEqual(castles.count, 2)
        XCTAssertEqual(Array(ordered.suffix(2)), castles)
        XCTAssertTrue(castles[0].isKingsideCastle)
        XCTAssertFalse(castles[1].isKingsideCastle)
    }

    func testCountingAgreesWithSortingInPositionsFullOfPinsChecksAndPromotions() throws {
        // Every position of the perft suites there are (else Chess960 starting positions), and a
        // few plies on from each.
        let starts = TestPositions.fens().compactMap { try? Position(fen: $0) }
        XCTAssertGreaterThan(starts.count, 100)
        var moves = 0
        for (k, start) in starts.enumerated() {
            var position = start
            for ply in 0..<6 {
                let ordered = MoveOrder.orderedMoves(in: position)
                for (index, move) in ordered.enumerated() {
                    XCTAssertEqual(
                        MoveOrder.index(of: move, in: position), index, "\(position.fen) \(position.uci(move))")
                }
                moves += ordered.count
                if ordered.isEmpty { break }
                position.play(ordered[(k * 7 + ply * 13) % ordered.count])
            }
        }
        XCTAssertGreaterThan(moves, 50_000)
    }
}
