import ChessCore
import Foundation
import GameStore
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Completion: the legal moves in SAN where a move can go (in the mainline or a
    /// variation, filtered by what is typed; those the databases know first, most played
    /// first, with their figures as detail), tag names and values, and NAGs after `$`.
    func registerCompletion() {
        server.capabilities.features["completionProvider"] = ["triggerCharacters": ["$", "[", "\""]]
        server.registerRequest("textDocument/completion") { [self] params, context in
            let (document, analysis, offset) = try await placeParams(params, context).parts
            // The line up to the cursor: what is being typed is on it.
            let lineStart = document.lineIndex.contentRange(
                ofLine: document.lineIndex.line(containing: offset), in: document.content
            ).lowerBound
            let bytes = document.content.bytes(in: lineStart..<offset)
            let encoding = context.positionEncoding
            // The word being typed.
            var wordStart = offset
            while wordStart > lineStart
                && (Lexer.isSymbolByte(bytes[wordStart - 1 - lineStart]) || bytes[wordStart - 1 - lineStart] == 0x24)
            {
                wordStart -= 1
            }
            let prefix = String(decoding: bytes[(wordStart - lineStart)...], as: UTF8.self)
            let replace = range(wordStart..<offset, document, encoding)
            func item(_ label: String, kind: CompletionItemKind, detail: String?, sort: Int) -> JSONValue {
                var object: [String: JSONValue] = [
                    "label": .string(label), "kind": JSONValue(kind),
                    "textEdit": ["range": replace, "newText": .string(label)],
                    "sortText": .string(String(format: "%04d", sort)), "filterText": .string(label),
                ]
                if let detail { object["detail"] = .string(detail) }
                return .object(object)
            }

            // Inside a tag line: names, then values.
            let linePrefix = String(decoding: bytes, as: UTF8.self)
            if linePrefix.hasPrefix("[") {
                if let quote = linePrefix.firstIndex(of: "\"") {
                    let name = linePrefix.dropFirst().prefix { $0 != " " && $0 != "\"" }
                    let typed = String(linePrefix[linePrefix.index(after: quote)...])
                    let valueRange = range((offset - typed.utf8.count)..<offset, document, encoding)
                    return .array(
                        tagValues(String(name)).enumerated().map { index, value in
                            [
                                "label": .string(value.0), "kind": JSONValue(CompletionItemKind.value),
                                "detail": .string(value.1),
                                "textEdit": ["range": valueRange, "newText": .string(value.0)],
                                "sortText": .string(String(format: "%04d", index)),
                            ]
                        })
                }
                return .array(
                    Self.tagNames.enumerated().filter { $0.element.hasPrefix(prefix) }.map {
                        item($0.element, kind: .property, detail: TagMeanings.meaning($0.element), sort: $0.offset)
                    })
            }
            // NAGs after `$`.
            if prefix.hasPrefix("$") {
                let values = Array(0...21) + Array(140...146)
                return .array(
                    values.map { "$\($0)" }.enumerated().filter { $0.element.hasPrefix(prefix) }.map { index, label in
                        let value = Int(label.dropFirst())!
                        let glyph = NAGMeanings.glyph(value).map { "\($0) " } ?? ""
                        return item(
                            label, kind: .value, detail: glyph + (NAGMeanings.meaning(value) ?? ""), sort: index)
                    })
            }
            // Moves: replay the line up to the cursor.
            guard let position = positionForNextMove(analysis, at: wordStart) else { return .array([]) }
            // The moves the databases know come first, most played first, with their figures;
            // then the others as a player looks for them (`moveOrder`).
            let played = await playedMoves(in: position, uri: document.uri, context)
            var ranked: [(key: (Int, Int, Int), label: String, detail: String)] = []
            for (index, move) in position.legalMoves.enumerated() {
                let san = position.san(move)
                guard
                    prefix.isEmpty || san.hasPrefix(prefix)
                        || san.replacingOccurrences(of: "x", with: "").hasPrefix(prefix)
                else { continue }
                if let (rank, continuation) = played[move] {
                    ranked.append(((-1, rank, 0), san, Self.figures(continuation)))
                } else {
                    let piece = position.piece(at: move.from)
                    let (group, value) = Self.moveOrder(move, in: position)
                    ranked.append(((group, value, index), san, "\(piece?.description ?? "") \(position.uci(move))"))
                }
            }
            ranked.sort { $0.key < $1.key }
            // A move is one of a closed set, the legal moves of the position: `EnumMember`
            // (tag values and NAGs are `Value`, tag names `Property`).
            let items = ranked.enumerated().map { place, move in
                item(move.label, kind: .enumMember, detail: move.detail, sort: place)
            }
            return ["isIncomplete": false, "items": .array(items)]
        }
    }

    /// Where a move the databases do not know goes in the list, smaller first: its group, then
    /// its place in it. Captures first (the most valuable piece taken first, then by the
    /// least valuable piece taking it; a promotion as the capture of its piece), then checks,
    /// then developing moves (a knight or bishop leaving its back rank, castling), then the
    /// others, king moves last (`Kd2 Ke2 Kf2` are what a player looks for least).
    static func moveOrder(_ move: Move, in position: Position) -> (group: Int, value: Int) {
        func worth(_ role: Role?) -> Int { role?.value ?? 0 }
        let mover = position.role(at: move.from)
        let taken: Role? =
            move.isEnPassant
            ? .pawn
            : move.isCastle || position.piece(at: move.to)?.color == position.turn ? nil : position.role(at: move.to)
        if taken != nil || move.isPromotion {
            return (0, -(10 * (worth(taken) + worth(move.promotion))) + worth(mover))
        }
        if position.playing(move).isCheck { return (1, 0) }
        let backRank = position.turn == .white ? 0 : 7
        if move.isCastle || ((mover == .knight || mover == .bishop) && move.from.rank == backRank) { return (2, 0) }
        return mover == .king ? (4, 0) : (3, 0)
    }

    /// The moves the explorer's databases played in `position`: each with its rank (most
    /// played first) and figures.
    func playedMoves(
        in position: Position, uri: DocumentURI, _ context: RequestContext
    ) async -> [Move: (Int, ExplorerAnswer.Continuation)] {
        let sources = explorerSources(for: uri, context)
        guard !sources.isEmpty else { return [:] }
        let answer = await ExplorerCenter.offPool { [explorer] in explorer.explore(position, in: sources).answer }
        var played: [Move: (Int, ExplorerAnswer.Continuation)] = [:]
        for (rank, continuation) in answer.continuations.enumerated() {
            played[continuation.move] = (rank, continuation)
        }
        return played
    }

    static let tagNames =
        GameReplay.sevenTagRoster + [
            "WhiteElo", "BlackElo", "WhiteTitle", "BlackTitle", "ECO", "Opening", "Variation", "TimeControl",
            "Termination", "Annotator", "PlyCount",
            "EventDate", "FEN", "SetUp", "Variant", "UTCDate", "UTCTime", "Mode",
        ]

    func tagValues(_ name: String) -> [(String, String)] {
        switch name {
        case "Result":
            return [("1-0", "White wins"), ("0-1", "Black wins"), ("1/2-1/2", "Draw"), ("*", "Unknown or ongoing")]
        case "Date", "EventDate", "UTCDate":
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy.MM.dd"
            formatter.timeZone = TimeZone(identifier: "UTC")
            return [(formatter.string(from: Date()), "Today"), ("????.??.??", "Unknown date")]
        case "SetUp": return [("1", "The game starts from the FEN tag's position"), ("0", "Standard start")]
        case "Variant": return [("Standard", "Standard chess"), ("Chess960", "Fischer random chess")]
        case "Termination":
            return [
                ("normal", ""), ("time forfeit", ""), ("adjudication", ""), ("abandoned", ""), ("rules infraction", ""),
            ]
        default: return [("?", "Unknown")]
        }
    }

    /// The position in which a move typed at `offset` would be played, or nil where no move can go.
    func positionForNextMove(_ analysis: DocumentAnalysis, at offset: Int) -> Position? {
        guard let game = analysis.game(at: offset) ?? analysis.games.last(where: { $0.range.upperBound <= offset })
        else {
            return Position.startingPosition
        }
        let a = game.analysis
        let local = offset - game.start
        if let result = a.syntax.resultIndex, a.syntax.nodes[result].range.upperBound <= local {
            // After the game's result: a new game starts here.
            return Position.startingPosition
        }
        guard let start = a.start.position else { return nil }
        var replayer = LineReplayer(start: start)
        for node in a.syntax.nodes where node.range.upperBound <= local {
            switch node.kind {
            case .move:
                var text = a.source.string(node.range)
                _ = text.withUTF8 { replayer.play(san: $0) }
            case .variationStart: replayer.beginVariation()
            case .variationEnd: replayer.endVariation()
            default: break
            }
        }
        return replayer.current.isPlayable ? replayer.current.position : nil
    }
}
