import ChessCore
import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Hover on a move, in the order a player reads it: the move, the engine's evaluation and
    /// line, the opening, the board (with what the move's comments say beside it), the FEN, then
    /// what the databases know of the position after it (`ExplorerHover.swift`); at most 20
    /// lines of 80 columns when the board is text. On a tag: what the tag means. On a NAG: its
    /// meaning.
    func registerHover() {
        server.capabilities.features["hoverProvider"] = true
        server.registerRequest("textDocument/hover") { [self] params, context in
            let (document, analysis, offset) = try await placeParams(params, context, screen: .hover).parts
            guard let game = analysis.game(at: offset) else { return .null }
            let local = offset - game.start
            let a = game.analysis
            if let tag = a.tags.first(where: { $0.range.contains(local) }) {
                let name = a.source.string(tag.nameRange)
                let value = a.tagReplay.value(of: tag) ?? ""
                let code = value.isEmpty ? "" : " " + MarkdownText.code(value)
                var text = "**\(MarkdownText.escaped(name))**\(code)\n\n\(TagMeanings.meaning(name))"
                let graph = reviewGraph(game, picture: showsBoardPicture(context))
                if !graph.isEmpty { text += "\n\n" + graph }
                return hover(text, game.start, tag.range, document, context)
            }
            let nodes = a.syntax.nodes
            guard let index = nodes.index(holding: local, by: \.range) else { return .null }
            let node = nodes[index]
            switch node.kind {
            case .move:
                guard let move = a.move(atNode: index) else { return .null }
                let line = a.line(before: move)
                async let explored = explorerHover(after: move, line: line, uri: document.uri, context)
                let engine = await engineHover(move)
                let explorer = await explored
                let text = moveHover(
                    move, a, index, picture: showsBoardPicture(context), engine: engine, explorer: explorer)
                return hover(text, game.start, node.range, document, context)
            case .nag:
                let text: String
                if node.value < 0 {
                    text = "Unknown annotation"
                } else {
                    let glyph = NAGMeanings.glyph(node.value).map { " \($0)" } ?? ""
                    text = "**$\(node.value)**\(glyph): \(NAGMeanings.meaning(node.value) ?? "no standard meaning")"
                }
                return hover(text, game.start, node.range, document, context)
            default:
                return .null
            }
        }
    }

    /// A hover in markdown, or in plain text for a client that does not take markdown (Vim's
    /// ALE, a client that announces nothing).
    func hover(
        _ markdown: String, _ base: Int, _ range: Range<Int>, _ document: Document, _ context: RequestContext
    ) -> JSONValue {
        let content: JSONValue =
            context.session.clientCapabilities.acceptsMarkdownHover
            ? ["kind": "markdown", "value": .string(markdown)]
            : ["kind": "plaintext", "value": .string(Self.plainText(markdown))]
        return [
            "contents": content,
            "range": self.range(
                range.shifted(by: base), document, context.positionEncoding),
        ]
    }

    /// The hover's markdown as plain text: no emphasis, code marks, fences or escapes, and a
    /// blank line where a rule was. The hovers use nothing else of markdown.
    static func plainText(_ markdown: String) -> String {
        MarkdownText.unescaped(
            markdown.replacingOccurrences(of: "\n\n---\n\n", with: "\n\n").replacingOccurrences(
                of: MarkdownText.lineBreak, with: "\n"
            )
            .replacingOccurrences(of: "```text\n", with: "").replacingOccurrences(of: "\n```", with: "")
            .replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "`", with: ""))
    }

    /// Whether a move's hover draws the board as a picture (`hover.boardImage`): never in a
    /// plain-text hover; with `auto`, for the clients known to show markdown images.
    func showsBoardPicture(_ context: RequestContext) -> Bool {
        guard context.session.clientCapabilities.acceptsMarkdownHover else { return false }
        switch currentSettings.boardImage {
        case .always: return true
        case .never: return false
        case .auto: return context.session.initializeParams.clientInfo?.showsMarkdownImages ?? false
        }
    }

    /// A move's hover in markdown; with `picture`, the board is an SVG image, else text. Its
    /// lines follow each other without blank lines (markdown hard breaks), so that a terminal
    /// editor shows them as written: `engine` and `explorer` are the lines of those sections.
    func moveHover(
        _ move: ReplayedMove, _ game: GameAnalysis, _ index: Int, picture: Bool, engine: [String] = [],
        explorer: [String] = []
    ) -> String {
        let side = move.before.turn
        let number = PGNWriter.moveNumber(move.before.fullmoveNumber, black: side == .black)
        let san = move.before.san(move.move)
        var heading = "**\(number) \(san)** — \(side)" + (move.depth == 0 ? "" : " (variation)")
        if move.after.isCheckmate {
            heading += " · checkmate"
        } else if move.after.isStalemate {
            heading += " · stalemate"
        }
        var lines = [heading] + engine
        if let opening = Self.openingHoverLine(move, game) { lines.append(opening) }
        let commands = commentCommands(after: index, in: game)
        let marks = BoardMarks(move: move.move, commands: commands)
        let from = boardSide(move, game)
        // What the comments (their first few clocks and evaluations) and the material say,
        // beside a text board (plain text, made here).
        var notes: [String] = []
        for command in commands where notes.count < Self.commandNotes {
            switch command {
            case .clock(let seconds): notes.append("Clock \(CommentCommand.clockText(seconds))")
            case .evaluation(let value, let depth):
                notes.append("Evaluation \(value.text)" + (depth.map { " (depth \($0))" } ?? ""))
            default: break
            }
        }
        let whiteLost = move.after.captured(.white)
        let blackLost = move.after.captured(.black)
        if !whiteLost.isEmpty || !blackLost.isEmpty {
            func list(_ roles: [Role], _ color: Color) -> String {
                roles.isEmpty ? "nothing" : roles.map { String(Piece(color: color, role: $0).symbol) }.joined()
            }
            let balance = move.after.materialBalance
            notes.append("White lost \(list(whiteLost, .white))")
            notes.append("Black lost \(list(blackLost, .black))")
            notes.append(
                balance == 0 ? "Material is level" : "\(balance > 0 ? "White" : "Black") is \(abs(balance)) up")
        }
        var paragraph: [String] = []
        var blocks: [String] = []
        func endParagraph() {
            if !paragraph.isEmpty { blocks.append(paragraph.joined(separator: MarkdownText.lineBreak)) }
            paragraph = []
        }
        paragraph = lines
        if picture {
            let svg = BoardPicture.svg(move.after, marks: marks, from: from)
            paragraph.append(BoardPicture.markdownImage(svg, title: "The board after \(number) \(san)"))
            if !notes.isEmpty { paragraph.append(notes.joined(separator: " · ")) }
        } else {
            endParagraph()
            var rows = move.after.diagram(from: from).split(separator: "\n").map(String.init)
            for (k, note) in notes.prefix(rows.count).enumerated() { rows[k] += "   " + note }
            blocks.append("```text\n" + rows.joined(separator: "\n") + "\n```")
        }
        let summary = marks.summary
        if !summary.isEmpty { paragraph.append(summary) }
        // The other commands in words (squares and arrows are on the board, clocks and
        // evaluations beside it).
        let described = commands.compactMap(describe)
        if !described.isEmpty {
            let more = described.count - Self.commandsShown
            paragraph.append(
                described.prefix(Self.commandsShown).joined(separator: " · ")
                    + (more > 0 ? " · and \(more) more command\(more == 1 ? "" : "s")" : ""))
        }
        paragraph.append("FEN `\(move.after.fen)`")
        paragraph += explorer
        endParagraph()
        return blocks.joined(separator: "\n")
    }

    /// The side at the bottom of a move's board (`board.orientation`).
    func boardSide(_ move: ReplayedMove, _ game: GameAnalysis) -> Color {
        let settings = currentSettings
        switch settings.boardOrientation {
        case .white: return .white
        case .black: return .black
        case .sideToMove: return move.after.turn
        case .player:
            let player = NameKey(settings.boardPlayer)
            guard !player.words.isEmpty else { return .white }
            let replay = game.gameReplay
            func plays(_ tag: String) -> Bool {
                guard let name = replay.tag(tag).flatMap(replay.value(of:)) else { return false }
                let key = NameKey(name)
                return key == player || key.mayAbbreviate(player)
            }
            return !plays("White") && plays("Black") ? .black : .white
        }
    }

    /// How many comment commands a move's hover describes.
    static let commandsShown = 8
    /// How many clocks and evaluations of the comments a move's hover writes beside the board.
    static let commandNotes = 4

    /// The comment commands that belong to the move at `index`: those of the comments after it.
    func commentCommands(after index: Int, in game: GameAnalysis) -> [CommentCommand] {
        var result: [CommentCommand] = []
        var i = index + 1
        let nodes = game.syntax.nodes
        while i < nodes.count && (nodes[i].kind == .comment || nodes[i].kind == .nag) {
            if nodes[i].kind == .comment {
                result += CommentCommand.parse(game.source.string(nodes[i].range)).map(\.command)
            }
            i += 1
        }
        return result
    }

    /// A command in words; nil for squares and arrows, which the board shows, and for clocks
    /// and evaluations, written beside it.
    func describe(_ command: CommentCommand) -> String? {
        switch command {
        case .clock, .evaluation: return nil
        case .elapsedMoveTime(let seconds): return "Move time \(CommentCommand.clockText(seconds))"
        case .elapsedGameTime(let seconds): return "Game time \(CommentCommand.clockText(seconds))"
        case .squares, .arrows: return nil
        case .other(let name, let value): return MarkdownText.code("%\(name) \(value)", limit: 80)
        }
    }
}

