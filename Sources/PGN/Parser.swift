import ChessCore

/// Builds games from tokens. Never fails and never recurses: nesting is a counter, errors
/// become diagnostics, and the next game is always found.
public struct Parser {
    public private(set) var games: [GameSyntax] = []
    public private(set) var diagnostics: [Diagnostic] = []

    private var lexer: Lexer
    private var pushedBack: Token?
    private var game: GameSyntax?
    private var inMovetext = false
    private var afterResult = false
    private var openVariations: [Range<Int>] = []
    private let firstGameIndex: Int
    private var keepsSyntax = true
    private var stop: ((Int) -> Bool)?
    /// Where the game the parse stopped at starts (see `init(_:base:start:firstGameIndex:stoppingAt:)`).
    public private(set) var stoppedAt: Int?
    /// The most diagnostics the parser keeps for one game, or for the text before the first
    /// game: a text of stray brackets can have one problem per byte. The rest are counted, and
    /// one diagnostic says how many.
    public static let diagnosticsPerGame = 1000
    /// How many diagnostics of each severity were counted but not kept (the one that says so
    /// stands for one of them and is not counted).
    public private(set) var omittedDiagnostics: [Diagnostic.Severity: Int] = [:]
    /// How many diagnostics each game (nil: the text before the first game) did not keep,
    /// the one that says so included.
    public private(set) var omittedByGame: [Int?: Int] = [:]
    private var gameDiagnostics = 0
    private var omitted: (count: Int, first: Range<Int>, severity: Diagnostic.Severity, code: Diagnostic.Code)?
    /// The names of the current game's tags, once it has many: repeated names start a new game.
    private var tagNames: Set<[UInt8]> = []
    /// The last symbol (file offsets): a result right at its end is glued to it.
    private var lastSymbol = -1 ..< -1
    /// The word note last read, while only white space follows it: the next word joins it
    /// (`White resigns` is one note, a page of prose one problem), with its diagnostic's index
    /// when it was kept.
    private var openNote: (end: Int, diagnostic: Int?)?

    /// Parses `bytes`, whose first byte is at `base` in its file; games are numbered from
    /// `firstGameIndex` in diagnostics. Without `keepingSyntax`, each game keeps only its
    /// range (its tags and nodes are dropped once it ends): what cuts a large text into games
    /// then holds one game's syntax at a time.
    public init(
        _ bytes: UnsafeBufferPointer<UInt8>, base: Int = 0, firstGameIndex: Int = 0, keepingSyntax: Bool = true
    ) {
        lexer = Lexer(bytes, base: base)
        self.firstGameIndex = firstGameIndex
        self.keepsSyntax = keepingSyntax
        run()
    }

    /// Parses part of a text: from index `start` of `bytes`, which is 0 or where a game starts in
    /// a parse of the whole text, so the games found are those of that parse, numbered from
    /// `firstGameIndex` (the games before `start`). Stops when a game is about to start at a
    /// file offset for which `stop` is true: that game and everything after it are left out,
    /// with the diagnostics from its start on, and `stoppedAt` is its start. The lexer still
    /// sees the whole of `bytes` (a comment left open reads to the end of the text).
    public init(
        _ bytes: UnsafeBufferPointer<UInt8>, base: Int = 0, start: Int, firstGameIndex: Int,
        stoppingAt stop: @escaping (Int) -> Bool
    ) {
        lexer = Lexer(bytes, base: base, start: start)
        self.firstGameIndex = firstGameIndex
        self.stop = stop
        run()
    }

    /// The games read, handed over: the parser keeps none, so the caller's are the only copy
    /// (changing them copies nothing).
    public mutating func takeGames() -> [GameSyntax] {
        let taken = games
        games = []
        return taken
    }

    /// The brace comments whose end was found only by reading on past them (`Lexer.longComments`).
    public var longComments: [Lexer.LongComment] { lexer.longComments }

    /// File offset just past the last byte the parse read.
    public var endOffset: Int { lexer.base + lexer.offset }

    private var gameIndex: Int { firstGameIndex + games.count }

