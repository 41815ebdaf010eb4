import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// The name of a game as a player reads it: `Carlsen – Nepomniachtchi, 1-0 (World
    /// Championship 2021, round 6)`; `Game 3` when it names no player, event or round.
    static func gameName(_ replay: GameReplay, index: Int) -> String {
        gameTitle(replay) ?? "Game \(index + 1)"
    }

    static func gameTitle(_ replay: GameReplay) -> String? {
        func tag(_ name: String) -> String? {
            guard let value = replay.tagValue(name), !value.isEmpty, value != "?", value != "-" else { return nil }
            return value
        }
        var name = "\(tag("White") ?? "?") – \(tag("Black") ?? "?")"
        if let result = tag("Result"), result != "*" { name += ", \(result)" }
        var details: [String] = []
        if let event = tag("Event") { details.append(event) }
        if let round = tag("Round") { details.append("round \(round)") }
        if !details.isEmpty { name += " (\(details.joined(separator: ", ")))" }
        if tag("White") == nil && tag("Black") == nil && details.isEmpty { return nil }
        return name
    }

    /// What the outline shows of a game: its date and length as detail, and as children its
    /// variations of the mainline (at most `outlineVariations`), named by their first moves as
    /// written. Not one symbol per move: the outline of a 1 MB file stays a few hundred KB.
    struct GameOutline: Sendable {
        /// `gameTitle`, nil for a game that names no player, event or round.
        var title: String?
        var detail: String
        /// What the editor selects for the game: its first tag, else its first token.
        var selection: Range<Int>
        var variations: [(name: String, range: Range<Int>)]
    }

    static let outlineVariations = 50

    static func outline(of a: GameAnalysis) -> GameOutline {
        let nodes = a.syntax.nodes
        var mainlineMoves = 0
        var depth = 0
        var variations: [(name: String, range: Range<Int>)] = []
        var opened = 0
        for (index, node) in nodes.enumerated() {
            switch node.kind {
            case .move where depth == 0: mainlineMoves += 1
            case .variationStart:
                if depth == 0 { opened = index }
                depth += 1
            case .variationEnd where depth > 0:
                depth -= 1
                if depth == 0 && variations.count < outlineVariations {
                    // The variation's first move, with its number when one is written.
                    let words = nodes[(opened + 1)..<index].prefix { $0.kind == .moveNumber || $0.kind == .comment }
                    let first = nodes[(opened + 1)..<index].first { $0.kind == .move }
                    let number = words.last { $0.kind == .moveNumber }
                    var name = first.map { a.source.string($0.range) } ?? "( )"
                    if let number { name = a.source.string(number.range) + " " + name }
                    variations.append((name, nodes[opened].range.lowerBound..<node.range.upperBound))
                }
            default: break
            }
        }
        let moves = (mainlineMoves + 1) / 2
        var detail = "\(moves) move\(moves == 1 ? "" : "s")"
        if let date = a.tagReplay.tagValue("Date"), !date.isEmpty, date != "????.??.??" {
            detail = date + " · " + detail
        }
        return GameOutline(
            title: gameTitle(a.tagReplay), detail: detail,
            selection: a.label,
            variations: variations)
    }

    /// What the outline kept of its last answer for a document: each game's symbol, its lines
    /// counted from the game's first, and what else it depends on besides the game's text.
    struct KeptOutline: Sendable {
        var games: [PlacedGame]
        var encoding: PositionEncoding
        /// The symbols written for the document, those of games edited since among them (until
        /// they are too many: `compacted`).
        var symbols: PlacedJSON
        /// For each game, its symbol's part in `symbols`.
        var placings: [Placing]

        struct Placing: Sendable {
            var part: Int32
            /// The column the game starts at.
            var character: Int32
            /// The game has no title: its symbol is named by its number.
            var untitled: Bool
        }

        /// The same with only the games' symbols.
        func compacted() -> KeptOutline {
            var copy = self
            copy.symbols = PlacedJSON(parts: placings.count)
            for k in placings.indices {
                copy.symbols.append(part: Int(placings[k].part), of: symbols)
                copy.placings[k].part = Int32(k)
            }
            return copy
        }
    }

    /// Appends a game's `DocumentSymbol` to `symbols` as a part, its lines counted from the
    /// game's first (`start`): its variations as children, its date and length as detail.
    static func writeSymbol(
        _ outline: GameOutline, of game: PlacedGame, number: Int, at start: LSPPosition, _ encoding: PositionEncoding,
        in document: Document, to json: inout PlacedJSON
    ) {
        var line = start.line
        json.raw("{\"children\":[")
        for (k, variation) in outline.variations.enumerated() {
            let r = document.range(of: variation.range.shifted(by: game.start), encoding: encoding, fromLine: &line)
            json.raw(k == 0 ? "{\"kind\":" : ",{\"kind\":")
            json.integer(SymbolKind.method.rawValue)
            json.raw(",\"name\":")
            json.string(variation.name)
            json.raw(",\"range\":")
            json.range(r, firstLine: start.line)
            json.raw(",\"selectionRange\":")
            json.range(r, firstLine: start.line)
            json.raw("}")
        }
        json.raw("],\"detail\":")
        json.string(outline.detail)
        json.raw(",\"kind\":")
        json.integer(SymbolKind.class.rawValue)
        json.raw(",\"name\":")
        json.string(outline.title ?? "Game \(number)")
        json.raw(",\"range\":")
        line = start.line
        json.range(document.range(of: game.range, encoding: encoding, fromLine: &line), firstLine: start.line)
        json.raw(",\"selectionRange\":")
        line = start.line
        json.range(
            document.range(of: outline.selection.shifted(by: game.start), encoding: encoding, fromLine: &line),
            firstLine: start.line)
        json.raw("}")
        json.endPart()
    }

    func registerDocumentSymbols() {
        server.capabilities.features["documentSymbolProvider"] = true
        server.registerRequest("textDocument/documentSymbol", lane: .background) { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            // A client without hierarchical symbols takes `SymbolInformation[]`: the games alone.
            guard context.session.clientCapabilities.supportsHierarchicalSymbols else {
                return try Self.flatSymbols(document, analysis, context)
            }
            return try symbolTree(document, analysis, context)
        }
    }

    /// The games' `DocumentSymbol`s. Those of the games an edit left alone are taken from the
    /// last answer (`KeptOutline`), whose symbols are taken out while this runs, so that new
    /// ones are added to them without a copy, and put back: those of this answer or, cancelled,
    /// the old ones.
    func symbolTree(_ document: Document, _ analysis: DocumentAnalysis, _ context: RequestContext) throws -> JSONValue {
        let encoding = context.positionEncoding
        let games = analysis.games
        var kept = keptOutlines.take(document.uri).flatMap { $0.encoding == encoding ? $0 : nil }
        if let old = kept, old.symbols.partCount > 2 * old.placings.count + 16 { kept = old.compacted() }
        let alignment = GameAlignment(games, from: kept?.games)
        var symbols = kept?.symbols ?? PlacedJSON(parts: games.count)
        kept?.symbols = PlacedJSON()
        var placings: [KeptOutline.Placing] = []
        placings.reserveCapacity(games.count)
        var done = false
        defer {
            keptOutlines[document.uri] =
                done
                ? KeptOutline(games: games, encoding: encoding, symbols: symbols, placings: placings)
                : kept.map { KeptOutline(games: $0.games, encoding: encoding, symbols: symbols, placings: $0.placings) }
        }
        // Each game's outline reads its movetext again: on every core for the games that have
        // no symbol yet (all of them the first time, the edited ones after an edit). The
        // outlines are kept as the symbols' text alone (8 MB less at 100 MB).
        let unmatched = alignment.unmatched
        let made =
            unmatched.count > 256
            ? PGNAnalyzer.mapOnEveryCore(unmatched.count) { Self.outline(of: games[unmatched[$0]].analysis) } : []
        var nextMade = 0
        // Each game's symbol and the line it is placed at.
        var placed: [(part: Int32, line: Int32)] = []
        placed.reserveCapacity(games.count)
        // Games are placed in document order, each line lookup going on from the one before.
        var line = 0
        // Games are read in place, by their fields: a copy of one would retain its analysis, a
        // cache miss for each game.
        for index in games.indices {
            if index % 1024 == 0 { try context.checkCancellation() }
            let start = document.position(of: games[index].start, encoding: encoding, fromLine: &line)
            if let kept, let k = alignment.earlier[index], Int(kept.placings[k].character) == start.character,
                !kept.placings[k].untitled || k == index
            {
                placings.append(kept.placings[k])
            } else {
                let game = games[index]
                let outline: GameOutline
                if nextMade < made.count && unmatched[nextMade] == index {
                    outline = made[nextMade]
                    nextMade += 1
                } else {
                    outline = Self.outline(of: game.analysis)
                }
                Self.writeSymbol(outline, of: game, number: index + 1, at: start, encoding, in: document, to: &symbols)
                placings.append(
                    KeptOutline.Placing(
                        part: Int32(symbols.partCount - 1), character: Int32(clamping: start.character),
                        untitled: outline.title == nil))
            }
            placed.append((placings[index].part, Int32(clamping: start.line)))
        }
        done = true
        return PlacedJSON.array(symbols, placed: placed)
    }

    /// The games as `SymbolInformation`, each game's outline kept in its analysis
    /// (`DerivedValues`), written as text in pieces.
    static func flatSymbols(
        _ document: Document, _ analysis: DocumentAnalysis, _ context: RequestContext
    ) throws -> JSONValue {
        let encoding = context.positionEncoding
        analysis.makeOnEveryCore(lacking: { !$0.derived.hasOutline }) { game in
            _ = game.derived.outline { Self.outline(of: game) }
        }
        var text = JSONText(capacity: JSONText.pieceSize)
        text.raw("[")
        var line = 0
        for (index, game) in analysis.games.enumerated() {
            if index % 1024 == 0 { try context.checkCancellation() }
            if index > 0 { text.raw(",") }
            let a = game.analysis
            let outline = a.derived.outline { Self.outline(of: a) }
            let start = document.position(of: game.start, encoding: encoding, fromLine: &line)
            var end = line
            text.raw("{\"kind\":")
            text.integer(SymbolKind.class.rawValue)
            text.raw(",\"location\":{\"range\":")
            text.range(
                LSPRange(start: start, end: document.position(of: game.end, encoding: encoding, fromLine: &end)))
            text.raw(",\"uri\":")
            text.string(document.uri)
            text.raw("},\"name\":")
            text.string(outline.title ?? "Game \(index + 1)")
            text.raw("}")
            text.endPieceIfFull()
        }
        text.raw("]")
        return text.json
    }
}
