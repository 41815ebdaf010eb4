import Foundation
import LanguageServer
import PGN

/// Semantic tokens. Legend (also in README):
/// types `property` tag name, `string` tag value, `number` move number, `function` move,
/// `operator` NAG or suffix annotation, `comment` comment or escape line, `keyword` result,
/// `decorator` variation parenthesis; modifier `deprecated` on a move that cannot be played.
enum SemanticTokenLegend {
    static let types = ["property", "string", "number", "function", "operator", "comment", "keyword", "decorator"]
    static let modifiers = ["deprecated"]
    static let comment = 5
}

/// A game's semantic tokens, made when they are needed (a 100 MB file has ten million: a game
/// keeps only their `TokenSummary`): each token's line from a start, column (from a start
/// column on the first line), length, type and modifiers, in eight bytes when line, column and
/// length fit in 16 bits (nearly every token does), else in five integers.
struct PackedTokens: Sendable, Equatable {
    private var packed: [UInt64] = []
    /// Five integers a token, used instead of `packed` once a value does not fit.
    private var wide: [Int32] = []

    init() {}

    /// From five integers a token: line, column, length, type, modifiers.
    init(_ data: [Int32]) {
        packed.reserveCapacity(data.count / 5)
        var i = 0
        while i + 4 < data.count {
            append(
                line: Int(data[i]), column: Int(data[i + 1]), length: Int(data[i + 2]), type: Int(data[i + 3]),
                modifiers: Int(data[i + 4]))
            i += 5
        }
    }

    mutating func reserveCapacity(_ count: Int) { packed.reserveCapacity(count) }

    mutating func append(line: Int, column: Int, length: Int, type: Int, modifiers: Int) {
        if wide.isEmpty && (0...0xFFFF).contains(line) && (0...0xFFFF).contains(column)
            && (0...0xFFFF).contains(length) && (0...0xFF).contains(type) && (0...0xFF).contains(modifiers)
        {
            packed.append(
                UInt64(line) | UInt64(column) << 16 | UInt64(length) << 32 | UInt64(type) << 48
                    | UInt64(modifiers) << 56)
            return
        }
        if wide.isEmpty {
            var converted: [Int32] = []
            converted.reserveCapacity(5 * (packed.count + 1))
            for k in packed.indices {
                let t = self[k]
                converted += [Int32(t.line), Int32(t.column), Int32(t.length), Int32(t.type), Int32(t.modifiers)]
            }
            packed = []
            wide = converted
        }
        wide += [
            Int32(clamping: line), Int32(clamping: column), Int32(clamping: length), Int32(clamping: type),
            Int32(clamping: modifiers),
        ]
    }

    /// The number of tokens.
    var count: Int { wide.isEmpty ? packed.count : wide.count / 5 }
    var isEmpty: Bool { count == 0 }
    /// The number of integers the tokens take in the protocol.
    var integerCount: Int { count * 5 }

    subscript(k: Int) -> (line: Int, column: Int, length: Int, type: Int, modifiers: Int) {
        if wide.isEmpty {
            let t = packed[k]
            return (
                Int(t & 0xFFFF), Int(t >> 16 & 0xFFFF), Int(t >> 32 & 0xFFFF), Int(t >> 48 & 0xFF), Int(t >> 56)
            )
        }
        let i = 5 * k
        return (Int(wide[i]), Int(wide[i + 1]), Int(wide[i + 2]), Int(wide[i + 3]), Int(wide[i + 4]))
    }
}

/// What a game's analysis keeps of its semantic tokens in one column encoding: how many there
/// are, its first token, where its last is, and the length of the JSON text of all but the
/// first (each after a comma), which does not depend on what stands before the game. The whole
/// document's tokens are counted from these, then made again game by game as they are written.
struct TokenSummary: Sendable, Equatable {
    var count = 0
    var first = (line: 0, column: 0, length: 0, type: 0, modifiers: 0)
    var last = (line: 0, column: 0)
    var restLength = 0

