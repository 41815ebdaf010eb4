import ChessCore

/// The rules a game is played by, from its `Variant` tag.
public enum GameVariant: Sendable, Equatable {
    case standard
    case chess960
    /// A variant this reader does not replay (crazyhouse, antichess, …), by its tag value.
    case unsupported(String)

    /// Reads a `Variant` tag value; no tag, an empty one, or a name for ordinary chess is standard.
    public init(tag: String?) {
        let name = (tag ?? "").lowercased().filter { !$0.isWhitespace && $0 != "-" && $0 != "_" }
        switch name {
        case "", "standard", "chess", "normal", "fromposition", "classical", "classic":
            self = .standard
        case "chess960", "960", "fischerandom", "fischerrandom", "frc", "fischerrandomchess":
            self = .chess960
        default:
            self = .unsupported(tag ?? "")
        }
    }
}

/// Where a game starts: the standard position, or a `FEN` tag's.
public struct GameStart: Sendable {
    public var variant: GameVariant
    /// The start position; nil when the FEN tag is bad or the variant is not supported.
    public var position: Position?
    /// Why the FEN tag could not be read.
    public var fenError: FENError?

    /// The start of a game with these tag values. A `FEN` tag is used whether or not a
    /// `SetUp "1"` tag comes with it, as every reader does; the missing `SetUp` is reported by
    /// the caller.
    public init(variantTag: String?, fenTag: String?) {
        variant = GameVariant(tag: variantTag)
        if case .unsupported = variant { return }
        guard let fen = fenTag else {
            position = .startingPosition
            return
        }
        do {
            var start = try Position(fen: fen)
            if variant == .chess960 { start.isChess960 = true }
            position = start
        } catch {
            fenError = error
        }
    }
}
