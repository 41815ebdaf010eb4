import TestSupport
import XCTest

@testable import ChessCore

/// `playSAN` reads plainly written moves without listing legal moves; every text it reads that
/// way must come out exactly as the general reader has it: the same move, the same leniency,
/// the same position after.
final class PlainSANTests: XCTestCase {
    /// Ways a move is written, right and wrong: canonical, without or with a wrong check sign,
    /// with and without `x`, with every disambiguation, lower-case, long algebraic and UCI.
    static func spellings(of move: Move, in position: Position) -> [String] {
        let canonical = position.san(move)
        let bare = position.sanWithoutSuffix(move)
        var texts = [canonical, bare, bare + "+", bare + "#", bare + "++"]
        if bare.contains("x") { texts.append(bare.replacingOccurrences(of: "x", with: "")) }
        if let role = position.role(at: move.from), role != .pawn, !move.isCastle {
            let letter = String(role.sanLetter!)
            let capture = position.occupied.contains(move.to) ? "x" : ""
            let file = String(Square.fileLetter(move.from.file))
            let rank = String(move.from.rank + 1)
            for prefix in ["", file, rank, file + rank] {
                texts.append(letter + prefix + capture + move.to.name)
                texts.append(letter + prefix + "x" + move.to.name)
                texts.append(letter + prefix + move.to.name)
            }
            texts.append(letter.lowercased() + capture + move.to.name)
        } else if !move.isCastle {
            let file = String(Square.fileLetter(move.from.file))
            texts.append(move.from.name + move.to.name)
            texts.append(file + "x" + move.to.name)
            texts.append(file + move.to.name)
            texts.append("x" + move.to.name)
            if let promotion = move.promotion {
                let letter = String(promotion.sanLetter!)
                texts.append(bare.replacingOccurrences(of: "=", with: ""))
                texts.append(bare.replacingOccurrences(of: "=" + letter, with: "=" + letter.lowercased()))
                texts.append(bare.replacingOccurrences(of: "=" + letter, with: "=K"))
                texts.append(bare.replacingOccurrences(of: "=" + letter, with: ""))
            }
        }
        texts.append(move.uci(chess960: false))
        return texts
    }

    func testPlainReadingAgreesWithTheGeneralReader() throws {
        let positions = TestPositions.fens().compactMap { try? Position(fen: $0) }
        XCTAssertGreaterThan(positions.count, 100)
        // Positions a few moves on from each, so that checks, pins and promotions come up often.
        var all: [Position] = []
        for (k, start) in positions.enumerated() {
            var position = start
            for ply in 0..<4 {
                all.append(position)
                let moves = position.legalMoves
                if moves.isEmpty { break }
                // A spread of moves, the same on every run.
                position.play(moves[(k * 7 + ply * 13) % moves.count])
            }
        }

        var plainTexts = 0
        var commonTexts = 0
        var canonicalPlain = 0
        var compared = 0
        var plainCastles = 0
        var readInPlace = 0
        var withoutMoves = 0
        for position in all {
            XCTAssertEqual(position.hasLegalMove, position.legalMoveCount > 0, position.fen)
            if !position.hasLegalMove { withoutMoves += 1 }
            // Castling on both sides, legal or not, beside the spellings of each legal move.
            let texts = ["O-O", "O-O-O"] + position.legalMoves.flatMap { Self.spellings(of: $0, in: position) }
            let canonical = Set(position.legalMoves.map { position.san($0) })
            for text in texts {
                let bytes = Array(text.utf8)
                bytes.withUnsafeBufferPointer { buffer in
                    // The common shapes are read apart: the same way as any text.
                    if let common = SANSyntax(common: buffer) {
                        XCTAssertEqual(common, SANSyntax(parsing: buffer), text)
                        commonTexts += 1
                    }
                    guard let san = SANSyntax(buffer) else { return }
                    let general: Result<(SANMove, Position), SANError>
                    do throws(SANError) {
                        general = .success(try position.playAnySAN(san))
                    } catch {
                        general = .failure(error)
                    }
                    compared += 1
                    // Read in place as a replay reads, told whether the side to move is in
                    // check: the same move and leniency, the same position after, and whether
                    // the move gives check; a text that is no move leaves the position alone.
                    for told in compared % 4 == 0 ? [nil, position.isCheck] : [position.isCheck] {
                        var inPlace = position
                        do throws(SANError) {
                            let (read, givesCheck) = try inPlace.readSAN(bytes: buffer, inCheck: told)
                            let (expected, after) = try general.get()
                            XCTAssertEqual(read, expected, "\(position.fen) \(text)")
                            XCTAssertEqual(inPlace, after, "\(position.fen) \(text)")
                            XCTAssertEqual(givesCheck, after.isCheck, "\(position.fen) \(text)")
                            readInPlace += 1
                        } catch {
                            XCTAssertEqual(inPlace, position, "\(position.fen) \(text)")
                            if case .success = general { XCTFail("\(position.fen) \(text): read in place, \(error)") }
                        }
                    }
                    // Told whether the side to move is in check, it finds the same move.
                    XCTAssertEqual(
                        position.plainMove(san, inCheck: position.isCheck), position.plainMove(san), text)
                    guard let plain = position.playPlainSAN(san) else { return }
                    plainTexts += 1
                    if text.hasPrefix("O-O") { plainCastles += 1 }
                    if canonical.contains(text) { canonicalPlain += 1 }
                    switch general {
                    case .success(let (read, after)):
                        XCTAssertEqual(plain.0, read, "\(position.fen) \(text)")
                        XCTAssertEqual(plain.1, after, "\(position.fen) \(text)")
                    case .failure(let error):
                        XCTFail("\(position.fen) \(text): plain reading gave a move, general \(error)")
                    }
                }
            }
        }
        print("plain SAN: \(all.count) positions, \(compared) texts, \(plainTexts) read plainly")
        XCTAssertGreaterThan(compared, 100_000)
        XCTAssertGreaterThan(plainTexts, 10_000)
        XCTAssertGreaterThan(commonTexts, 10_000)
        XCTAssertGreaterThan(canonicalPlain, 5_000)
        XCTAssertGreaterThan(plainCastles, 100)
        XCTAssertGreaterThan(readInPlace, 50_000)
        XCTAssertGreaterThan(withoutMoves, 0, "mates or stalemates among the positions")
    }

    func testCanonicalSANOfOrdinaryMovesIsReadThePlainWay() throws {
        // Everything but castling and en passant: the moves of real games.
        let position = try Position(fen: "r1bqk2r/pP3ppp/2n2n2/3pp3/1b2P3/2N2N2/PP1P1PPP/R1BQKB1R w KQkq - 0 7")
        var checked = 0
        for move in position.legalMoves where !move.isCastle && !move.isEnPassant {
            let text = position.san(move)
            let bytes = Array(text.utf8)
            let plain = bytes.withUnsafeBufferPointer { buffer in
                SANSyntax(buffer).flatMap { position.playPlainSAN($0) }
            }
            XCTAssertEqual(plain?.0.move, move, text)
            XCTAssertEqual(plain?.0.leniency, [], text)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 30)
    }
}
