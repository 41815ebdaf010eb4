/// A move in two bytes: from-square, to-square and kind.
///
/// Castling is stored as the king moving onto its own rook (`e1h1`), which describes
/// standard chess and Chess960 alike; `UCI` converts to `e1g1` where the variant wants it.
public struct Move: Sendable, Hashable {
    public let raw: UInt16

    public enum Kind: UInt16, Sendable {
        case normal = 0
        case enPassant = 1
        case castle = 2
        case promotion = 4
    }

    @inlinable public init(raw: UInt16) { self.raw = raw }

    @inlinable public init(from: Square, to: Square) {
        raw = UInt16(from.rawValue) | UInt16(to.rawValue) << 6
    }

    @inlinable public init(from: Square, to: Square, promotion: Role) {
        raw = UInt16(from.rawValue) | UInt16(to.rawValue) << 6 | (3 + UInt16(promotion.rawValue)) << 12
    }

    @inlinable public static func enPassant(from: Square, to: Square) -> Move {
        Move(raw: UInt16(from.rawValue) | UInt16(to.rawValue) << 6 | Kind.enPassant.rawValue << 12)
    }

    /// Castling, encoded as the king moving onto the rook.
    @inlinable public static func castle(king: Square, rook: Square) -> Move {
        Move(raw: UInt16(king.rawValue) | UInt16(rook.rawValue) << 6 | Kind.castle.rawValue << 12)
    }

    /// The null move (`--`): the side to move passes.
    public static let null = Move(raw: 0)

    @inlinable public var from: Square { Square(rawValue: UInt8(truncatingIfNeeded: raw & 63)) }
    /// The destination; for castling, the rook's square.
    @inlinable public var to: Square { Square(rawValue: UInt8(truncatingIfNeeded: (raw >> 6) & 63)) }
    @inlinable public var isNull: Bool { raw == 0 }
    @inlinable public var isCastle: Bool { raw >> 12 == Kind.castle.rawValue }
    @inlinable public var isEnPassant: Bool { raw >> 12 == Kind.enPassant.rawValue }
    @inlinable public var isPromotion: Bool { raw >> 12 >= Kind.promotion.rawValue }

    /// The role a pawn promotes to, if this is a promotion.
    @inlinable @inline(__always) public var promotion: Role? {
        let code = raw >> 12
        return code >= 4 ? Role(rawValue: UInt8(code - 3)) : nil
    }

    /// For castling, the square the king ends on (g- or c-file); otherwise `to`.
    @inlinable public var kingDestination: Square {
        guard isCastle else { return to }
        return Square(file: to.file > from.file ? 6 : 2, rank: from.rank)!
    }

    /// For castling, the square the rook ends on (f- or d-file).
    @inlinable public var rookDestination: Square {
        Square(file: to.file > from.file ? 5 : 3, rank: from.rank)!
    }

    /// True when castling towards the h-file (`O-O`).
    @inlinable public var isKingsideCastle: Bool { isCastle && to.file > from.file }
}

extension Move: CustomStringConvertible {
    /// The move in UCI as Chess960 writes it (castling as king takes rook).
    public var description: String { uci(chess960: true) }
}