    private mutating func nextToken() -> Token? {
        if let token = pushedBack {
            pushedBack = nil
            return token
        }
        return lexer.next()
    }

    private mutating func report(
        _ code: Diagnostic.Code, _ severity: Diagnostic.Severity, _ message: String, _ range: Range<Int>,
        fixes: [Diagnostic.Fix] = []
    ) {
        if gameDiagnostics >= Self.diagnosticsPerGame {
            omittedDiagnostics[severity, default: 0] += 1
            if let previous = omitted {
                omitted = (previous.count + 1, previous.first, min(previous.severity, severity), previous.code)
            } else {
                omitted = (1, range, severity, code)
            }
            return
        }
        gameDiagnostics += 1
        diagnostics.append(
            Diagnostic(code, severity, message, range: range, game: game == nil ? nil : gameIndex, fixes: fixes))
    }

    private mutating func startGame(at start: Int) {
        if game == nil { reportOmitted() }
        finishGame()
        if let stop, stoppedAt == nil, stop(start) { stoppedAt = start }
        game = GameSyntax(range: start..<start)
        inMovetext = false
        afterResult = false
    }

    private mutating func finishGame() {
        guard var finished = game else { return }
        if let open = openVariations.first {
            report(.syntax, .error, "This variation is never closed: ')' is missing", open)
        }
        openVariations.removeAll()
        reportOmitted()
        tagNames = []
        if let last = finished.nodes.last {
            finished.range = finished.range.lowerBound..<max(finished.range.upperBound, last.range.upperBound)
        }
        if !keepsSyntax {
            finished.nodes = []
            finished.tags = []
        } else {
            // A game's syntax is kept as long as its document is open.
            finished.nodes = finished.nodes.withoutRoom()
            finished.tags = finished.tags.withoutRoom()
        }
        games.append(finished)
        game = nil
    }

    private mutating func append(_ node: MovetextNode) {
        if game == nil { startGame(at: node.range.lowerBound) }
        game!.nodes.append(node)
        game!.range = game!.range.lowerBound..<node.range.upperBound
    }

    /// Movetext begins (a move, a move number, …): after a finished game it is a new game.
    private mutating func enterMovetext(at start: Int) {
        if game == nil || afterResult { startGame(at: start) }
        inMovetext = true
    }

