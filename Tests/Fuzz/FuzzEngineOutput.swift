import ChessCore
import Engine

/// What an engine prints: every line goes to the `info`, `bestmove` and `option` readers, and
/// every score read, or any number on the line taken as a score, goes through the arithmetic
/// and the texts of reviews and hovers, which must never trap and stay in their ranges.
func fuzzEngineOutput(_ bytes: [UInt8]) {
    var scores: [Score] = []
    for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(256) {
        var line = String(decoding: raw, as: UTF8.self)
        if line.hasSuffix("\r") { line.removeLast() }
        if let info = UCIInfo(line: line) {
            for count in [info.depth, info.selectiveDepth, info.nodes, info.nodesPerSecond, info.timeMilliseconds] {
                precondition((count ?? 0) >= 0)
            }
            if let wdl = info.wdl {
                for permille in [wdl.win, wdl.draw, wdl.loss] { precondition((0...1000).contains(permille)) }
                precondition(wdl.flipped.flipped == wdl)
            }
            if let score = info.score {
                switch score {
                case .centipawns(let cp): precondition(abs(cp) <= Score.centipawnLimit)
                case .mate(let n): precondition(abs(n) <= Score.mateLimit)
                }
                precondition(score.negated.negated == score && score.clamped == score)
                scores.append(score)
            }
            // A line is replayed as far as its moves are legal.
            var position = Position.startingPosition
            for text in info.pv.prefix(64) {
                guard let move = position.move(uci: text), !move.isNull else { break }
                position.play(move)
            }
        }
        if let best = UCIBestMove(line: line) {
            precondition(best.move.map { !$0.isEmpty && $0 != "(none)" } ?? true)
        }
        if let option = UCIOption(line: line) { precondition(!option.type.isEmpty) }
        // Any number, taken as a score as it stands, is handled without a trap.
        for word in line.split(separator: " ").prefix(8) {
            guard let value = Int(word) else { continue }
            for score in [Score.centipawns(value), .mate(value)] {
                checkScore(score)
                checkScore(score.negated)
            }
        }
    }
    for score in scores { checkScore(score) }
    for (before, after) in zip(scores, scores.dropFirst()) {
        for preset in [ReviewPreset.lichess, .chesscom, .encroissant, .custom(inaccuracy: 5, mistake: 10, blunder: 20)]
        {
            _ = ReviewFormulas.judge(before: before, after: after, preset: preset)
        }
        let accuracy = ReviewFormulas.moveAccuracy(
            winBefore: ReviewFormulas.winPercent(before), winAfter: ReviewFormulas.winPercent(after))
        precondition((0...100).contains(accuracy))
    }
    // Means of values in 0…100 may stray from it by a rounding error only.
    let accuracy = ReviewFormulas.gameAccuracy(scoresAfterEachPly: scores)
    for value in [accuracy.white, accuracy.black] {
        precondition(value.map { (-1e-9...100 + 1e-9).contains($0) } ?? true)
    }
    // Each loss is at most the distance between two clamped scores.
    let acpl = ReviewFormulas.averageCentipawnLoss(scoresAfterEachPly: scores)
    for value in [acpl.white, acpl.black] { precondition(value.map { (0...2000).contains($0) } ?? true) }
}

/// The texts and the Win% of a score.
private func checkScore(_ score: Score) {
    precondition(!score.pgnText.isEmpty && !score.displayText.isEmpty)
    precondition((-1000...1000).contains(score.clampedCentipawns))
    precondition((0...100).contains(ReviewFormulas.winPercent(score)))
}
