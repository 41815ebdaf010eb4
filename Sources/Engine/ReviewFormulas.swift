import Foundation

/// An engine's verdict on a position: centipawns, or mate in n moves (positive: the side the
/// score is seen from mates; negative: it is mated). Which side a score is seen from is the
/// caller's to know: PGN's `[%eval]` is from White's view, UCI's `score` from the side to move.
public enum Score: Sendable, Hashable {
    case centipawns(Int)
    case mate(Int)

    /// The largest centipawn value, either way, read from an engine: a thousand pawns, far
    /// beyond any real evaluation and far from overflowing.
    public static let centipawnLimit = 100_000
    /// The longest mate, in moves either way, read from an engine.
    public static let mateLimit = 10_000

    /// The same score with its value brought into ±`centipawnLimit` or ±`mateLimit`.
    public var clamped: Score {
        switch self {
        case .centipawns(let cp): return .centipawns(max(-Self.centipawnLimit, min(Self.centipawnLimit, cp)))
        case .mate(let n): return .mate(max(-Self.mateLimit, min(Self.mateLimit, n)))
        }
    }

    /// The same score seen from the other side (`Int.min`, which has no opposite, becomes
    /// `Int.max`).
    public var negated: Score {
        switch self {
        case .centipawns(let cp): return .centipawns(cp == .min ? .max : -cp)
        case .mate(let n): return .mate(n == .min ? .max : -n)
        }
    }

    /// Centipawns with mates as ±1000 and everything clamped to ±1000 (for Win% and ACPL).
    public var clampedCentipawns: Int {
        switch self {
        case .centipawns(let cp): return max(-1000, min(1000, cp))
        case .mate(let n): return n > 0 ? 1000 : -1000
        }
    }
}

/// How bad a move was.
public enum Judgement: Int, Sendable, Hashable, Comparable, CaseIterable {
    case inaccuracy = 1
    case mistake = 2
    case blunder = 3

    /// The NAG a reviewer writes: `$6`, `$2`, `$4`.
    public var nag: Int {
        switch self {
        case .inaccuracy: return 6
        case .mistake: return 2
        case .blunder: return 4
        }
    }

    public var glyph: String {
        switch self {
        case .inaccuracy: return "?!"
        case .mistake: return "?"
        case .blunder: return "??"
        }
    }

    public var name: String {
        switch self {
        case .inaccuracy: return "inaccuracy"
        case .mistake: return "mistake"
        case .blunder: return "blunder"
        }
    }

    public static func < (lhs: Judgement, rhs: Judgement) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The thresholds that turn a drop in a mover's prospects into a judgement.
public enum ReviewPreset: Sendable, Hashable {
    /// lichess: a drop in winning chances (−1…+1) of 0.1 / 0.2 / 0.3.
    case lichess
    /// chess.com: a loss of expected points (Win% / 100) of 0.05 / 0.10 / 0.20.
    case chesscom
    /// En Croissant: a Win% drop above 5 / 10 / 20.
    case encroissant
    /// Win% drops (in points) from which a move is an inaccuracy, a mistake, a blunder.
    case custom(inaccuracy: Double, mistake: Double, blunder: Double)

    /// The named presets: `lichess`, `chesscom`, `encroissant`.
    public init?(name: String) {
        switch name {
        case "lichess": self = .lichess
        case "chesscom": self = .chesscom
        case "encroissant": self = .encroissant
        default: return nil
        }
    }
}

/// lichess's published review formulas, and the other presets players ask for.
public enum ReviewFormulas {
    /// `2 / (1 + exp(−0.00368208 · cp)) − 1`, in [−1, +1].
    public static func winningChances(centipawns cp: Double) -> Double {
        max(-1, min(1, 2 / (1 + exp(-0.00368208 * cp)) - 1))
    }

    /// Win%: `50 + 50 · winningChances(cp)` with the score clamped to ±1000 and mates as ±1000.
    public static func winPercent(_ score: Score) -> Double {
        50 + 50 * winningChances(centipawns: Double(score.clampedCentipawns))
    }

