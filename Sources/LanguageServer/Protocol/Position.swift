@_exported import TextPositions

/// A place in a document: a zero-based line and a zero-based offset in that line, counted in the units of
/// the position encoding negotiated at `initialize`.
public struct Position: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var character: Int

    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    public static func < (lhs: Position, rhs: Position) -> Bool {
        (lhs.line, lhs.character) < (rhs.line, rhs.character)
    }

    public var description: String { "\(line):\(character)" }
}

/// LSP's `Range`: from `start` up to but not including `end`. Named so that it does not hide `Swift.Range`.
public struct LSPRange: Codable, Sendable, Hashable, CustomStringConvertible {
    public var start: Position
    public var end: Position

    public init(start: Position, end: Position) {
        self.start = start
        self.end = end
    }

    public init(_ startLine: Int, _ startCharacter: Int, _ endLine: Int, _ endCharacter: Int) {
        self.init(
            start: Position(line: startLine, character: startCharacter),
            end: Position(line: endLine, character: endCharacter))
    }

    public var description: String { "\(start)-\(end)" }
}

/// A range in a document named by URI.
public struct Location: Codable, Sendable, Hashable {
    public var uri: DocumentURI
    public var range: LSPRange

    public init(uri: DocumentURI, range: LSPRange) {
        self.uri = uri
        self.range = range
    }
}
