import ChessCore
import Foundation
import GameStore
import LanguageServer
import PGN

/// What a document's repertoires are told (`PGNLanguageServer.repertoireFindings`).
struct RepertoireFindings: Sendable {
    var diagnostics: [Diagnostic] = []
    /// For each repertoire game whose first position where the opponent moves the databases
    /// know: how many of their games reach it, how many leave the repertoire by a reply it does
    /// not answer within the depth (each position counted in the first game that reaches it,
    /// every reply however rare), and the largest gap (`repertoire-gap`).
    var coverage: [ChapterCoverage] = []
    /// Where each gap's reply would go, in the gaps' order.
    var plans: [GapPlan] = []
}

struct ChapterCoverage: Sendable {
    var game: Int
    var games: Int
    var uncovered: Int
    var biggest: (move: String, games: Int, range: Range<Int>)?

    /// The share of `games` the repertoire answers, from 0 to 1.
    var share: Double { games == 0 ? 1 : Double(max(0, games - uncovered)) / Double(games) }
}

extension PGNLanguageServer {
    /// What the document's repertoires (`DocumentRepertoire`) are told: conflicts, a position
    /// the repertoire's side answers with two moves in two lines (`repertoire-conflict`), and,
    /// against the explorer's databases, gaps: a reply played in enough of their games where
    /// the opponent moves that no line of the repertoire answers (`repertoire-gap`), with a quick
    /// fix that adds it and the most played answer to it, and each game's coverage. Transpositions
    /// count: a reply that leads to a position of another line is answered. Kept per document
    /// version, settings and databases' files: diagnostics, code actions and lenses ask alike.
    func repertoireFindings(
        _ analysis: DocumentAnalysis, _ document: Document, _ session: Session?
    ) async -> RepertoireFindings {
        // The databases are looked for only for a document with a repertoire.
        guard !analysis.repertoireGames.isEmpty else { return RepertoireFindings() }
        return await repertoireFindings(analysis, document, explorerSources(for: document.uri, session))
    }

    /// The same against `sources`, the databases of the document.
    func repertoireFindings(
        _ analysis: DocumentAnalysis, _ document: Document, _ sources: [ExplorerSource]
    ) async -> RepertoireFindings {
        guard !analysis.repertoireGames.isEmpty else { return RepertoireFindings() }
        let settings = currentSettings
        // The player's other repertoire files (`repertoire.white`, `repertoire.black`): a reply
        // one of them answers is no gap, and a position one of them answers otherwise is a
        // conflict. This document's own file is left out of them.
        let files = settingsRepertoires(settings, server.session, server.documents, leaving: document.uri)
        var key = Hasher()
        key.combine(document.history.stamp)
        key.combine(settings)
        key.combine(files.key)
        key.combine(repertoireVerdicts.generation)
        for source in sources {
            key.combine(source.path)
            key.combine(FileSignature.of(source.path))
        }
        let stamp = key.finalize()
        if let kept = keptRepertoireFindings.withLock({ $0[document.uri] }), kept.key == stamp { return kept.findings }
        let findings = await ExplorerCenter.offPool { [self] in
            let repertoire = DocumentRepertoire(analysis, document)
            var findings = RepertoireFindings(
                diagnostics: Self.repertoireConflicts(repertoire)
                    + Self.repertoireConflicts(repertoire, files.repertoires) + repertoireMistakes(repertoire, settings)
            )
            if settings.repertoireGaps && !sources.isEmpty {
                let gaps = repertoireGaps(repertoire, files.repertoires, sources, settings)
                findings.diagnostics += gaps.diagnostics
                findings.coverage = gaps.coverage
                findings.plans = gaps.plans
            }
            findings.diagnostics.sort { $0.range.lowerBound < $1.range.lowerBound }
            return findings
        }
        keptRepertoireFindings.withLock { $0[document.uri] = (stamp, findings) }
        return findings
    }

    /// A position the repertoire's side answers with one move in a line and another in a line
    /// that reaches it otherwise (alternatives written at the same place, as variations of one
    /// move, are choices, not conflicts): a warning at the later, pointing at the earlier.
    static func repertoireConflicts(_ repertoire: DocumentRepertoire) -> [Diagnostic] {
        struct Answer {
            var move: Move
            var san: String
            var arrival: [Int?]
            var range: Range<Int>
            var game: Int
        }
        var answers: [Color: [UInt64: [Answer]]] = [:]
        var found: [Diagnostic] = []
        for chapter in repertoire.chapters {
            for node in chapter.moves.keys.sorted() {
                let placed = chapter.moves[node]!
                let before = placed.move.before
                guard before.turn == chapter.side else { continue }
                let answer = Answer(
                    move: placed.move.move, san: Self.moveName(placed.move), arrival: [chapter.game, placed.parent],
                    range: placed.range, game: chapter.game)
                let earlier = answers[chapter.side]?[before.hash] ?? []
                if let other = earlier.first(where: { $0.move != answer.move && $0.arrival != answer.arrival }),
                    !earlier.contains(where: { $0.move == answer.move })
                {
                    var diagnostic = Diagnostic(
                        .repertoireConflict, .warning,
                        "\(answer.san) here, but \(other.san) in the same position in another line",
                        range: answer.range, game: answer.game)
                    diagnostic.related = [
                        Diagnostic.Related(range: other.range, message: "\(other.san): the other line's answer")
                    ]
                    found.append(diagnostic)
                }
                answers[chapter.side, default: [:]][before.hash, default: []].append(answer)
            }
        }
        return found
    }

