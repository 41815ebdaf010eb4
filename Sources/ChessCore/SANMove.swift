/// Ways in which a move was written that real files use but Standard Algebraic Notation
/// does not allow. The move is still understood; the PGN layer offers the canonical SAN.
public struct SANLeniency: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `0-0` or `0-0-0` (zeros instead of the letter O).
    public static let castlingWithZeros = SANLeniency(rawValue: 1 << 0)
    /// `o-o` (lower-case letter o).
    public static let lowercaseCastling = SANLeniency(rawValue: 1 << 1)
    /// `e8Q` instead of `e8=Q`.
    public static let promotionWithoutEquals = SANLeniency(rawValue: 1 << 2)
    /// `e8=q` (lower-case promotion piece).
    public static let lowercasePromotion = SANLeniency(rawValue: 1 << 3)
    /// More disambiguation than needed (`Ngf3` where `Nf3` is unique).
    public static let overDisambiguated = SANLeniency(rawValue: 1 << 4)
    /// A capture written without `x`.
    public static let missingCapture = SANLeniency(rawValue: 1 << 5)
    /// An `x` on a move that captures nothing.
    public static let spuriousCapture = SANLeniency(rawValue: 1 << 6)
    /// A check or mate without `+` or `#`.
    public static let missingCheck = SANLeniency(rawValue: 1 << 7)
    /// `+` or `#` where the move gives no check, or `+` where it mates, or `#` where it does not.
    public static let wrongCheck = SANLeniency(rawValue: 1 << 8)
    /// An `e.p.` or `ep` suffix.
    public static let enPassantSuffix = SANLeniency(rawValue: 1 << 9)
    /// Long algebraic notation: `Ng1-f3`, `e2-e4`, `Ng1xf3`.
    public static let longAlgebraic = SANLeniency(rawValue: 1 << 10)
    /// A UCI move: `e2e4`, `e7e8q`, `g1f3`.
    public static let uci = SANLeniency(rawValue: 1 << 11)
    /// A null move written `Z0`, `0000` or `@@@@` instead of `--`.
    public static let nullMoveNotation = SANLeniency(rawValue: 1 << 12)
    /// A lower-case piece letter (`nf3`).
    public static let lowercasePiece = SANLeniency(rawValue: 1 << 13)
    /// `:` as the capture sign.
    public static let colonCapture = SANLeniency(rawValue: 1 << 14)

    /// Short words naming each leniency, for messages.
    public var descriptions: [String] {
        let names: [(SANLeniency, String)] = [
            (.castlingWithZeros, "castling is written with the letter O, not zeros"),
            (.lowercaseCastling, "castling is written with a capital O"),
            (.promotionWithoutEquals, "a promotion is written with '='"),
            (.lowercasePromotion, "the promotion piece is a capital letter"),
            (.overDisambiguated, "the move is disambiguated more than needed"),
            (.missingCapture, "a capture is written with 'x'"),
            (.spuriousCapture, "the move captures nothing, so no 'x'"),
            (.missingCheck, "the move gives check, so it ends with '+' or '#'"),
            (.wrongCheck, "the check sign does not match the position"),
            (.enPassantSuffix, "SAN does not mark en passant"),
            (.longAlgebraic, "this is long algebraic notation"),
            (.uci, "this is UCI notation"),
            (.nullMoveNotation, "a null move is written '--'"),
            (.lowercasePiece, "the piece letter is a capital"),
            (.colonCapture, "a capture is written with 'x', not ':'"),
        ]
        return names.filter { contains($0.0) }.map(\.1)
    }
}

/// A move read from SAN, and how its text departed from canonical SAN.
public struct SANMove: Sendable, Hashable {
    public let move: Move
    public let leniency: SANLeniency

    public init(move: Move, leniency: SANLeniency) {
        self.move = move
        self.leniency = leniency
    }
}

/// Why a move cannot be played.
public enum IllegalMoveReason: Sendable, Hashable {
    /// The side to move has no piece of this role (pawns: none that could get there).
    case noSuchPiece(Role)
    /// No piece of this role can move to the square, whatever the king's safety.
    case noPieceCanReach(Role, Square)
    /// The destination holds a piece of the side to move.
    case occupiedByOwnPiece(Square)
    /// The piece that could make the move is pinned against its king.
    case pinned(Piece, Square)
    /// The king is in check and the move does not get out of it.
    case inCheck
    /// The king would move onto an attacked square.
    case kingIntoCheck(Square)
    /// The move would leave the king in check (a discovered check on one's own king).
    case exposesKing(Square)
    /// A pawn reaching the last rank must say what it becomes.
    case missingPromotion
    /// A promotion on a move that does not reach the last rank, or to a king or pawn.
    case invalidPromotion
    case castlingWithoutRight(kingside: Bool)
    case castlingOutOfCheck
    case castlingBlocked(Square)
    case castlingThroughCheck(Square)
    case castlingIntoCheck(Square)

    /// The reason in words, for `side` (the side to move).
    public func message(side: Color) -> String {
        switch self {
        case .noSuchPiece(let role): return "\(side) has no \(role.name)"
        case .noPieceCanReach(let role, let square):
            return "no \(side.description.lowercased()) \(role.name) can move to \(square)"
        case .occupiedByOwnPiece(let square): return "\(square) is occupied by \(side)'s own piece"
        case .pinned(let piece, let square): return "the \(piece.role.name) on \(square) is pinned"
        case .inCheck: return "\(side) is in check and this move does not get out of it"
        case .kingIntoCheck(let square): return "the king would be in check on \(square)"
        case .exposesKing(let square): return "moving from \(square) would leave the king in check"
        case .missingPromotion: return "a pawn reaching the last rank must promote (e.g. =Q)"
        case .invalidPromotion: return "this move cannot promote"
        case .castlingWithoutRight(let kingside):
            return "\(side) can no longer castle \(kingside ? "kingside" : "queenside")"
        case .castlingOutOfCheck: return "\(side) cannot castle out of check"
        case .castlingBlocked(let square): return "castling is blocked by the piece on \(square)"
        case .castlingThroughCheck(let square): return "the king would pass through check on \(square)"
        case .castlingIntoCheck(let square): return "the king would castle into check on \(square)"
        }
    }
}

/// Why a SAN text could not be turned into a move.
public enum SANError: Error, Sendable, Hashable {
    /// The text is not a move in any notation this reader knows.
    case syntax
    /// The text names a move that is not legal here.
    case illegal(IllegalMoveReason)
    /// Several legal moves fit the text.
    case ambiguous([Move])
}
