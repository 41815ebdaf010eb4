import ChessCore

/// Writes games in the PGN export format (standard §8): the Seven Tag Roster first in its
/// order, then the other tags by name, one a line; a blank line; the movetext in lines shorter
/// than `lineLength`, with `N.` before every White move and `N...` before a Black move that
/// follows a comment or a variation or opens a line; NAGs as `$n`; `;` comments as `{ }`.
///
/// The formatter never changes a move, a comment's words, a tag, a NAG or a variation, and it
/// never adds anything (a missing tag or result stays missing). A game it cannot write back
/// safely — one with syntax errors, or with `%` escape lines — comes back unchanged.
public enum ExportFormat {
    private static let roster = GameReplay.sevenTagRoster

    /// The export-format text of one game, ending with a line break. With `keepingGlyphs`, a
    /// NAG written as a glyph (`??`, `!?`) stays one, stuck to its move when it was (the
    /// review's annotations are re-wrapped so), instead of becoming `$n`.
    public static func format(_ replay: GameReplay, lineLength: Int = 80, keepingGlyphs: Bool = false) -> String {
        let syntax = replay.syntax
        let original = replay.text(syntax.range)
        if !isSafe(replay) { return original.hasSuffix("\n") ? original : original + "\n" }

        var lines: [String] = []
        // Tags.
        var tags = syntax.tags.map { (name: replay.text($0.nameRange), value: replay.value(of: $0) ?? "") }
        tags.sort { a, b in
            let ia = roster.firstIndex(of: a.name) ?? roster.count
            let ib = roster.firstIndex(of: b.name) ?? roster.count
            return ia != ib ? ia < ib : (ia == roster.count ? a.name < b.name : false)
        }
        for tag in tags { lines.append(PGNWriter.tagPair(name: tag.name, value: tag.value)) }
        if !tags.isEmpty && !syntax.nodes.isEmpty { lines.append("") }

        let start = replay.run(keepMoves: false).start.position ?? .startingPosition
        var writer = MovetextWriter(lineLength: lineLength, startPly: PGNWriter.ply(of: start))
        var previousEnd = -1
        var previousIsMove = false
        for node in syntax.nodes {
            let text = replay.text(node.range)
            defer {
                previousIsMove = node.kind == .move || (previousIsMove && node.kind == .nag)
                previousEnd = node.range.upperBound
            }
            switch node.kind {
            case .moveNumber: continue
            case .move: writer.move(text.utf8)
            case .nag where keepingGlyphs && !text.hasPrefix("$"):
                if previousIsMove && previousEnd == node.range.lowerBound {
                    writer.suffix(text)
                } else {
                    writer.word(text)
                }
            case .nag: writer.word(node.value >= 0 ? "$\(node.value)" : text)
            case .comment where node.value == 1:
                // A `;` comment becomes a brace comment unless it holds a brace.
                let body = text.dropFirst()
                if body.contains("}") || body.contains("{") {
                    writer.lineComment(text)
                } else {
                    writer.comment(String(body))
                }
            case .comment: writer.comment(String(text.dropFirst().dropLast()))
            case .variationStart: writer.variationStart()
            case .variationEnd: writer.variationEnd()
            case .result, .note: writer.word(text)
            }
        }
        let movetext = writer.finish()
        if !movetext.isEmpty { lines.append(movetext) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether a game can be written back without losing anything.
    static func isSafe(_ replay: GameReplay) -> Bool {
        let bytes = replay.source.bytes
        let range = (replay.syntax.range.lowerBound - replay.base)..<(replay.syntax.range.upperBound - replay.base)
        // Escape lines are not in the syntax tree: keep such a game as it is.
        for i in range where bytes[i] == 0x25 && (i == 0 || bytes[i - 1] == 0x0A || bytes[i - 1] == 0x0D) {
            return false
        }
        let parser = bytes[range].withUnsafeBufferPointer { Parser($0) }
        return parser.games.count == 1 && !parser.diagnostics.contains { $0.code == .syntax }
    }

    /// A whole text: every game in export format, games apart by one blank line, and the text
    /// between games (comments before the first tag, …) kept.
    public static func format(_ source: SourceText, lineLength: Int = 80, keepingGlyphs: Bool = false) -> String {
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        var output = ""
        var previousEnd = 0
        for (index, syntax) in parser.games.enumerated() {
            let between = source.string(previousEnd..<syntax.range.lowerBound).trimmed
            if !between.isEmpty { output += between + "\n\n" }
            output += format(
                GameReplay(source: source, syntax: syntax, index: index), lineLength: lineLength,
                keepingGlyphs: keepingGlyphs)
            output += "\n"
            previousEnd = syntax.range.upperBound
        }
        let rest = source.string(previousEnd..<source.bytes.count).trimmed
        if !rest.isEmpty { output += rest + "\n" }
        while output.hasSuffix("\n\n") { output.removeLast() }
        return output
    }
}
