import ChessCore
import PGN

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

extension PGNWriter {
    /// A stored game as PGN: tags one a line, a blank line, then the movetext in lines shorter
    /// than `lineLength` characters, ending with a line break.
    public static func write(_ game: StoredGame, lineLength: Int = 80) -> String {
        var text = ""
        for (name, value) in game.tags {
            text += tagPair(name: name, value: value)
            text += "\n"
        }
        text += "\n"
        text += movetext(game.elements, from: game.start, result: game.result, lineLength: lineLength)
        text += "\n"
        return text
    }

    /// The movetext, wrapped, ending with the result and no line break. A comment with a `}` is
    /// written as a `;` comment; movetext a database kept as text (`KeptText`) as it was.
    public static func movetext(
        _ elements: [MovetextElement], from start: Position, result: String, lineLength: Int = 80
    ) -> String {
        var out = MovetextWriter(lineLength: lineLength, startPly: ply(of: start))
        var lines = LinePositions(start)
        for element in elements {
            switch element {
            case .move(let move):
                out.move(lines.position.san(move).utf8)
                lines.play(move)
            case .comment(let text):
                if let kept = KeptText.movetext(inComment: text) {
                    out.raw(String(kept))
                } else {
                    out.comment(text, closingBraceAsLineComment: true)
                }
            case .nag(let value):
                out.nag(value)
            case .variationStart:
                out.variationStart()
                _ = lines.startVariation()
            case .variationEnd:
                _ = lines.endVariation()
                out.variationEnd()
            }
        }
        out.word(result)
        return out.finish()
    }
}
