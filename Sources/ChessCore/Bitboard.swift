/// A set of squares, one bit per square (bit 0 = a1).
public struct Bitboard: Sendable, Hashable, Sequence {
    public var raw: UInt64

    @inlinable public init(raw: UInt64) { self.raw = raw }
    @inlinable public init() { self.raw = 0 }

    public static let empty = Bitboard(raw: 0)
    public static let all = Bitboard(raw: ~0)
    public static let darkSquares = Bitboard(raw: 0xAA55_AA55_AA55_AA55)
    public static let lightSquares = Bitboard(raw: ~0xAA55_AA55_AA55_AA55)

    @inlinable @inline(__always) public static func file(_ file: Int) -> Bitboard {
        Bitboard(raw: 0x0101_0101_0101_0101 << UInt64(file))
    }
    @inlinable @inline(__always) public static func rank(_ rank: Int) -> Bitboard {
        Bitboard(raw: 0xFF << UInt64(8 * rank))
    }

    @inlinable public var isEmpty: Bool { raw == 0 }
    @inlinable public var isNotEmpty: Bool { raw != 0 }
    @inlinable public var count: Int { raw.nonzeroBitCount }
    /// True when more than one square is set.
    @inlinable public var hasMoreThanOne: Bool { raw & (raw &- 1) != 0 }

    @inlinable @inline(__always) public func contains(_ square: Square) -> Bool {
        raw & (1 << UInt64(square.rawValue)) != 0
    }

    /// The lowest square, if any.
    @inlinable public var first: Square? { raw == 0 ? nil : Square(rawValue: UInt8(raw.trailingZeroBitCount)) }
    /// The highest square, if any.
    @inlinable public var last: Square? { raw == 0 ? nil : Square(rawValue: UInt8(63 - raw.leadingZeroBitCount)) }

    @inlinable @inline(__always) public mutating func insert(_ square: Square) { raw |= 1 << UInt64(square.rawValue) }
    @inlinable public mutating func remove(_ square: Square) { raw &= ~(1 << UInt64(square.rawValue)) }
    @inlinable public mutating func toggle(_ square: Square) { raw ^= 1 << UInt64(square.rawValue) }

    /// Removes and returns the lowest square; the set must not be empty.
    @inlinable public mutating func popFirst() -> Square {
        let square = Square(rawValue: UInt8(raw.trailingZeroBitCount))
        raw &= raw &- 1
        return square
    }

    @inlinable public static func & (lhs: Bitboard, rhs: Bitboard) -> Bitboard { Bitboard(raw: lhs.raw & rhs.raw) }
    @inlinable public static func | (lhs: Bitboard, rhs: Bitboard) -> Bitboard { Bitboard(raw: lhs.raw | rhs.raw) }
    @inlinable public static func ^ (lhs: Bitboard, rhs: Bitboard) -> Bitboard { Bitboard(raw: lhs.raw ^ rhs.raw) }
    @inlinable public static prefix func ~ (bb: Bitboard) -> Bitboard { Bitboard(raw: ~bb.raw) }
    @inlinable public static func &= (lhs: inout Bitboard, rhs: Bitboard) { lhs.raw &= rhs.raw }
    @inlinable public static func |= (lhs: inout Bitboard, rhs: Bitboard) { lhs.raw |= rhs.raw }
    @inlinable public static func ^= (lhs: inout Bitboard, rhs: Bitboard) { lhs.raw ^= rhs.raw }

    /// Shifts every square one rank up (towards rank 8) for White, down for Black.
    @inlinable public func shiftedForward(_ color: Color) -> Bitboard {
        color == .white ? Bitboard(raw: raw << 8) : Bitboard(raw: raw >> 8)
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline var remaining: UInt64
        @inlinable init(_ raw: UInt64) { remaining = raw }
        @inlinable public mutating func next() -> Square? {
            guard remaining != 0 else { return nil }
            let square = Square(rawValue: UInt8(remaining.trailingZeroBitCount))
            remaining &= remaining &- 1
            return square
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(raw) }
    @inlinable public var underestimatedCount: Int { count }
}

extension Bitboard: CustomStringConvertible {
    /// An 8×8 picture, rank 8 first, `1` for a set square.
    public var description: String {
        (0..<8).reversed().map { rank in
            (0..<8).map { file in contains(Square(rank * 8 + file)) ? "1" : "." }.joined()
        }.joined(separator: "\n")
    }
}
