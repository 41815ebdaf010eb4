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

    func registerDocumentSymbols() {
        server.capabilities.features["documentSymbolProvider"] = true
        server.registerRequest("textDocument/documentSymbol", wholeDocument: true) { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let encoding = context.positionEncoding
            let hierarchical = context.session.clientCapabilities.supportsHierarchicalSymbols
            // Each game's outline reads its movetext again: on every core, for the games that
            // have none yet (all of them the first time, the edited ones after an edit).
            analysis.makeOnEveryCore(lacking: { !$0.derived.hasOutline }) { game in
                _ = game.derived.outline { Self.outline(of: game) }
            }
            // Written as text, in pieces: a 100 MB file has tens of thousands of games.
            var text = JSONText(capacity: JSONText.pieceSize)
            text.raw("[")
            // Games and their parts are placed in document order, each line lookup going on from
            // the one before.
            var line = 0
            for (index, game) in analysis.games.enumerated() {
                if index % 1024 == 0 { try context.checkCancellation() }
                let a = game.analysis
                let outline = a.derived.outline { Self.outline(of: a) }
                text.raw(index == 0 ? "{" : ",{")
                let gameLine = line
                let whole = document.range(of: game.range, encoding: encoding, fromLine: &line)
                if hierarchical {
                    var inner = gameLine
                    text.raw("\"children\":")
                    text.array(outline.variations) { text, variation in
                        let r = document.range(
                            of: variation.range.shifted(by: game.start), encoding: encoding, fromLine: &inner)
                        text.raw("{\"kind\":")
                        text.integer(SymbolKind.method.rawValue)
                        text.raw(",\"name\":")
                        text.string(variation.name)
                        text.raw(",\"range\":")
                        text.range(r)
                        text.raw(",\"selectionRange\":")
                        text.range(r)
                        text.raw("}")
                    }
                    text.raw(",\"detail\":")
                    text.string(outline.detail)
                    text.raw(",\"kind\":")
                    text.integer(SymbolKind.class.rawValue)
                    text.raw(",\"name\":")
                    text.string(outline.title ?? "Game \(index + 1)")
                    text.raw(",\"range\":")
                    text.range(whole)
                    text.raw(",\"selectionRange\":")
                    var selection = gameLine
                    text.range(
                        document.range(
                            of: outline.selection.shifted(by: game.start), encoding: encoding, fromLine: &selection))
                } else {
                    // A client without hierarchical symbols takes `SymbolInformation[]`: the games alone.
                    text.raw("\"kind\":")
                    text.integer(SymbolKind.class.rawValue)
                    text.raw(",\"location\":{\"range\":")
                    text.range(whole)
                    text.raw(",\"uri\":")
                    text.string(document.uri)
                    text.raw("},\"name\":")
                    text.string(outline.title ?? "Game \(index + 1)")
                }
                text.raw("}")
                text.endPieceIfFull()
            }
            text.raw("]")
            return text.json
        }
    }
}