    /// A position the document's repertoire answers with one move where a file of the player's
    /// repertoire (`files`) answers it with none of the same: a warning at the document's move,
    /// naming the file's place.
    static func repertoireConflicts(_ repertoire: DocumentRepertoire, _ files: [Color: Repertoire]) -> [Diagnostic] {
        var found: [Diagnostic] = []
        for chapter in repertoire.chapters {
            guard let other = files[chapter.side] else { continue }
            for node in chapter.moves.keys.sorted() {
                let placed = chapter.moves[node]!
                let before = placed.move.before
                guard before.turn == chapter.side, let written = other.moves[before.hash], !written.isEmpty,
                    !written.contains(where: { $0.move == placed.move.move })
                else { continue }
                let place = written[0].place
                let file = other.chapters[place.chapter]
                let number = PGNWriter.moveNumber(before: before)
                found.append(
                    Diagnostic(
                        .repertoireConflict, .warning,
                        "\(moveName(placed.move)) here, but \(number) \(written[0].san) in the same position in "
                            + "\(URL(fileURLWithPath: file.file).lastPathComponent):\(place.line ?? 1) (\(file.name))",
                        range: placed.range, game: chapter.game))
            }
        }
        return found
    }

    /// Each position of the repertoire where the opponent moves, within `repertoire.depth`
    /// plies, once (the first place it is reached), asked of the databases: the replies played
    /// in at least `repertoire.minShare` percent and `repertoire.minGames` of their games
    /// there that lead to no position of the repertoire.
    func repertoireGaps(
        _ repertoire: DocumentRepertoire, _ files: [Color: Repertoire], _ sources: [ExplorerSource],
        _ settings: Settings
    ) -> (diagnostics: [Diagnostic], coverage: [ChapterCoverage], plans: [GapPlan]) {
        var plans: [GapPlan] = []
        var asked: Set<UInt64> = []
        var totals: [UInt64: Int] = [:]
        var found: [Diagnostic] = []
        var coverage: [ChapterCoverage] = []
        for chapter in repertoire.chapters {
            guard let sideRepertoire = repertoire.repertoires[chapter.side] else { continue }
            // The chapter's start, when the opponent moves first, then each move after which
            // the opponent moves.
            var places: [(position: Position, line: [Position], reached: DocumentRepertoire.PlacedMove?)] = []
            if chapter.start.turn != chapter.side { places.append((chapter.start, [], nil)) }
            for node in chapter.moves.keys.sorted() {
                let placed = chapter.moves[node]!
                guard placed.move.after.turn != chapter.side else { continue }
                let line = repertoire.line(to: node, in: chapter)
                guard line.count < settings.repertoireDepth else { continue }
                places.append((placed.move.after, line, placed))
            }
            var covered = ChapterCoverage(game: chapter.game, games: 0, uncovered: 0)
            for (position, line, reached) in places {
                guard asked.insert(position.hash).inserted else {
                    if covered.games == 0 { covered.games = totals[position.hash] ?? 0 }
                    continue
                }
                let exploration = explorer.explore(position, line: line, in: sources)
                let total = exploration.answer.games
                guard exploration.isComplete, total > 0 else { continue }
                totals[position.hash] = total
                if covered.games == 0 { covered.games = total }
                for reply in exploration.answer.continuations {
                    let target = position.playing(reply.move).hash
                    if sideRepertoire.positions[target] != nil || files[chapter.side]?.positions[target] != nil {
                        // Answered: where, when by another move order (not written here).
                        let written = (sideRepertoire.moves[position.hash] ?? []).contains { $0.move == reply.move }
                        let range = reached?.range ?? chapter.firstRange
                        if !written, reply.games >= settings.repertoireMinGames,
                            Double(reply.games) * 100 >= settings.repertoireMinShare * Double(total)
                        {
                            found.append(
                                transposition(
                                    reply, of: total, at: position, range: range, game: chapter.game,
                                    where: placeName(target, repertoire, sideRepertoire, files[chapter.side])))
                        }
                        continue
                    }
                    // Every reply the repertoire does not answer counts against its coverage;
                    // those played enough are gaps.
                    covered.uncovered += reply.games
                    guard reply.games >= settings.repertoireMinGames,
                        Double(reply.games) * 100 >= settings.repertoireMinShare * Double(total)
                    else { continue }
                    let (diagnostic, plan) = gap(
                        reply, of: total, at: position, line: line, reached: reached, chapter, sources)
                    found.append(diagnostic)
                    if let plan { plans.append(plan) }
                    if reply.games > covered.biggest?.games ?? 0 {
                        let number = PGNWriter.moveNumber(before: position)
                        covered.biggest = ("\(number) \(position.san(reply.move))", reply.games, diagnostic.range)
                    }
                }
            }
            if covered.games > 0 { coverage.append(covered) }
        }
        return (found, coverage, plans)
    }

