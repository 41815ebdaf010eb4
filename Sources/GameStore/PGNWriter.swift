import ChessCore

/// A game read back from a database: its tags, where it starts, and its movetext.
public struct StoredGame: Sendable {
    /// The `Games.ID`.
    public var id: Int64
    /// Tags in export order: the Seven Tag Roster, then the others by name.
    public var tags: [(name: String, value: String)]
    public var start: Position
    public var elements: [MovetextElement]
    /// The termination marker: `1-0`, `0-1`, `1/2-1/2` or `*`.
    public var result: String
    /// How the moves were stored (and so how they were read).
    public var layout: MovesLayout

    /// The value of a tag, if the game has it.
    public func tag(_ name: String) -> String? { tags.first { $0.name == name }?.value }

    /// The moves of the mainline, variations left out.
    public var mainline: [Move] {
        var depth = 0
        var moves: [Move] = []
        for element in elements {
            switch element {
            case .move(let move) where depth == 0: moves.append(move)
            case .variationStart: depth += 1
            case .variationEnd: depth -= 1
            default: break
            }
        }
        return moves
    }

    /// The game in PGN export format, ending with a line break.
    public var pgn: String { PGNWriter.write(self) }
}

/// Writes `StoredGame`s as PGN: tags one a line, a blank line, then the movetext in lines
/// shorter than 80 characters with `N.` before White's moves and `N...` where Black's move
/// opens a line or follows a comment or a variation.
public enum PGNWriter {
    public static func write(_ game: StoredGame, lineLength: Int = 80) -> String {
        var text = ""
        for (name, value) in game.tags {
            text += "[\(name) \"\(escaped(value))\"]\n"
        }
        text += "\n"
        text += movetext(game.elements, from: game.start, result: game.result, lineLength: lineLength)
        text += "\n"
        return text
    }

    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        var result = ""
        for character in value {
            switch character {
            case "\\", "\"":
                result.append("\\")
                result.append(character)
            case "\n", "\r", "\r\n":
                result.append(" ")
            default:
                result.append(character)
            }
        }
        return result
    }

    /// The movetext, wrapped, ending with the result and no line break.
    public static func movetext(
        _ elements: [MovetextElement], from start: Position, result: String, lineLength: Int = 80
    ) -> String {
        var words: [String] = []
        var glueNext = false  // after `(`: the next word sticks to it
        func add(_ word: String) {
            if glueNext, !words.isEmpty {
                words[words.count - 1] += word
            } else {
                words.append(word)
            }
            glueNext = false
        }
        let startPly = (start.fullmoveNumber - 1) * 2 + (start.turn == .black ? 1 : 0)
        var lines = [(position: start, before: Position?.none, ply: startPly)]
        var needsNumber = true
        for element in elements {
            switch element {
            case .move(let move):
                let top = lines.count - 1
                let position = lines[top].position
                let ply = lines[top].ply
                let san = position.san(move)
                if ply % 2 == 0 {
                    add("\(ply / 2 + 1).")
                    words[words.count - 1] += " " + san
                } else if needsNumber {
                    add("\(ply / 2 + 1)...")
                    words[words.count - 1] += " " + san
                } else {
                    add(san)
                }
                lines[top].before = position
                lines[top].position = position.playing(move)
                lines[top].ply = ply + 1
                needsNumber = false
            case .comment(let text):
                let parts = text.replacingBraces.split(separator: " ", omittingEmptySubsequences: true)
                if parts.isEmpty {
                    add("{}")
                } else {
                    for (k, part) in parts.enumerated() {
                        add((k == 0 ? "{" : "") + part + (k == parts.count - 1 ? "}" : ""))
                    }
                }
                needsNumber = true
            case .nag(let value):
                add("$\(value)")
            case .variationStart:
                let top = lines.count - 1
                let start = lines[top].before ?? lines[top].position
                add("(")
                glueNext = true
                lines.append((start, nil, lines[top].before == nil ? lines[top].ply : lines[top].ply - 1))
                needsNumber = true
            case .variationEnd:
                if lines.count > 1 { lines.removeLast() }
                if words.isEmpty {
                    words.append(")")
                } else {
                    words[words.count - 1] += ")"
                }
                glueNext = false
                needsNumber = true
            }
        }
        add(result)
        var output = ""
        var line = 0
        for word in words {
            if line > 0 && line + 1 + word.count >= lineLength {
                output += "\n"
                line = 0
            } else if line > 0 {
                output += " "
                line += 1
            }
            output += word
            line += word.count
        }
        return output
    }
}

extension String {
    /// A comment's text as a `{…}` comment can hold it: braces cannot appear inside one (they
    /// become parentheses), and line breaks become spaces (the writer wraps lines itself).
    fileprivate var replacingBraces: String {
        guard contains(where: { $0 == "{" || $0 == "}" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return self
        }
        return String(
            map { character -> Character in
                switch character {
                case "{": return "("
                case "}": return ")"
                case "\n", "\r", "\r\n": return " "
                default: return character
                }
            })
    }
}