    private mutating func run() {
        while stoppedAt == nil, let token = nextToken() {
            if openNote != nil && token.kind != .whitespace && token.kind != .escapeLine && token.kind != .symbol {
                openNote = nil
            }
            switch token.kind {
            case .whitespace, .escapeLine:
                continue
            case .braceComment, .lineComment:
                // Comments between games belong to no game; inside a game they are nodes.
                if game != nil && !afterResult {
                    append(MovetextNode(kind: .comment, range: token.range, value: token.kind == .lineComment ? 1 : 0))
                }
            case .unterminatedComment:
                if game != nil && !afterResult {
                    append(MovetextNode(kind: .comment, range: token.range))
                }
                report(.syntax, .error, "This comment is never closed: '}' is missing", token.start..<token.start + 1)
            case .openBracket:
                if game == nil || inMovetext || afterResult { startGame(at: token.start) }
                parseTag(open: token)
            case .closeBracket:
                report(
                    .syntax, .error, "Unexpected ']' with no tag open", token.range,
                    fixes: [remove(token, "Remove ']'")])
                keepInMovetext(token.range)
            case .string, .unterminatedString:
                report(.syntax, .error, "Unexpected string outside a tag", token.range)
                keepInMovetext(token.range)
            case .symbol:
                let wordsBefore = openNote
                openNote = nil
                enterMovetext(at: token.start)
                lastSymbol = token.range
                let bytes = lexer.bytes
                if Lexer.looksLikeMove(bytes, token.start - lexer.base, token.end - lexer.base) {
                    append(MovetextNode(kind: .move, range: token.range))
                } else if let words = wordsBefore, let last = game?.nodes.last, last.kind == .note,
                    last.range.upperBound == words.end
                {
                    // The next word of a note: one note, one problem.
                    let range = last.range.lowerBound..<token.end
                    game!.nodes[game!.nodes.count - 1].range = range
                    game!.range = game!.range.lowerBound..<token.end
                    if let index = words.diagnostic { diagnostics[index] = wordNote(range) }
                    openNote = (token.end, words.diagnostic)
                } else {
                    let kept = diagnostics.count
                    let note = wordNote(token.range)
                    report(note.code, note.severity, note.message, note.range, fixes: note.fixes)
                    append(MovetextNode(kind: .note, range: token.range))
                    openNote = (token.end, diagnostics.count > kept ? diagnostics.count - 1 : nil)
                }
            case .moveNumber:
                enterMovetext(at: token.start)
                let dots = Parser.dotCount(lexer.bytes, token, base: lexer.base)
                append(MovetextNode(kind: .moveNumber, range: token.range, value: token.value, isBlack: dots >= 2))
            case .dots:
                // `12 ...` or `12. ...`: a Black move number written apart.
                if let last = game?.nodes.last, last.kind == .moveNumber, !afterResult {
                    game!.nodes[game!.nodes.count - 1].isBlack = true
                    game!.nodes[game!.nodes.count - 1].range = last.range.lowerBound..<token.end
                    game!.range = game!.range.lowerBound..<token.end
                }
            case .nag, .suffix:
                enterMovetext(at: token.start)
                let value = token.kind == .nag ? token.value : (token.value == 0 ? -1 : token.value)
                if token.kind == .nag && !(0...255).contains(token.value) {
                    report(
                        .unknownNAG, .warning,
                        token.value < 0
                            ? "'$' must be followed by a number" : "NAG $\(token.value) is out of range (0–255)",
                        token.range, fixes: [remove(token, "Remove the NAG")])
                } else if token.kind == .suffix && token.value == 0 {
                    report(
                        .unknownNAG, .warning,
                        "Unknown annotation; use !, ?, !!, ??, !? or ?! (a database keeps it as a comment)", token.range
                    )
                }
                append(MovetextNode(kind: .nag, range: token.range, value: value))
            case .openParen:
                enterMovetext(at: token.start)
                openVariations.append(token.range)
                append(MovetextNode(kind: .variationStart, range: token.range))
            case .closeParen:
                guard !openVariations.isEmpty, game != nil, !afterResult else {
                    report(
                        .syntax, .error, "This ')' closes no variation", token.range,
                        fixes: [remove(token, "Remove the stray ')'")])
                    continue
                }
                openVariations.removeLast()
                if let last = game!.nodes.last, last.kind == .variationStart {
                    report(
                        .syntax, .warning, "Empty variation: a variation needs at least one move",
                        last.range.lowerBound..<token.end)
                }
                append(MovetextNode(kind: .variationEnd, range: token.range))
            case .result where !openVariations.isEmpty && game != nil && !afterResult && !gameEndsAfter():
                // Annotators end a line with its outcome (`(32. Qf7+ Kh8 1/2-1/2)`): inside a
                // variation a result ends nothing, unless the game ends there (a `)` forgotten).
                reportNote(
                    "A result inside a variation does not end the game: readers skip it, and a database keeps it as a comment",
                    token.range)
                append(MovetextNode(kind: .note, range: token.range))
            case .result:
                let glued = token.start == lastSymbol.upperBound
                enterMovetext(at: token.start)
                append(MovetextNode(kind: .result, range: token.range, value: token.value))
                game!.resultIndex = game!.nodes.count - 1
                finishGameAtResult()
                // `1/2` is the one three-byte result with a slash.
                let short = token.end - token.start == 3 && lexer.bytes[token.start - lexer.base + 1] == 0x2F
                guard glued || short else { continue }
                let text = String(
                    decoding: lexer.bytes[(token.start - lexer.base)..<(token.end - lexer.base)], as: UTF8.self)
                let written = GameResult(rawValue: token.value)?.text ?? text
                if glued {
                    let move = String(
                        decoding: lexer.bytes[
                            (lastSymbol.lowerBound - lexer.base)..<(lastSymbol.upperBound - lexer.base)],
                        as: UTF8.self)
                    report(
                        .resultNotation, .warning,
                        "The result is written against the move: \(GameReplay.shortened(move + text)) reads as \(GameReplay.shortened(move)) \(written)",
                        token.range,
                        fixes: [
                            Diagnostic.Fix(
                                title: "Put a space before \(text)",
                                edits: [Diagnostic.Edit(range: token.start..<token.start, text: " ")], isPreferred: true
                            )
                        ])
                }
                if short {
                    report(
                        .resultNotation, .warning, "A draw is written 1/2-1/2: 1/2 reads as the result 1/2-1/2",
                        token.range,
                        fixes: [
                            Diagnostic.Fix(
                                title: "Write 1/2-1/2", edits: [Diagnostic.Edit(range: token.range, text: "1/2-1/2")],
                                isPreferred: true)
                        ])
                }
            case .unknown:
                // A run of stray bytes (a binary file, NUL padding) is one problem.
                var run = token
                while let next = nextToken() {
                    guard next.kind == .unknown, next.start == run.end else {
                        pushedBack = next
                        break
                    }
                    run = Token(kind: .unknown, start: run.start, end: next.end, value: token.value)
                }
                report(
                    .syntax, .error,
                    run.end - run.start > token.end - token.start ? "Unexpected characters" : "Unexpected character",
                    run.range, fixes: [remove(run, "Remove \(run.range == token.range ? "it" : "them")")])
                keepInMovetext(run.range)
            }
        }
        if let stoppedAt {
            game = nil
            diagnostics.removeAll { $0.range.lowerBound >= stoppedAt }
        } else {
            if game == nil { reportOmitted() }
            finishGame()
        }
    }

