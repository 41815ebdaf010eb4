/// The kinds of token a PGN text is made of. Every byte of a text belongs to exactly one
/// token, trivia included, so that the tokens in order give back the text byte for byte.
public enum TokenKind: UInt8, Sendable {
    // Trivia: text that carries no chess meaning.
    case whitespace
    /// A line starting with `%`: skipped by every reader.
    case escapeLine
    /// `; …` to the end of the line.
    case lineComment
    /// `{ … }`, possibly with nested braces (non-standard, but real files have them).
    case braceComment
    /// `{ …` with no closing brace before the end of the text.
    case unterminatedComment

    case openBracket  // [
    case closeBracket  // ]
    /// `"…"` with `\"` and `\\` escapes.
    case string
    /// `"…` reaching the end of its line.
    case unterminatedString
    case openParen  // (
    case closeParen  // )
    /// `$12`: the value is the number.
    case nag
    /// `!`, `?`, `!!`, `??`, `!?`, `?!` (value: the NAG they stand for; 0 for any other run).
    case suffix
    /// `12.` or `12...` or a bare `12`: the value is the number.
    case moveNumber
    /// `...` or `…` standing alone (after a move number written with a space).
    case dots
    /// `1-0`, `0-1`, `1/2-1/2` (also written `1/2` or `½-½`), `*` (value: a `GameResult` raw value).
    case result
    /// A move, a tag name, or any other word.
    case symbol
    /// A byte that starts no token (a stray `}`, control characters, …).
    case unknown

    public var isTrivia: Bool { rawValue <= TokenKind.unterminatedComment.rawValue }
}

/// One token: its kind, its byte range in the text, and a number for the kinds that have one.
public struct Token: Sendable, Hashable {
    public var kind: TokenKind
    public var start: Int
    public var end: Int
    public var value: Int

    public var range: Range<Int> { start..<end }
}

/// The outcome a termination marker or a Result tag states.
public enum GameResult: Int, Sendable, Hashable, CaseIterable {
    case whiteWins = 1
    case blackWins = 2
    case draw = 3
    case unknown = 4

    /// As PGN writes it: `1-0`, `0-1`, `1/2-1/2`, `*`.
    public var text: String {
        switch self {
        case .whiteWins: return "1-0"
        case .blackWins: return "0-1"
        case .draw: return "1/2-1/2"
        case .unknown: return "*"
        }
    }

    public init?(text: String) {
        switch text {
        case "1-0": self = .whiteWins
        case "0-1": self = .blackWins
        case "1/2-1/2", "½-½": self = .draw
        case "*": self = .unknown
        default: return nil
        }
    }
}
