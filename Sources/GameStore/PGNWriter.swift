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
        var out = Wrapper(lineLength: lineLength)
        let startPly = (start.fullmoveNumber - 1) * 2 + (start.turn == .black ? 1 : 0)
        var lines = [(position: start, before: Position?.none, ply: startPly)]
        var needsNumber = true
        for element in elements {
            switch element {
            case .move(let move):
                let top = lines.count - 1
                let position = lines[top].position
                let ply = lines[top].ply
                if ply % 2 == 0 || needsNumber {
                    // A move number stays with its move: one word.
                    out.word(String(ply / 2 + 1).utf8)
                    out.appendToWord(ply % 2 == 0 ? ". ".utf8 : "... ".utf8)
                    out.appendToWord(position.san(move).utf8)
                } else {
                    out.word(position.san(move).utf8)
                }
                lines[top].before = position
                lines[top].position = position.playing(move)
                lines[top].ply = ply + 1
                needsNumber = false
            case .comment(let text):
                out.comment(text)
                needsNumber = true
            case .nag(let value):
                out.word("$\(value)".utf8)
            case .variationStart:
                let top = lines.count - 1
                let start = lines[top].before ?? lines[top].position
                out.word("(".utf8)
                out.glueNext = true
                lines.append((start, nil, lines[top].before == nil ? lines[top].ply : lines[top].ply - 1))
                needsNumber = true
            case .variationEnd:
                if lines.count > 1 { lines.removeLast() }
                out.appendToWord(")".utf8)
                needsNumber = true
            }
        }
        out.word(result.utf8)
        out.flush()
        return String(decoding: out.output, as: UTF8.self)
    }

    /// Lays words out in lines shorter than `lineLength` characters. The last word is kept
    /// back until the next one comes, so that `(` can stick to what follows and `)` to what
    /// precedes.
    struct Wrapper {
        let lineLength: Int
        var output: [UInt8] = []
        var lineWidth = 0
        var pending: [UInt8] = []
        var glueNext = false

        init(lineLength: Int) {
            self.lineLength = lineLength
            output.reserveCapacity(1024)
        }

        mutating func word<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            if glueNext {
                glueNext = false
            } else {
                flush()
            }
            pending.append(contentsOf: bytes)
        }

        mutating func appendToWord<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            pending.append(contentsOf: bytes)
        }

        /// `{text}`, split at spaces so that long comments wrap; line breaks become spaces and
        /// braces parentheses (a `{}` comment cannot hold them).
        mutating func comment(_ text: String) {
            var text = text
            text.withUTF8 { bytes in
                var first = true
                var k = 0
                while k < bytes.count {
                    while k < bytes.count && GameEncoder.isSpace(bytes[k]) { k += 1 }
                    guard k < bytes.count else { break }
                    let start = k
                    while k < bytes.count && !GameEncoder.isSpace(bytes[k]) { k += 1 }
                    if first {
                        word(CollectionOfOne(UInt8(0x7B)))
                        first = false
                    } else {
                        word(EmptyCollection())
                    }
                    let from = pending.count
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<k]))
                    for i in from..<pending.count {
                        if pending[i] == 0x7B { pending[i] = 0x28 } else if pending[i] == 0x7D { pending[i] = 0x29 }
                    }
                }
                if first { word(CollectionOfOne(UInt8(0x7B))) }
            }
            appendToWord(CollectionOfOne(UInt8(0x7D)))
        }

        mutating func flush() {
            guard !pending.isEmpty else { return }
            var width = 0
            for byte in pending where byte & 0xC0 != 0x80 { width += 1 }
            if lineWidth > 0 && lineWidth + 1 + width >= lineLength {
                output.append(0x0A)
                lineWidth = 0
            } else if lineWidth > 0 {
                output.append(0x20)
                lineWidth += 1
            }
            output.append(contentsOf: pending)
            lineWidth += width
            pending.removeAll(keepingCapacity: true)
        }
    }
}
