import ChessCore
import Foundation
import GameStore
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// How many continuations a hover lists.
    static let hoverContinuations = 5

    /// The explorer's part of a move's hover: the games of the databases that reached the
    /// position after the move, their results, the moves most played from it with their
    /// figures, and the best-rated game that reached it, one line each. Empty when no database
    /// is there.
    func explorerHover(
        after move: ReplayedMove, line: [Position], uri: DocumentURI, _ context: RequestContext
    ) async -> [String] {
        let sources = explorerSources(for: uri, context)
        guard !sources.isEmpty else { return [] }
        let position = move.after
        let exploration = await ExplorerCenter.offPool { [explorer] in
            explorer.explore(position, line: line, in: sources, best: true)
        }
        return Self.explorerLines(exploration, position: position)
    }

    /// The explorer's section in markdown, one line each: what reached the position, the
    /// results, the moves played next (a compact table on one line: the move, its games and
    /// White's score), the best-rated game, and notes.
    static func explorerLines(_ exploration: Exploration, position: Position) -> [String] {
        var lines: [String] = []
        let answer = exploration.answer
        let names =
            exploration.answered.map { MarkdownText.escaped($0.name) }.joined(separator: ", ")
            + (exploration.filter.isEmpty ? "" : "; " + MarkdownText.escaped(exploration.filter))
        if exploration.answered.isEmpty {
            lines.append("**Explorer**")
        } else if !answer.isKnown {
            lines.append(
                "**Explorer** — no game of \(names) reached it in its first \(PositionIndex.treeDepth) plies"
            )
        } else {
            let games = "\(Figures.grouped(answer.games)) game\(answer.games == 1 ? "" : "s")"
            lines.append("**Explorer** — \(games) reached this position (\(names))")
            let known = answer.whiteWins + answer.draws + answer.blackWins
            var results: [String] = []
            if known > 0 {
                let share = { (count: Int) in Figures.percent(Double(count) / Double(known)) }
                results.append(
                    "White wins \(share(answer.whiteWins)) · draws \(share(answer.draws)) · Black wins \(share(answer.blackWins))"
                )
            }
            if answer.ended > 0 { results.append("\(Figures.grouped(answer.ended)) ended here") }
            if !results.isEmpty { lines.append(results.joined(separator: " · ")) }
            if !answer.continuations.isEmpty {
                let number = PGNWriter.moveNumber(before: position)
                var row = "Next (games, White's score):"
                // What a terminal shows of the row: the backticks are not shown.
                var width = row.count
                var shown = 0
                for continuation in answer.continuations.prefix(hoverContinuations) {
                    let san = "\(number) \(position.san(continuation.move))"
                    var figures = " \(Figures.grouped(continuation.games))"
                    if let score = continuation.whiteScore { figures += " (\(Figures.percent(score)))" }
                    let separator = shown > 0 ? " ·" : ""
                    let added = separator.count + 1 + san.count + figures.count
                    // Room left for "· N others" at the end of an 80-column line.
                    if shown > 0 && width + added > hoverColumns - 12 { break }
                    row += "\(separator) `\(san)`\(figures)"
                    width += added
                    shown += 1
                }
                let more = answer.continuations.count - shown
                if more > 0 { row += " · \(more) other\(more == 1 ? "" : "s")" }
                lines.append(row)
            }
            if let best = exploration.best {
                lines.append(
                    "Best-rated game: \(MarkdownText.escaped(best.summary.label)) (\(MarkdownText.escaped(best.database)))"
                )
            }
        }
        for note in exploration.notes {
            lines.append("Note: \(MarkdownText.escapedKeepingCode(note))")
        }
        return lines
    }

    /// The width of a terminal a hover's lines are kept to.
    static let hoverColumns = 80

    /// `1,234 games · 54% white score`.
    static func figures(_ continuation: ExplorerAnswer.Continuation) -> String {
        var text = "\(Figures.grouped(continuation.games)) game\(continuation.games == 1 ? "" : "s")"
        if let score = continuation.whiteScore { text += " · \(Figures.percent(score)) white score" }
        return text
    }
}

extension GameAnalysis {
    /// The positions before `move` on its line, from the game's start: each earlier move
    /// whose position after it is where the line stood, walked back (variations included).
    func line(before move: ReplayedMove) -> [Position] {
        let moves = self.moves
        guard let index = moves.firstIndex(where: { $0.node == move.node }) else { return [move.before] }
        var line = [move.before]
        var hash = move.before.hash
        for earlier in moves[..<index].reversed() where earlier.after.hash == hash && earlier.depth <= move.depth {
            line.append(earlier.before)
            hash = earlier.before.hash
        }
        return line.reversed()
    }
}
