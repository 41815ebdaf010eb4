import PGN

/// Reads the games of a plainly written PGN text in one pass, without the general parser's
/// tokens and diagnostics: what an import needs of each game (its tags, moves, comments,
/// NAGs, variations and termination marker), as `Parser` has them; move numbers, which the
/// import does not read, are left out.
///
/// "Plainly written" is what databases and servers export: every game starts with its tags,
/// one per line (`[Name "value"]`), and ends with its termination marker; the movetext holds
/// move numbers, moves, `{…}` comments, NAGs and suffix annotations, and variations. Anything
/// else (a `;` comment, a `%` line, nested or open braces, a tag line inside a comment, a game
/// without tags or without a result, a repeated tag, text after a tag on its line, a word that
/// cannot be a move, a result inside a variation or against a move, an unusual character)
/// makes `next(into:)` return false, and the caller reads the rest with `Parser`, which reads
/// everything.
struct ImportScanner {
    private var scan: Scan

    init(_ bytes: UnsafeBufferPointer<UInt8>) { scan = Scan(bytes: bytes) }

    /// Where the next game (or the end of the text) starts.
    var offset: Int { scan.i }

    /// Reads the next game into `game`, whose arrays are reused: true when read, nil at the
    /// end of the text, false when the game is not plainly written (`offset` is then its start).
    mutating func next(into game: inout GameSyntax) -> Bool? {
        scan.skipSpace()
        let start = scan.i
        if start == scan.bytes.count { return nil }
        if scan.game(into: &game) { return true }
        scan.i = start
        return false
    }

    /// The games of `bytes` (whole games only), or nil when the text is not plainly written.
    static func games(in bytes: UnsafeBufferPointer<UInt8>) -> [GameSyntax]? {
        var scanner = ImportScanner(bytes)
        var games: [GameSyntax] = []
        var game = GameSyntax(range: 0..<0)
        while let read = scanner.next(into: &game) {
            guard read else { return nil }
            games.append(game)
        }
        return games
    }

    private struct Scan {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0
        /// The names of the current game's tags, once it has `namesSetFrom` of them.
        var names: Set<TagName> = []
        static let namesSetFrom = 16

        @inline(__always) func byte(_ k: Int) -> UInt8 { k < bytes.count ? bytes[k] : 0 }

        @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

        /// `Lexer.isSymbolByte`, by table.
        @inline(__always) func isSymbolByte(_ c: UInt8) -> Bool { symbols[Int(c)] }

        /// Whether each byte value is `Lexer.isSymbolByte`, made once.
        nonisolated(unsafe) static let symbolTable: UnsafePointer<Bool> = {
            let table = UnsafeMutablePointer<Bool>.allocate(capacity: 256)
            for c in 0...255 { table[c] = Lexer.isSymbolByte(UInt8(c)) }
            return UnsafePointer(table)
        }()
        let symbols = Scan.symbolTable

        @inline(__always) mutating func skipSpace() {
            while i < bytes.count && Lexer.isSpace(bytes[i]) { i += 1 }
        }

        /// One game from its first tag to its termination marker.
        mutating func game(into game: inout GameSyntax) -> Bool {
            let start = i
            game.tags.removeAll(keepingCapacity: true)
            game.nodes.removeAll(keepingCapacity: true)
            game.resultIndex = nil
            names.removeAll(keepingCapacity: true)
            while byte(i) == 0x5B {  // [
                guard let tag = tag() else { return false }
                // A repeated tag starts another game in the parser's reading: not plain. The
                // few tags of a game are compared in turn; past `namesSetFrom`, through a set,
                // so that a game with very many tags is not read in quadratic time.
                if game.tags.count < Scan.namesSetFrom {
                    for other in game.tags where sameText(other.nameRange, tag.nameRange) { return false }
                } else {
                    if names.isEmpty {
                        for other in game.tags { names.insert(TagName(bytes, other.nameRange)) }
                    }
                    guard names.insert(TagName(bytes, tag.nameRange)).inserted else { return false }
                }
                game.tags.append(tag)
                skipSpace()
            }
            guard !game.tags.isEmpty else { return false }
            var depth = 0
            while i < bytes.count {
                let c = bytes[i]
                let tokenStart = i
                switch c {
                case 0x20, 0x0A, 0x0D, 0x09:  // the common white space; the rarer below
                    i += 1
                case 0x7B:  // {
                    // To the closing brace; an opening one inside nests in the parser's
                    // reading: not plain.
                    guard let close = braceEnd(from: i + 1) else { return false }
                    i = close + 1
                    game.nodes.append(MovetextNode(kind: .comment, range: tokenStart..<i))
                case 0x28:  // (
                    i += 1
                    depth += 1
                    game.nodes.append(MovetextNode(kind: .variationStart, range: tokenStart..<i))
                case 0x29:  // )
                    guard depth > 0 else { return false }
                    i += 1
                    depth -= 1
                    game.nodes.append(MovetextNode(kind: .variationEnd, range: tokenStart..<i))
                case 0x24:  // $
                    i += 1
                    var value = 0
                    while i < bytes.count && Scan.isDigit(bytes[i]) {
                        value = min(value * 10 + Int(bytes[i] - 0x30), 100_000)
                        i += 1
                    }
                    game.nodes.append(
                        MovetextNode(kind: .nag, range: tokenStart..<i, value: i == tokenStart + 1 ? -1 : value))
                case 0x21, 0x3F:  // ! ?
                    while i < bytes.count && (bytes[i] == 0x21 || bytes[i] == 0x3F) { i += 1 }
                    let value = Lexer.suffixValue(bytes, tokenStart, i)
                    game.nodes.append(MovetextNode(kind: .nag, range: tokenStart..<i, value: value == 0 ? -1 : value))
                case 0x2A:  // *
                    i += 1
                    return finish(start, &game, depth, result: .unknown, tokenStart)
                case 0x30...0x39:
                    // A move number (`12.`, `12...`), which an import has no use for and which
                    // is left out, or a termination marker.
                    var end = i
                    while end < bytes.count && Scan.isDigit(bytes[end]) { end += 1 }
                    if byte(end) == 0x2E {
                        while byte(end) == 0x2E { end += 1 }
                        i = end
                        continue
                    }
                    end = tokenStart
                    while end < bytes.count && isSymbolByte(bytes[end]) { end += 1 }
                    let result: GameResult
                    switch end - tokenStart {
                    case 3 where c == 0x31 && bytes[i + 1] == 0x2D && bytes[i + 2] == 0x30: result = .whiteWins
                    case 3 where c == 0x30 && bytes[i + 1] == 0x2D && bytes[i + 2] == 0x31: result = .blackWins
                    case 7 where isDraw(tokenStart): result = .draw
                    default: return false
                    }
                    i = end
                    return finish(start, &game, depth, result: result, tokenStart)
                case 0x41...0x5A, 0x61...0x7A:  // a move
                    i += 1
                    while i < bytes.count && isSymbolByte(bytes[i]) { i += 1 }
                    // `exd6e.p.` and the like: the parser's lexer joins the mark to the move.
                    if byte(i) == 0x2E { return false }
                    // A word that cannot be a move (a note) and a move glued to a result are
                    // the parser's to read.
                    guard Lexer.looksLikeMove(bytes, tokenStart, i), Lexer.gluedResult(bytes, tokenStart, i) == nil
                    else { return false }
                    game.nodes.append(MovetextNode(kind: .move, range: tokenStart..<i))
                default:
                    // The rarer white space (vertical tab, form feed), or the end of plain PGN.
                    guard Lexer.isSpace(c) else { return false }
                    i += 1
                }
            }
            return false  // no termination marker
        }