/// What the standard tags mean, for hover.
enum TagMeanings {
    static func meaning(_ name: String) -> String {
        table[name] ?? "A tag this server does not know; PGN allows any."
    }

    static let table: [String: String] = [
        "Event": "The name of the tournament or match (Seven Tag Roster).",
        "Site": "Where the game was played: city, region and IOC country code, or a web address (Seven Tag Roster).",
        "Date": "The starting date of the game, `YYYY.MM.DD`, with `??` for unknown parts (Seven Tag Roster).",
        "Round": "The playing round of the game in its event (Seven Tag Roster).",
        "White": "The player of the white pieces, `Last, First` (Seven Tag Roster).",
        "Black": "The player of the black pieces, `Last, First` (Seven Tag Roster).",
        "Result": "The result: `1-0`, `0-1`, `1/2-1/2`, or `*` for unknown or ongoing (Seven Tag Roster).",
        "WhiteElo": "White's rating (Elo).", "BlackElo": "Black's rating (Elo).",
        "WhiteTitle": "White's title (GM, IM, FM, …).", "BlackTitle": "Black's title (GM, IM, FM, …).",
        "ECO": "The opening's code in the Encyclopaedia of Chess Openings (A00–E99).",
        "Opening": "The name of the opening.", "Variation": "The name of the opening's variation.",
        "TimeControl": "The time control: seconds per game plus increment (`300+3`), or moves/seconds.",
        "Termination": "How the game ended (normal, time forfeit, adjudication, …).",
        "FEN": "The position the game starts from, in Forsyth–Edwards Notation (needs `SetUp \"1\"`).",
        "SetUp": "`1` when the game starts from the position of the FEN tag.",
        "Variant": "The rules: standard chess, or a variant such as Chess960.",
        "Annotator": "Who annotated the game.", "PlyCount": "The number of half-moves in the game.",
        "EventDate": "The starting date of the event.", "UTCDate": "The date the game started, in UTC.",
        "UTCTime": "The time the game started, in UTC.", "Mode": "How the game was played: OTB, ICS, …",
    ]
}
