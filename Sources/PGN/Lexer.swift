/// Cuts PGN bytes into tokens. Never fails: anything unexpected becomes an `unknown` or
/// `unterminated…` token, and the parser reports it.
public struct Lexer {
    public let bytes: UnsafeBufferPointer<UInt8>
    public private(set) var offset: Int
    /// Offset added to every token's range (the text's position in its file).
    public let base: Int
    /// The brace comments whose end was found only by reading on past it (left open, or closed
    /// at their first `}` because nesting left them open), with how far the lexer read: to the
    /// line that begins a tag, or to the end of the text. What lies between decides where they
    /// end, so an edit there can change it. Rare.
    public private(set) var longComments: [LongComment] = []

    /// A brace comment whose end depends on the text after it (`longComments`).
    public struct LongComment: Sendable, Hashable {
        /// Where the comment starts (file offset).
        public var start: Int
        /// Where the lexer stopped reading to find its end: past the `[Name "` of the line that
        /// begins a tag, or the end of the text (file offset).
        public var scanned: Int

        public init(start: Int, scanned: Int) {
            self.start = start
            self.scanned = scanned
        }

        /// The same comment `delta` bytes further on.
        public func moved(by delta: Int) -> LongComment { LongComment(start: start + delta, scanned: scanned + delta) }
    }

    /// Lexes `bytes` from index `start`, which must be where a token begins (0, or the start of a
    /// token of an earlier lexing of the same bytes).
    public init(_ bytes: UnsafeBufferPointer<UInt8>, base: Int = 0, start: Int = 0) {
        self.bytes = bytes
        self.offset = start
        self.base = base
    }

