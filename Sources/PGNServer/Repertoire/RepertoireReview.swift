import ChessCore
import Engine
import LanguageServer
import PGN

/// The engine's verdicts on repertoire moves, by position and move (so that they hold in every
/// file and version where the move is played from that position), each with the search limit
/// it was made at.
final class RepertoireVerdicts: Sendable {
    struct Verdict: Sendable {
        /// The engine's judgement of the move (nil: no error), its best move in the position
        /// before, and both scores from White's view.
        var judgement: Judgement?
        var best: String
        var bestScore: Score
        var moveScore: Score
        var limit: SearchLimit
    }

    struct Key: Hashable {
        var position: UInt64
        var move: Move
    }

    private struct State {
        var verdicts: [Key: Verdict] = [:]
        var generation = 0
    }
    private let state = Locked(State())

    subscript(position: UInt64, move: Move) -> Verdict? {
        state.withLock { $0.verdicts[Key(position: position, move: move)] }
    }

    func record(_ verdict: Verdict, position: UInt64, move: Move) {
        state.withLock {
            $0.verdicts[Key(position: position, move: move)] = verdict
            $0.generation += 1
        }
    }

    /// Bumped by each verdict: the repertoire findings change with it.
    var generation: Int { state.withLock { $0.generation } }
}

extension PGNLanguageServer {
    /// `pgn.reviewRepertoire`: the engine's judgement of every move of the repertoire's side,
    /// in every line of the document's repertoire games (each position and move once), at
    /// `review.depth` or `review.movetime` and with `review.preset`'s thresholds. Mistakes and
    /// blunders then show as `repertoire-mistake` warnings with the engine's move; the answer
    /// counts the moves judged and the errors.
    func reviewRepertoire(_ arguments: [JSONValue], _ context: RequestContext) async throws -> JSONValue {
        guard let uri = arguments.first?.stringValue else {
            throw ResponseError(.invalidParams, "pgn.reviewRepertoire takes the document URI")
        }
        let document = try context.document(uri)
        let analysis = await analyzer.analysis(sharing: document)
        let repertoire = DocumentRepertoire(analysis, document)
        let settings = currentSettings
        let pool = engines.pool(settings)
        var seen: Set<RepertoireVerdicts.Key> = []
        var moves: [ReplayedMove] = []
        for chapter in repertoire.chapters {
            for node in chapter.moves.keys.sorted() {
                let played = chapter.moves[node]!.move
                guard played.before.turn == chapter.side,
                    seen.insert(RepertoireVerdicts.Key(position: played.before.hash, move: played.move)).inserted
                else { continue }
                moves.append(played)
            }
        }
        // As many moves at once as the pool has engines; each judged move is kept at once.
        let limit = settings.reviewLimit
        let preset = settings.reviewPreset
        let errors = try await withThrowingTaskGroup(of: Bool.self) { group -> Int in
            var errors = 0
            var next = 0
            func start() {
                guard next < moves.count else { return }
                let played = moves[next]
                next += 1
                group.addTask { [self] in
                    try await judge(played, pool: pool, limit: limit, preset: preset, context)
                }
            }
            for _ in 0..<max(1, pool.size) { start() }
            while let erred = try await group.next() {
                if erred { errors += 1 }
                start()
            }
            return errors
        }
        await republish([uri], of: server.documents, context.session)
        return ["moves": .integer(moves.count), "errors": .integer(errors)]
    }

    /// The engine's verdict on one move of the repertoire (kept ones reused); whether it is a
    /// mistake or a blunder.
    private func judge(
        _ played: ReplayedMove, pool: EnginePool, limit: SearchLimit, preset: ReviewPreset, _ context: RequestContext
    ) async throws -> Bool {
        try context.checkCancellation()
        if let kept = repertoireVerdicts[played.before.hash, played.move], kept.limit == limit {
            return kept.judgement.map { $0 >= .mistake } == true
        }
        let before: PositionAnalysis?
        let after: PositionAnalysis?
        do {
            before = try await pool.analyse(played.before, limit: limit)
            after =
                GameReviewer.terminalScore(played.after) == nil
                ? try await pool.analyse(played.after, limit: limit) : nil
        } catch {
            throw ResponseError(.requestFailed, "the engine could not judge the repertoire: \(error)")
        }
        guard let best = before?.best, let bestMove = best.moves.first,
            let moveScore = GameReviewer.terminalScore(played.after) ?? after?.best?.score
        else { return false }
        // Both from the mover's view.
        let white = played.before.turn == .white
        let judgement =
            bestMove == played.move
            ? nil
            : ReviewFormulas.judge(
                before: white ? best.score : best.score.negated, after: white ? moveScore : moveScore.negated,
                preset: preset)
        repertoireVerdicts.record(
            .init(
                judgement: judgement, best: played.before.san(bestMove), bestScore: best.score, moveScore: moveScore,
                limit: limit),
            position: played.before.hash, move: played.move)
        return judgement.map { $0 >= .mistake } == true
    }

    /// The `repertoire-mistake` warnings of a repertoire: its side's moves that the engine
    /// judged a mistake or a blunder (`pgn.reviewRepertoire`) at the current search limit.
    func repertoireMistakes(_ repertoire: DocumentRepertoire, _ settings: Settings) -> [Diagnostic] {
        var found: [Diagnostic] = []
        for chapter in repertoire.chapters {
            for node in chapter.moves.keys.sorted() {
                let placed = chapter.moves[node]!
                let played = placed.move
                guard played.before.turn == chapter.side,
                    let verdict = repertoireVerdicts[played.before.hash, played.move],
                    verdict.limit == settings.reviewLimit,
                    let judgement = verdict.judgement, judgement >= .mistake
                else { continue }
                let name = Self.moveName(played)
                let number = PGNWriter.moveNumber(before: played.before)
                found.append(
                    Diagnostic(
                        .repertoireMistake, .warning,
                        "\(name): a \(judgement == .blunder ? "blunder" : "mistake") for the engine "
                            + "(\(verdict.moveScore.displayText)); it plays \(number) \(verdict.best) "
                            + "(\(verdict.bestScore.displayText))",
                        range: placed.range, game: chapter.game))
            }
        }
        return found
    }
}
