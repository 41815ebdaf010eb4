import ChessCore
import XCTest

@testable import GameStore

/// The replay that searches read every game with: the same hashes as `Position.play` at every
/// ply (castling both ways, en passant legal or pinned, promotions, Chess960), material that
/// only goes down, and codes that do not fit the board stopping it without a trap.
final class MovesReplayTests: XCTestCase {
    /// Plays `moves` from `start` with `Position` and with the replay; asserts equal hashes.
    func assertSameHashes(
        from start: Position, _ moves: [Move], file: StaticString = #filePath, line: UInt = #line
    ) {
        let replay = MovesReplay()
        replay.reset(to: start)
        var position = start
        XCTAssertEqual(replay.hash, position.hash, "start \(position.fen)", file: file, line: line)
        for move in moves {
            let code = Moves2.code(move, chess960: start.isChess960)
            XCTAssertTrue(replay.play(code), "\(position.fen) \(position.uci(move))", file: file, line: line)
            position.play(move)
            guard replay.hash == position.hash else {
                XCTFail("hash differs after \(position.fen)", file: file, line: line)
                return
            }
            XCTAssertEqual(replay.material, ReplayMaterial(position), position.fen, file: file, line: line)
        }
    }

    /// Random games long enough to promote, castle, capture en passant and end.
    func randomGame(from start: Position, plies: Int, _ random: inout SplitMix64) -> [Move] {
        var position = start
        var moves: [Move] = []
        for _ in 0..<plies {
            let legal = Array(position.legalMoves)
            guard !legal.isEmpty else { break }
            // Prefer pawn moves and captures a little, so that games reach promotions.
            let pawnMoves = legal.filter { position.role(at: $0.from) == .pawn }
            let pool = !pawnMoves.isEmpty && random.next() % 3 == 0 ? pawnMoves : legal
            let move = pool[Int(random.next() % UInt64(pool.count))]
            moves.append(move)
            position.play(move)
        }
        return moves
    }

    func testRandomGamesHaveTheHashesOfPositionPlay() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<400 {
            let moves = randomGame(from: .startingPosition, plies: 300, &random)
            assertSameHashes(from: .startingPosition, moves)
        }
    }

    func testChess960GamesCastleOntoTheirRooks() throws {
        var random = SplitMix64(seed: 11)
        let starts = [
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
            "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
            "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9",
        ]
        for fen in starts {
            let start = try Position(fen: fen)
            XCTAssertTrue(start.isChess960, fen)
            for _ in 0..<50 { assertSameHashes(from: start, randomGame(from: start, plies: 120, &random)) }
            // Castling itself, when it is legal at once.
            for move in start.legalMoves where move.isCastle { assertSameHashes(from: start, [move]) }
        }
    }

    func testEnPassantCountsOnlyWhenTheCaptureIsLegal() throws {
        let cases: [(String, String)] = [
            // Legal: the e4 pawn can take on d3.
            ("4k3/8/8/8/4p3/8/3P4/4K3 w - - 0 1", "d2d4"),
            // Pinned along the rank: taking would leave the king in check from the rook.
            ("8/8/8/8/k3p2R/8/3P4/4K3 w - - 0 1", "d2d4"),
            // Pinned along a diagonal.
            ("8/8/8/3B4/4p3/5k2/3P4/4K3 w - - 0 1", "d2d4"),
            // Two pawns could take, one of them pinned.
            ("8/8/8/8/k1p1p2R/8/3P4/4K3 w - - 0 1", "d2d4"),
            // The pushed pawn gives check: taking it is the answer.
            ("8/8/8/4k3/4p3/8/3P4/4K3 w - - 0 1", "d2d4"),
            // Black pushes, White takes.
            ("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", "d7d5"),
            ("4k3/3p4/8/r3P2K/8/8/8/8 b - - 0 1", "d7d5"),
        ]
        for (fen, uci) in cases {
            let start = try Position(fen: fen)
            let move = try XCTUnwrap(start.move(uci: uci), "\(fen) \(uci)")
            assertSameHashes(from: start, [move])
            // And what follows, whatever the side to move does.
            let after = start.playing(move)
            for reply in after.legalMoves { assertSameHashes(from: start, [move, reply]) }
        }
    }

    func testPromotionsToEveryPiece() throws {
        let start = try Position(fen: "1n2k3/P7/8/8/8/8/7p/4K1N1 w - - 0 1")
        for uci in ["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8n"] {
            let move = try XCTUnwrap(start.move(uci: uci))
            let after = start.playing(move)
            for reply in after.legalMoves where after.role(at: reply.from) == .pawn {
                assertSameHashes(from: start, [move, reply])
            }
        }
    }

    func testCodesThatDoNotFitTheBoardStopTheReplay() {
        let replay = MovesReplay()
        replay.reset(to: .startingPosition)
        let hash = replay.hash
        // From an empty square; a black piece with White to move; onto a king; a promotion code
        // on a knight move; an unknown promotion code.
        let e3 = UInt16(20)
        let e4 = UInt16(28)
        XCTAssertFalse(replay.play(e3 | e4 << 6))
        XCTAssertFalse(replay.play(UInt16(52) | UInt16(36) << 6))
        XCTAssertEqual(replay.hash, hash)
        XCTAssertFalse(replay.play(UInt16(6) | UInt16(21) << 6 | 5 << 12))
        replay.reset(to: .startingPosition)
        XCTAssertFalse(replay.play(UInt16(12) | UInt16(28) << 6 | 7 << 12))
        // Every code from the start: none traps.
        for code in 0...UInt16.max {
            replay.reset(to: .startingPosition)
            _ = replay.play(code)
        }
    }

    func testMaterialOnlyGoesDownAndRulesOutPositions() throws {
        let target = ReplayMaterial(try Position(fen: "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"))
        let start = ReplayMaterial(.startingPosition)
        XCTAssertTrue(start.mayReach(target))
        XCTAssertTrue(start.mayReach(start))
        XCTAssertFalse(target.mayReach(start))
        // White's e-pawn gone from its square: the start cannot come back, the ending can.
        let afterE4 = ReplayMaterial(try Position(fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"))
        XCTAssertFalse(afterE4.mayReach(start))
        XCTAssertFalse(afterE4.mayReach(target))
        XCTAssertTrue(afterE4.mayReach(ReplayMaterial(try Position(fen: "4k3/8/8/8/4P3/8/8/4K3 w - - 0 1"))))
    }
}
