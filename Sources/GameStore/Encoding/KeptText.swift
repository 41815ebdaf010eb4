import PGN

/// Movetext that no move column can hold, kept as a comment at its place so that nothing of a
/// game is lost: a line from a null move, or from a move that cannot be played, to the end of
/// that line; a note written among the moves (`e.p.`, `keep`, `!?!`); a variation with no move
/// before it to replace. The comment is the text as the file wrote it behind `prefix`, which
/// En Croissant and ocgdb show as any comment, and which `export` writes back as it was.
///
/// A comment of the game's own that starts with `prefix` is kept as text too, braces
/// included (`{PGN as written: …}`), so that an export never mistakes it for kept movetext.
public enum KeptText {
    /// What a comment holding kept movetext starts with.
    public static let prefix = "PGN as written: "
    static let prefixBytes = Array(prefix.utf8)

    /// The movetext a comment keeps, if it is such a comment.
    public static func movetext(inComment comment: String) -> Substring? {
        guard comment.hasPrefix(prefix) else { return nil }
        return comment.dropFirst(prefix.count)
    }

    /// Whether the comment token `range` of `bytes` (`{…}` or `;…`) starts with `prefix`
    /// after its white space.
    @inline(__always)
    static func isKeptComment(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var k = range.lowerBound + 1
        while k < range.upperBound && Lexer.isSpace(bytes[k]) { k += 1 }
        // The first letter alone rules out nearly every comment (`prefixBytes` is made once,
        // and looked at only past it).
        guard k < range.upperBound, bytes[k] == 0x50 else { return false }
        let prefix = prefixBytes
        guard range.upperBound - k >= prefix.count else { return false }
        for j in 1..<prefix.count where bytes[k + j] != prefix[j] { return false }
        return true
    }

    /// The comment that keeps `text` (UTF-8 movetext as written), into `output`: `prefix`, then
    /// the text with its line ends as line feeds.
    static func comment(keeping text: some Sequence<UInt8>, into output: inout [UInt8]) {
        output.removeAll(keepingCapacity: true)
        output.append(contentsOf: prefixBytes)
        var afterCR = false
        for byte in text {
            if byte == 0x0D {
                output.append(0x0A)
                afterCR = true
                continue
            }
            if !(byte == 0x0A && afterCR) { output.append(byte) }
            afterCR = false
        }
    }
}