    /// The diagnostic that counts those the current game (or the text before the first game)
    /// did not keep; the count starts again.
    private mutating func reportOmitted() {
        if let omitted {
            omittedDiagnostics[omitted.severity, default: 0] -= 1
            omittedByGame[game == nil ? nil : gameIndex] = omitted.count
            let place = game == nil ? "outside games" : "in this game"
            diagnostics.append(
                Diagnostic(
                    omitted.code, omitted.severity,
                    "\(omitted.count) more problems \(place) from here on are not shown", range: omitted.first,
                    game: game == nil ? nil : gameIndex))
            self.omitted = nil
        }
        gameDiagnostics = 0
    }

    private mutating func finishGameAtResult() {
        afterResult = true
        inMovetext = false
    }

    /// Whether the next token, past white space, starts another game or ends the text.
    private mutating func gameEndsAfter() -> Bool {
        while let token = nextToken() {
            if token.kind == .whitespace || token.kind == .escapeLine { continue }
            pushedBack = token
            return token.kind == .openBracket
        }
        return true
    }

    /// Text that is not PGN inside a game's movetext stays in the game, as a note.
    private mutating func keepInMovetext(_ range: Range<Int>) {
        if game != nil && inMovetext && !afterResult { append(MovetextNode(kind: .note, range: range)) }
    }

    /// The start of a token's text, enough for a message to quote (`GameReplay.shortened`).
    private func quotable(_ range: Range<Int>) -> String {
        let start = range.lowerBound - lexer.base
        return String(decoding: lexer.bytes[start..<min(range.upperBound - lexer.base, start + 160)], as: UTF8.self)
    }

    /// A note among the moves, with the fix that makes it a comment (`keep` → `{keep}`) when it
    /// is of a reasonable length.
    private mutating func reportNote(_ message: String, _ range: Range<Int>) {
        report(.movetextNote, .warning, message, range, fixes: noteFixes(range))
    }

    private func noteFixes(_ range: Range<Int>) -> [Diagnostic.Fix] {
        guard range.count <= 100 else { return [] }
        let text = quotable(range)
        return [
            Diagnostic.Fix(
                title: "Make it a comment: {\(Self.oneLine(text))}",
                edits: [Diagnostic.Edit(range: range, text: "{\(text)}")], isPreferred: true)
        ]
    }

    /// The diagnostic of words that cannot be moves (`keep`, `White resigns`).
    private func wordNote(_ range: Range<Int>) -> Diagnostic {
        Diagnostic(
            .movetextNote, .warning,
            "'\(GameReplay.shortened(Self.oneLine(quotable(range))))' is not a move: readers skip it, and a database keeps it as a comment",
            range: range, game: game == nil ? nil : gameIndex, fixes: noteFixes(range))
    }