    /// The gap of `reply` in `position`: where the move that reached it stands (the game's
    /// first line at its start), the fix that adds the reply with the most played answer, and
    /// where the reply goes with an answer of the engine's (`GapPlan`).
    private func gap(
        _ reply: ExplorerAnswer.Continuation, of total: Int, at position: Position, line: [Position],
        reached: DocumentRepertoire.PlacedMove?, _ chapter: DocumentRepertoire.Chapter, _ sources: [ExplorerSource]
    ) -> (Diagnostic, GapPlan?) {
        let san = position.san(reply.move)
        let number = PGNWriter.moveNumber(before: position)
        var message = Self.replyFigures(reply, of: total, at: position) + " — not prepared"
        let after = position.playing(reply.move)
        let answers = explorer.explore(after, line: line + [position], in: sources).answer.continuations
        var text = "\(number) \(san)"
        if let best = answers.first {
            text += " " + GapPlan.answer(best.move, in: after)
            message += "; most played answer: \(after.san(best.move))"
        }
        let range = reached?.range ?? chapter.firstRange
        // Beside the line's reply when it goes on, else as its continuation.
        var plan: GapPlan?
        if let reached {
            if let next = reached.next, let written = chapter.moves[next] {
                plan = GapPlan(range: range, reply: "\(number) \(san)", after: after, at: written.end, beside: true)
            } else {
                plan = GapPlan(range: range, reply: "\(number) \(san)", after: after, at: reached.end, beside: false)
            }
        } else if let first = chapter.first, let written = chapter.moves[first] {
            plan = GapPlan(range: range, reply: "\(number) \(san)", after: after, at: written.end, beside: true)
        }
        let fixes = plan.map {
            [Diagnostic.Fix(title: "Prepare \($0.reply)", edits: [$0.edit(text)], isPreferred: true)]
        }
        return (
            Diagnostic(.repertoireGap, .information, message, range: range, game: chapter.game, fixes: fixes ?? []),
            plan
        )
    }
}

extension PGNLanguageServer {
    /// A reply the repertoire answers by another move order: a hint that says where.
    func transposition(
        _ reply: ExplorerAnswer.Continuation, of total: Int, at position: Position, range: Range<Int>, game: Int,
        where place: String
    ) -> Diagnostic {
        Diagnostic(
            .repertoireTransposition, .hint,
            Self.replyFigures(reply, of: total, at: position) + " — answered by transposition, \(place)",
            range: range, game: game)
    }

    /// `1... c5: 33% of 12 games`: a reply and its share of the games that reached its position.
    static func replyFigures(_ reply: ExplorerAnswer.Continuation, of total: Int, at position: Position) -> String {
        let share = Figures.percent(Double(reply.games) / Double(total))
        return "\(PGNWriter.moveNumber(before: position)) \(position.san(reply.move)): \(share) of "
            + "\(Figures.grouped(total)) game\(total == 1 ? "" : "s")"
    }

    /// Where a position of the repertoire is first reached: `line 12 (Ruy Lopez)` in this
    /// document, `white-e4.pgn:3 (Ruy Lopez)` in another file of the player's.
    func placeName(
        _ hash: UInt64, _ repertoire: DocumentRepertoire, _ own: Repertoire, _ files: Repertoire?
    ) -> String {
        if let place = own.positions[hash], place.chapter < repertoire.chapters.count {
            let chapter = repertoire.chapters[place.chapter]
            let name = own.chapters[place.chapter].name
            let line = place.line.map { "line \($0 + chapter.startLine)" } ?? "its start"
            return "\(line) (\(name))"
        }
        if let files, let place = files.positions[hash] {
            let chapter = files.chapters[place.chapter]
            return "\(URL(fileURLWithPath: chapter.file).lastPathComponent):\(place.line ?? 1) (\(chapter.name))"
        }
        return "in the repertoire"
    }
}

/// Where a gap's reply goes into the repertoire, for an answer of the engine's
/// (`pgn.prepareRepertoireGap`).
struct GapPlan: Sendable {
    /// The gap's diagnostic's range, and the reply as written (`1... c5`).
    var range: Range<Int>
    var reply: String
    /// The position after the reply.
    var after: Position
    /// Where it goes: after a move, as a variation beside the line's reply, or as its continuation.
    var at: Int
    var beside: Bool

    /// The edit that writes `text` (the reply and an answer) there.
    func edit(_ text: String) -> Diagnostic.Edit {
        Diagnostic.Edit(range: at..<at, text: beside ? " (\(text))" : " \(text)")
    }

    /// An answer as written after the reply: with its move number when White plays it.
    static func answer(_ move: Move, in position: Position) -> String {
        (position.turn == .white ? "\(position.fullmoveNumber). " : "") + position.san(move)
    }
}

extension DocumentRepertoire.Chapter {
    /// Where a finding about the chapter's start stands: its first move, else its first tag.
    var firstRange: Range<Int> { first.flatMap { moves[$0]?.range } ?? label }
}
