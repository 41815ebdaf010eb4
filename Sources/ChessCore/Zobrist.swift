/// Zobrist keys: one random number per (piece, square), per castling rook square, per
/// en-passant file, and for Black to move. A position's hash is the XOR of its keys, kept
/// up to date move by move in `Position.play(_:)`.
public struct Zobrist: @unchecked Sendable {
    @usableFromInline let keys: UnsafeMutablePointer<UInt64>

    static let pieceBase = 0  // 12 × 64
    static let castlingBase = 768  // 64
    static let enPassantBase = 832  // 8
    static let blackToMoveIndex = 840

    public static let shared = Zobrist()

    private init() {
        keys = .allocate(capacity: 841)
        var rng = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        for i in 0..<841 { keys[i] = rng.next() }
    }

    @inlinable @inline(__always)
    public func piece(_ color: Color, _ role: Role, _ square: Square) -> UInt64 {
        keys[(Int(color.rawValue) &* 6 &+ Int(role.rawValue)) &* 64 &+ square.index]
    }

    @inlinable @inline(__always)
    public func castling(_ rookSquare: Square) -> UInt64 { keys[768 &+ rookSquare.index] }

    @inlinable @inline(__always)
    public func enPassant(file: Int) -> UInt64 { keys[832 &+ file] }

    @inlinable public var blackToMove: UInt64 { keys[840] }
}
