import ChessCore
import Engine
import Foundation
import LanguageServer
import PGN

/// The engine behind hovers and reviews, and the reviews done so far.
///
/// Reviews are kept by game text: a review stays attached to its game while edits elsewhere
/// in the file leave that game's text alone, and is dropped from view once the game changes.
public final class EngineCenter: Sendable {
    struct StoredReview: Sendable {
        var review: GameReview
        /// The node of each reviewed move, in the game's syntax.
        var nodes: [Int]
    }

    struct Running {
        var uri: DocumentURI
        var texts: Set<GameText>
        var cancel: @Sendable (CancellationToken.Reason) -> Void
        var progressToken: String?
    }

    private struct State {
        var pool: EnginePool?
        var poolKey: String?
        var reportedFailure: String?
        var reviews: [GameText: StoredReview] = [:]
        var running: [Int: Running] = [:]
        var nextID = 0
        /// Bumped by every finished review: pulled diagnostics change with it.
        var generation = 0
    }

    private let state = Locked(State())

    init() {}

    deinit {
        state.withLock { $0.pool }?.shutdown()
    }

    var generation: Int { state.withLock { $0.generation } }

    /// The pool for the current settings, made anew when the engine settings change.
    func pool(_ settings: Settings) -> EnginePool {
        let key = "\(settings.engine) \(settings.engineProcesses)"
        let (pool, old) = state.withLock { state -> (EnginePool, EnginePool?) in
            if let pool = state.pool, state.poolKey == key { return (pool, nil) }
            let old = state.pool
            let pool = EnginePool(configuration: settings.engine, size: settings.engineProcesses)
            state.pool = pool
            state.poolKey = key
            state.reportedFailure = nil
            return (pool, old)
        }
        old?.shutdown()
        return pool
    }

    /// True the first time a failure is seen for the current pool: it is reported once.
    func shouldReport(_ error: EngineError) -> Bool {
        state.withLock { state in
            guard state.reportedFailure == nil else { return false }
            state.reportedFailure = error.description
            return true
        }
    }

    func review(of text: GameText) -> StoredReview? { state.withLock { $0.reviews[text] } }

    /// Every stored review, read at once (a document of many games asks for each).
    var storedReviews: [GameText: StoredReview] { state.withLock { $0.reviews } }

    func store(_ review: StoredReview, for text: GameText) {
        state.withLock { state in
            state.reviews[text] = review
            state.generation += 1
        }
    }

    /// Registers a running review; returns its id.
    func started(_ running: Running) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.running[state.nextID] = running
            return state.nextID
        }
    }

    func finished(_ id: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }

    /// Cancels the reviews of games of `uri` whose text is no longer in the document.
    func cancelReviews(of uri: DocumentURI, keeping texts: Set<GameText>?) {
        let cancels = state.withLock { state in
            state.running.values.filter { $0.uri == uri && !$0.texts.isSubset(of: texts ?? []) }.map(\.cancel)
        }
        for cancel in cancels { cancel(.contentModified) }
    }

    /// Whether a review of a game of `uri` is running.
    func isReviewing(_ uri: DocumentURI) -> Bool {
        state.withLock { $0.running.values.contains { $0.uri == uri } }
    }

    /// Cancels the review shown by a progress token.
    func cancelReview(progressToken: String) {
        let cancels = state.withLock { state in
            state.running.values.filter { $0.progressToken == progressToken }.map(\.cancel)
        }
        for cancel in cancels { cancel(.cancelledByClient) }
    }
}

extension PGNLanguageServer {
    /// Cancels the running reviews of games of `uri` that `analysis`, its latest reading, no
    /// longer holds.
    func cancelStaleReviews(_ analysis: DocumentAnalysis, of uri: DocumentURI) {
        guard engines.isReviewing(uri) else { return }
        engines.cancelReviews(of: uri, keeping: Set(analysis.games.map(\.analysis.text)))
    }

    func registerEngineFeatures() {
        server.registerNotification("window/workDoneProgress/cancel") { [self] params, _ in
            if let token = params["token"]?.stringValue { engines.cancelReview(progressToken: token) }
        }
    }

