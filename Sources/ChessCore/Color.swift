/// The two sides. White moves first.
public enum Color: UInt8, Sendable, Hashable, CaseIterable {
    case white = 0
    case black = 1

    @inlinable public var opponent: Color { self == .white ? .black : .white }

    /// The FEN letter of the side to move: `w` or `b`.
    public var fenLetter: Character { self == .white ? "w" : "b" }

    /// The rank (0-based) on which this side's pieces start.
    @inlinable public var backRank: Int { self == .white ? 0 : 7 }

    @inlinable public static prefix func ! (color: Color) -> Color { color.opponent }
}

extension Color: CustomStringConvertible {
    public var description: String { self == .white ? "White" : "Black" }
}
