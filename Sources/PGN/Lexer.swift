/// Cuts PGN bytes into tokens. Never fails: anything unexpected becomes an `unknown` or
/// `unterminated…` token, and the parser reports it.
public struct Lexer {
    public let bytes: UnsafeBufferPointer<UInt8>
    public private(set) var offset: Int
    /// Offset added to every token's range (the text's position in its file).
    public let base: Int
    /// Where the brace comments start whose end was found only by reading to the end of the text
    /// (left open, or closed at their first `}` because nesting left them open): what follows
    /// them decides where they end, so an edit anywhere after one can change it. Rare.
    public private(set) var longComments: [Int] = []

    /// Lexes `bytes` from index `start`, which must be where a token begins (0, or the start of a
    /// token of an earlier lexing of the same bytes).
    public init(_ bytes: UnsafeBufferPointer<UInt8>, base: Int = 0, start: Int = 0) {
        self.bytes = bytes
        self.offset = start
        self.base = base
    }

    @inline(__always) private func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    private func atLineStart(_ i: Int) -> Bool { i == 0 || bytes[i - 1] == 0x0A || bytes[i - 1] == 0x0D }

    /// White space between tokens: space, tab, line feed, carriage return, vertical tab and
    /// form feed (C's `isspace` in the "C" locale). The one definition: the import scanner,
    /// the stored comments and the writers use it too.
    @inline(__always) public static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x0B || c == 0x0C
    }

    /// Space or tab: the white space inside one line (around a tag pair's parts).
    @inline(__always) public static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    @inline(__always) public static func isSymbolByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true  // 0-9 A-Z a-z
        case 0x5F, 0x2B, 0x23, 0x3D, 0x3A, 0x2D, 0x2F, 0x40, 0x7E: return true  // _ + # = : - / @ ~
        default: return false
        }
    }

    @inline(__always) private func make(_ kind: TokenKind, _ start: Int, _ end: Int, _ value: Int = 0) -> Token {
        Token(kind: kind, start: base &+ start, end: base &+ end, value: value)
    }

    /// The next token, or nil at the end of the text.
    public mutating func next() -> Token? {
        let start = offset
        guard start < bytes.count else { return nil }
        let c = bytes[start]
        var i = start + 1
        defer { offset = i }
        switch c {
        case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C:  // isSpace
            while i < bytes.count && Lexer.isSpace(bytes[i]) { i += 1 }
            return make(.whitespace, start, i)
        case 0x25 where atLineStart(start):  // %
            while i < bytes.count && bytes[i] != 0x0A && bytes[i] != 0x0D { i += 1 }
            return make(.escapeLine, start, i)
        case 0x3B:  // ;
            while i < bytes.count && bytes[i] != 0x0A && bytes[i] != 0x0D { i += 1 }
            return make(.lineComment, start, i)
        case 0x7B:  // {
            return braceComment(start, &i)
        case 0x5B: return make(.openBracket, start, i)
        case 0x5D: return make(.closeBracket, start, i)
        case 0x28: return make(.openParen, start, i)
        case 0x29: return make(.closeParen, start, i)
        case 0x22:  // "
            while i < bytes.count {
                let d = bytes[i]
                if d == 0x5C && i + 1 < bytes.count && bytes[i + 1] != 0x0A && bytes[i + 1] != 0x0D {
                    i += 2
                    continue
                }
                if d == 0x22 {
                    i += 1
                    return make(.string, start, i)
                }
                if d == 0x0A || d == 0x0D { break }
                i += 1
            }
            return make(.unterminatedString, start, i)
        case 0x24:  // $
            var value = 0
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) {
                value = min(value * 10 + Int(bytes[i] - 0x30), 100_000)
                i += 1
            }
            return make(.nag, start, i, i == start + 1 ? -1 : value)
        case 0x21, 0x3F:  // ! ?
            while i < bytes.count && (bytes[i] == 0x21 || bytes[i] == 0x3F) { i += 1 }
            return make(.suffix, start, i, Lexer.suffixValue(bytes, start, i))
        case 0x2A: return make(.result, start, i, GameResult.unknown.rawValue)
        case 0x2E:  // .
            while i < bytes.count && bytes[i] == 0x2E { i += 1 }
            return make(.dots, start, i)
        case 0xE2 where byte(start + 1) == 0x80 && byte(start + 2) == 0xA6:  // …
            i = start + 3
            return make(.dots, start, i)
        case 0xEF where byte(start + 1) == 0xBB && byte(start + 2) == 0xBF:
            // A byte-order mark: at the start of a file, or where files were concatenated.
            i = start + 3
            return make(.whitespace, start, i)
        case 0xC2 where byte(start + 1) == 0xBD:  // ½-½
            if byte(start + 2) == 0x2D && byte(start + 3) == 0xC2 && byte(start + 4) == 0xBD {
                i = start + 5
                return make(.result, start, i, GameResult.draw.rawValue)
            }
            return make(.unknown, start, i)
        default:
            if Lexer.isSymbolByte(c) { return symbol(start, &i) }
            // One whole UTF-8 sequence (or one stray byte) at a time.
            if c >= 0xC0 {
                while i < bytes.count && bytes[i] & 0xC0 == 0x80 && i - start < 4 { i += 1 }
            }
            return make(.unknown, start, i)
        }
    }

    private mutating func braceComment(_ start: Int, _ i: inout Int) -> Token {
        // Braces nest here (the standard has no nesting, but files that use it mean it). If
        // nesting leaves the comment open at the end, the first `}` closes it, as the standard says.
        var depth = 1
        var firstClose: Int?
        while i < bytes.count {
            let d = bytes[i]
            i += 1
            if d == 0x7B {
                depth += 1
            } else if d == 0x7D {
                if firstClose == nil { firstClose = i }
                depth -= 1
                if depth == 0 { return make(.braceComment, start, i) }
            }
        }
        longComments.append(base &+ start)
        if let firstClose {
            i = firstClose
            return make(.braceComment, start, i)
        }
        return make(.unterminatedComment, start, i)
    }

    private func symbol(_ start: Int, _ i: inout Int) -> Token {
        let c = bytes[start]
        // Move numbers: digits then dots (`12.`, `12...`, `12…`), or digits alone.
        if (0x30...0x39).contains(c) {
            var j = start
            var number = 0
            while j < bytes.count, (0x30...0x39).contains(bytes[j]) {
                number = min(number * 10 + Int(bytes[j] - 0x30), 1_000_000)
                j += 1
            }
            if j < bytes.count && bytes[j] == 0x2E {
                var dots = 0
                while j < bytes.count && bytes[j] == 0x2E {
                    j += 1
                    dots += 1
                }
                i = j
                return make(.moveNumber, start, i, number)
            }
            if byte(j) == 0xE2 && byte(j + 1) == 0x80 && byte(j + 2) == 0xA6 {
                i = j + 3
                return make(.moveNumber, start, i, number)
            }
        }
        while i < bytes.count && Lexer.isSymbolByte(bytes[i]) { i += 1 }
        // `exd6e.p.`: the en-passant mark belongs to the move.
        if i + 1 < bytes.count && bytes[i] == 0x2E && bytes[i - 1] == 0x65 && bytes[i + 1] == 0x70
            && byte(i + 2) == 0x2E
        {
            i += 3
        }
        let length = i - start
        if length == 3 && c == 0x31 && bytes[start + 1] == 0x2D && bytes[start + 2] == 0x30 {
            return make(.result, start, i, GameResult.whiteWins.rawValue)
        }
        if length == 3 && c == 0x30 && bytes[start + 1] == 0x2D && bytes[start + 2] == 0x31 {
            return make(.result, start, i, GameResult.blackWins.rawValue)
        }
        if length == 7 && Lexer.matches(bytes, start, "1/2-1/2") {
            return make(.result, start, i, GameResult.draw.rawValue)
        }
        // Digits alone are a move number written without its dot, except `0000` (a UCI null move).
        if (0x30...0x39).contains(c) && Lexer.allDigits(bytes, start, i)
            && !(length == 4 && Lexer.matches(bytes, start, "0000"))
        {
            return make(.moveNumber, start, i, Lexer.number(bytes, start, i))
        }
        return make(.symbol, start, i)
    }

    static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard start + n <= bytes.count else { return false }
        for k in 0..<n where bytes[start + k] != literal.utf8Start[k] { return false }
        return true
    }

    static func allDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        for k in start..<end where !(0x30...0x39).contains(bytes[k]) { return false }
        return true
    }

    static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var n = 0
        for k in start..<end { n = min(n * 10 + Int(bytes[k] - 0x30), 1_000_000) }
        return n
    }

    /// The NAG an annotation suffix stands for (`!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6), 0 for others.
    public static func suffixValue(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        switch end - start {
        case 1: return bytes[start] == 0x21 ? 1 : 2
        case 2:
            switch (bytes[start], bytes[start + 1]) {
            case (0x21, 0x21): return 3
            case (0x3F, 0x3F): return 4
            case (0x21, 0x3F): return 5
            default: return 6
            }
        default: return 0
        }
    }
}
