/// Checks PGN text: parses it, replays every game, and gathers every diagnostic.
public enum Checker {
    public struct Report: Sendable {
        /// Number of games found.
        public var games: Int
        /// Every diagnostic, sorted by position.
        public var diagnostics: [Diagnostic]

        public init(games: Int, diagnostics: [Diagnostic]) {
            self.games = games
            self.diagnostics = diagnostics
        }
    }

    /// Checks a whole text (or a piece of a file that holds whole games: `base` is its offset
    /// in the file, `firstGameIndex` the number of games before it).
    public static func check(_ source: SourceText, base: Int = 0, firstGameIndex: Int = 0) -> Report {
        var diagnostics: [Diagnostic] = []
        if source.encoding == .latin1 {
            let bad = firstInvalidUTF8(source.bytes)
            diagnostics.append(
                Diagnostic(
                    .encoding, .warning, "This text is not valid UTF-8; it was read as Latin-1 (ISO 8859-1)",
                    range: (base + bad)..<(base + bad + 1), game: nil))
        }
        let parser = source.bytes.withUnsafeBufferPointer {
            Parser($0, base: base, firstGameIndex: firstGameIndex)
        }
        diagnostics += parser.diagnostics
        for (i, game) in parser.games.enumerated() {
            let replay = GameReplay(source: source, syntax: game, index: firstGameIndex + i, base: base)
            diagnostics += replay.run(keepMoves: false).diagnostics
        }
        diagnostics.sort { ($0.range.lowerBound, $0.severity) < ($1.range.lowerBound, $1.severity) }
        return Report(games: parser.games.count, diagnostics: diagnostics)
    }

    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            let length = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0
            if length == 0 || i + length > bytes.count { return i }
            if length > 1 && !SourceText.isValidUTF8(Array(bytes[i..<(i + length)])) { return i }
            i += length
        }
        return 0
    }

    /// Where a buffer can be cut so that everything before the cut is whole games: the start
    /// of the last line that begins a tag (`[Name "`) after a blank line or a result. Returns
    /// nil when the buffer holds no such line after its first byte.
    public static func lastGameBoundary(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = bytes.count - 1
        while i > 0 {
            if bytes[i] == 0x5B && (bytes[i - 1] == 0x0A || bytes[i - 1] == 0x0D) && looksLikeTag(bytes, i)
                && !previousTextLineIsTag(bytes, before: i)
            {
                return i
            }
            i -= 1
        }
        return nil
    }

    /// Whether the last non-blank line before `offset` is a tag (so `offset` is inside a tag
    /// section rather than at its start).
    private static func previousTextLineIsTag(_ bytes: UnsafeBufferPointer<UInt8>, before offset: Int) -> Bool {
        var j = offset - 1
        while j >= 0 && Lexer.isSpace(bytes[j]) { j -= 1 }
        guard j >= 0 else { return false }
        while j > 0 && bytes[j - 1] != 0x0A && bytes[j - 1] != 0x0D { j -= 1 }
        while j < offset && (bytes[j] == 0x20 || bytes[j] == 0x09) { j += 1 }
        return bytes[j] == 0x5B && looksLikeTag(bytes, j)
    }

    /// `[` followed by a tag name, a space and a quote: a tag, not text in a comment.
    private static func looksLikeTag(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Bool {
        var j = start + 1
        var nameLength = 0
        while j < bytes.count, Lexer.isSymbolByte(bytes[j]) {
            j += 1
            nameLength += 1
        }
        guard nameLength > 0 else { return false }
        while j < bytes.count && bytes[j] == 0x20 { j += 1 }
        return j < bytes.count && bytes[j] == 0x22
    }
}