    @inline(__always) private func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    /// Whether only `]` (blanks around it) stands from `i` to the end of the line.
    private func endsTagLine(after i: Int) -> Bool {
        var k = i
        while k < bytes.count && Lexer.isBlank(bytes[k]) { k += 1 }
        guard k < bytes.count && bytes[k] == 0x5D else { return false }
        k += 1
        while k < bytes.count && Lexer.isBlank(bytes[k]) { k += 1 }
        return k == bytes.count || bytes[k] == 0x0A || bytes[k] == 0x0D
    }

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
                    // `\"` right before the `]` that ends its line closes the value, whose last
                    // character is the backslash (`[Event "Tournament \"]`), as readers take it.
                    if bytes[i + 1] == 0x22 && endsTagLine(after: i + 2) {
                        i += 2
                        return make(.string, start, i)
                    }
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
        // nesting leaves the comment open at the end, the first `}` closes it, as the standard
        // says. A line that begins a tag (`[Name "`) ends a comment still open before it: a `}`
        // forgotten costs its game the rest of its movetext, never the games after it.
        var depth = 1
        var firstClose: Int?
        var scanned = bytes.count
        scan: while true {
            let at = Lexer.firstBraceOrLineBreak(bytes, from: i)
            i = at + 1
            guard at < bytes.count else {
                i = bytes.count
                break
            }
            switch bytes[at] {
            case 0x7B:
                depth += 1
            case 0x7D:
                if firstClose == nil { firstClose = i }
                depth -= 1
                if depth == 0 { return make(.braceComment, start, i) }
            default:  // a line break
                if i < bytes.count, let tag = Lexer.tagStart(bytes, i) {
                    scanned = tag
                    break scan
                }
            }
        }
        longComments.append(LongComment(start: base &+ start, scanned: base &+ scanned))
        if let firstClose {
            i = firstClose
            return make(.braceComment, start, i)
        }
        if i < bytes.count { i -= 1 }  // the line break before the tag
        return make(.unterminatedComment, start, i)
    }

    /// The index of the first `{`, `}`, line feed or carriage return at or after `start`, else
    /// `bytes.count`. Eight bytes at a time: comments are most of an annotated text.
    @inlinable @inline(__always)
    public static func firstBraceOrLineBreak(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var k = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            while k + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                // The lowest byte flagged is exactly the first of the four in the word (the
                // flags above a match may be false, never those below).
                let open = word ^ 0x7B7B_7B7B_7B7B_7B7B
                let close = word ^ 0x7D7D_7D7D_7D7D_7D7D
                let lf = word ^ 0x0A0A_0A0A_0A0A_0A0A
                let cr = word ^ 0x0D0D_0D0D_0D0D_0D0D
                let found =
                    ((open &- ones) & ~open | (close &- ones) & ~close | (lf &- ones) & ~lf | (cr &- ones) & ~cr)
                    & 0x8080_8080_8080_8080
                if found != 0 { return k + found.trailingZeroBitCount / 8 }
                k += 8
            }
        }
        while k < bytes.count {
            let d = bytes[k]
            if d == 0x7B || d == 0x7D || d == 0x0A || d == 0x0D { return k }
            k += 1
        }
        return k
    }

    /// Whether `[Name "` starts at `offset`: a tag pair (not `[%clk …]` in a comment).
    @inline(__always)
    public static func beginsTag(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Bool {
        tagStart(bytes, offset) != nil
    }

    /// Past the quote of the `[Name "` that starts at `offset`, or nil when none does.
    @inline(__always)
    static func tagStart(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int? {
        guard bytes[offset] == 0x5B else { return nil }
        var j = offset + 1
        while j < bytes.count && isSymbolByte(bytes[j]) { j += 1 }
        guard j > offset + 1 else { return nil }
        while j < bytes.count && bytes[j] == 0x20 { j += 1 }
        return j < bytes.count && bytes[j] == 0x22 ? j + 1 : nil
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
        // A move glued to the result after it (`d61-0`): the result is a token of its own.
        if let result = Lexer.gluedResult(bytes, start, i) { i = result }
        let length = i - start
        if length == 3 && c == 0x31 && bytes[start + 1] == 0x2D && bytes[start + 2] == 0x30 {
            return make(.result, start, i, GameResult.whiteWins.rawValue)
        }
        if length == 3 && c == 0x30 && bytes[start + 1] == 0x2D && bytes[start + 2] == 0x31 {
            return make(.result, start, i, GameResult.blackWins.rawValue)
        }
        // `1/2` alone is a draw too: real files end games with it.
        if (length == 7 && Lexer.matches(bytes, start, "1/2-1/2"))
            || (length == 3 && Lexer.matches(bytes, start, "1/2"))
        {
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

    /// Where a result written right after a move starts (`d61-0`, `Qh4#0-1`, `Kf21/2-1/2`,
    /// `Rd11/2`), in a symbol `start..<end` that begins with a letter; nil when the symbol
    /// does not end with a result or nothing that can be a move stands before it.
    @inlinable @inline(__always)
    public static func gluedResult(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        // A result ends in `0`, `1` or `2` after `-` or `/`: most symbols are ruled out here.
        guard end - start >= 5, bytes[end - 1] &- 0x30 < 3, bytes[end - 2] == 0x2D || bytes[end - 2] == 0x2F else {
            return nil
        }
        let first = bytes[start] | 0x20
        guard first >= 0x61 && first <= 0x7A else { return nil }
        for literal: StaticString in ["1/2-1/2", "1-0", "0-1", "1/2"] {
            let n = literal.utf8CodeUnitCount
            if end - start >= n + 2 && matches(bytes, end - n, literal) { return end - n }
        }
        return nil
    }

    /// Whether a symbol `start..<end` can be a move: it names a square (`e4`, `Nbd7`, `e2e4`),
    /// castles (`O-O`, `0-0`), or passes (`--`, `Z0`, `0000`, `@@@@`). Any other word in the
    /// movetext (`keep`, `e.p.`, a lone `+`) is a note: readers skip it.
    @inlinable @inline(__always)
    public static func looksLikeMove(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let first = bytes[start]
        if first == 0x4F || first == 0x30 { return true }  // O-O, 0-0, 0000
        if end - start == 2 {
            let second = bytes[start + 1]
            if (first == 0x2D && second == 0x2D) || (first == 0x5A && second == 0x30) { return true }  // -- Z0
        }
        if end - start == 4 && first == 0x40 && bytes[start + 1] == 0x40 && bytes[start + 2] == 0x40
            && bytes[start + 3] == 0x40
        {
            return true  // @@@@
        }
        var k = start
        while k + 1 < end {
            if bytes[k] &- 0x61 < 8 && bytes[k + 1] &- 0x31 < 8 { return true }
            k += 1
        }
        return false
    }

    @usableFromInline
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
