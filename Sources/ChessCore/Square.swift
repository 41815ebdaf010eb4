/// One of the 64 squares, numbered a1 = 0, b1 = 1, …, h8 = 63.
public struct Square: RawRepresentable, Sendable, Hashable, Comparable {
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) {
        self.rawValue = rawValue & 63
    }

    @inlinable public init(_ index: Int) {
        self.rawValue = UInt8(truncatingIfNeeded: index) & 63
    }

    /// The square on a file and rank, both 0-based; nil off the board.
    @inlinable public init?(file: Int, rank: Int) {
        guard (0..<8).contains(file), (0..<8).contains(rank) else { return nil }
        self.rawValue = UInt8(rank * 8 + file)
    }

    /// Parses a square name such as `e4`.
    public init?(_ name: some StringProtocol) {
        let bytes = Array(name.utf8)
        guard bytes.count == 2, let file = Square.file(ascii: bytes[0]), let rank = Square.rank(ascii: bytes[1])
        else { return nil }
        self.rawValue = UInt8(rank * 8 + file)
    }

    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public var file: Int { Int(rawValue & 7) }
    @inlinable public var rank: Int { Int(rawValue >> 3) }
    @inlinable public var bitboard: Bitboard { Bitboard(raw: 1 << UInt64(rawValue)) }

    /// The same square seen from the other side (a1 ↔ a8).
    @inlinable public var flippedVertically: Square { Square(rawValue: rawValue ^ 56) }

    /// True for a1, c1, …: the dark squares.
    @inlinable public var isDark: Bool { (file + rank) % 2 == 0 }

    public var name: String { String(Square.fileLetter(file)) + String(rank + 1) }

    public static func fileLetter(_ file: Int) -> Character {
        Character(Unicode.Scalar(UInt8(97 + file)))
    }

    /// 0–7 for `a`–`h`.
    @inlinable public static func file(ascii byte: UInt8) -> Int? {
        (97...104).contains(byte) ? Int(byte) - 97 : nil
    }

    /// 0–7 for `1`–`8`.
    @inlinable public static func rank(ascii byte: UInt8) -> Int? {
        (49...56).contains(byte) ? Int(byte) - 49 : nil
    }

    @inlinable public static func < (lhs: Square, rhs: Square) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let all: [Square] = (0..<64).map { Square($0) }

    public static let a1 = Square(0), b1 = Square(1), c1 = Square(2), d1 = Square(3)
    public static let e1 = Square(4), f1 = Square(5), g1 = Square(6), h1 = Square(7)
    public static let a8 = Square(56), b8 = Square(57), c8 = Square(58), d8 = Square(59)
    public static let e8 = Square(60), f8 = Square(61), g8 = Square(62), h8 = Square(63)
}

extension Square: CustomStringConvertible {
    public var description: String { name }
}
