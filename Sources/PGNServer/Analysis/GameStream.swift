import PGN

/// The games of a text read one at a time, as a parse of the whole text finds them: the parse
/// stops where the next game starts, and the next parse goes on from there. What a whole parse
/// would hold for every game at once (nodes, diagnostics) is held for one game at a time.
enum GameStream {
    /// Calls `body` with each game of `bytes` (its syntax, file offsets) and its number, in
    /// order, until it returns false; whether every game was seen.
    @discardableResult
    static func forEachGame(in bytes: [UInt8], _ body: (GameSyntax, Int) throws -> Bool) rethrows -> Bool {
        var start = 0
        var index = 0
        while true {
            let (syntax, next) = bytes.withUnsafeBufferPointer { buffer -> (GameSyntax?, Int?) in
                var first: Int?
                let parser = Parser(buffer, start: start, firstGameIndex: index) { offset in
                    if first == nil {
                        first = offset
                        return false
                    }
                    return true
                }
                return (parser.games.first, parser.stoppedAt)
            }
            guard let syntax else { return true }
            guard try body(syntax, index) else { return false }
            guard let next else { return true }
            (start, index) = (next, index + 1)
        }
    }
}
