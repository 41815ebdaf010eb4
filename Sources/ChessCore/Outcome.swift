/// How a game stands: over (and why) or still going.
public enum Termination: Sendable, Hashable {
    case checkmate(winner: Color)
    case stalemate
    case insufficientMaterial
    case seventyFiveMoves
    case fivefoldRepetition
}

extension Position {
    /// The side to move is checkmated.
    public var isCheckmate: Bool { isCheck && !hasLegalMove }

    /// The side to move has no legal move and is not in check.
    public var isStalemate: Bool { !isCheck && !hasLegalMove }

    /// Whether `color` can no longer checkmate by any series of legal moves, judged by
    /// material: a lone king; king and one knight against nothing that could block its
    /// own king (anything but a queen); kings and bishops all on squares of one colour.
    public func hasInsufficientMaterial(_ color: Color) -> Bool {
        let ours = pieces(color)
        if (ours & (pawns | rooks | queens)).isNotEmpty { return false }
        if (ours & knights).isNotEmpty {
            return ours.count <= 2 && (pieces(color.opponent) & ~kings & ~queens).isEmpty
        }
        if (ours & bishops).isNotEmpty {
            let sameShade = (bishops & Bitboard.darkSquares).isEmpty || (bishops & Bitboard.lightSquares).isEmpty
            return sameShade && pawns.isEmpty && knights.isEmpty
        }
        return true
    }

    /// Neither side can checkmate: the game is drawn.
    public var isInsufficientMaterial: Bool {
        hasInsufficientMaterial(.white) && hasInsufficientMaterial(.black)
    }

    /// Fifty moves by each side without a capture or pawn move: a draw may be claimed.
    public var isFiftyMoves: Bool { halfmoveClock >= 100 }

    /// Seventy-five moves by each side: the game is drawn, unless this move mated.
    public var isSeventyFiveMoves: Bool { halfmoveClock >= 150 && !isCheckmate }

    /// The end of the game that the position alone decides (not repetition).
    public var termination: Termination? {
        if !hasLegalMove { return isCheck ? .checkmate(winner: turn.opponent) : .stalemate }
        if isInsufficientMaterial { return .insufficientMaterial }
        if halfmoveClock >= 150 { return .seventyFiveMoves }
        return nil
    }
}

/// The positions of a game so far, for the repetition rules. Positions count as the same
/// when board, side to move, castling rights and legal en-passant captures agree, which is
/// what the position hash covers.
public struct PositionHistory: Sendable {
    /// Hashes since the last capture or pawn move: earlier positions cannot recur.
    private var hashes: [UInt64] = []

    public init(starting position: Position) {
        hashes = [position.hash]
    }

    /// Records the position reached by a move.
    public mutating func append(_ position: Position, afterIrreversibleMove: Bool) {
        if afterIrreversibleMove { hashes.removeAll(keepingCapacity: true) }
        hashes.append(position.hash)
    }

    /// Records `move` played from `before`, giving `after`.
    public mutating func record(_ move: Move, from before: Position, to after: Position) {
        append(after, afterIrreversibleMove: after.halfmoveClock == 0 || after.castlingRights != before.castlingRights)
    }

    /// How many times the current position has occurred.
    public var repetitions: Int {
        guard let current = hashes.last else { return 0 }
        var count = 0
        for h in hashes where h == current { count += 1 }
        return count
    }

    /// The current position occurred at least three times: a draw may be claimed.
    public var isThreefoldRepetition: Bool { repetitions >= 3 }

    /// The current position occurred at least five times: the game is drawn.
    public var isFivefoldRepetition: Bool { repetitions >= 5 }
}