    /// `pgn.reviewGame`, `pgn.reviewFile` and `pgn.annotateGame`.
    func executeEngineCommand(
        _ name: String, _ arguments: [JSONValue], _ context: RequestContext
    ) async throws -> JSONValue {
        let (document, analysis, selected) = try selectGames(
            name, arguments, context, allGames: name == "pgn.reviewFile")
        let uri = document.uri
        let reviews = try await reviewGames(selected, of: analysis, uri: uri, context)
        if name == "pgn.annotateGame" {
            let edits = reviews.flatMap { index, stored in annotationEdits(stored, analysis.games[index]) }
            let answer = try await applyEdit(
                "Annotate game with the review", workspaceEdit(document, edits, context.positionEncoding), context)
            return ["applied": answer["applied"] ?? false]
        }
        let results = try reviews.map { index, stored in
            try JSONValue(
                encoding: ReviewSummary(stored.review, of: analysis.games[index].analysis.gameReplay, index: index))
        }
        return .array(results)
    }

    /// The edit that writes a review into its game, in document offsets, laid out under
    /// `format.lineLength` (`ReviewAnnotator.edits`).
    func annotationEdits(_ stored: EngineCenter.StoredReview, _ game: PlacedGame) -> [Diagnostic.Edit] {
        let replay = game.analysis.gameReplay
        guard let mainline = Mainline(replay) else { return [] }
        return ReviewAnnotator.edits(
            for: stored.review, mainline: mainline, replay: replay, lineLength: currentSettings.lineLength
        ).map { $0.shifted(by: game.start) }
    }

    /// The games a command names: its arguments are the document URI, then a game index
    /// (counted from 0, as the code lenses send it) or a position (the game there); with
    /// neither, the first game. Games without a move are left out.
    func selectGames(
        _ name: String, _ arguments: [JSONValue], _ context: RequestContext, allGames: Bool,
        withoutMoves: Bool = false
    ) throws
        -> (Document, DocumentAnalysis, [Int])
    {
        guard let uri = arguments.first?.stringValue ?? arguments.first?["uri"]?.stringValue else {
            throw ResponseError(.invalidParams, "\(name) takes the document URI, then a position or a game index")
        }
        let document = try context.document(uri)
        let analysis = analyzer.analysis(of: document)
        var selected: [Int]
        if allGames {
            selected = Array(analysis.games.indices)
        } else if let index = arguments.dropFirst().first?.intValue {
            guard analysis.games.indices.contains(index) else {
                throw ResponseError(.invalidParams, "there is no game \(index) in \(uri)")
            }
            selected = [index]
        } else if let position = arguments.dropFirst().first, let line = position["line"]?.intValue,
            let character = position["character"]?.intValue
        {
            guard line >= 0, character >= 0 else {
                throw ResponseError(.invalidParams, "\(name) takes a position whose line and character are 0 or more")
            }
            let offset = document.offset(
                of: LSPPosition(line: line, character: character), encoding: context.positionEncoding)
            guard let index = analysis.gameIndex(at: offset) else {
                // People count lines from 1; a line past the end of the document has no such number.
                let place = line < document.lineCount ? "at line \(line + 1)" : "after the end of the document"
                throw ResponseError(.invalidParams, "there is no game \(place)")
            }
            selected = [index]
        } else {
            selected = analysis.games.isEmpty ? [] : [0]
        }
        // A game without moves (a study's diagram) can be saved, not reviewed.
        if !withoutMoves { selected = selected.filter { analysis.games[$0].analysis.hasPlayedMoves } }
        guard !selected.isEmpty else {
            throw ResponseError(.invalidParams, withoutMoves ? "there is no game" : "there is no game with moves")
        }
        return (document, analysis, selected)
    }