    /// The judgement of a move from the evaluations before and after it, both from the
    /// mover's view; nil for a move that is not an error (a delayed mate is not one).
    public static func judge(before: Score, after: Score, preset: ReviewPreset = .lichess) -> Judgement? {
        switch (before, after) {
        case (.centipawns(let cp), .mate(let n)) where n < 0:
            // From a score to being mated.
            if cp < -999 { return .inaccuracy }
            if cp < -700 { return .mistake }
            return .blunder
        case (.mate(let m), _) where m > 0:
            // Had a forced mate.
            switch after {
            case .mate(let n) where n > 0: return nil  // still mating, perhaps later
            case .centipawns(let cp):
                if cp > 999 { return .inaccuracy }
                if cp > 700 { return .mistake }
                return .blunder
            default: return .blunder  // now being mated
            }
        case (.mate(let m), _) where m < 0:
            return nil  // already lost: nothing to spoil
        default:
            break
        }
        let winBefore = winPercent(before)
        let winAfter = winPercent(after)
        switch preset {
        case .lichess:
            let drop =
                winningChances(centipawns: Double(before.clampedCentipawns))
                - winningChances(centipawns: Double(after.clampedCentipawns))
            return judgement(drop, 0.1, 0.2, 0.3, inclusive: true)
        case .chesscom:
            return judgement((winBefore - winAfter) / 100, 0.05, 0.10, 0.20, inclusive: true)
        case .encroissant:
            return judgement(winBefore - winAfter, 5, 10, 20, inclusive: false)
        case .custom(let inaccuracy, let mistake, let blunder):
            return judgement(winBefore - winAfter, inaccuracy, mistake, blunder, inclusive: true)
        }
    }

    private static func judgement(_ drop: Double, _ a: Double, _ b: Double, _ c: Double, inclusive: Bool) -> Judgement?
    {
        // A tiny tolerance keeps values that print as the threshold on its side.
        func reaches(_ threshold: Double) -> Bool { inclusive ? drop >= threshold - 1e-9 : drop > threshold + 1e-9 }
        if reaches(c) { return .blunder }
        if reaches(b) { return .mistake }
        if reaches(a) { return .inaccuracy }
        return nil
    }

    /// A move's accuracy (percent) from the mover's Win% before and after it.
    public static func moveAccuracy(winBefore: Double, winAfter: Double) -> Double {
        guard winAfter < winBefore else { return 100 }
        let raw = 103.1668100711649 * exp(-0.04354415386753951 * (winBefore - winAfter)) - 3.166924740191411 + 1
        return max(0, min(100, raw))
    }

    /// Each player's game accuracy from the evaluations after every ply (White's view, White
    /// moving first): the mean of the volatility-weighted mean and the harmonic mean of the
    /// move accuracies.
    public static func gameAccuracy(scoresAfterEachPly scores: [Score]) -> (white: Double?, black: Double?) {
        guard !scores.isEmpty else { return (nil, nil) }
        let wins = [winPercent(.centipawns(15))] + scores.map(winPercent)
        let windowSize = max(2, min(8, scores.count / 10))
        var windows: [ArraySlice<Double>] = []
        let first = wins.prefix(windowSize)
        for _ in 0..<min(windowSize - 2, wins.count) { windows.append(first) }
        if wins.count >= windowSize {
            for start in 0...(wins.count - windowSize) { windows.append(wins[start..<(start + windowSize)]) }
        }
        var perColor: [[(Double, Double)]] = [[], []]
        for ply in 0..<scores.count {
            let white = ply % 2 == 0
            let before = white ? wins[ply] : 100 - wins[ply]
            let after = white ? wins[ply + 1] : 100 - wins[ply + 1]
            let window = ply < windows.count ? windows[ply] : windows[windows.count - 1]
            let weight = max(0.5, min(12, standardDeviation(window)))
            perColor[white ? 0 : 1].append((moveAccuracy(winBefore: before, winAfter: after), weight))
        }
        func accuracy(_ moves: [(Double, Double)]) -> Double? {
            guard !moves.isEmpty else { return nil }
            let totalWeight = moves.reduce(0) { $0 + $1.1 }
            let weightedMean = moves.reduce(0) { $0 + $1.0 * $1.1 } / totalWeight
            let harmonic = Double(moves.count) / moves.reduce(0) { $0 + 1 / max(1, $1.0) }
            return (weightedMean + harmonic) / 2
        }
        return (accuracy(perColor[0]), accuracy(perColor[1]))
    }

    /// Average centipawn loss of each player, from the evaluations after every ply (White's
    /// view, White moving first; the start counts as 15 cp for White).
    public static func averageCentipawnLoss(scoresAfterEachPly scores: [Score]) -> (white: Double?, black: Double?) {
        var losses: [[Int]] = [[], []]
        var previous = 15
        for (ply, score) in scores.enumerated() {
            let now = score.clampedCentipawns
            let white = ply % 2 == 0
            losses[white ? 0 : 1].append(max(0, white ? previous - now : now - previous))
            previous = now
        }
        func mean(_ values: [Int]) -> Double? {
            values.isEmpty ? nil : Double(values.reduce(0, +)) / Double(values.count)
        }
        return (mean(losses[0]), mean(losses[1]))
    }

    static func standardDeviation(_ values: ArraySlice<Double>) -> Double {
        guard !values.isEmpty else { return 0 }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        return variance.squareRoot()
    }
}
