import ChessCore

/// The one PGN writer: tag pairs, move numbers and wrapped movetext, as the formatter
/// (`ExportFormat`), the database export and the review annotations write them.
public enum PGNWriter {
    /// `[Name "value"]`, the value escaped by `escapedTagValue`.
    public static func tagPair(name: String, value: String) -> String {
        "[\(name) \(quotedTagValue(value))]"
    }

    /// A tag value's token: `"value"`, escaped by `escapedTagValue` (what replaces a value in
    /// place).
    /// The tag pairs of a text written by `tagPair`, one a line; lines that are not a tag pair
    /// are skipped.
    public static func tagPairs(_ text: String) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            let bytes = Array(line)
            guard let open = bytes.firstIndex(of: UInt8(ascii: "[")),
                let quote = bytes.firstIndex(of: UInt8(ascii: "\"")), quote > open,
                let close = bytes.lastIndex(of: UInt8(ascii: "]")), close > quote
            else { continue }
            let end = bytes[(quote + 1)..<close].lastIndex(of: UInt8(ascii: "\"")).map { $0 + 1 } ?? close
            let name = bytes[(open + 1)..<quote].filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            guard !name.isEmpty else { continue }
            var value: [UInt8] = []
            bytes.withUnsafeBufferPointer { buffer in
                let content = tagValueContent(buffer, quote..<end)
                if !unescapeTagValue(buffer, content, into: &value) { value = Array(buffer[content]) }
            }
            pairs.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return pairs
    }

    public static func quotedTagValue(_ value: String) -> String { "\"\(escapedTagValue(value))\"" }

    /// A tag value as it goes between quotes: `\` and `"` behind a backslash, and a line break
    /// (LF, CR or CRLF) as one space, since a tag pair is one line (the standard's tag values
    /// hold printing characters only, and its strings cannot span lines).
    public static func escapedTagValue(_ value: String) -> String {
        // Looked for in the bytes (every character to change holds one of them): walking the
        // characters cost more than the rest of encoding a tag.
        guard
            value.utf8.contains(where: {
                $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n")
                    || $0 == UInt8(ascii: "\r")
            })
        else { return value }
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

    /// The bytes of a tag's value token without its quotes: the opening one, and the closing one
    /// (the lexer ends a value at its last quote, `\"` before the tag's `]` included: see
    /// `Lexer`; an unterminated value keeps what it has).
    @inlinable
    public static func tagValueContent(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        if lower < upper && bytes[lower] == 0x22 { lower += 1 }
        if upper > lower && bytes[upper - 1] == 0x22 { upper -= 1 }
        return lower..<upper
    }

    /// The value bytes with `\"` and `\\` resolved (a backslash keeps the byte after it; a
    /// lone backslash at the end stays), into `output`; false, and nothing written, when the
    /// content holds no backslash and can be read as it is.
    @inlinable
    public static func unescapeTagValue(
        _ bytes: UnsafeBufferPointer<UInt8>, _ content: Range<Int>, into output: inout [UInt8]
    ) -> Bool {
        guard bytes[content].contains(0x5C) else { return false }
        output.removeAll(keepingCapacity: true)
        var k = content.lowerBound
        while k < content.upperBound {
            if bytes[k] == 0x5C && k + 1 < content.upperBound { k += 1 }
            output.append(bytes[k])
            k += 1
        }
        return true
    }

    /// `12.` before White's move of move 12, `12...` before Black's.
    public static func moveNumber(_ number: Int, black: Bool) -> String {
        black ? "\(number)..." : "\(number)."
    }

    /// The move number before the move played from `position`.
    public static func moveNumber(before position: Position) -> String {
        moveNumber(position.fullmoveNumber, black: position.turn == .black)
    }

    /// The move number before the move played at `ply` (plies counted from move 1, White).
    public static func moveNumber(ply: Int) -> String { moveNumber(ply / 2 + 1, black: ply % 2 == 1) }

    /// Plies from move 1, White, to a position.
    public static func ply(of position: Position) -> Int {
        (position.fullmoveNumber - 1) * 2 + (position.turn == .black ? 1 : 0)
    }

    /// Moves in SAN with numbers on one line (`12... Nf6 13. Bg5`), as a variation starting at
    /// `position` writes them.
    public static func movetext(_ moves: some Sequence<Move>, from position: Position) -> String {
        var writer = MovetextWriter(lineLength: .max, startPly: ply(of: position))
        var walker = position
        for move in moves {
            writer.move(walker.san(move).utf8)
            walker.play(move)
        }
        return writer.finish()
    }
}

