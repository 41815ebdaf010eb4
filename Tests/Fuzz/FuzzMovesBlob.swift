import ChessCore
import GameStore

/// Start positions for the moves: the standard one (nil), then positions with promotions,
/// Chess960 castling, an en-passant capture, a check, and castling on both sides.
let fuzzMovesBlobStarts: [String?] = [
    nil,
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnb1kbnr/pppp1ppp/8/4p3/5PPq/8/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
]

let fuzzMovesBlobLayouts: [MovesLayout] = [.enCroissant, .ocgdbMoves2, .ocgdbMoves2Old, .text, .twoByte]

/// The reader of a database's move columns. The first byte picks the layout and the start
/// position: one of `fuzzMovesBlobStarts`, or a FEN written in the input up to its first line
/// feed. The rest is the column's value. Whatever it holds, reading it must not trap, and
/// what it reads must be a legal game that the writer encodes again and the reader reads
/// back the same.
func fuzzMovesBlob(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let layout = fuzzMovesBlobLayouts[Int(selector) % fuzzMovesBlobLayouts.count]
    let choice = Int(selector) / fuzzMovesBlobLayouts.count % (fuzzMovesBlobStarts.count + 1)
    var value = Array(bytes.dropFirst())
    var fen: String?
    if choice < fuzzMovesBlobStarts.count {
        fen = fuzzMovesBlobStarts[choice]
    } else if let end = value.firstIndex(of: 0x0A) {
        fen = String(decoding: value[..<end], as: UTF8.self)
        value.removeSubrange(...end)
    }

    // The one-byte and two-byte readers on their own, from the standard start.
    if let elements = try? MovesBlob.decode(value, from: .startingPosition) {
        precondition(
            MovesBlob.hasComments(value) == elements.contains { if case .comment = $0 { true } else { false } })
    }
    for codes in [Moves2.PromotionCodes.current, .old, .queenFirst] {
        if let moves = Moves2.decode(value, from: .startingPosition, codes: codes) {
            precondition(moves.count * 2 == value.count)
        }
    }

    guard let game = try? GameDatabase.decodeMoves(value, layout: layout, fen: fen) else { return }
    precondition(!game.pgn.isEmpty)
    // Every line read is legal: the one-byte encoding holds it, and reads back the same.
    guard let blob = MovesBlob.encode(game.elements, from: game.start) else {
        preconditionFailure("a game read from the database cannot be encoded again")
    }
    precondition((try? MovesBlob.decode(blob, from: game.start)) == game.elements)
    // The mainline in ocgdb's encoding reads back the same moves.
    let chess960 = game.start.isChess960
    let mainline = game.mainline
    for codes in [Moves2.PromotionCodes.current, .old, .queenFirst] {
        var moves2: [UInt8] = []
        for move in mainline {
            let code = Moves2.code(move, chess960: chess960, codes: codes)
            moves2.append(UInt8(truncatingIfNeeded: code))
            moves2.append(UInt8(truncatingIfNeeded: code >> 8))
        }
        precondition(Moves2.decode(moves2, from: game.start, codes: codes) == mainline)
    }
}