    init(_ tokens: PackedTokens) {
        count = tokens.count
        guard count > 0 else { return }
        first = tokens[0]
        let end = tokens[count - 1]
        last = (end.line, end.column)
        var counter = SemanticTokenWriter(after: first.line, first.column, output: .counting, continuing: true)
        counter.add(tokens, from: 1, line: 0, character: 0)
        restLength = counter.textLength
    }

    static func == (a: TokenSummary, b: TokenSummary) -> Bool {
        a.count == b.count && a.first == b.first && a.last == b.last && a.restLength == b.restLength
    }
}

/// A run of a document's semantic tokens: a game's or the comments of the text between two
/// games, placed at the line and column where it starts. A game's tokens are made again when
/// they are read (`tokens`); those of the text between games are kept (a few comments).
struct TokenSegment: Sendable {
    /// The game the tokens are of; nil for text between games.
    let game: GameAnalysis?
    /// `game`'s identity, compared without reading the object.
    let gameID: ObjectIdentifier?
    /// The summary of its tokens (a game's is the one the game keeps, shared by every result
    /// that holds the game), with the tokens themselves for text between games.
    let run: TokenRun
    let encoding: PositionEncoding
    let line: Int
    let character: Int

    /// Small (a document's last results are kept, each a segment for every game of a 100 MB
    /// file): `run` is the game's own (`GameAnalysis.tokenRun`), read without a lock.
    init(game: GameAnalysis, run: TokenRun, encoding: PositionEncoding, line: Int, character: Int) {
        self.game = game
        gameID = ObjectIdentifier(game)
        self.run = run
        self.encoding = encoding
        self.line = line
        self.character = character
    }

    init(gap tokens: PackedTokens, encoding: PositionEncoding, line: Int, character: Int) {
        game = nil
        gameID = nil
        run = TokenRun(TokenSummary(tokens), gapTokens: tokens)
        self.encoding = encoding
        self.line = line
        self.character = character
    }

    var gapTokens: PackedTokens? { run.gapTokens }
    var summary: TokenSummary { run.summary }

    /// The tokens, as `GameAnalysis.semanticTokens` makes them: line from `line`, column (from
    /// `character` on the first line), length, type, modifiers.
    var tokens: PackedTokens { gapTokens ?? game!.semanticTokens(encoding) }

    var count: Int { summary.count }

    /// Line and column in the document of a token's line and column from the segment's start.
    func place(_ token: (line: Int, column: Int)) -> (line: Int, character: Int) {
        (line + token.line, token.column + (token.line == 0 ? character : 0))
    }

    /// Where its first and last tokens are in the document.
    var first: (line: Int, character: Int) { place((summary.first.line, summary.first.column)) }
    var last: (line: Int, character: Int) { place(summary.last) }
}

/// A summary of tokens, shared: a game keeps its own and each result's segment of the game
/// points at it. Text between games keeps its tokens too.
final class TokenRun: Sendable {
    let summary: TokenSummary
    let gapTokens: PackedTokens?

    init(_ summary: TokenSummary, gapTokens: PackedTokens? = nil) {
        self.summary = summary
        self.gapTokens = gapTokens
    }
}

/// The last whole set of tokens sent for each document, which `full/delta` requests name by
/// their `resultId`.
final class SemanticTokenResults: Sendable {
    struct Result {
        let id: String
        let segments: [TokenSegment]
    }
    private struct State {
        var next = 1
        /// Each document's latest results, newest last.
        var results: [DocumentURI: [Result]] = [:]
    }
    private let state = Locked(State())

    /// How many results of a document are kept: a client may name one a few edits old (an
    /// answer it dropped when the next edit came). Segments hold the games' analyses and token
    /// summaries, not the tokens, so an older result costs little beside the latest.
    static let kept = 4

    /// Keeps `segments` as the document's latest result and returns its id.
    func store(_ segments: [TokenSegment], for uri: DocumentURI) -> String {
        state.withLock { state in
            let id = String(state.next)
            state.next += 1
            var results = state.results[uri] ?? []
            results.append(Result(id: id, segments: segments))
            if results.count > Self.kept { results.removeFirst(results.count - Self.kept) }
            state.results[uri] = results
            return id
        }
    }

    /// The document's latest result.
    func latest(for uri: DocumentURI) -> Result? { state.withLock { $0.results[uri]?.last } }

