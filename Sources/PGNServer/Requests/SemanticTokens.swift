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

/// Semantic tokens as a game's analysis keeps them for the life of the document: each token's
/// line from a start, column (from a start column on the first line), length, type and
/// modifiers, in eight bytes when line, column and length fit in 16 bits (nearly every token
/// does; a 100 MB file has ten million), else in five integers.
struct PackedTokens: Sendable, Equatable {
    private var packed: [UInt64] = []
    /// Five integers a token, used instead of `packed` when a value does not fit.
    private var wide: [Int32] = []

    /// From five integers a token: line, column, length, type, modifiers.
    init(_ data: [Int32]) {
        var fits = true
        var i = 0
        while i + 4 < data.count {
            if data[i] < 0 || data[i] > 0xFFFF || data[i + 1] < 0 || data[i + 1] > 0xFFFF || data[i + 2] < 0
                || data[i + 2] > 0xFFFF || data[i + 3] < 0 || data[i + 3] > 0xFF || data[i + 4] < 0
                || data[i + 4] > 0xFF
            {
                fits = false
                break
            }
            i += 5
        }
        guard fits else {
            wide = data
            return
        }
        packed.reserveCapacity(data.count / 5)
        i = 0
        while i + 4 < data.count {
            packed.append(
                UInt64(data[i]) | UInt64(data[i + 1]) << 16 | UInt64(data[i + 2]) << 32 | UInt64(data[i + 3]) << 48
                    | UInt64(data[i + 4]) << 56)
            i += 5
        }
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

/// A run of a document's semantic tokens: a game's (the tokens its analysis keeps) or the
/// comments of the text between two games, placed at the line and column where it starts.
struct TokenSegment: Sendable {
    /// The game the tokens are of; nil for text between games.
    let game: GameAnalysis?
    /// As `GameAnalysis.semanticTokens` makes them: line from `line`, column (from `character`
    /// on the first line), length, type, modifiers.
    let tokens: PackedTokens
    let line: Int
    let character: Int

    /// Line and column of token `k`.
    func position(_ k: Int) -> (line: Int, character: Int) {
        let token = tokens[k]
        return (line + token.line, token.column + (token.line == 0 ? character : 0))
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
    /// answer it dropped when the next edit came). Segments share the games' token arrays, so
    /// an older result costs little beside the latest.
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

    /// The result sent under `id` for the document, if it is one of the latest kept.
    func result(_ id: String, for uri: DocumentURI) -> Result? {
        state.withLock { state in state.results[uri]?.last { $0.id == id } }
    }

    func forget(_ uri: DocumentURI) { state.withLock { _ = $0.results.removeValue(forKey: uri) } }
}

/// The tokens of a document in the protocol's relative form, written in document order.
struct SemanticTokenWriter {
    /// What the writer makes of the tokens: integers, or the JSON text of the array of them
    /// (after a first pass that counts its bytes).
    enum Output {
        case integers
        case counting
        case text
    }
    var data: [Int32] = []
    /// The JSON text of the integers without their brackets (`.text`), or its length so far
    /// (`.counting`).
    private(set) var text: [UInt8] = []
    private(set) var textLength = 0
    private let output: Output
    private var line: Int
    private var character: Int
    /// Tokens on lines outside are left out (a range request).
    let lines: ClosedRange<Int>

    /// A writer whose first token follows a token at `line` and `character`.
    init(lines: ClosedRange<Int> = 0...Int.max, after line: Int = 0, _ character: Int = 0, output: Output = .integers) {
        self.lines = lines
        self.line = line
        self.character = character
        self.output = output
    }

    /// The JSON array of the whole tokens of `segments`, as text made in one allocation of its
    /// exact size: the tokens of a 100 MB document are 50 million integers, which as `[Int32]`
    /// and then as text would take three times the memory.
    static func json(_ segments: [TokenSegment]) -> JSONValue {
        var counter = SemanticTokenWriter(output: .counting)
        counter.add(segments)
        var writer = SemanticTokenWriter(output: .text)
        writer.text.reserveCapacity(counter.textLength + 2)
        writer.text.append(UInt8(ascii: "["))
        writer.add(segments)
        writer.text.append(UInt8(ascii: "]"))
        return .text(writer.text)
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
                + Self.digits(values.4) + 5
        case .text:
            if text.count > 1 { text.append(UInt8(ascii: ",")) }
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

    mutating func add(_ segments: some Sequence<TokenSegment>) {
        for segment in segments {
            for k in 0..<segment.tokens.count {
                let (line, character) = segment.position(k)
                let token = segment.tokens[k]
                add(
                    line: line, character: character, length: token.length, type: token.type, modifiers: token.modifiers
                )
            }
        }
    }
}

extension GameAnalysis {
    /// The game's semantic tokens: line (0 = the game's first line), column (on line 0, from
    /// the game's first byte), length, type, modifiers; one token per line of a comment. Made
    /// once per game and column encoding.
    func semanticTokens(_ encoding: PositionEncoding) -> PackedTokens {
        derived.tokens(encoding) { makeSemanticTokens(encoding) }
    }

    /// Whether the game's tokens in `encoding` are made already.
    func hasSemanticTokens(_ encoding: PositionEncoding) -> Bool { derived.hasTokens(encoding) }

    private func makeSemanticTokens(_ encoding: PositionEncoding) -> PackedTokens {
        var tokens: [(start: Int, end: Int, type: Int, modifiers: Int)] = []
        for tag in syntax.tags {
            tokens.append((tag.nameRange.lowerBound, tag.nameRange.upperBound, 0, 0))
            if let value = tag.valueRange { tokens.append((value.lowerBound, value.upperBound, 1, 0)) }
        }
        var played = playedNodes.makeIterator()
        var nextPlayed = played.next()
        for (index, node) in syntax.nodes.enumerated() {
            let type: Int
            var modifiers = 0
            switch node.kind {
            case .move:
                type = 3
                while let n = nextPlayed, n < index { nextPlayed = played.next() }
                if nextPlayed != index { modifiers = 1 }
            case .moveNumber: type = 2
            case .nag: type = 4
            case .comment, .note: type = SemanticTokenLegend.comment
            case .result: type = 6
            case .variationStart, .variationEnd: type = 7
            }
            tokens.append((node.range.lowerBound, node.range.upperBound, type, modifiers))
        }
        // Escape lines (`%` at a line start) are no node of the game.
        source.bytes.withUnsafeBufferPointer { bytes in
            var lexer = Lexer(bytes)
            while let token = lexer.next() {
                if token.kind == .escapeLine { tokens.append((token.start, token.end, SemanticTokenLegend.comment, 0)) }
            }
        }
        tokens.sort { $0.start < $1.start }
        var data: [Int32] = []
        data.reserveCapacity(tokens.count * 5)
        var walker = SourceText.Walker(source)
        for token in tokens {
            forEachLinePiece(source.bytes, token.start..<token.end) { start, end in
                let from = walker.position(of: start, in: encoding)
                let length = walker.position(of: end, in: encoding).column - from.column
                guard length > 0 else { return }
                data.append(Int32(clamping: from.line))
                data.append(Int32(clamping: from.column))
                data.append(Int32(clamping: length))
                data.append(Int32(token.type))
                data.append(Int32(token.modifiers))
            }
        }
        return PackedTokens(data)
    }
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
        server.observeDocuments { [self] event, _ in
            if case .closed(let document) = event { semanticTokenResults.forget(document.uri) }
        }
        server.registerRequest("textDocument/semanticTokens/full", wholeDocument: true) { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let segments = try tokenSegments(analysis, document, nil, context.positionEncoding, firstTime: true)
            let id = semanticTokenResults.store(segments, for: document.uri)
            return ["resultId": .string(id), "data": SemanticTokenWriter.json(segments)]
        }
        server.registerRequest("textDocument/semanticTokens/full/delta", wholeDocument: true) {
            [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let previous = params["previousResultId"]?.stringValue.flatMap {
                semanticTokenResults.result($0, for: document.uri)
            }
            let segments = try tokenSegments(
                analysis, document, nil, context.positionEncoding, firstTime: previous == nil)
            let id = semanticTokenResults.store(segments, for: document.uri)
            guard let previous else { return ["resultId": .string(id), "data": SemanticTokenWriter.json(segments)] }
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
        server.registerRequest("textDocument/semanticTokens/range") { [self] params, context in
            let (document, analysis, wanted) = try await rangeParams(params, context, screen: true).parts
            let lines =
                document.position(of: wanted.lowerBound, encoding: context.positionEncoding)
                .line...document.position(of: wanted.upperBound, encoding: context.positionEncoding).line
            var writer = SemanticTokenWriter(lines: lines)
            writer.add(try tokenSegments(analysis, document, lines, context.positionEncoding))
            return ["data": .integers(writer.data)]
        }
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
            k > 0 ? segments[k - 1].position(segments[k - 1].tokens.count - 1) : (0, 0)
        }
        // Where a segment's first token is from the last token before it: the part of its
        // integers that depends on the segments before.
        func entry(_ segments: [TokenSegment], _ k: Int) -> (line: Int, character: Int) {
            let (first, last) = (segments[k].position(0), before(segments, k))
            return first.line == last.line
                ? (0, first.character - last.character) : (first.line - last.line, first.character)
        }
        func same(_ i: Int, _ j: Int) -> Bool {
            guard entry(old, i) == entry(new, j) else { return false }
            // The same game's tokens: the same analysis, or one of the same text (a game read
            // again, or another copy of it, has its own).
            if let game = old[i].game, let other = new[j].game { return game === other || game.text == other.text }
            return old[i].game == nil && new[j].game == nil && old[i].tokens == new[j].tokens
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
                start += old[i].tokens.integerCount
                i += 1
                j += 1
                continue
            }
            // A run that differs: up to the first new segment found again among the old ones
            // after `i`, placed the same way; first where as many old segments were replaced.
            var (endOld, endNew) = (old.count, new.count)
            var k = j
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
    /// between them on some lines. Each game's tokens are made once
    /// (`GameAnalysis.semanticTokens`); only the comments between games are read here.
    /// `firstTime`: the whole document's tokens asked for without an earlier result (a file just
    /// opened), when most games have none made yet.
    func tokenSegments(
        _ analysis: DocumentAnalysis, _ document: Document, _ lines: ClosedRange<Int>?, _ encoding: PositionEncoding,
        firstTime: Bool = false
    ) throws -> [TokenSegment] {
        var wanted = 0..<document.bytes.count
        if let lines {
            wanted =
                document.offset(
                    of: LSPPosition(line: lines.lowerBound, character: 0), encoding: encoding)..<document
                .offset(of: LSPPosition(line: lines.upperBound + 1, character: 0), encoding: encoding)
        }
        var segments: [TokenSegment] = []
        // Comments and escape lines between games (and before the first, after the last).
        func between(_ gap: Range<Int>) {
            guard gap.lowerBound < gap.upperBound, gap.overlaps(wanted) else { return }
            // Most gaps are a blank line: no byte that starts a comment or an escape line.
            guard
                document.bytes[gap].contains(where: {
                    $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "%")
                })
            else { return }
            let origin = document.position(of: gap.lowerBound, encoding: encoding)
            var tokens: [Int32] = []
            document.bytes.withUnsafeBufferPointer { bytes in
                var lexer = Lexer(bytes, start: gap.lowerBound)
                while let token = lexer.next() {
                    guard token.start < gap.upperBound else { break }
                    switch token.kind {
                    case .braceComment, .lineComment, .escapeLine, .unterminatedComment:
                        forEachLinePiece(document.bytes, token.start..<min(token.end, gap.upperBound)) { start, end in
                            let from = document.position(of: start, encoding: encoding)
                            let length = document.position(of: end, encoding: encoding).character - from.character
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
                        game: nil, tokens: PackedTokens(tokens), line: origin.line, character: origin.character))
            }
        }
        // The first time, the games' own tokens not made yet are made on every core first (each
        // is made once and kept: after an edit only the edited games lack theirs).
        let missing =
            firstTime ? analysis.games.filter { !$0.analysis.hasSemanticTokens(encoding) } : []
        if missing.count > 256 {
            PGNAnalyzer.forEachOnEveryCore(missing.count) { _ = missing[$0].analysis.semanticTokens(encoding) }
        }
        var end = 0
        var line = 0
        for (index, game) in analysis.games.enumerated() {
            // The request's task is cancelled with it.
            if index % 1024 == 0 { try Task.checkCancellation() }
            between(end..<game.start)
            let range = game.range
            end = range.upperBound
            guard range.overlaps(wanted) || (range.isEmpty && wanted.contains(game.start)) else { continue }
            let tokens = game.analysis.semanticTokens(encoding)
            guard !tokens.isEmpty else { continue }
            let origin = document.position(of: game.start, encoding: encoding, fromLine: &line)
            segments.append(
                TokenSegment(game: game.analysis, tokens: tokens, line: origin.line, character: origin.character))
        }
        between(end..<document.bytes.count)
        return segments
    }
}
