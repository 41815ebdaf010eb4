import ChessCore
import Foundation
import GameStore
import LanguageServer
import PGN

/// A game's novelty: the first mainline move, within the opening tree's plies, whose position
/// no game of the databases reached, while they hold the position before it.
struct Novelty: Sendable {
    /// The move that leaves the databases.
    var move: ReplayedMove
    /// The move before it (nil when the position before is the game's start).
    var lastKnown: ReplayedMove?
    /// The games that reached the position before the novelty.
    var knownGames: Int
    /// Where ` $146` goes: after the move and the NAGs right after it; nil when one of them is
    /// already `$146`.
    var markOffset: Int?
}

extension PGNLanguageServer {
    /// The novelty of `game`, as the databases see it; nil when the game has none, when a
    /// database cannot answer (an index missing or being built: the hint would be a guess),
    /// or when the databases do not hold the game's start.
    func novelty(of game: GameAnalysis, in sources: [ExplorerSource]) -> Novelty? {
        guard !sources.isEmpty, let start = game.start.position else { return nil }
        var before = explorer.explore(start, in: sources)
        guard before.isComplete, before.answer.isKnown else { return nil }
        let mainline = game.moves.lazy.filter { $0.depth == 0 }.prefix(PositionIndex.treeDepth)
        var previous: ReplayedMove?
        var line = [start]
        for move in mainline {
            let after = explorer.explore(move.after, line: line, in: sources)
            line.append(move.after)
            guard after.isComplete else { return nil }
            if !after.answer.isKnown {
                return Novelty(
                    move: move, lastKnown: previous, knownGames: before.answer.games,
                    markOffset: Self.noveltyMarkOffset(after: move.node, in: game))
            }
            before = after
            previous = move
        }
        return nil
    }

    /// Where ` $146` is inserted after the move at node `index`: after the NAGs that follow
    /// it (`!`, `$14`), nil when one of them already is `$146`.
    static func noveltyMarkOffset(after index: Int, in game: GameAnalysis) -> Int? {
        let nodes = game.syntax.nodes
        var end = nodes[index].range.upperBound
        var next = index + 1
        while next < nodes.count && nodes[next].kind == .nag {
            if nodes[next].value == 146 { return nil }
            end = nodes[next].range.upperBound
            next += 1
        }
        return end
    }

    /// The novelties of the games, each computed off the concurrency pool.
    func novelties(_ games: [PlacedGame], uri: DocumentURI, _ context: RequestContext) async -> [Int: Novelty] {
        guard currentSettings.inlayNovelty, !games.isEmpty else { return [:] }
        let sources = explorerSources(for: uri, context)
        guard !sources.isEmpty else { return [:] }
        return await ExplorerCenter.offPool { [self] in
            var found: [Int: Novelty] = [:]
            for game in games {
                if let novelty = novelty(of: game.analysis, in: sources) { found[game.start] = novelty }
            }
            return found
        }
    }

    /// The novelty's inlay hint: "N" after the move (none when the game already marks it with
    /// `$146`, whose glyph is the same), its tooltip what was last known.
    static func noveltyHint(_ novelty: Novelty, _ game: PlacedGame) -> (offset: Int, label: String, tooltip: String)? {
        guard novelty.markOffset != nil else { return nil }
        let node = game.analysis.syntax.nodes[novelty.move.node]
        let san = moveName(novelty.move)
        let last: String
        if let known = novelty.lastKnown {
            last = "after \(moveName(known)) (\(known.after.fen))"
        } else {
            last = "the game's start (\(novelty.move.before.fen))"
        }
        let games = "\(Figures.grouped(novelty.knownGames)) game\(novelty.knownGames == 1 ? "" : "s")"
        return (
            node.range.upperBound + game.start, "N",
            "Novelty: no game of the databases reached the position after \(san). "
                + "Last known position: \(last), reached in \(games)."
        )
    }

    /// `12... Nf6`.
    static func moveName(_ move: ReplayedMove) -> String {
        let number = PGNWriter.moveNumber(before: move.before)
        return "\(number) \(move.before.san(move.move))"
    }

    /// The code action "Mark as novelty ($146)" for the game at `offset`, when it has a novelty
    /// that is not marked yet.
    func noveltyActions(
        _ document: Document, _ analysis: DocumentAnalysis, at offset: Int, _ context: RequestContext
    ) async -> [JSONValue] {
        guard let game = analysis.game(at: offset) else { return [] }
        guard let novelty = await novelties([game], uri: document.uri, context)[game.start],
            let mark = novelty.markOffset
        else { return [] }
        let at = mark + game.start
        let edit = Diagnostic.Edit(range: at..<at, text: " $146")
        return [
            [
                "title": "Mark as novelty ($146)", "kind": "refactor.rewrite",
                "edit": workspaceEdit(document, [edit], context.positionEncoding),
            ]
        ]
    }
}