    /// The result sent under `id` for the document, if it is one of the latest kept.
    func result(_ id: String, for uri: DocumentURI) -> Result? {
        state.withLock { state in state.results[uri]?.last { $0.id == id } }
    }

    func forget(_ uri: DocumentURI) { state.withLock { _ = $0.results.removeValue(forKey: uri) } }
}

/// The tokens of a document in the protocol's relative form, written in document order.
struct SemanticTokenWriter {
    /// What the writer makes of the tokens: integers, the length of their JSON text, or that
    /// text (integers separated by commas, without brackets).
    enum Output {
        case integers
        case counting
        case text
    }
    var data: [Int32] = []
    private(set) var text: [UInt8] = []
    private(set) var textLength = 0
    private let output: Output
    private var line: Int
    private var character: Int
    /// Whether a comma goes before the next token's integers (text and counting).
    private var comma: Bool
    /// Tokens on lines outside are left out (a range request).
    let lines: ClosedRange<Int>

    /// A writer whose first token follows a token at `line` and `character`; `continuing`: the
    /// text goes on after other integers (a comma comes first).
    init(
        lines: ClosedRange<Int> = 0...Int.max, after line: Int = 0, _ character: Int = 0, output: Output = .integers,
        continuing: Bool = false
    ) {
        self.lines = lines
        self.line = line
        self.character = character
        self.output = output
        comma = continuing
    }

    /// The JSON array of the whole tokens of `segments`, written as the client reads it: its
    /// length is counted from the games' summaries, and the games' tokens are made again a few
    /// hundred games at a time, on every core, and written at once. The tokens of a 100 MB
    /// document are fifty million integers, 108 MB of text that is never held whole.
    static func json(_ segments: [TokenSegment]) -> JSONValue {
        var length = 2
        var previous = (line: 0, character: 0)
        for (k, segment) in segments.enumerated() {
            var counter = SemanticTokenWriter(
                after: previous.line, previous.character, output: .counting, continuing: k > 0)
            counter.addFirst(of: segment)
            length += counter.textLength + segment.summary.restLength
            previous = segment.last
        }
        return .stream(
            JSONStream(length: length) { emit in
                guard emit([UInt8(ascii: "[")]) else { return false }
                var previous = (line: 0, character: 0)
                let chunk = 512
                for chunkStart in stride(from: 0, to: segments.count, by: chunk) {
                    let part = Array(segments[chunkStart..<min(segments.count, chunkStart + chunk)])
                    let rests = PGNAnalyzer.mapOnEveryCore(part.count) { k -> [UInt8] in
                        let segment = part[k]
                        let first = segment.summary.first
                        var writer = SemanticTokenWriter(
                            after: first.line, first.column, output: .text, continuing: true)
                        writer.text.reserveCapacity(segment.summary.restLength)
                        writer.add(segment.tokens, from: 1, line: 0, character: 0)
                        return writer.text
                    }
                    var text: [UInt8] = []
                    text.reserveCapacity(rests.reduce(0) { $0 + $1.count } + 32 * part.count)
                    for (k, segment) in part.enumerated() {
                        var writer = SemanticTokenWriter(
                            after: previous.line, previous.character, output: .text, continuing: chunkStart + k > 0)
                        writer.addFirst(of: segment)
                        text += writer.text
                        text += rests[k]
                        previous = segment.last
                    }
                    guard emit(text) else { return false }
                }
                return emit([UInt8(ascii: "]")])
            })
    }

    /// The first token of a segment.
    private mutating func addFirst(of segment: TokenSegment) {
        let first = segment.summary.first
        let (line, character) = segment.place((first.line, first.column))
        add(line: line, character: character, length: first.length, type: first.type, modifiers: first.modifiers)
    }

