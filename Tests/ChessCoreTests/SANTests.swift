import ChessCore
import XCTest

final class SANTests: XCTestCase {
    func position(_ fen: String) throws -> Position { try Position(fen: fen) }

    func read(_ san: String, in position: Position) throws -> SANMove {
        try position.parseSAN(san)
    }

    func testCanonicalSANForEveryKindOfMove() throws {
        let start = Position.startingPosition
        XCTAssertEqual(start.san(start.move(uci: "g1f3")!), "Nf3")
        XCTAssertEqual(start.san(start.move(uci: "e2e4")!), "e4")
        let kiwipete = try position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        XCTAssertEqual(kiwipete.san(kiwipete.move(uci: "e1g1")!), "O-O")
        XCTAssertEqual(kiwipete.san(kiwipete.move(uci: "e1c1")!), "O-O-O")
        XCTAssertEqual(kiwipete.san(kiwipete.move(uci: "e5f7")!), "Nxf7")
        XCTAssertEqual(kiwipete.san(kiwipete.move(uci: "d5e6")!), "dxe6")
        let promotion = try position("8/1P4k1/8/8/8/8/8/4K3 w - - 0 1")
        XCTAssertEqual(promotion.san(promotion.move(uci: "b7b8q")!), "b8=Q")
        XCTAssertEqual(promotion.san(promotion.move(uci: "b7b8n")!), "b8=N")
        let enPassant = try position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
        XCTAssertEqual(enPassant.san(enPassant.move(uci: "e5f6")!), "exf6")
        let mate = try position("rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq g6 0 3")
        XCTAssertEqual(mate.san(mate.move(uci: "d1h5")!), "Qh5#")
        let check = try position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
        XCTAssertEqual(check.san(check.move(uci: "e1c1")!), "O-O-O")
        XCTAssertEqual(check.san(check.move(uci: "a1a8")!), "Ra8+")
    }

    func testDisambiguationByFileThenRankThenSquare() throws {
        // Knights on b1 and f1 reach d2: the file tells them apart.
        let byFile = try position("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")
        XCTAssertEqual(byFile.san(byFile.move(uci: "b1d2")!), "Nbd2")
        // Rooks on a1 and a5 both reach a3: same file, so the rank.
        let byRank = try position("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1")
        XCTAssertEqual(byRank.san(byRank.move(uci: "a1a3")!), "R1a3")
        // Queens on e4, h4 and h1 reach e1: h4 shares a file with h1 and a rank with e4.
        let bySquare = try position("8/2k5/8/8/4Q2Q/8/8/K6Q w - - 0 1")
        XCTAssertEqual(bySquare.san(bySquare.move(uci: "h4e1")!), "Qh4e1")
        XCTAssertEqual(bySquare.san(bySquare.move(uci: "e4e1")!), "Qee1")
        XCTAssertEqual(bySquare.san(bySquare.move(uci: "h1e1")!), "Q1e1")
    }

    func testPinnedPieceNeedsNoDisambiguation() throws {
        // Knights on c3 and g1 both reach e2, but the bishop on b4 pins c3: Ne2 is enough.
        let pinned = try position("4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1")
        let move = try read("Ne2", in: pinned).move
        XCTAssertEqual(move, pinned.move(uci: "g1e2"))
        XCTAssertEqual(pinned.san(move), "Ne2")
        XCTAssertEqual(try read("Nge2", in: pinned).leniency, .overDisambiguated)
    }

    func testExactSANHasNoLeniency() throws {
        let kiwipete = try position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        for move in kiwipete.legalMoves {
            let san = kiwipete.san(move)
            let read = try kiwipete.parseSAN(san)
            XCTAssertEqual(read.move, move, san)
            XCTAssertEqual(read.leniency, [], san)
        }
    }