    /// Reviews games (or takes their stored reviews), with progress, cancellable by the client
    /// and by an edit to one of the games.
    private func reviewGames(
        _ indices: [Int], of analysis: DocumentAnalysis, uri: DocumentURI, _ context: RequestContext
    ) async throws -> [(Int, EngineCenter.StoredReview)] {
        let settings = currentSettings
        let pool = engines.pool(settings)
        var todo: [(Int, Mainline)] = []
        var done: [(Int, EngineCenter.StoredReview)] = []
        for index in indices {
            let game = analysis.games[index].analysis
            if let stored = engines.review(of: game.text), stored.review.limit == settings.reviewLimit,
                stored.review.preset == settings.reviewPreset
            {
                done.append((index, stored))
            } else if let mainline = Mainline(game.gameReplay), !mainline.moves.isEmpty {
                todo.append((index, mainline))
            }
        }
        guard !todo.isEmpty else { return done }
        // Registered before the client hears of the progress, so that a cancellation finds it.
        let token = context.session.clientCapabilities.supportsWorkDoneProgress ? "pgn-lsp-\(UUID().uuidString)" : nil
        let id = engines.started(
            .init(
                uri: uri, texts: Set(todo.map { analysis.games[$0.0].analysis.text }),
                cancel: { [cancellation = context.cancellation] reason in cancellation.cancel(reason) },
                progressToken: token))
        defer { engines.finished(id) }
        let progress = await Progress.begin(
            server, token: token,
            title: todo.count == 1 ? "Reviewing game \(todo[0].0 + 1)" : "Reviewing \(todo.count) games")
        let total = todo.reduce(0) { $0 + $1.1.moves.count + 1 }
        let counted = Locked(0)
        var outcome = ""
        defer { progress.end(outcome) }
        for (index, mainline) in todo {
            let text = analysis.games[index].analysis.text
            let task = Task {
                try await GameReviewer.review(
                    from: mainline.start, moves: mainline.moves.map(\.move), pool: pool, limit: settings.reviewLimit,
                    preset: settings.reviewPreset
                ) { _, _ in
                    let n = counted.withLock { n in
                        n += 1
                        return n
                    }
                    progress.report(done: n, of: total, "game \(index + 1)")
                }
            }
            let review: GameReview
            do {
                review = try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                }
            } catch let error as EngineError {
                outcome = error.description
                server.showMessage(.error, error.description)
                throw ResponseError(.requestFailed, error.description)
            } catch is CancellationError {
                outcome = "Cancelled"
                throw CancellationError()
            }
            let stored = EngineCenter.StoredReview(review: review, nodes: mainline.moves.map(\.node))
            engines.store(stored, for: text)
            done.append((index, stored))
        }
        outcome = done.count == 1 ? done[0].1.review.oneLine : "Reviewed \(done.count) games"
        server.showMessage(.info, "pgn-lsp: \(outcome)")
        await afterReview(uri, context)
        return done.sorted { $0.0 < $1.0 }
    }

    /// New review results: diagnostics are pushed again, and hints and lenses refreshed.
    private func afterReview(_ uri: DocumentURI, _ context: RequestContext) async {
        await republish([uri], of: server.documents, context.session)
        let capabilities = context.session.clientCapabilities
        if capabilities.value(at: "workspace", "inlayHint", "refreshSupport")?.boolValue == true {
            Task { _ = try? await server.sendRequest("workspace/inlayHint/refresh") }
        }
        if capabilities.value(at: "workspace", "codeLens", "refreshSupport")?.boolValue == true {
            Task { _ = try? await server.sendRequest("workspace/codeLens/refresh") }
        }
    }

    /// The review's diagnostics for a document: inaccuracies as information, mistakes and
    /// blunders as warnings, on the move.
    func reviewDiagnostics(
        _ analysis: DocumentAnalysis, _ document: Document, _ encoding: PositionEncoding
    )
        -> [JSONValue]
    {
        guard currentSettings.reviewDiagnostics else { return [] }
        let reviews = engines.storedReviews
        guard !reviews.isEmpty else { return [] }
        var items: [JSONValue] = []
        for game in analysis.games {
            guard let stored = reviews[game.analysis.text] else { continue }
            let nodes = game.analysis.syntax.nodes
            for (move, node) in zip(stored.review.moves, stored.nodes) {
                guard let judgement = move.judgement else { continue }
                let nodeRange = nodes[node].range
                items.append([
                    "range": range(
                        nodeRange.shifted(by: game.start), document, encoding),
                    "severity": JSONValue(judgement == .inaccuracy ? DiagnosticSeverity.information : .warning),
                    "code": .string("review-\(judgement.name)"),
                    "source": "pgn-lsp review",
                    "message": .string(move.message),
                ])
            }
        }
        return items
    }

    /// Inlay hints of reviewed moves: after each inaccuracy, mistake and blunder its glyph and
    /// the engine's choice (`?? better Nf3`); with `inlayHints.evaluations`, the evaluation
    /// after every move too, unless a comment after the move holds one (`[%eval]`).
    func reviewHints(_ game: PlacedGame, in wanted: Range<Int>) -> [(offset: Int, label: String, tooltip: String)] {
        let settings = currentSettings
        guard settings.inlayReview, let stored = engines.review(of: game.analysis.text) else { return [] }
        let nodes = game.analysis.syntax.nodes
        var hints: [(Int, String, String)] = []
        for (move, node) in zip(stored.review.moves, stored.nodes) {
            let end = nodes[node].range.upperBound + game.start
            guard wanted.contains(end) || wanted.upperBound == end else { continue }
            var parts: [String] = []
            if let judgement = move.judgement {
                parts.append(judgement.glyph)
                if let best = move.bestSAN { parts.append("better \(best)") }
            }
            if settings.inlayEvaluations && !Self.evaluationWritten(after: node, in: game.analysis) {
                parts.append(move.afterText)
            }
            guard !parts.isEmpty else { continue }
            var tooltip = "Engine, depth \(move.depth): \(move.afterText) after the move (White's view)"
            if move.judgement != nil { tooltip = move.message + " " + tooltip }
            hints.append((end, parts.joined(separator: " "), tooltip))
        }
        return hints
    }

    /// Whether a comment right after the move at `node` (before the next move or variation)
    /// holds an evaluation.
    static func evaluationWritten(after node: Int, in game: GameAnalysis) -> Bool {
        let nodes = game.syntax.nodes
        var k = node + 1
        while k < nodes.count && (nodes[k].kind == .comment || nodes[k].kind == .nag) {
            if nodes[k].kind == .comment,
                CommentCommand.parse(game.source.string(nodes[k].range)).contains(where: {
                    if case .evaluation = $0.command { return true }
                    return false
                })
            {
                return true
            }
            k += 1
        }
        return false
    }

    /// The engine's part of a move's hover, one line each: the evaluation after the move with
    /// its line, then the evaluation before it with the judgement of the move played. Empty
    /// when the engine is left out of hovers (`pgn.engine.hoverMs` 0) or fails; while the
    /// engines start, a line that says so instead of waiting for them (the next hover shows
    /// the figures), and one that says so when no answer came in time.
    func engineHover(_ move: ReplayedMove) async -> [String] {
        let settings = currentSettings
        guard settings.hoverMilliseconds > 0 else { return [] }
        let pool = engines.pool(settings)
        let budget = Duration.milliseconds(settings.hoverMilliseconds)
        let limit = SearchLimit.movetime(budget)
        let terminal = GameReviewer.terminalScore(move.after) != nil
        let cached = (terminal ? nil : pool.cached(move.after), pool.cached(move.before))
        if (terminal || cached.0 != nil) && cached.1 != nil {
            return Self.engineLines(move, after: cached.0, before: cached.1)
        }
        if !pool.hasStarted, pool.failure == nil, case .success = settings.engine.resolveExecutable() {
            Task.detached { await pool.warmUp() }
            return [Self.engineStarting]
        }
        do {
            // A hard deadline: an engine that hangs is left to its own timeout, not waited for.
            let found = try await withDeadline(budget * 2 + .milliseconds(500)) {
                async let afterAnalysis = terminal ? nil : pool.analyse(move.after, limit: limit, waitingAtMost: budget)
                async let beforeAnalysis = pool.analyse(move.before, limit: limit, waitingAtMost: budget)
                return try await (afterAnalysis, beforeAnalysis)
            }
            guard let (after, before) = found, after != nil || before != nil || terminal else {
                return ["**Engine**: no answer within \(settings.hoverMilliseconds) ms (busy, or still starting)"]
            }
            return Self.engineLines(move, after: after, before: before)
        } catch let error as EngineError {
            if engines.shouldReport(error) {
                server.showMessage(.warning, error.description)
            }
            server.log(.warning, error.description)
            return []
        } catch {
            return []
        }
    }

    /// The hover's line while the engines start.
    static let engineStarting = "**Engine** starting… (the evaluation comes with the next hover)"

    /// The most lines of a multi-line analysis (`pgn.engine.multiPV`) a hover shows.
    static let hoverLines = 3

    static func engineLines(_ move: ReplayedMove, after: PositionAnalysis?, before: PositionAnalysis?) -> [String] {
        var lines: [String] = []
        let mover = move.before.turn
        /// `moves` in SAN, as many as fit in a line of `hoverColumns` after `lead` columns.
        func line(_ moves: [Move], after lead: Int) -> String {
            var count = min(moves.count, 8)
            var text = ReviewAnnotator.movetext(moves.prefix(count), from: move.after)
            while count > 1 && lead + text.count > hoverColumns {
                count -= 1
                text = ReviewAnnotator.movetext(moves.prefix(count), from: move.after)
            }
            return text
        }
        if move.after.isCheckmate || move.after.isStalemate {
            // The move's line says so.
        } else if let after, let best = after.best {
            var head = "**Engine** \(best.score.displayText) ("
            if best.bound != .exact { head += best.bound == .lowerBound ? "at least, " : "at most, " }
            head += "depth \(after.depth))"
            if let wdl = best.wdl {
                head += " · W \(percent(wdl.win)) D \(percent(wdl.draw)) L \(percent(wdl.loss))"
            }
            if !best.moves.isEmpty {
                let shown = head.count - 4
                head += " · best line " + line(best.moves, after: shown + 13)
            }
            lines.append(head)
            // With pgn.engine.multiPV above 1, the next lines too.
            for other in after.lines.dropFirst().prefix(hoverLines - 1) where !other.moves.isEmpty {
                let score = other.score.displayText
                lines.append("- `\(score)` " + line(other.moves, after: score.count + 3))
            }
        }
        if let before, let bestBefore = before.best {
            var text = "Before the move \(bestBefore.score.displayText)"
            if let choice = before.bestMove, choice != move.move {
                text += ", best **\(move.before.san(choice))**"
            }
            let afterScore = GameReviewer.terminalScore(move.after) ?? after?.best?.score
            if before.bestMove == move.move {
                text += " · the engine's choice"
            } else if let afterScore {
                let view = { (score: Score) in mover == .white ? score : score.negated }
                if let judgement = ReviewFormulas.judge(before: view(bestBefore.score), after: view(afterScore)) {
                    text += " · this move: **\(judgement.name)** \(judgement.glyph)"
                }
            }
            lines.append(text)
        }
        return lines
    }

    private static func percent(_ permille: Int) -> String { "\((permille + 5) / 10)%" }
}

