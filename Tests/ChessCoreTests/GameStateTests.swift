import ChessCore
import XCTest

final class GameStateTests: XCTestCase {
    func testCheckmateAndStalemate() throws {
        let mate = try Position(fen: "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
        XCTAssertTrue(mate.isCheckmate)
        XCTAssertEqual(mate.termination, .checkmate(winner: .black))
        let stalemate = try Position(fen: "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
        XCTAssertTrue(stalemate.isStalemate)
        XCTAssertFalse(stalemate.isCheckmate)
        XCTAssertEqual(stalemate.termination, .stalemate)
        XCTAssertNil(Position.startingPosition.termination)
    }

    func testDoubleCheckAllowsOnlyKingMoves() throws {
        let double = try Position(fen: "4k3/8/8/8/8/5n2/8/R3K2r w Q - 0 1")
        XCTAssertEqual(double.checkers.count, 2)
        XCTAssertTrue(double.legalMoves.allSatisfy { double.role(at: $0.from) == .king })
    }

    func testInsufficientMaterial() throws {
        func insufficient(_ fen: String) throws -> Bool { try Position(fen: fen).isInsufficientMaterial }
        XCTAssertTrue(try insufficient("8/8/4k3/8/8/4K3/8/8 w - - 0 1"))
        XCTAssertTrue(try insufficient("8/8/4k3/8/8/4KN2/8/8 w - - 0 1"))
        XCTAssertTrue(try insufficient("8/8/4k3/8/8/4KB2/8/8 w - - 0 1"))
        // Bishops all on squares of one colour cannot mate.
        XCTAssertTrue(try insufficient("8/8/4kb2/8/8/4K1B1/8/8 w - - 0 1"))
        XCTAssertFalse(try insufficient("8/8/4k1b1/8/8/4K1B1/8/8 w - - 0 1"))
        XCTAssertFalse(try insufficient("8/8/4k3/8/8/4KNN1/8/8 w - - 0 1"))
        XCTAssertFalse(try insufficient("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1"))
        let knightAgainstRook = try Position(fen: "8/8/4kr2/8/8/4KN2/8/8 w - - 0 1")
        XCTAssertFalse(knightAgainstRook.hasInsufficientMaterial(.white))
        XCTAssertFalse(knightAgainstRook.hasInsufficientMaterial(.black))
    }

    func testFiftyAndSeventyFiveMoveRules() throws {
        XCTAssertFalse(try Position(fen: "8/8/4k3/8/8/4K3/8/R7 w - - 99 80").isFiftyMoves)
        XCTAssertTrue(try Position(fen: "8/8/4k3/8/8/4K3/8/R7 w - - 100 80").isFiftyMoves)
        XCTAssertFalse(try Position(fen: "8/8/4k3/8/8/4K3/8/R7 w - - 149 80").isSeventyFiveMoves)
        XCTAssertTrue(try Position(fen: "8/8/4k3/8/8/4K3/8/R7 w - - 150 80").isSeventyFiveMoves)
        XCTAssertEqual(try Position(fen: "8/8/4k3/8/8/4K3/8/R7 w - - 150 80").termination, .seventyFiveMoves)
    }

    func testThreefoldAndFivefoldRepetition() throws {
        var position = Position.startingPosition
        var history = PositionHistory(starting: position)
        let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
        var counts: [Int] = []
        for round in 0..<4 {
            for san in shuffle {
                let move = try position.parseSAN(san).move
                let before = position
                position.play(move)
                history.record(move, from: before, to: position)
            }
            counts.append(history.repetitions)
            if round == 1 { XCTAssertTrue(history.isThreefoldRepetition) }
        }
        XCTAssertEqual(counts, [2, 3, 4, 5])
        XCTAssertTrue(history.isFivefoldRepetition)
    }

    func testHashIsIncrementalAndIgnoresClocks() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<200 {
            var position = try Position(fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            for _ in 0..<40 {
                let moves = position.legalMoves
                if moves.isEmpty { break }
                position.play(moves[Int(rng.next() % UInt64(moves.count))])
                let fresh = try Position(fen: position.fen)
                XCTAssertEqual(position.hash, fresh.hash, position.fen)
            }
        }
        // Transpositions reach the same hash.
        var a = Position.startingPosition
        var b = Position.startingPosition
        for san in ["Nf3", "Nf6", "Nc3"] { a.play(try a.parseSAN(san).move) }
        for san in ["Nc3", "Nf6", "Nf3"] { b.play(try b.parseSAN(san).move) }
        XCTAssertEqual(a.hash, b.hash)
        XCTAssertNotEqual(a.hash, Position.startingPosition.hash)
    }
}