        /// Ends a game at its termination marker `start..<i`; what follows on the way to the
        /// next game must be white space.
        private mutating func finish(
            _ gameStart: Int, _ game: inout GameSyntax, _ depth: Int, result: GameResult, _ start: Int
        ) -> Bool {
            guard depth == 0 else { return false }
            if i < bytes.count && !Lexer.isSpace(bytes[i]) { return false }
            let end = i
            game.nodes.append(MovetextNode(kind: .result, range: start..<end, value: result.rawValue))
            skipSpace()
            if i < bytes.count && bytes[i] != 0x5B { return false }
            game.range = gameStart..<end
            game.resultIndex = game.nodes.count - 1
            return true
        }

        /// The index of the first `}` from `start`, or nil when a `{`, a line that begins a tag
        /// (where the parser ends a comment left open) or the end comes first.
        @inline(__always)
        private func braceEnd(from start: Int) -> Int? {
            var k = start
            while true {
                let at = Lexer.firstBraceOrLineBreak(bytes, from: k)
                guard at < bytes.count else { return nil }
                switch bytes[at] {
                case 0x7D: return at
                case 0x7B: return nil
                default:
                    if at + 1 < bytes.count && Lexer.beginsTag(bytes, at + 1) { return nil }
                    k = at + 1
                }
            }
        }

        private func isDraw(_ k: Int) -> Bool {
            k + 7 <= bytes.count && bytes[k] == 0x31 && bytes[k + 1] == 0x2F && bytes[k + 2] == 0x32
                && bytes[k + 3] == 0x2D && bytes[k + 4] == 0x31 && bytes[k + 5] == 0x2F && bytes[k + 6] == 0x32
        }

        private func sameText(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
            guard a.count == b.count else { return false }
            for k in 0..<a.count where bytes[a.lowerBound + k] != bytes[b.lowerBound + k] { return false }
            return true
        }

        /// `[Name "value"]` alone on its line (spaces around the value allowed).
        private mutating func tag() -> TagPair? {
            let open = i
            i += 1
            let nameStart = i
            while i < bytes.count && isSymbolByte(bytes[i]) { i += 1 }
            let nameRange = nameStart..<i
            guard !nameRange.isEmpty, Lexer.isBlank(byte(i)) else { return nil }
            while Lexer.isBlank(byte(i)) { i += 1 }
            guard byte(i) == 0x22 else { return nil }
            let valueStart = i
            i += 1
            while true {
                guard i < bytes.count else { return nil }
                let d = bytes[i]
                if d == 0x5C && i + 1 < bytes.count && bytes[i + 1] != 0x0A && bytes[i + 1] != 0x0D {
                    i += 2
                    continue
                }
                if d == 0x22 { break }
                if d == 0x0A || d == 0x0D { return nil }
                i += 1
            }
            i += 1
            let valueRange = valueStart..<i
            while Lexer.isBlank(byte(i)) { i += 1 }
            guard byte(i) == 0x5D else { return nil }
            i += 1
            let end = i
            while Lexer.isBlank(byte(i)) { i += 1 }
            guard i == bytes.count || bytes[i] == 0x0A || bytes[i] == 0x0D else { return nil }
            return TagPair(range: open..<end, nameRange: nameRange, valueRange: valueRange)
        }
    }
}

/// A tag's name, as bytes of the text, compared and hashed by its bytes.
private struct TagName: Hashable {
    let bytes: UnsafeRawBufferPointer

    init(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        bytes = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[range]))
    }

    static func == (a: TagName, b: TagName) -> Bool { a.bytes.elementsEqual(b.bytes) }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: bytes) }
}