extension GameReview {
    /// `Review: White 53.5% · ACPL 161, Black 87.2% · ACPL 26; 2 blunders, 0 mistakes, 1 inaccuracy`.
    var oneLine: String {
        let counts = Judgement.allCases.reversed().map { j in j.counted(moves.count { $0.judgement == j }) }
        return
            "Review: \(playerText(of: .white)), \(playerText(of: .black)); \(counts.joined(separator: ", "))"
    }
}

/// Work-done progress for a long task, when the client supports it; silent otherwise.
struct Progress: Sendable {
    let server: Server
    let token: String?
    private let lastPercent = Locked(-1)

    /// Creates the progress `token` (nil: the client does not support progress) and begins it.
    static func begin(_ server: Server, token: String?, title: String, cancellable: Bool = true) async -> Progress {
        guard let token,
            (try? await server.sendRequest("window/workDoneProgress/create", params: ["token": .string(token)])) != nil
        else { return Progress(server: server, token: nil) }
        server.sendNotification(
            "$/progress",
            params: [
                "token": .string(token),
                "value": [
                    "kind": "begin", "title": .string(title), "cancellable": .bool(cancellable), "percentage": 0,
                ],
            ])
        return Progress(server: server, token: token)
    }

    private init(server: Server, token: String?) {
        self.server = server
        self.token = token
    }