    mutating func add(line: Int, character: Int, length: Int, type: Int, modifiers: Int) {
        guard lines.contains(line) else { return }
        let deltaLine = line - self.line
        let values = (
            Int32(clamping: deltaLine), Int32(clamping: deltaLine == 0 ? character - self.character : character),
            Int32(clamping: length), Int32(type), Int32(modifiers)
        )
        switch output {
        case .integers:
            data.append(values.0)
            data.append(values.1)
            data.append(values.2)
            data.append(values.3)
            data.append(values.4)
        case .counting:
            textLength +=
                Self.digits(values.0) + Self.digits(values.1) + Self.digits(values.2) + Self.digits(values.3)
                + Self.digits(values.4) + 4 + (comma ? 1 : 0)
        case .text:
            if comma { text.append(UInt8(ascii: ",")) }
            Self.write(values.0, to: &text)
            text.append(UInt8(ascii: ","))
            Self.write(values.1, to: &text)
            text.append(UInt8(ascii: ","))
            Self.write(values.2, to: &text)
            text.append(UInt8(ascii: ","))
            Self.write(values.3, to: &text)
            text.append(UInt8(ascii: ","))
            Self.write(values.4, to: &text)
        }
        comma = true
        self.line = line
        self.character = character
    }

    /// The number of characters of `value` in decimal.
    private static func digits(_ value: Int32) -> Int {
        var magnitude = value.magnitude
        var count = value < 0 ? 2 : 1
        while magnitude >= 10 {
            magnitude /= 10
            count += 1
        }
        return count
    }

