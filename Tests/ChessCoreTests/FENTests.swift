import ChessCore
import XCTest

final class FENTests: XCTestCase {
    func error(_ fen: String, file: StaticString = #filePath, line: UInt = #line) -> FENError? {
        do {
            _ = try Position(fen: fen)
            XCTFail("accepted \(fen)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testStartingPositionRoundTrips() throws {
        let position = try Position(fen: FEN.startingPosition)
        XCTAssertEqual(position.fen, FEN.startingPosition)
        XCTAssertEqual(position.legalMoveCount, 20)
        XCTAssertEqual(Position.startingPosition, position)
        XCTAssertFalse(position.isChess960)
    }

    func testMissingTrailingFieldsTakeDefaults() throws {
        let position = try Position(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -")
        XCTAssertEqual(position.fen, FEN.startingPosition)
        XCTAssertEqual(try Position(fen: "8/8/8/8/8/8/8/K6k").fen, "8/8/8/8/8/8/8/K6k w - - 0 1")
    }

    func testEnPassantSquareKeptOnlyWhenACaptureIsLegal() throws {
        // After 1. e4 no black pawn can take: the square is dropped.
        let noCapture = try Position(fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        XCTAssertNil(noCapture.enPassantSquare)
        XCTAssertEqual(noCapture.fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        let capture = try Position(fen: "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        XCTAssertEqual(capture.enPassantSquare, Square("e3"))
        // The capture along the rank would expose the king: no legal en passant.
        let pinned = try Position(fen: "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1")
        XCTAssertNil(pinned.enPassantSquare)
        XCTAssertFalse(pinned.legalMoves.contains { $0.isEnPassant })
    }

    func testXFENAndShredderFENMakeChess960() throws {
        let shredder = try Position(fen: "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
        XCTAssertTrue(shredder.isChess960)
        // The outermost rook on each wing: X-FEN writes it KQkq.
        XCTAssertEqual(shredder.castlingFEN, "KQkq")
        XCTAssertEqual(try Position(fen: shredder.fen).castlingRights, shredder.castlingRights)
        let xfen = try Position(fen: "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1")
        XCTAssertTrue(xfen.isChess960)
        XCTAssertEqual(xfen.castlingRights.count, 4)
    }

    func testErrorsNameFieldCharacterAndReason() {
        XCTAssertEqual(error(""), FENError(field: .board, offset: nil, reason: .empty))
        XCTAssertEqual(
            error("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            FENError(field: .board, offset: 18, reason: .tooManySquaresInRank(rank: 5)))
        XCTAssertEqual(
            error("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            FENError(field: .board, offset: 13, reason: .unexpectedCharacter("x")))
        XCTAssertEqual(
            error("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            FENError(field: .board, offset: 16, reason: .tooFewSquaresInRank(rank: 6)))
        XCTAssertEqual(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"),
            FENError(field: .board, offset: 34, reason: .tooFewRanks(7)))
        XCTAssertEqual(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1"),
            FENError(field: .board, offset: 43, reason: .tooManyRanks))
        XCTAssertEqual(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),
            FENError(field: .turn, offset: 44, reason: .invalidTurn("x")))
        XCTAssertEqual(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra"),
            FENError(field: .fullmoveNumber, offset: 57, reason: .tooManyFields(7)))
        XCTAssertEqual(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1"),
            FENError(field: .halfmoveClock, offset: 53, reason: .invalidNumber("x")))
        XCTAssertEqual(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3"),
            FENError(field: .fullmoveNumber, offset: 55, reason: .invalidNumber("-3")))
    }

    func testImpossiblePositionsAreRejected() {
        XCTAssertEqual(error("8/8/8/8/8/8/8/K7 w - - 0 1")?.reason, .missingKing(.black))
        XCTAssertEqual(error("k7/8/8/8/8/8/8/K6K w - - 0 1")?.reason, .tooManyKings(.white))
        XCTAssertEqual(error("k7/8/8/8/8/8/8/K5kk w - - 0 1")?.reason, .tooManyKings(.black))
        XCTAssertEqual(error("k6P/8/8/8/8/8/8/K7 w - - 0 1")?.reason, .pawnOnBackRank(Square("h8")!))
        XCTAssertEqual(error("k7/8/8/8/8/8/8/KP6 w - - 0 1")?.reason, .pawnOnBackRank(Square("b1")!))
        XCTAssertEqual(error("k7/8/8/8/8/P7/PPPPPPPP/K7 w - - 0 1")?.reason, .tooManyPawns(.white))
        XCTAssertEqual(error("k7/8/8/8/8/8/8/Q6K w - - 0 1")?.field, .turn)
        XCTAssertEqual(error("k7/8/8/8/8/8/8/Q6K w - - 0 1")?.reason, .oppositeKingInCheck)
        XCTAssertEqual(error("rnbqkbnr/pppppppp/8/8/8/Q7/QQQQQQQQ/QNBQKBNR w - - 0 1")?.reason, .tooManyPieces(.white))
        XCTAssertEqual(error("4k3/8/8/8/8/8/8/R3K3 w K - 0 1")?.reason, .castlingWithoutRook("K"))
        // A king in the h-file corner has no squares beyond it (a Chess960 start with the king on h8).
        XCTAssertEqual(
            error("rqbnnrbk/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1")?.reason, .castlingWithoutRook("k"))
        XCTAssertEqual(error("r6k/8/8/8/8/8/8/R6K w Kk - 0 1")?.reason, .castlingWithoutRook("K"))
        // By file letter with the king in the corner: the a-file rook is on the queen side.
        XCTAssertEqual((try? Position(fen: "r6k/8/8/8/8/8/8/R6K w Aa - 0 1"))?.fen, "r6k/8/8/8/8/8/8/R6K w Qq - 0 1")
        XCTAssertNoThrow(try Position(fen: "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"))
        XCTAssertEqual(error("4k3/8/8/8/8/8/4K3/R6R w KQ - 0 1")?.reason, .castlingWithoutKing(.white))
        XCTAssertEqual(error("4k3/8/8/8/8/8/8/R3K2R w KK - 0 1")?.reason, .duplicateCastlingRight("K"))
        XCTAssertEqual(error("4k3/8/8/8/8/8/8/R3K2R w KZ - 0 1")?.reason, .unexpectedCharacter("Z"))
        XCTAssertEqual(error("4k3/8/8/8/8/8/8/R3K2R w KQ e9 0 1")?.reason, .invalidSquare("e9"))
        XCTAssertEqual(
            error("4k3/8/8/8/8/8/8/R3K2R w KQ e3 0 1")?.reason,
            .impossibleEnPassant(Square("e3")!, "it must be on rank 6 with White to move"))
        XCTAssertEqual(
            error("4k3/8/8/8/8/8/8/R3K2R w KQ e6 0 1")?.reason,
            .impossibleEnPassant(Square("e6")!, "no black pawn on e5"))
        XCTAssertEqual(
            error("4k3/4n3/8/4p3/8/8/8/R3K2R w KQ e6 0 1")?.reason,
            .impossibleEnPassant(Square("e6")!, "e7 is not empty"))
        XCTAssertEqual(error("4k3/8/8/8/8/8/8/RNBQK2R w KQkq - 0 1")?.reason, .castlingWithoutRook("k"))
    }

    func testMessagesReadWell() {
        XCTAssertEqual(
            error("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")?.description,
            "FEN piece placement, character 14: unexpected character 'x'")
        XCTAssertEqual(
            error("k7/8/8/8/8/8/8/K6K w - - 0 1")?.description, "FEN piece placement: White has more than one king")
    }

    /// Mutations of valid FENs (the kind of input a fuzzer produces): always a position or
    /// a precise error, never a trap.
    func testMutatedFENsNeverTrap() {
        let seeds = [
            FEN.startingPosition,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        ]
        let alphabet = Array("pnbrqkPNBRQK12345678/ wb-KQkqA-Ha-h0123456789~ \u{0}é")
        var rng = SplitMix64(seed: 42)
        var accepted = 0
        var rejected = 0
        for _ in 0..<20_000 {
            var chars = Array(seeds[Int(rng.next() % UInt64(seeds.count))])
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let k = Int(rng.next() % UInt64(chars.count + 1))
                switch rng.next() % 3 {
                case 0 where k < chars.count: chars.remove(at: k)
                case 1: chars.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: k)
                default: if k < chars.count { chars[k] = alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                }
            }
            do {
                let position = try Position(fen: String(chars))
                // Whatever is accepted must be playable and print a FEN that reads back the same.
                XCTAssertEqual(try Position(fen: position.fen), position, String(chars))
                _ = position.perft(2)
                accepted += 1
            } catch {
                XCTAssertFalse(error.description.isEmpty)
                if let offset = error.offset { XCTAssertLessThanOrEqual(offset, chars.count) }
                rejected += 1
            }
        }
        XCTAssertGreaterThan(accepted, 300)
        XCTAssertGreaterThan(rejected, 1_000)
    }
}
