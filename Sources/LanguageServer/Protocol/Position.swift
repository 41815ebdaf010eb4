@_exported import TextPositions

/// LSP's `Position`: a zero-based line and a zero-based offset in that line, counted in the units of
/// the position encoding negotiated at `initialize`. Named apart from the chess `Position` of `ChessCore`,
/// which the PGN server imports too.
public struct LSPPosition: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var character: Int

    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    public static func < (lhs: LSPPosition, rhs: LSPPosition) -> Bool {
        (lhs.line, lhs.character) < (rhs.line, rhs.character)
    }

    public var description: String { "\(line):\(character)" }
}

/// LSP's `Range`: from `start` up to but not including `end`. Named so that it does not hide `Swift.Range`.
public struct LSPRange: Codable, Sendable, Hashable, CustomStringConvertible {
    public var start: LSPPosition
    public var end: LSPPosition

    public init(start: LSPPosition, end: LSPPosition) {
        self.start = start
        self.end = end
    }

    public init(_ startLine: Int, _ startCharacter: Int, _ endLine: Int, _ endCharacter: Int) {
        self.init(
            start: LSPPosition(line: startLine, character: startCharacter),
            end: LSPPosition(line: endLine, character: endCharacter))
    }

    public var description: String { "\(start)-\(end)" }
}
