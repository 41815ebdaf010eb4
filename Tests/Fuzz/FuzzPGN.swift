import ChessCore
import PGN
import TextPositions

/// The PGN reader, the replay and the FEN reader: every input is parsed, replayed and checked,
/// and the results must be consistent.
func fuzzPGN(_ bytes: [UInt8]) {
    let source = SourceText(bytes)
    let report = Checker.check(source)
    for diagnostic in report.diagnostics {
        // Every range lies inside the text and maps to a position and back.
        precondition(diagnostic.range.lowerBound >= 0 && diagnostic.range.upperBound <= bytes.count)
        precondition(!diagnostic.message.isEmpty)
        for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
            let position = source.position(of: diagnostic.range.lowerBound, in: encoding)
            precondition(source.offset(of: position, in: encoding) <= diagnostic.range.lowerBound)
        }
    }
    let games = bytes.withUnsafeBufferPointer { Parser($0).games }
    for node in games.lazy.flatMap(\.nodes) where node.kind == .comment {
        for (command, _) in CommentCommand.parse(source.string(node.range)) {
            // Whatever a comment says, its values are written without a trap.
            switch command {
            case .clock(let seconds), .elapsedMoveTime(let seconds), .elapsedGameTime(let seconds):
                precondition(!CommentCommand.clockText(seconds).isEmpty)
            case .evaluation(let evaluation, _): precondition(!evaluation.text.isEmpty)
            default: break
            }
        }
    }
    if bytes.count < 200, let fen = String(validating: bytes, as: UTF8.self),
        let position = try? ChessCore.Position(fen: fen)
    {
        // Whatever FEN is accepted prints a FEN that reads back the same.
        precondition((try? ChessCore.Position(fen: position.fen)) == position)
        _ = position.perft(2)
    }
}