    /// The decimal digits of a token's integer, most of which are one or two digits: in 32 bits
    /// and in order, this writes a 100 MB document's 50 million integers 0.3 s faster than
    /// `JSONText.integer`, whose digits suit 64-bit values of any length.
    private static func write(_ value: Int32, to text: inout [UInt8]) {
        if value >= 0 && value < 10 { return text.append(UInt8(ascii: "0") &+ UInt8(value)) }
        if value < 0 { text.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt32 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            text.append(UInt8(ascii: "0") &+ UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }

    /// Tokens from index `from` on, of a segment placed at `line` and `character`.
    mutating func add(_ tokens: PackedTokens, from: Int = 0, line: Int, character: Int) {
        for k in from..<max(from, tokens.count) {
            let token = tokens[k]
            add(
                line: line + token.line, character: token.column + (token.line == 0 ? character : 0),
                length: token.length, type: token.type, modifiers: token.modifiers)
        }
    }

    mutating func add(_ segments: some Sequence<TokenSegment>) {
        for segment in segments { add(segment.tokens, line: segment.line, character: segment.character) }
    }
}

extension GameAnalysis {
    /// The game's semantic tokens: line (0 = the game's first line), column (on line 0, from
    /// the game's first byte), length, type, modifiers; one token per line of a comment. Made
    /// each time: a game keeps only their summary.
    func semanticTokens(_ encoding: PositionEncoding) -> PackedTokens {
        let syntax = self.syntax  // read once: `syntax` reads the movetext again
        var pieces: [(start: Int, end: Int, type: Int, modifiers: Int)] = []
        pieces.reserveCapacity(syntax.tags.count * 2 + syntax.nodes.count)
        for tag in syntax.tags {
            pieces.append((tag.nameRange.lowerBound, tag.nameRange.upperBound, 0, 0))
            if let value = tag.valueRange { pieces.append((value.lowerBound, value.upperBound, 1, 0)) }
        }
        var unplayed = unplayedMoveNodes.makeIterator()
        var nextUnplayed = unplayed.next()
        for (index, node) in syntax.nodes.enumerated() {
            let type: Int
            var modifiers = 0
            switch node.kind {
            case .move:
                type = 3
                while let n = nextUnplayed, n < index { nextUnplayed = unplayed.next() }
                if nextUnplayed == UInt32(truncatingIfNeeded: index) { modifiers = 1 }
            case .moveNumber: type = 2
            case .nag: type = 4
            case .comment, .note: type = SemanticTokenLegend.comment
            case .result: type = 6
            case .variationStart, .variationEnd: type = 7
            }
            pieces.append((node.range.lowerBound, node.range.upperBound, type, modifiers))
        }
        // Escape lines (`%` at a line start) are no node of the game; most games have no `%`.
        if source.bytes.contains(UInt8(ascii: "%")) {
            source.bytes.withUnsafeBufferPointer { bytes in
                var lexer = Lexer(bytes)
                while let token = lexer.next() {
                    if token.kind == .escapeLine {
                        pieces.append((token.start, token.end, SemanticTokenLegend.comment, 0))
                    }
                }
            }
        }
        if !zip(pieces, pieces.dropFirst()).allSatisfy({ $0.start <= $1.start }) { pieces.sort { $0.start < $1.start } }
        var tokens = PackedTokens()
        tokens.reserveCapacity(pieces.count)
        var walker = SourceText.Walker(source)
        for piece in pieces {
            forEachLinePiece(source.bytes, piece.start..<piece.end) { start, end in
                let from = walker.position(of: start, in: encoding)
                let length = walker.position(of: end, in: encoding).column - from.column
                guard length > 0 else { return }
                tokens.append(
                    line: from.line, column: from.column, length: length, type: piece.type, modifiers: piece.modifiers)
            }
        }
        return tokens
    }

    /// What the game keeps of its tokens (`TokenSummary`), made once per column encoding.
    func tokenSummary(_ encoding: PositionEncoding) -> TokenSummary { tokenRun(encoding).summary }

    /// The same, as the segments of results hold it.
    func tokenRun(_ encoding: PositionEncoding) -> TokenRun {
        derived.tokenRun(encoding) { TokenRun(TokenSummary(semanticTokens(encoding))) }
    }

    /// Whether the game's token summary in `encoding` is made already.
    func hasTokenSummary(_ encoding: PositionEncoding) -> Bool { derived.hasTokenSummary(encoding) }
}

/// Calls `body` with each line's piece of a byte range (clients take no token over a line break).
func forEachLinePiece(_ bytes: [UInt8], _ range: Range<Int>, _ body: (Int, Int) -> Void) {
    let end = min(range.upperBound, bytes.count)
    var start = range.lowerBound
    while start < end {
        var pieceEnd = start
        while pieceEnd < end && bytes[pieceEnd] != 0x0A && bytes[pieceEnd] != 0x0D { pieceEnd += 1 }
        body(start, pieceEnd)
        start = pieceEnd
        while start < end && (bytes[start] == 0x0A || bytes[start] == 0x0D) { start += 1 }
    }
}

extension PGNLanguageServer {
    func registerSemanticTokens() {
        server.capabilities.features["semanticTokensProvider"] = [
            "legend": [
                "tokenTypes": .array(SemanticTokenLegend.types.map { .string($0) }),
                "tokenModifiers": .array(SemanticTokenLegend.modifiers.map { .string($0) }),
            ],
            "full": ["delta": true], "range": true,
        ]
        server.registerRequest("textDocument/semanticTokens/full", lane: .wholeDocument) { [self] params, context in
            let document = try document(params, context)
            if withholdsWholeTokens(document, context) { return .null }
            return try await wholeTokens(document, context)
        }
        // A delta stays with the whole-document requests: on threads of its own (tried), it
        // took the cores from pulled diagnostics and hints (their median at 100 MB, busy, from
        // 11 to 20 ms) for 10 ms less of its own.
        server.registerRequest("textDocument/semanticTokens/full/delta", lane: .wholeDocument) {
            [self] params, context in
            try await delta(params, context)
        }
        server.registerRequest("textDocument/semanticTokens/range") { [self] params, context in
            let (document, analysis, wanted) = try await rangeParams(params, context, screen: .semanticTokens).parts
            let lines =
                document.position(of: wanted.lowerBound, encoding: context.positionEncoding)
                .line...document.position(of: wanted.upperBound, encoding: context.positionEncoding).line
            var writer = SemanticTokenWriter(lines: lines)
            writer.add(try tokenSegments(analysis, document, lines, context.positionEncoding))
            return ["data": .integers(writer.data)]
        }
    }

    /// A `full/delta` answer: the edits from the result the client names, or the whole tokens
    /// when it is not kept.
    func delta(_ params: JSONValue, _ context: RequestContext) async throws -> JSONValue {
        let document = try document(params, context)
        let previous = params["previousResultId"]?.stringValue.flatMap {
            semanticTokenResults.result($0, for: document.uri)
        }
        if withholdsWholeTokens(document, context) { return .null }
        guard let previous else {
            // Without the result it names, the whole tokens, made as `full` makes them.
            return try await wholeTokens(document, context)
        }
        let analysis = await analyzer.analysis(sharing: document)
        let segments = try tokenSegments(
            analysis, document, nil, context.positionEncoding, earlier: previous.segments)
        let id = semanticTokenResults.store(segments, for: document.uri)
        let edits = Self.tokenEdits(from: previous.segments, to: segments)
        return [
            "resultId": .string(id),
            "edits": .array(
                edits.map { edit in
                    [
                        "start": .integer(edit.start), "deleteCount": .integer(edit.deleteCount),
                        "data": .integers(edit.data),
                    ]
                }),
        ]
    }

    /// The whole tokens of `document`, kept under a new `resultId`.
    func wholeTokens(_ document: Document, _ context: RequestContext) async throws -> JSONValue {
        let analysis = await analyzer.analysis(sharing: document)
        let segments = try tokenSegments(
            analysis, document, nil, context.positionEncoding, firstTime: true,
            earlier: semanticTokenResults.latest(for: document.uri)?.segments)
        let id = semanticTokenResults.store(segments, for: document.uri)
        return ["resultId": .string(id), "data": SemanticTokenWriter.json(segments)]
    }

    /// Documents larger than this get no whole-document tokens from a client that cannot ask
    /// for the lines it shows (Neovim up to 0.11): it would take 108 MB of JSON for a 100 MB
    /// file and freeze the editor while it reads them, at the opening and again after edits.
    /// The file keeps the editor's own PGN syntax colours (`editors/nvim/syntax/pgn.vim`),
    /// as VS Code keeps files over 20 MB to plain colouring.
    static let wholeTokensLimit = 20 << 20

    /// Whether `full` and `full/delta` answer no tokens for `document` (`wholeTokensLimit`);
    /// the log says so once for each document. They answer `null`, not an empty set: Neovim
    /// 0.11 reads every line of the buffer to place a set of tokens, even an empty one (0.1 s
    /// and 100 MB of strings for a 100 MB file, at the opening and after every keystroke), and
    /// skips an answer of `null`.
    func withholdsWholeTokens(_ document: Document, _ context: RequestContext) -> Bool {
        guard document.length > Self.wholeTokensLimit,
            !context.session.clientCapabilities.supportsSemanticTokenRanges
        else { return false }
        let note = "whole tokens \(document.uri)"
        if loggedWorkspaceNotes.withLock({ $0.insert(note).inserted }) {
            server.log(
                .info,
                "\(document.uri.split(separator: "/").last ?? ""): no semantic tokens for a file over "
                    + "\(Self.wholeTokensLimit >> 20) MB in an editor that asks for the whole file's "
                    + "(its syntax colours stay); an editor that asks for the lines it shows gets them")
        }
        return true
    }

    /// The edits that turn the tokens of `old` into those of `new`, in the order of the old
    /// integers they replace: the segments both have (the same game's tokens, or the same text
    /// between games, placed the same way after the token before them) are skipped, each run of
    /// others is one edit, trimmed to the integers that differ. A client that names a result a
    /// few edits old gets one small edit for each place typed at, not the whole file between them.
    /// Work in proportion to the games, and to the tokens of the games that changed.
    static func tokenEdits(
        from old: [TokenSegment], to new: [TokenSegment]
    ) -> [(
        start: Int, deleteCount: Int, data: [Int32]
    )] {
        // The last token before segment `k`, which its integers are written after. (No
        // segment is empty.)
        func before(_ segments: [TokenSegment], _ k: Int) -> (line: Int, character: Int) {
            k > 0 ? segments[k - 1].last : (0, 0)
        }
        // Where a segment's first token is from the last token before it: the part of its
        // integers that depends on the segments before.
        func entry(_ segments: [TokenSegment], _ k: Int) -> (line: Int, character: Int) {
            let (first, last) = (segments[k].first, before(segments, k))
            return first.line == last.line
                ? (0, first.character - last.character) : (first.line - last.line, first.character)
        }
        func same(_ i: Int, _ j: Int) -> Bool {
            guard entry(old, i) == entry(new, j) else { return false }
            // The same game's tokens: the same analysis, or one of the same text (a game read
            // again, or another copy of it, has its own).
            // Told by the identities first, without reading the analyses.
            if let game = old[i].gameID, let other = new[j].gameID {
                return game == other || old[i].game!.text == new[j].game!.text
            }
            return old[i].gameID == nil && new[j].gameID == nil && old[i].gapTokens == new[j].gapTokens
        }
        // Where the games of each text are among the old segments (by the text's hash, checked
        // by `same`): a file may hold the same game more than once. Made when a run of segments
        // is not a replacement of as many others.
        var oldIndices: [Int: [Int]]?
        func found(_ k: Int, from i: Int) -> Int? {
            if oldIndices == nil {
                var indices: [Int: [Int]] = [:]
                indices.reserveCapacity(old.count)
                for (i, segment) in old.enumerated() {
                    if let game = segment.game { indices[game.text.digest, default: []].append(i) }
                }
                oldIndices = indices
            }
            guard let game = new[k].game, let indices = oldIndices?[game.text.digest] else { return nil }
            let first = indices.firstIndex(atLeast: i)
            return first < indices.count ? indices[first] : nil
        }
        var edits: [(start: Int, deleteCount: Int, data: [Int32])] = []
        var (i, j) = (0, 0)
        // The integer old[i] starts at.
        var start = 0
        while i < old.count || j < new.count {
            if i < old.count && j < new.count && same(i, j) {
                start += old[i].count * 5
                i += 1
                j += 1
                continue
            }
            // A run that differs: up to the first new segment found again among the old ones
            // after `i`, placed the same way; first where as many old segments were replaced.
            var (endOld, endNew) = (old.count, new.count)
            // Most often a few games were edited in place: the old segments after as many
            // replaced are looked at first, without the index of every old game's text.
            let inPlace = (j..<min(j + 4, new.count)).first { k in i + (k - j) < old.count && same(i + (k - j), k) }
            if let inPlace { (endOld, endNew) = (i + (inPlace - j), inPlace) }
            var k = inPlace == nil ? j : new.count
            while k < new.count {
                let replaced = i + (k - j)
                if replaced < old.count && same(replaced, k) {
                    (endOld, endNew) = (replaced, k)
                    break
                }
                if let found = found(k, from: i), same(found, k) {
                    (endOld, endNew) = (found, k)
                    break
                }
                k += 1
            }
            let (beforeOld, beforeNew) = (before(old, i), before(new, j))
            var removed = SemanticTokenWriter(after: beforeOld.line, beforeOld.character)
            removed.add(old[i..<endOld])
            var added = SemanticTokenWriter(after: beforeNew.line, beforeNew.character)
            added.add(new[j..<endNew])
            let (a, b) = (removed.data, added.data)
            var prefix = 0
            while prefix < min(a.count, b.count) && a[prefix] == b[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < min(a.count, b.count) - prefix && a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
                suffix += 1
            }
            if prefix < a.count || prefix < b.count {
                edits.append((start + prefix, a.count - prefix - suffix, Array(b[prefix..<(b.count - suffix)])))
            }
            start += a.count
            (i, j) = (endOld, endNew)
        }
        return edits
    }

    /// The document's tokens in segments, of the whole document or of the games and the text
    /// between them on some lines. Each game's token summary is made once
    /// (`GameAnalysis.tokenSummary`); only the comments between games are read here.
    /// `firstTime`: the whole document's tokens asked for without an earlier result (a file just
    /// opened), when most games have no summary made yet. `earlier`: the segments of an earlier
    /// result of the document, whose games' summaries are taken where the same games come in
    /// the same order (most of them after an edit), without reading each game's own: the
    /// games of a 100 MB document are 44,000 objects scattered in memory, and a delta that read
    /// each took 4 ms more.
    func tokenSegments(
        _ analysis: DocumentAnalysis, _ document: Document, _ lines: ClosedRange<Int>?, _ encoding: PositionEncoding,
        firstTime: Bool = false, earlier: [TokenSegment]? = nil
    ) throws -> [TokenSegment] {
        var wanted = 0..<document.length
        if let lines {
            wanted =
                document.offset(
                    of: LSPPosition(line: lines.lowerBound, character: 0), encoding: encoding)..<document
                .offset(of: LSPPosition(line: lines.upperBound + 1, character: 0), encoding: encoding)
        }
        var segments: [TokenSegment] = []
        let text = document.content
        // The line of the last game's start, and the piece of the text the last gap was in:
        // games and gaps come in document order.
        var line = 0
        var piece = 0
        // Comments and escape lines between games (and before the first, after the last).
        func between(_ gap: Range<Int>) {
            guard gap.lowerBound < gap.upperBound, gap.overlaps(wanted) else { return }
            // Most gaps are a blank line: told by the line starts alone, or else no byte that
            // starts a comment or an escape line (read where the text holds it, without a copy).
            guard !document.holdsOnlyLineBreaks(gap, fromLine: &line),
                text.contains(
                    in: gap, piece: &piece,
                    where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "%") })
            else { return }
            // The gap's bytes, and a few after it that the lexer may look at.
            let bytes = text.bytes(in: gap.lowerBound..<min(gap.upperBound + PGNAnalyzer.margin, text.count))
            let origin = document.position(of: gap.lowerBound, encoding: encoding)
            var tokens: [Int32] = []
            bytes.withUnsafeBufferPointer { buffer in
                var lexer = Lexer(buffer, base: gap.lowerBound)
                while let token = lexer.next() {
                    guard token.start < gap.upperBound else { break }
                    switch token.kind {
                    case .braceComment, .lineComment, .escapeLine, .unterminatedComment:
                        let piece = (token.start - gap.lowerBound)..<(min(token.end, gap.upperBound) - gap.lowerBound)
                        forEachLinePiece(bytes, piece) { start, end in
                            let from = document.position(of: start + gap.lowerBound, encoding: encoding)
                            let length =
                                document.position(of: end + gap.lowerBound, encoding: encoding).character
                                - from.character
                            guard length > 0 else { return }
                            let line = from.line - origin.line
                            let column = line == 0 ? from.character - origin.character : from.character
                            tokens += [
                                Int32(clamping: line), Int32(clamping: column), Int32(clamping: length),
                                Int32(SemanticTokenLegend.comment), 0,
                            ]
                        }
                    default: break
                    }
                }
            }
            if !tokens.isEmpty {
                segments.append(
                    TokenSegment(
                        gap: PackedTokens(tokens), encoding: encoding, line: origin.line, character: origin.character))
            }
        }
        // The first time, the games' summaries not made yet are made on every core first (each
        // is made once and kept: after an edit only the edited games lack theirs).
        if firstTime {
            analysis.makeOnEveryCore(lacking: { !$0.hasTokenSummary(encoding) }) { _ = $0.tokenSummary(encoding) }
        }
        segments.reserveCapacity(lines == nil ? analysis.games.count + 16 : 16)
        // Where the walk is in `earlier`: a game is looked for among the next few segments
        // (text between games has its own; a game edited or inserted is not found).
        var cursor = 0
        let earlier = earlier.flatMap { $0.first?.encoding == encoding ? $0 : nil } ?? []
        func earlierRun(of game: ObjectIdentifier) -> TokenRun? {
            for k in cursor..<min(cursor + 4, earlier.count) where earlier[k].gameID == game {
                cursor = k + 1
                return earlier[k].run
            }
            return nil
        }
        var end = 0
        let games = analysis.games
        // Games are read in place, by their fields: a copy of one would retain its analysis.
        for index in games.indices {
            // The request's task is cancelled with it.
            if index % 1024 == 0 { try Task.checkCancellation() }
            let range = games[index].range
            between(end..<range.lowerBound)
            end = range.upperBound
            guard range.overlaps(wanted) || (range.isEmpty && wanted.contains(range.lowerBound)) else { continue }
            let run = earlierRun(of: games[index].analysisID) ?? games[index].analysis.tokenRun(encoding)
            guard run.summary.count > 0 else { continue }
            let origin = document.position(of: range.lowerBound, encoding: encoding, fromLine: &line)
            segments.append(
                TokenSegment(
                    game: games[index].analysis, run: run, encoding: encoding, line: origin.line,
                    character: origin.character))
        }
        between(end..<document.length)
        return segments
    }
}
