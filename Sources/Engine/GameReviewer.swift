import ChessCore
import Foundation
import PGN
import Synchronization

/// The engine's account of one move of a reviewed line.
public struct ReviewedMove: Sendable {
    /// Index of the move in the line (0 = the first move).
    public var ply: Int
    public var move: Move
    public var before: Position
    /// White's view, before and after the move.
    public var scoreBefore: Score
    public var scoreAfter: Score
    /// White's view, after the move, when the engine reports it.
    public var wdlAfter: WDL?
    /// The engine's choice in the position before the move, and its line from there.
    public var bestMove: Move?
    public var bestLine: [Move]
    public var judgement: Judgement?
    /// Move accuracy (percent) from the mover's Win% before and after.
    public var accuracy: Double
    public var depth: Int
    /// The move mates: `scoreAfter` is only a stand-in (a mate in one for the mover).
    public var mates: Bool

    public var mover: Color { before.turn }

    /// `5. Nxf7` or `5... Nxf7`.
    public var numberedSAN: String {
        PGNWriter.moveNumber(before.fullmoveNumber, black: mover == .black) + " " + before.san(move)
    }

    /// The best move in SAN, if the engine had one other than the move played.
    public var bestSAN: String? { bestMove.flatMap { $0 == move ? nil : before.san($0) } }
}

/// A reviewed line: every move judged, and each player's accuracy and average centipawn loss.
public struct GameReview: Sendable {
    public var moves: [ReviewedMove]
    public var whiteAccuracy: Double?
    public var blackAccuracy: Double?
    public var whiteACPL: Double?
    public var blackACPL: Double?
    public var limit: SearchLimit
    public var preset: ReviewPreset

    /// The moves judged inaccuracies or worse.
    public var errors: [ReviewedMove] { moves.filter { $0.judgement != nil } }

    public func count(_ judgement: Judgement, by color: Color) -> Int {
        moves.count { $0.judgement == judgement && $0.mover == color }
    }
}

/// A score written the way PGN writes `[%eval]`: pawns with two decimals, `#3`, `#-3`.
extension Score {
    public var pgnText: String {
        switch self {
        case .mate(let n): return "#\(n)"
        case .centipawns(let cp):
            return (cp < 0 ? "-" : "") + Self.pawns(cp.magnitude)
        }
    }

    /// For people: `+0.35`, `-2.10`, `#3`, `#-3`, with the ASCII minus sign that lichess and
    /// engines print, that a player types, and that `[%eval]` and the inlay hints write.
    public var displayText: String {
        switch self {
        case .mate(let n): return n < 0 ? "#-\(n.magnitude)" : "#\(n)"
        case .centipawns(let cp):
            let text = Self.pawns(cp.magnitude)
            return cp > 0 ? "+\(text)" : cp < 0 ? "-\(text)" : text
        }
    }

    /// `2.05` for 205 centipawns (the magnitude, so that no value overflows).
    private static func pawns(_ centipawns: UInt) -> String {
        let hundredths = centipawns % 100
        return "\(centipawns / 100).\(hundredths < 10 ? "0" : "")\(hundredths)"
    }
}

public enum GameReviewer {
    /// A position's score from White's view: the engine's, or the game's verdict when the
    /// position is over (a mate counts as a mate in one for the side that gave it).
    public static func terminalScore(_ position: Position) -> Score? {
        if position.isCheckmate { return position.turn == .white ? .mate(-1) : .mate(1) }
        if position.isStalemate { return .centipawns(0) }
        return nil
    }

