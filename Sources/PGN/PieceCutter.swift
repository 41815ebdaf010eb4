/// Cuts a PGN text into pieces that hold whole games, so that each piece is read on its own
/// (on another core, or while a stream is still being read) and gives the games the whole text
/// gives. The one rule of `pgn-lsp check`, `pgn-lsp import` and the server's first reading: a
/// piece ends where a line begins a tag section (`[Name "` after a blank line, a result or other
/// text, not after another tag line); a byte-order mark opens the first line, `%` escape lines
/// and text between games stay with the game before them, and a game without tags cannot start
/// a piece (it stays with the text before it).
public enum PieceCutter {
    /// Where to cut the front of `pending`, the unread text of a stream: after its last whole
    /// game; at its end once the stream has ended (`atEnd`); nil when more must be read. Text
    /// in which no game starts for `longest` bytes is cut anyway (`forced`), after its last line
    /// break before `longest` (a whole CRLF), else not inside a character, so that memory stays
    /// bounded: no game is that long. What follows a forced cut is the callers' own choice:
    /// `check` skips to the next game start and says so (it reports on the text), `import`
    /// reads on (it stores whatever games the text holds).
    public static func cut(
        _ pending: UnsafeBufferPointer<UInt8>, atEnd: Bool, longest: Int
    ) -> (end: Int, forced: Bool)? {
        if atEnd { return pending.isEmpty ? nil : (pending.count, false) }
        if let cut = lastGameBoundary(pending), cut > 0 { return (cut, false) }
        guard pending.count >= longest else { return nil }
        var end = longest
        if let newline = pending[..<longest].lastIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
            end = newline + 1
            if pending[newline] == 0x0D && end < pending.count && pending[end] == 0x0A { end += 1 }
        } else {
            while end > longest - 3 && end < pending.count && pending[end] & 0xC0 == 0x80 { end -= 1 }
        }
        return (end, true)
    }

    /// The bytes of `pending` before `cut` (a cut `cut(_:atEnd:longest:)` gave), as a piece
    /// that takes `pending`'s buffer: only the bytes from `cut` on, part of one game, are
    /// copied, into a new `pending`.
    public static func takePiece(_ pending: inout [UInt8], upTo cut: Int) -> [UInt8] {
        var piece = pending
        pending = Array(piece[cut...])
        piece.removeLast(piece.count - cut)
        return piece
    }

    /// Where a buffer can be cut so that everything before the cut is whole games: the start
    /// of the last line that begins a tag (`[Name "`) after a blank line or a result. Returns
    /// nil when the buffer holds no such line after its first byte.
    public static func lastGameBoundary(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = bytes.count - 1
        while i > 0 {
            if isGameBoundary(bytes, i) { return i }
            i -= 1
        }
        return nil
    }

    /// The first place after `bytes[0]` where `lastGameBoundary(_:)` could cut, or nil.
    public static func firstGameBoundary(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 1
        while i < bytes.count {
            if isGameBoundary(bytes, i) { return i }
            i += 1
        }
        return nil
    }

    private static func isGameBoundary(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        bytes[i] == 0x5B && (bytes[i - 1] == 0x0A || bytes[i - 1] == 0x0D) && looksLikeTag(bytes, i)
            && !previousTextLineIsTag(bytes, before: i)
    }

    /// Whether the last non-blank line before `offset`, `%` escape lines left out, is a tag (so
    /// `offset` is inside a tag section rather than at its start).
    private static func previousTextLineIsTag(_ bytes: UnsafeBufferPointer<UInt8>, before offset: Int) -> Bool {
        var j = offset - 1
        while true {
            while j >= 0 && Lexer.isSpace(bytes[j]) { j -= 1 }
            guard j >= 0 else { return false }
            while j > 0 && bytes[j - 1] != 0x0A && bytes[j - 1] != 0x0D { j -= 1 }
            // An escape line is trivia to the parser: look at the line before it.
            guard bytes[j] == 0x25 else { break }
            j -= 1
        }
        // A byte-order mark opens the text's first line.
        if j == 0 && offset >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { j = 3 }
        while j < offset && Lexer.isBlank(bytes[j]) { j += 1 }
        return bytes[j] == 0x5B && looksLikeTag(bytes, j)
    }

    /// `[` followed by a tag name, a space and a quote: a tag, not text in a comment.
    private static func looksLikeTag(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Bool {
        Lexer.beginsTag(bytes, start)
    }
}