    func testLenientForms() throws {
        let kiwipete = try position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        XCTAssertEqual(try read("0-0", in: kiwipete).leniency, .castlingWithZeros)
        XCTAssertEqual(try read("o-o-o", in: kiwipete).leniency, .lowercaseCastling)
        XCTAssertEqual(try read("O-O", in: kiwipete).move, kiwipete.move(uci: "e1g1"))
        XCTAssertEqual(try read("e1g1", in: kiwipete).move, kiwipete.move(uci: "e1g1"))
        XCTAssertEqual(try read("Ne5xf7", in: kiwipete).leniency, .overDisambiguated)
        XCTAssertEqual(try read("Ne5-f7", in: kiwipete).leniency, [.longAlgebraic, .missingCapture])
        XCTAssertEqual(try read("e5f7", in: kiwipete).leniency, [.uci, .missingCapture])
        XCTAssertEqual(try read("Nf7", in: kiwipete).leniency, .missingCapture)
        XCTAssertEqual(try read("Nxd3", in: kiwipete).leniency, .spuriousCapture)
        XCTAssertEqual(try read("Nxf7+", in: kiwipete).leniency, .wrongCheck)
        XCTAssertEqual(try read("nxf7", in: kiwipete).leniency, .lowercasePiece)
        XCTAssertEqual(try read("Nef7", in: kiwipete).leniency, [.overDisambiguated, .missingCapture])
        XCTAssertEqual(try read("d5:e6", in: kiwipete).leniency, [.colonCapture, .longAlgebraic])
        XCTAssertEqual(try read("d5e6", in: kiwipete).leniency, [.longAlgebraic, .missingCapture])

        let promotion = try position("8/1P4k1/8/8/8/8/8/4K3 w - - 0 1")
        XCTAssertEqual(try read("b8Q", in: promotion).move, promotion.move(uci: "b7b8q"))
        XCTAssertEqual(try read("b8Q", in: promotion).leniency, .promotionWithoutEquals)
        XCTAssertEqual(try read("b8=q", in: promotion).leniency, .lowercasePromotion)
        XCTAssertEqual(try read("b7b8q", in: promotion).move, promotion.move(uci: "b7b8q"))
        XCTAssertEqual(try read("b8(Q)", in: promotion).move, promotion.move(uci: "b7b8q"))

        let enPassant = try position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
        XCTAssertEqual(try read("exf6e.p.", in: enPassant).leniency, .enPassantSuffix)
        XCTAssertEqual(
            try read("exf6 e.p.".replacingOccurrences(of: " ", with: ""), in: enPassant).move.isEnPassant, true)
        XCTAssertEqual(try read("exf6ep", in: enPassant).leniency, .enPassantSuffix)

        let mate = try position("rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq g6 0 3")
        XCTAssertEqual(try read("Qh5", in: mate).leniency, .missingCheck)
        XCTAssertEqual(try read("Qh5+", in: mate).leniency, .wrongCheck)
        XCTAssertEqual(try read("Qh5#", in: mate).leniency, [])
        XCTAssertEqual(try read("Qh5++", in: mate).leniency, [])
    }