    /// Reviews `moves` played from `start`: every position is analysed within `limit`, spread
    /// over the pool's engines. `progress` hears (positions done, positions in all).
    public static func review(
        from start: Position, moves: [Move], pool: EnginePool, limit: SearchLimit, preset: ReviewPreset = .lichess,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> GameReview {
        var positions = [start]
        for move in moves { positions.append(positions[positions.count - 1].playing(move)) }
        let total = positions.count
        let shared = positions
        let analyses = try await withThrowingTaskGroup(of: [(Int, PositionAnalysis?)].self) { group in
            let next = Counter()
            for _ in 0..<min(pool.size, total) {
                group.addTask {
                    var found: [(Int, PositionAnalysis?)] = []
                    while let index = next.take(below: total) {
                        try Task.checkCancellation()
                        if terminalScore(shared[index]) != nil {
                            found.append((index, nil))
                        } else {
                            guard let analysis = try await pool.analyse(shared[index], limit: limit) else {
                                throw CancellationError()
                            }
                            // A search stopped at its deadline gives what it found; one stopped
                            // because the review is cancelled ends it.
                            if !analysis.complete { try Task.checkCancellation() }
                            found.append((index, analysis))
                        }
                        progress(next.finish(), total)
                    }
                    return found
                }
            }
            var all = [PositionAnalysis?](repeating: nil, count: total)
            for try await part in group {
                for (index, analysis) in part { all[index] = analysis }
            }
            return all
        }
        let scores = positions.indices.map { index in
            terminalScore(positions[index]) ?? analyses[index]?.best?.score ?? .centipawns(0)
        }
        var reviewed: [ReviewedMove] = []
        for (ply, move) in moves.enumerated() {
            let before = positions[ply]
            let mover = before.turn
            let moverBefore = mover == .white ? scores[ply] : scores[ply].negated
            let moverAfter = mover == .white ? scores[ply + 1] : scores[ply + 1].negated
            let best = analyses[ply]?.best
            let bestMove = analyses[ply]?.bestMove
            // The engine's own choice is never an error, whatever a deeper look says next.
            let judgement =
                bestMove == move ? nil : ReviewFormulas.judge(before: moverBefore, after: moverAfter, preset: preset)
            reviewed.append(
                ReviewedMove(
                    ply: ply, move: move, before: before, scoreBefore: scores[ply], scoreAfter: scores[ply + 1],
                    wdlAfter: analyses[ply + 1]?.best?.wdl, bestMove: bestMove, bestLine: best?.moves ?? [],
                    judgement: judgement,
                    accuracy: ReviewFormulas.moveAccuracy(
                        winBefore: ReviewFormulas.winPercent(moverBefore),
                        winAfter: ReviewFormulas.winPercent(moverAfter)),
                    depth: analyses[ply]?.depth ?? 0, mates: positions[ply + 1].isCheckmate))
        }
        // The formulas count White's moves first: a line that starts with Black gets a
        // placeholder for the missing White move's evaluation.
        let afterEachPly = Array(scores.dropFirst())
        let blackFirst = start.turn == .black
        let series = blackFirst ? [scores[0]] + afterEachPly : afterEachPly
        var accuracy = ReviewFormulas.gameAccuracy(scoresAfterEachPly: series)
        var acpl = ReviewFormulas.averageCentipawnLoss(scoresAfterEachPly: series)
        if blackFirst {
            // The placeholder is not a White move.
            let whiteMoves = reviewed.filter { $0.mover == .white }
            accuracy.white = whiteMoves.isEmpty ? nil : accuracy.white
            acpl.white = whiteMoves.isEmpty ? nil : acpl.white
        }
        return GameReview(
            moves: reviewed, whiteAccuracy: accuracy.white, blackAccuracy: accuracy.black, whiteACPL: acpl.white,
            blackACPL: acpl.black, limit: limit, preset: preset)
    }
}

/// Hands out indices to the tasks of a review, and counts those done.
private final class Counter: Sendable {
    private let state = Mutex((next: 0, done: 0))

    func take(below limit: Int) -> Int? {
        state.withLock { state in
            guard state.next < limit else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    func finish() -> Int {
        state.withLock { state in
            state.done += 1
            return state.done
        }
    }
}

extension ReviewedMove {
    /// The evaluation after the move for people; `mate` when the move mates.
    public var afterText: String { mates ? "mate" : scoreAfter.displayText }

    /// `5. Nxf7 blunder (-0.52 → -5.31), best Bxf7+`: the move, the judgement in words, the
    /// evaluations from White's view, and the engine's choice.
    public var summary: String {
        var text = "\(numberedSAN) \(judgement?.name ?? "good move") (\(scoreBefore.displayText) → \(afterText))"
        if let best = bestSAN { text += ", best \(best)" }
        return text
    }

    /// The diagnostic message: `Blunder (+0.40 → -2.10). Nf3 was best.`
    public var message: String {
        var text = "\((judgement?.name ?? "good move").capitalized) (\(scoreBefore.displayText) → \(afterText))."
        if let best = bestSAN { text += " \(best) was best." }
        return text
    }
}

extension GameReview {
    /// `83.4% · ACPL 31`: a player's accuracy and average centipawn loss, worded the same
    /// wherever a review is summed up (code lens, message, `review`'s text); nil without moves.
    public func accuracyText(of color: Color) -> String? {
        let accuracy = color == .white ? whiteAccuracy : blackAccuracy
        let acpl = color == .white ? whiteACPL : blackACPL
        guard let accuracy, let acpl else { return nil }
        return "\(String(format: "%.1f", accuracy))% · ACPL \(Int(acpl.rounded()))"
    }

    /// `White 83.4% · ACPL 31`, or `White: no moves`.
    public func playerText(of color: Color) -> String {
        let name = color == .white ? "White" : "Black"
        return accuracyText(of: color).map { "\(name) \($0)" } ?? "\(name): no moves"
    }

    /// `accuracy 83.4% · ACPL 31, 2 inaccuracies, 1 mistake, 0 blunders` for one player.
    public func summary(of color: Color) -> String {
        guard let accuracy = accuracyText(of: color) else { return "no moves" }
        func count(_ judgement: Judgement) -> String { judgement.counted(self.count(judgement, by: color)) }
        return "accuracy \(accuracy), \(count(.inaccuracy)), \(count(.mistake)), \(count(.blunder))"
    }
}

extension Judgement {
    /// `1 blunder`, `2 inaccuracies`.
    public func counted(_ n: Int) -> String {
        let word = self == .inaccuracy ? (n == 1 ? "inaccuracy" : "inaccuracies") : name + (n == 1 ? "" : "s")
        return "\(n) \(word)"
    }
}