    func report(done: Int, of total: Int, _ message: String) {
        report(percent: total == 0 ? 100 : done * 100 / total, "\(message): \(done)/\(total)")
    }

    /// One report per percent at most.
    func report(percent: Int, _ message: String) {
        guard let token,
            lastPercent.withLock({ last in
                defer { last = max(last, percent) }
                return percent > last
            })
        else { return }
        server.sendNotification(
            "$/progress",
            params: [
                "token": .string(token),
                "value": ["kind": "report", "percentage": .integer(percent), "message": .string(message)],
            ])
    }

    func end(_ message: String) {
        guard let token else { return }
        server.sendNotification(
            "$/progress", params: ["token": .string(token), "value": ["kind": "end", "message": .string(message)]])
    }
}

/// The result of `work`, or nil when `limit` passes first; then `work` is cancelled and left
/// to finish on its own.
func withDeadline<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T? {
    let task = Task { try await work() }
    let outcome = Locked<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
            outcome.withLock { $0 = continuation }
            func finish(_ value: Result<T, any Error>?) {
                outcome.withLock { pending in
                    pending?.resume(returning: value)
                    pending = nil
                }
            }
            Task {
                do { finish(.success(try await task.value)) } catch { finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                finish(nil)
            }
        }
    } onCancel: {
        task.cancel()
    }
    guard let result else {
        task.cancel()
        return nil
    }
    return try result.get()
}
