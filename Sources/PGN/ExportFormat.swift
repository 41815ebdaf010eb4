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
    private static let roster = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]

    /// The export-format text of one game, ending with a line break.
    public static func format(_ replay: GameReplay, lineLength: Int = 80) -> String {
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
        for tag in tags {
            var escaped = ""
            for character in tag.value {
                if character == "\\" || character == "\"" { escaped.append("\\") }
                escaped.append(character)
            }
            lines.append("[\(tag.name) \"\(escaped)\"]")
        }
        if !tags.isEmpty && !syntax.nodes.isEmpty { lines.append("") }

        // Movetext, as words to wrap.
        var words: [String] = []
        var forcedBreakAfter = Set<Int>()  // a `;` comment ends its line
        var numbers = Set<Int>()  // the words that are move numbers
        let start = replay.run(keepMoves: false).start.position ?? .startingPosition
        var plies: [Int] = [(start.fullmoveNumber - 1) * 2 + (start.turn == .black ? 1 : 0)]
        var lastPly: [Int?] = [nil]
        var needsBlackNumber = true
        for node in syntax.nodes {
            let text = replay.text(node.range)
            switch node.kind {
            case .moveNumber:
                continue
            case .move:
                let ply = plies[plies.count - 1]
                let number = ply / 2 + 1
                if ply % 2 == 0 {
                    numbers.insert(words.count)
                    words.append("\(number).")
                } else if needsBlackNumber {
                    numbers.insert(words.count)
                    words.append("\(number)...")
                }
                words.append(text)
                lastPly[lastPly.count - 1] = ply
                plies[plies.count - 1] = ply + 1
                needsBlackNumber = false
            case .nag:
                words.append(node.value >= 0 ? "$\(node.value)" : text)
            case .comment:
                let body: Substring
                if node.value == 1 {
                    body = text.dropFirst()
                    if body.contains("}") {
                        words.append(String(text))
                        forcedBreakAfter.insert(words.count - 1)
                        needsBlackNumber = true
                        continue
                    }
                } else {
                    body = text.dropFirst().dropLast()
                }
                let commentWords = body.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" })
                if commentWords.isEmpty {
                    words.append("{}")
                } else {
                    for (k, word) in commentWords.enumerated() {
                        var w = String(word)
                        if k == 0 { w = "{" + w }
                        if k == commentWords.count - 1 { w += "}" }
                        words.append(w)
                    }
                }
                needsBlackNumber = true
            case .variationStart:
                words.append("(")
                // The variation replaces the last move of its line: it starts at that move's ply.
                let parentLast = lastPly[lastPly.count - 1] ?? plies[plies.count - 1]
                plies.append(parentLast)
                lastPly.append(nil)
                needsBlackNumber = true
            case .variationEnd:
                words.append(")")
                if plies.count > 1 {
                    plies.removeLast()
                    lastPly.removeLast()
                }
                needsBlackNumber = true
            case .result:
                words.append(text)
            }
        }
        // Wrap: a `(` sticks to the next word, a `)` to the previous one.
        // A move number stays with its move.
        var pieces: [String] = []
        var breakAfter = Set<Int>()
        var pendingOpen = ""
        var afterNumber = false
        for (k, word) in words.enumerated() {
            if word == "(" {
                pendingOpen += "("
            } else if word == ")" && pendingOpen.isEmpty && !pieces.isEmpty && !breakAfter.contains(pieces.count - 1) {
                pieces[pieces.count - 1] += ")"
            } else if afterNumber && !pieces.isEmpty {
                pieces[pieces.count - 1] += " " + word
                afterNumber = false
            } else {
                pieces.append(pendingOpen + word)
                pendingOpen = ""
                afterNumber = numbers.contains(k)
            }
            if forcedBreakAfter.contains(k) { breakAfter.insert(pieces.count - 1) }
        }
        if !pendingOpen.isEmpty { pieces.append(pendingOpen) }
        var line = ""
        for (k, piece) in pieces.enumerated() {
            if line.isEmpty {
                line = piece
            } else if line.count + 1 + piece.count < lineLength {
                line += " " + piece
            } else {
                lines.append(line)
                line = piece
            }
            if breakAfter.contains(k) {
                lines.append(line)
                line = ""
            }
        }
        if !line.isEmpty { lines.append(line) }
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
    public static func format(_ source: SourceText, lineLength: Int = 80) -> String {
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        var output = ""
        var previousEnd = 0
        for (index, syntax) in parser.games.enumerated() {
            let between = source.string(previousEnd..<syntax.range.lowerBound).trimmed
            if !between.isEmpty { output += between + "\n\n" }
            output += format(GameReplay(source: source, syntax: syntax, index: index), lineLength: lineLength)
            output += "\n"
            previousEnd = syntax.range.upperBound
        }
        let rest = source.string(previousEnd..<source.bytes.count).trimmed
        if !rest.isEmpty { output += rest + "\n" }
        while output.hasSuffix("\n\n") { output.removeLast() }
        return output
    }
}
