import ChessCore
import LanguageServer
import PGN

/// Opening names (`OpeningBook`, lichess's list) in the editor: a line of the hover on a move,
/// an inlay hint after the mainline move where the game's opening name was reached, and the
/// source action that fills in the `ECO` and `Opening` tags. The `opening-tags` diagnostic and
/// its fix come from the replay, like every other diagnostic.
extension PGNLanguageServer {
    static let fillOpeningTagsKind = "source.fillOpeningTags.pgn"

    /// The opening at a move: the name of the last named position of the line that leads to
    /// it (through the moves its variation replaces), or nil where the list names none.
    static func opening(at move: ReplayedMove, in game: GameAnalysis) -> Opening? {
        let book = OpeningBook.shared
        let moves = game.moves
        guard var k = moves.firstIndex(where: { $0.node == move.node }) else { return nil }
        while true {
            if let opening = book.opening(at: moves[k].after) { return opening }
            // The move before: the latest earlier one that ends where this one starts.
            let before = moves[k].before
            guard let previous = moves[..<k].lastIndex(where: { $0.after == before }) else {
                return book.opening(at: before)
            }
            k = previous
        }
    }

    /// The hover's line for the opening at a move.
    static func openingHoverLine(_ move: ReplayedMove, _ game: GameAnalysis) -> String? {
        opening(at: move, in: game).map { "Opening: **\($0.title)**" }
    }

    /// The inlay hint of a game's opening: after the mainline move where its name was reached.
    static func openingHint(_ game: PlacedGame) -> (offset: Int, label: String, tooltip: String)? {
        guard let (opening, node) = game.analysis.opening, let node else { return nil }
        return (
            game.start + game.analysis.syntax.nodes[node].range.upperBound, opening.title,
            "Opening (lichess's names): \(opening.moves)"
        )
    }

    /// The edits that set a game's `ECO` and `Opening` tags to its opening: a value replaced,
    /// or a tag added after the last one.
    static func openingTagEdits(_ game: PlacedGame) -> [Diagnostic.Edit] {
        guard let (opening, _) = game.analysis.opening else { return [] }
        let replay = game.analysis.tagReplay
        var edits: [Diagnostic.Edit] = []
        var added = ""
        for (name, value) in [("ECO", opening.eco), ("Opening", opening.name)] {
            if let tag = replay.tag(name) {
                guard replay.value(of: tag) != value, let range = tag.valueRange else { continue }
                edits.append(Diagnostic.Edit(range: range, text: PGNWriter.quotedTagValue(value)))
            } else {
                added += "\n" + PGNWriter.tagPair(name: name, value: value)
            }
        }
        if !added.isEmpty {
            if let last = game.analysis.tags.last?.range.upperBound {
                edits.append(Diagnostic.Edit(range: last..<last, text: added))
            } else {
                edits.append(Diagnostic.Edit(range: 0..<0, text: String(added.dropFirst()) + "\n\n"))
            }
        }
        return edits.map { $0.shifted(by: game.start) }
    }

    /// `pgn.fillOpeningTags` (the game `selectGames` names) and `pgn.fillAllOpeningTags`
    /// (every game): the source actions' edits, applied through the client. Answers whether
    /// they were applied and how many games they changed; a game whose tags are right already
    /// is left as it is, and with nothing to change nothing is sent.
    func fillOpeningTags(
        _ name: String, _ arguments: [JSONValue], _ context: RequestContext
    ) async throws
        -> JSONValue
    {
        let (document, analysis, selected) = try selectGames(
            name, arguments, context, allGames: name == "pgn.fillAllOpeningTags")
        let perGame = selected.map { Self.openingTagEdits(analysis.games[$0]) }.filter { !$0.isEmpty }
        guard !perGame.isEmpty else { return ["applied": false, "games": 0] }
        let answer = try await applyEdit(
            "Fill in ECO and Opening tags", workspaceEdit(document, perGame.flatMap { $0 }, context.positionEncoding),
            context)
        return ["applied": answer["applied"] ?? false, "games": .integer(perGame.count)]
    }

    /// The source actions "Fill in ECO and Opening tags", for the game at `offset` and for
    /// every game of the document (each offered when it changes something).
    func openingTagActions(
        _ document: Document, _ analysis: DocumentAnalysis, at offset: Int, _ encoding: PositionEncoding
    )
        -> [JSONValue]
    {
        var actions: [JSONValue] = []
        if let game = analysis.game(at: offset) {
            let edits = Self.openingTagEdits(game)
            if !edits.isEmpty {
                actions.append([
                    "title": "Fill in ECO and Opening tags", "kind": .string(Self.fillOpeningTagsKind),
                    "edit": workspaceEdit(document, edits, encoding),
                ])
            }
        }
        if analysis.games.count > 1 {
            let edits = analysis.games.flatMap(Self.openingTagEdits)
            if !edits.isEmpty {
                actions.append([
                    "title": "Fill in ECO and Opening tags of every game", "kind": .string(Self.fillOpeningTagsKind),
                    "edit": workspaceEdit(document, edits, encoding),
                ])
            }
        }
        return actions
    }
}