/// Lays movetext out in lines shorter than `lineLength` characters (Unicode scalars): `N.`
/// before every White move and `N...` before a Black move that opens a line or follows a
/// comment or a variation, a number and its move as one word, `(` stuck to what follows and `)`
/// to what precedes. The last word is kept back until the next one comes.
public struct MovetextWriter {
    public let lineLength: Int
    private var output: [UInt8] = []
    private var lineWidth = 0
    private var pending: [UInt8] = []
    private var glueNext = false
    private var breakBeforeNext = false
    /// For each open line: the ply of its next move, and of its last move so far.
    private var lines: [(next: Int, last: Int?)]
    private var needsNumber = true

    public init(lineLength: Int = 80, startPly: Int = 0) {
        self.lineLength = lineLength
        lines = [(startPly, nil)]
        output.reserveCapacity(1024)
    }

    /// A move, in SAN, with its number when it needs one.
    public mutating func move<Bytes: Sequence<UInt8>>(_ san: Bytes) {
        let top = lines.count - 1
        let ply = lines[top].next
        if ply % 2 == 0 || needsNumber {
            word(PGNWriter.moveNumber(ply: ply).utf8)
            appendToWord(CollectionOfOne(0x20))
            appendToWord(san)
        } else {
            word(san)
        }
        lines[top] = (ply + 1, ply)
        needsNumber = false
    }

    /// A numeric annotation glyph, `$n`.
    public mutating func nag(_ value: Int) { word("$\(value)".utf8) }

    /// Text stuck to the word before it (a glyph after its move: `Nxf7??`).
    public mutating func suffix(_ text: String) { appendToWord(text.utf8) }

    /// A word written as it is (a result, a NAG in its own spelling).
    public mutating func word(_ text: String) { word(text.utf8) }