    func testNullMoves() throws {
        let start = Position.startingPosition
        XCTAssertEqual(try read("--", in: start), SANMove(move: .null, leniency: []))
        XCTAssertEqual(try read("Z0", in: start), SANMove(move: .null, leniency: .nullMoveNotation))
        XCTAssertEqual(try read("0000", in: start).move, .null)
        let passed = start.playing(.null)
        XCTAssertEqual(passed.turn, .black)
        XCTAssertEqual(passed.fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 1 1")
    }

    func testIllegalMovesSayWhy() throws {
        let start = Position.startingPosition
        XCTAssertEqual(try? read("Nf3", in: start).move, start.move(uci: "g1f3"))
        XCTAssertThrowsError(try read("Nd4", in: start)) {
            XCTAssertEqual($0 as? SANError, .illegal(.noPieceCanReach(.knight, Square("d4")!)))
        }
        XCTAssertThrowsError(try read("e5", in: start)) {
            XCTAssertEqual($0 as? SANError, .illegal(.noPieceCanReach(.pawn, Square("e5")!)))
        }
        XCTAssertThrowsError(try read("O-O", in: start)) {
            XCTAssertEqual($0 as? SANError, .illegal(.castlingBlocked(Square("f1")!)))
        }
        XCTAssertThrowsError(try read("Qd2", in: try position("4k3/8/8/8/8/8/8/4K3 w - - 0 1"))) {
            XCTAssertEqual($0 as? SANError, .illegal(.noSuchPiece(.queen)))
        }
        XCTAssertThrowsError(try read("Nd2", in: start)) {
            XCTAssertEqual($0 as? SANError, .illegal(.occupiedByOwnPiece(Square("d2")!)))
        }
        XCTAssertThrowsError(try read("Rd1", in: start)) {
            XCTAssertEqual($0 as? SANError, .illegal(.noPieceCanReach(.rook, Square("d1")!)))
        }
        // The rook on e8 pins the knight on e2 to its king.
        let pin = try position("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1")
        XCTAssertThrowsError(try read("Nf4", in: pin)) {
            XCTAssertEqual($0 as? SANError, .illegal(.pinned(Piece(color: .white, role: .knight), Square("e2")!)))
            if case .illegal(let reason) = $0 as? SANError {
                XCTAssertEqual(reason.message(side: .white), "the knight on e2 is pinned")
            }
        }
        let check = try position("4k3/8/8/8/8/8/3P4/r3K3 w - - 0 1")
        XCTAssertThrowsError(try read("d3", in: check)) { XCTAssertEqual($0 as? SANError, .illegal(.inCheck)) }
        XCTAssertThrowsError(try read("Kf1", in: check)) {
            XCTAssertEqual($0 as? SANError, .illegal(.kingIntoCheck(Square("f1")!)))
        }
        let throughCheck = try position("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1")
        XCTAssertThrowsError(try read("O-O", in: throughCheck)) {
            XCTAssertEqual($0 as? SANError, .illegal(.castlingThroughCheck(Square("f1")!)))
        }
        let noRight = try position("4k3/8/8/8/8/8/8/R3K2R w Q - 0 1")
        XCTAssertThrowsError(try read("O-O", in: noRight)) {
            XCTAssertEqual($0 as? SANError, .illegal(.castlingWithoutRight(kingside: true)))
        }
        let promotion = try position("8/1P4k1/8/8/8/8/8/4K3 w - - 0 1")
        XCTAssertThrowsError(try read("b8", in: promotion)) {
            XCTAssertEqual($0 as? SANError, .illegal(.missingPromotion))
        }
        XCTAssertThrowsError(try read("e4=Q", in: start)) {
            XCTAssertEqual($0 as? SANError, .illegal(.invalidPromotion))
        }
    }

    func testAmbiguousMovesNameTheCandidates() throws {
        let byFile = try position("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")
        XCTAssertThrowsError(try read("Nd2", in: byFile)) {
            guard case .ambiguous(let moves) = $0 as? SANError else { return XCTFail("\($0)") }
            XCTAssertEqual(Set(moves.map { $0.uci(chess960: false) }), ["b1d2", "f1d2"])
        }
    }

    func testNotMovesAtAll() {
        for text in ["", "x", "Nf", "N", "Zf3", "O-O-O-O", "e9", "i4", "Nf3f", "1-0", "+", "e.p."] {
            XCTAssertThrowsError(try Position.startingPosition.parseSAN(text), text) {
                XCTAssertEqual($0 as? SANError, .syntax, text)
            }
        }
    }

    func testUCIRoundTripInBothConventions() throws {
        let chess960 = try position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
        for move in chess960.legalMoves {
            XCTAssertEqual(chess960.move(uci: move.uci(chess960: true)), move)
        }
        let kiwipete = try position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        for move in kiwipete.legalMoves {
            XCTAssertEqual(kiwipete.move(uci: move.uci(chess960: false)), move)
            XCTAssertEqual(kiwipete.move(uci: move.uci(chess960: true)), move)
        }
        XCTAssertNil(kiwipete.move(uci: "e1e3"))
        XCTAssertNil(kiwipete.move(uci: "zz"))
    }
}