    /// Words with one space between them, as a message quotes them.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    private func remove(_ token: Token, _ title: String) -> Diagnostic.Fix {
        Diagnostic.Fix(title: title, edits: [Diagnostic.Edit(range: token.range, text: "")], isPreferred: true)
    }

    static func dotCount(_ bytes: UnsafeBufferPointer<UInt8>, _ token: Token, base: Int) -> Int {
        var dots = 0
        for k in (token.start - base)..<(token.end - base) {
            if bytes[k] == 0x2E { dots += 1 } else if bytes[k] == 0xE2 { dots += 3 }
        }
        return dots
    }

    /// A symbol with a square in it, or castling: something a reader should try as a move.
    private func looksLikeMove(_ token: Token) -> Bool {
        let bytes = lexer.bytes
        let start = token.start - lexer.base
        let end = token.end - lexer.base
        if bytes[start] == 0x4F || bytes[start] == 0x30 { return true }  // O-O, 0-0
        for k in start..<max(start, end - 1)
        where Square.file(ascii: bytes[k]) != nil && Square.rank(ascii: bytes[k + 1]) != nil {
            return true
        }
        return false
    }

    /// Whether the current game has a tag of this name; notes the name. A game with many
    /// tags is looked up in a set, not compared tag by tag. Up to 64 tags they are compared:
    /// a set of byte arrays made for each game of a file with 16 to 20 tags (lichess, TWIC)
    /// took 2% of `check` on one core.
    private mutating func hasTag(named name: Range<Int>) -> Bool {
        let tags = game!.tags
        guard tags.count >= 64 else { return tags.contains { sameText($0.nameRange, name) } }
        let bytes = lexer.bytes
        func text(_ range: Range<Int>) -> [UInt8] {
            Array(bytes[(range.lowerBound - lexer.base)..<(range.upperBound - lexer.base)])
        }
        if tagNames.isEmpty { tagNames = Set(tags.map { text($0.nameRange) }) }
        return !tagNames.insert(text(name)).inserted
    }

    private func sameText(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        let bytes = lexer.bytes
        for k in 0..<a.count where bytes[a.lowerBound - lexer.base + k] != bytes[b.lowerBound - lexer.base + k] {
            return false
        }
        return true
    }

    /// True when a newline lies between two offsets (file-absolute).
    private func newline(between a: Int, and b: Int) -> Bool {
        let bytes = lexer.bytes
        for k in max(a - lexer.base, 0)..<min(b - lexer.base, bytes.count) where bytes[k] == 0x0A || bytes[k] == 0x0D {
            return true
        }
        return false
    }

    /// `[Name "value"]`. A tag ends at its `]` or at the end of its line; what follows on the
    /// line (`[Round "2"]f`) is reported and skipped.
    private mutating func parseTag(open: Token) {
        var nameRange: Range<Int>?
        var valueRange: Range<Int>?
        var end = open.end
        var closed = false
        while let token = nextToken() {
            if token.kind == .whitespace {
                if newline(between: token.start, and: token.end) {
                    pushedBack = token
                    break
                }
                continue
            }
            if token.kind == .closeBracket {
                end = token.end
                closed = true
                break
            }
            if nameRange == nil && token.kind == .symbol {
                nameRange = token.range
                end = token.end
            } else if nameRange != nil && valueRange == nil
                && (token.kind == .string || token.kind == .unterminatedString)
            {
                valueRange = token.range
                end = token.end
                if token.kind == .unterminatedString {
                    report(.syntax, .error, "This tag value is never closed: '\"' is missing", token.range)
                } else if let whole = valueWithInnerQuotes(from: token) {
                    // `[White ""Socrates Expert""]`: the value runs to the last quote before
                    // the `]`, as most readers take it.
                    while let inner = nextToken() {
                        end = inner.end
                        if inner.end >= whole.upperBound { break }
                    }
                    valueRange = whole
                    report(
                        .syntax, .error, "This tag value has quotes inside it: write them as \\\"", whole,
                        fixes: [escapingQuotes(whole)])
                }
            } else if token.kind == .openBracket {
                pushedBack = token
                break
            } else {
                report(.syntax, .error, "Malformed tag: expected [Name \"value\"]", token.range)
                end = token.end
            }
        }
        if !closed {
            report(.syntax, .error, "This tag is never closed: ']' is missing", open.range)
        }
        if nameRange == nil {
            report(.syntax, .error, "Malformed tag: the tag has no name", open.start..<end)
        } else if valueRange == nil {
            report(.syntax, .error, "Malformed tag: the tag has no value in quotes", open.start..<end)
        }
        if let nameRange {
            // A tag the game already has starts the next game: header-only games follow
            // each other that way.
            if hasTag(named: nameRange) {
                startGame(at: open.start)
            }
            game!.tags.append(TagPair(range: open.start..<end, nameRange: nameRange, valueRange: valueRange))
            game!.range = game!.range.lowerBound..<max(game!.range.upperBound, end)
        }
        // Anything else on the tag's line is junk.
        skipRestOfTagLine()
    }

    /// The range from a tag value's opening quote to the last quote before the `]` that closes
    /// the tag on the same line, when more than white space stands between the value as read
    /// (`string`) and that quote; nil otherwise.
    private func valueWithInnerQuotes(from string: Token) -> Range<Int>? {
        let bytes = lexer.bytes
        var k = string.end - lexer.base
        var lastQuote: Int?
        var textBetween = false
        while k < bytes.count {
            let byte = bytes[k]
            if byte == 0x0A || byte == 0x0D { return nil }
            if byte == 0x5D { break }
            if byte == 0x22 {
                lastQuote = k
            } else if !Lexer.isBlank(byte) {
                textBetween = true
            }
            k += 1
        }
        guard k < bytes.count, let lastQuote, textBetween else { return nil }
        for j in (lastQuote + 1)..<k where !Lexer.isBlank(bytes[j]) { return nil }
        return string.start..<(lexer.base + lastQuote + 1)
    }

    /// A fix that escapes the quotes inside a tag value (`valueWithInnerQuotes`).
    private func escapingQuotes(_ value: Range<Int>) -> Diagnostic.Fix {
        let bytes = lexer.bytes
        var text: [UInt8] = [0x22]
        var previous: UInt8 = 0
        for k in (value.lowerBound - lexer.base + 1)..<(value.upperBound - lexer.base - 1) {
            if bytes[k] == 0x22 && previous != 0x5C { text.append(0x5C) }
            text.append(bytes[k])
            previous = bytes[k]
        }
        text.append(0x22)
        return Diagnostic.Fix(
            title: "Escape the quotes inside the value",
            edits: [Diagnostic.Edit(range: value, text: String(decoding: text, as: UTF8.self))], isPreferred: true)
    }

    private mutating func skipRestOfTagLine() {
        while let token = nextToken() {
            if token.kind == .whitespace && !newline(between: token.start, and: token.end) { continue }
            if token.kind == .whitespace || token.kind == .openBracket || token.kind.isTrivia {
                pushedBack = token
                return
            }
            // Movetext may follow the last tag on its line (`[Result "1-0"] e4 1-0`); a lone
            // letter after a tag (`[Round "2"]f`) is a typing slip.
            if token.kind == .symbol && looksLikeMove(token) {
                pushedBack = token
                return
            }
            if token.kind == .closeBracket || token.kind == .symbol || token.kind == .unknown || token.kind == .string {
                report(
                    .syntax, .error, "Unexpected text after the tag on its line", token.range,
                    fixes: [remove(token, "Remove it")])
                continue
            }
            pushedBack = token
            return
        }
    }
}

extension Array {
    /// The array without the room appends left (a quarter of it on average), copied when that
    /// room is more than an eighth of it: for arrays kept long.
    func withoutRoom() -> [Element] {
        guard capacity > count + count / 8 else { return self }
        return Array(unsafeUninitializedCapacity: count) { room, initialized in
            _ = room.initialize(from: self)
            initialized = count
        }
    }
}