    /// `{text}`, split at white space so that long comments wrap (line breaks become spaces),
    /// but never inside a command (`[%eval 0.17]`).
    /// With `closingBraceAsLineComment`, a text with a `}`, which ends a brace comment for
    /// every reader, is written as a `;` comment on one line instead (a database's comment,
    /// which came from a `;` comment or from braces nested in a brace comment); an opening
    /// brace alone stays in a brace comment, which the first `}` ends for every reader.
    public mutating func comment(_ text: String, closingBraceAsLineComment: Bool = false) {
        var text = text
        if closingBraceAsLineComment && text.utf8.contains(0x7D) {
            let words = text.utf8.split(whereSeparator: Lexer.isSpace).map { String(decoding: $0, as: UTF8.self) }
            lineComment(";" + (words.isEmpty ? "" : " " + words.joined(separator: " ")))
            return
        }
        text.withUTF8 { bytes in
            var first = true
            var k = 0
            while k < bytes.count {
                while k < bytes.count && Lexer.isSpace(bytes[k]) { k += 1 }
                guard k < bytes.count else { break }
                let start = k
                while k < bytes.count && !Lexer.isSpace(bytes[k]) { k += 1 }
                // A command (`[%eval 0.17]`, `[%clk 0:03:00]`) stays on one line.
                var command = false
                if k - start >= 2 && bytes[start] == 0x5B && bytes[start + 1] == 0x25
                    && !bytes[start..<k].contains(0x5D)
                {
                    var end = k
                    while end < bytes.count && bytes[end] != 0x5D && bytes[end] != 0x5B { end += 1 }
                    if end < bytes.count && bytes[end] == 0x5D {
                        command = true
                        k = end + 1
                        while k < bytes.count && !Lexer.isSpace(bytes[k]) { k += 1 }
                    }
                }
                if first {
                    word(CollectionOfOne(UInt8(0x7B)))
                    first = false
                } else {
                    word(EmptyCollection())
                }
                if command {
                    // Its spaces and line breaks as single spaces.
                    for (index, byte) in bytes[start..<k].enumerated() where !Lexer.isSpace(byte) {
                        if index > 0 && Lexer.isSpace(bytes[start + index - 1]) { pending.append(0x20) }
                        pending.append(byte)
                    }
                } else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<k]))
                }
            }
            if first { word(CollectionOfOne(UInt8(0x7B))) }
        }
        appendToWord(CollectionOfOne(UInt8(0x7D)))
        needsNumber = true
    }

    /// A `;` comment as it is, which ends its line.
    public mutating func lineComment(_ text: String) {
        word(text.utf8)
        flush()
        breakBeforeNext = true
        needsNumber = true
    }

    /// Movetext as a file wrote it (a database keeps what its columns cannot hold that way): it
    /// may hold moves, comments, `;` comments and variations of its own, which are laid out
    /// as the writer lays out its own (a comment with braces inside and a `;` comment as they
    /// are, `%` lines on lines of their own), never read as moves.
    public mutating func raw(_ text: String) {
        var text = text
        var last = TokenKind.whitespace
        text.withUTF8 { bytes in
            var lexer = Lexer(bytes)
            while let token = lexer.next() {
                let piece = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
                switch token.kind {
                case .whitespace:
                    continue
                case .escapeLine:
                    flush()
                    breakBeforeNext = true
                    word(piece)
                    flush()
                    breakBeforeNext = true
                case .lineComment:
                    word(piece)
                    flush()
                    breakBeforeNext = true
                case .braceComment where !piece.dropFirst().dropLast().contains(where: { $0 == 0x7B || $0 == 0x7D }):
                    let saved = needsNumber
                    comment(String(decoding: piece.dropFirst().dropLast(), as: UTF8.self))
                    needsNumber = saved
                case .openParen:
                    word(piece)
                    glueNext = true
                case .closeParen:
                    appendToWord(piece)
                default:
                    word(piece)
                }
                last = token.kind
            }
        }
        // The next move is numbered after a comment or a variation, as after the writer's own.
        if last == .closeParen || last == .braceComment || last == .lineComment { needsNumber = true }
    }

    /// A variation starts: it replaces the last move of the current line.
    public mutating func variationStart() {
        let top = lines.count - 1
        word(CollectionOfOne(UInt8(0x28)))
        glueNext = true
        lines.append((lines[top].last ?? lines[top].next, nil))
        needsNumber = true
    }

    public mutating func variationEnd() {
        if lines.count > 1 { lines.removeLast() }
        appendToWord(CollectionOfOne(UInt8(0x29)))
        needsNumber = true
    }

    /// The text written, without a final line break.
    public mutating func finish() -> String {
        flush()
        return String(decoding: output, as: UTF8.self)
    }

    private mutating func word<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        if glueNext {
            glueNext = false
        } else {
            flush()
        }
        pending.append(contentsOf: bytes)
    }

    private mutating func appendToWord<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        pending.append(contentsOf: bytes)
    }

    private mutating func flush() {
        guard !pending.isEmpty else { return }
        var width = 0
        for byte in pending where byte & 0xC0 != 0x80 { width += 1 }
        if breakBeforeNext && lineWidth > 0 {
            output.append(0x0A)
            lineWidth = 0
        } else if lineWidth > 0 && lineWidth + 1 + width >= lineLength {
            output.append(0x0A)
            lineWidth = 0
        } else if lineWidth > 0 {
            output.append(0x20)
            lineWidth += 1
        }
        breakBeforeNext = false
        output.append(contentsOf: pending)
        lineWidth += width
        pending.removeAll(keepingCapacity: true)
    }
}
