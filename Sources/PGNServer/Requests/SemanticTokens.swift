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

/// A run of a document's semantic tokens: a game's (the array its analysis keeps) or the
/// comments of the text between two games, placed at the line and column where it starts.
struct TokenSegment: Sendable {
    /// The game the tokens are of; nil for text between games.
    let game: GameAnalysis?
    /// Five integers a token, as `GameAnalysis.semanticTokens` makes them: line from `line`,
    /// column (from `character` on the first line), length, type, modifiers.
    let tokens: [Int32]
    let line: Int
    let character: Int

    /// Whether the segment sends the same tokens as `other`, moved down by `lines`.
    func same(as other: TokenSegment, movedBy lines: Int) -> Bool {
        guard line + lines == other.line, character == other.character else { return false }
        if let game { return game === other.game }
        return other.game == nil && tokens == other.tokens
    }

    /// Line and column of the token starting at index `i` of `tokens`.
    func position(_ i: Int) -> (line: Int, character: Int) {
        let relative = Int(tokens[i])
        return (line + relative, Int(tokens[i + 1]) + (relative == 0 ? character : 0))
    }
}

/// The last whole set of tokens sent for each document, which `full/delta` requests name by
/// their `resultId`.
final class SemanticTokenResults: Sendable {
    struct Result {
        let id: String
        let segments: [TokenSegment]
        let lineCount: Int
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
    func store(_ segments: [TokenSegment], lineCount: Int, for uri: DocumentURI) -> String {
        state.withLock { state in
            let id = String(state.next)
            state.next += 1
            var results = state.results[uri] ?? []
            results.append(Result(id: id, segments: segments, lineCount: lineCount))
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
    var data: [Int32] = []
    private var line: Int
    private var character: Int
    /// Tokens on lines outside are left out (a range request).
    let lines: ClosedRange<Int>

    /// A writer whose first token follows a token at `line` and `character`.
    init(lines: ClosedRange<Int> = 0...Int.max, after line: Int = 0, _ character: Int = 0) {
        self.lines = lines
        self.line = line
        self.character = character
    }

    mutating func add(line: Int, character: Int, length: Int, type: Int, modifiers: Int) {
        guard lines.contains(line) else { return }
        let deltaLine = line - self.line
        data.append(Int32(clamping: deltaLine))
        data.append(Int32(clamping: deltaLine == 0 ? character - self.character : character))
        data.append(Int32(clamping: length))
        data.append(Int32(type))
        data.append(Int32(modifiers))
        self.line = line
        self.character = character
    }

    mutating func add(_ segments: some Sequence<TokenSegment>) {
        for segment in segments {
            var i = 0
            while i + 4 < segment.tokens.count {
                let (line, character) = segment.position(i)
                let t = segment.tokens
                add(
                    line: line, character: character, length: Int(t[i + 2]), type: Int(t[i + 3]),
                    modifiers: Int(t[i + 4]))
                i += 5
            }
        }
    }
}

extension GameAnalysis {
    /// The game's semantic tokens, five integers each: line (0 = the game's first line),
    /// column (on line 0, from the game's first byte), length, type, modifiers; one token per
    /// line of a comment. Made once per game and column encoding.
    func semanticTokens(_ encoding: PositionEncoding) -> [Int32] {
        derived.value(Self.tokensSlot(encoding)) { makeSemanticTokens(encoding) }
    }

    /// Whether the game's tokens in `encoding` are made already.
    func hasSemanticTokens(_ encoding: PositionEncoding) -> Bool { derived.has(Self.tokensSlot(encoding)) }

    private static func tokensSlot(_ encoding: PositionEncoding) -> WritableKeyPath<DerivedValues.Slots, [Int32]?> {
        switch encoding {
        case .utf8: \.tokensUTF8
        case .utf16: \.tokensUTF16
        case .utf32: \.tokensUTF32
        }
    }

    private func makeSemanticTokens(_ encoding: PositionEncoding) -> [Int32] {
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
        return data
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
            var writer = SemanticTokenWriter()
            writer.add(segments)
            let id = semanticTokenResults.store(segments, lineCount: document.lineCount, for: document.uri)
            return ["resultId": .string(id), "data": .integers(writer.data)]
        }
        server.registerRequest("textDocument/semanticTokens/full/delta", wholeDocument: true) {
            [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let previous = params["previousResultId"]?.stringValue.flatMap {
                semanticTokenResults.result($0, for: document.uri)
            }
            let segments = try tokenSegments(
                analysis, document, nil, context.positionEncoding, firstTime: previous == nil)
            let id = semanticTokenResults.store(segments, lineCount: document.lineCount, for: document.uri)
            guard let previous else {
                var writer = SemanticTokenWriter()
                writer.add(segments)
                return ["resultId": .string(id), "data": .integers(writer.data)]
            }
            let edit = Self.tokenEdit(
                from: previous.segments, to: segments, movedBy: document.lineCount - previous.lineCount)
            guard let edit else { return ["resultId": .string(id), "edits": []] }
            return [
                "resultId": .string(id),
                "edits": [
                    [
                        "start": .integer(edit.start), "deleteCount": .integer(edit.deleteCount),
                        "data": .integers(edit.data),
                    ]
                ],
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

    /// The one edit that turns the tokens of `old` into those of `new`: the segments both
    /// start with and end with (moved by the lines the edits added) are skipped, what lies
    /// between is written out and trimmed to the integers that differ. Work in proportion to
    /// the games, and to the tokens of the games that changed.
    static func tokenEdit(
        from old: [TokenSegment], to new: [TokenSegment], movedBy lines: Int
    ) -> (
        start: Int, deleteCount: Int, data: [Int32]
    )? {
        let shorter = min(old.count, new.count)
        var first = 0
        while first < shorter && old[first].same(as: new[first], movedBy: 0) { first += 1 }
        var last = 0
        while last < shorter - first && old[old.count - 1 - last].same(as: new[new.count - 1 - last], movedBy: lines) {
            last += 1
        }
        // The first segment after the change is written again: its first token is placed
        // relative to the token before it, which may have changed.
        last = max(0, last - 1)
        let start = old[..<first].reduce(0) { $0 + $1.tokens.count }
        // The last token before the change, which both sides' first written token follows.
        var before = (line: 0, character: 0)
        if let previous = old[..<first].last(where: { !$0.tokens.isEmpty }) {
            before = previous.position(previous.tokens.count - 5)
        }
        var removed = SemanticTokenWriter(after: before.line, before.character)
        removed.add(old[first..<(old.count - last)])
        var added = SemanticTokenWriter(after: before.line, before.character)
        added.add(new[first..<(new.count - last)])
        let (a, b) = (removed.data, added.data)
        var prefix = 0
        while prefix < min(a.count, b.count) && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(a.count, b.count) - prefix && a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        guard prefix < a.count || prefix < b.count else { return nil }
        return (start + prefix, a.count - prefix - suffix, Array(b[prefix..<(b.count - suffix)]))
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
                segments.append(TokenSegment(game: nil, tokens: tokens, line: origin.line, character: origin.character))
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
        for game in analysis.games {
            // The request's task is cancelled with it.
            try Task.checkCancellation()
            between(end..<game.start)
            end = game.range.upperBound
            guard game.range.overlaps(wanted) || (game.range.isEmpty && wanted.contains(game.start)) else { continue }
            let tokens = game.analysis.semanticTokens(encoding)
            guard !tokens.isEmpty else { continue }
            let origin = document.position(of: game.start, encoding: encoding)
            segments.append(
                TokenSegment(game: game.analysis, tokens: tokens, line: origin.line, character: origin.character))
        }
        between(end..<document.bytes.count)
        return segments
    }
}
