/// A chess position: the board, the side to move, castling rights, the en-passant square
/// and the move clocks. A small value type; copying it is cheap.
///
/// Invariants kept by every way of making one (`init(fen:)`, `startingPosition`, `play`):
/// each side has exactly one king; `castlingRights` only holds squares of rooks on their
/// back rank with their king on it too; `enPassantSquare` is set only when an en-passant
/// capture is legal, so that two positions with the same hash are the same for the
/// repetition rules.
public struct Position: Sendable {
    public internal(set) var white = Bitboard()
    public internal(set) var black = Bitboard()
    public internal(set) var pawns = Bitboard()
    public internal(set) var knights = Bitboard()
    public internal(set) var bishops = Bitboard()
    public internal(set) var rooks = Bitboard()
    public internal(set) var queens = Bitboard()
    public internal(set) var kings = Bitboard()
    public internal(set) var turn: Color = .white
    /// The squares of the rooks that may still castle (both colours).
    public internal(set) var castlingRights = Bitboard()
    /// Set only when an en-passant capture is legal.
    public internal(set) var enPassantSquare: Square?
    /// Half-moves since the last capture or pawn move (fifty-move rule).
    public internal(set) var halfmoveClock: Int = 0
    public internal(set) var fullmoveNumber: Int = 1
    /// Zobrist hash of board, side to move, castling rights and en-passant square.
    public internal(set) var hash: UInt64 = 0
    /// Chess960 changes how castling is written in UCI and FEN, not the rules.
    public var isChess960: Bool = false

    init() {}

    /// The standard starting position.
    public static let startingPosition: Position = {
        try! Position(fen: FEN.startingPosition)  // swift-format-ignore: a constant known to be valid
    }()

    // MARK: Board queries

    @inlinable public var occupied: Bitboard { white | black }

    @inlinable public func pieces(_ color: Color) -> Bitboard { color == .white ? white : black }

    @inlinable public func pieces(_ role: Role) -> Bitboard {
        switch role {
        case .pawn: return pawns
        case .knight: return knights
        case .bishop: return bishops
        case .rook: return rooks
        case .queen: return queens
        case .king: return kings
        }
    }

    @inlinable public func pieces(_ color: Color, _ role: Role) -> Bitboard { pieces(color) & pieces(role) }

    /// The role of whatever stands on `square`, if anything.
    @inlinable @inline(__always) public func role(at square: Square) -> Role? {
        let bit = square.bitboard
        if (occupied & bit).isEmpty { return nil }
        if (pawns & bit).isNotEmpty { return .pawn }
        if (knights & bit).isNotEmpty { return .knight }
        if (bishops & bit).isNotEmpty { return .bishop }
        if (rooks & bit).isNotEmpty { return .rook }
        if (queens & bit).isNotEmpty { return .queen }
        return .king
    }

    public func piece(at square: Square) -> Piece? {
        guard let role = role(at: square) else { return nil }
        return Piece(color: white.contains(square) ? .white : .black, role: role)
    }

    /// The king of `color`. Every position made through the public API has one.
    @inlinable public func kingSquare(_ color: Color) -> Square? { (kings & pieces(color)).first }

    /// The pieces of `color` that attack `square`, with `occupied` as the blockers.
    @inlinable
    public func attackers(of square: Square, by color: Color, occupied: Bitboard) -> Bitboard {
        let a = Attacks.shared
        let them = pieces(color)
        return them
            & ((a.knight(square) & knights) | (a.king(square) & kings)
                | (a.pawn(color.opponent, square) & pawns)
                | (a.bishop(square, occupied) & (bishops | queens))
                | (a.rook(square, occupied) & (rooks | queens)))
    }

    @inlinable public func isAttacked(_ square: Square, by color: Color) -> Bool {
        attackers(of: square, by: color, occupied: occupied).isNotEmpty
    }

    /// The enemy pieces giving check to the side to move.
    @inlinable public var checkers: Bitboard {
        guard let king = kingSquare(turn) else { return Bitboard() }
        return attackers(of: king, by: turn.opponent, occupied: occupied)
    }

    @inlinable public var isCheck: Bool { checkers.isNotEmpty }

    /// Pieces of `color` pinned against their own king.
    public func pinned(_ color: Color) -> Bitboard {
        guard let king = kingSquare(color) else { return Bitboard() }
        return pinnedPieces(king: king, us: color, occupied: occupied, attacks: Attacks.shared)
    }

    @inlinable @inline(__always)
    func pinnedPieces(king: Square, us: Color, occupied: Bitboard, attacks a: Attacks) -> Bitboard {
        let theirs = pieces(us.opponent)
        let snipers =
            theirs
            & ((a.rook(king, Bitboard()) & (rooks | queens)) | (a.bishop(king, Bitboard()) & (bishops | queens)))
        var pinned = Bitboard()
        for sniper in snipers {
            let blockers = a.between(king, sniper) & occupied
            if blockers.isNotEmpty && !blockers.hasMoreThanOne { pinned |= blockers & pieces(us) }
        }
        return pinned
    }

    // MARK: Changing the board

    @inline(__always)
    mutating func put(_ color: Color, _ role: Role, _ square: Square, keys z: Zobrist = .shared) {
        let bit = square.bitboard
        if color == .white { white |= bit } else { black |= bit }
        switch role {
        case .pawn: pawns |= bit
        case .knight: knights |= bit
        case .bishop: bishops |= bit
        case .rook: rooks |= bit
        case .queen: queens |= bit
        case .king: kings |= bit
        }
        hash ^= z.piece(color, role, square)
    }

    @inline(__always)
    mutating func take(_ color: Color, _ role: Role, _ square: Square, keys z: Zobrist = .shared) {
        let mask = ~square.bitboard
        if color == .white { white &= mask } else { black &= mask }
        switch role {
        case .pawn: pawns &= mask
        case .knight: knights &= mask
        case .bishop: bishops &= mask
        case .rook: rooks &= mask
        case .queen: queens &= mask
        case .king: kings &= mask
        }
        hash ^= z.piece(color, role, square)
    }

    @inline(__always)
    mutating func setCastlingRights(_ rights: Bitboard, keys z: Zobrist = .shared) {
        for square in castlingRights ^ rights { hash ^= z.castling(square) }
        castlingRights = rights
    }

    @inline(__always)
    mutating func setEnPassant(_ square: Square?, keys z: Zobrist = .shared) {
        if let old = enPassantSquare { hash ^= z.enPassant(file: old.file) }
        if let new = square { hash ^= z.enPassant(file: new.file) }
        enPassantSquare = square
    }

    /// Plays a move. The move must be legal here (from `legalMoves`, `move(san:)`,
    /// `move(uci:)` or `isLegal`); an arbitrary move leaves a position that may break the
    /// invariants but never traps.
    public mutating func play(_ move: Move) {
        let us = turn
        let them = us.opponent
        let z = Zobrist.shared
        setEnPassant(nil, keys: z)
        halfmoveClock &+= 1
        defer {
            turn = them
            hash ^= z.blackToMove
            if us == .black { fullmoveNumber &+= 1 }
        }
        if move.isNull { return }
        let from = move.from
        let to = move.to
        guard let role = role(at: from), pieces(us).contains(from) else { return }
        let backRank = Bitboard.rank(us.backRank)

        if move.isCastle {
            let kingTo = move.kingDestination
            let rookTo = move.rookDestination
            take(us, .king, from, keys: z)
            take(us, .rook, to, keys: z)
            put(us, .king, kingTo, keys: z)
            put(us, .rook, rookTo, keys: z)
            setCastlingRights(castlingRights & ~backRank, keys: z)
            return
        }

        var capturedSquare = to
        if move.isEnPassant {
            capturedSquare = Square(to.index + (us == .white ? -8 : 8))
        }
        if let captured = self.role(at: capturedSquare), pieces(them).contains(capturedSquare) {
            take(them, captured, capturedSquare, keys: z)
            halfmoveClock = 0
        }
        take(us, role, from, keys: z)
        put(us, move.promotion ?? role, to, keys: z)

        var rights = castlingRights
        rights.remove(from)
        rights.remove(to)
        if role == .king { rights &= ~backRank }
        if rights != castlingRights { setCastlingRights(rights, keys: z) }

        if role == .pawn {
            halfmoveClock = 0
            if from.index ^ to.index == 16 {
                let skipped = Square((from.index + to.index) / 2)
                let a = Attacks.shared
                if (a.pawn(us, skipped) & pawns & pieces(them)).isNotEmpty {
                    // Decide with the side to move already switched.
                    var after = self
                    after.turn = them
                    if after.enPassantCaptureIsLegal(on: skipped) { setEnPassant(skipped, keys: z) }
                }
            }
        }
    }

    /// The position after `move`.
    public func playing(_ move: Move) -> Position {
        var copy = self
        copy.play(move)
        return copy
    }

    /// Whether the side to move has a legal en-passant capture onto `square`.
    func enPassantCaptureIsLegal(on square: Square) -> Bool {
        let a = Attacks.shared
        let us = turn
        guard let king = kingSquare(us) else { return false }
        let captured = Square(square.index + (us == .white ? -8 : 8))
        let theirs = pieces(us.opponent)
        for from in a.pawn(us.opponent, square) & pawns & pieces(us) {
            let after = occupied ^ from.bitboard ^ square.bitboard ^ captured.bitboard
            let attackers =
                theirs & ~captured.bitboard
                & ((a.rook(king, after) & (rooks | queens)) | (a.bishop(king, after) & (bishops | queens))
                    | (a.knight(king) & knights) | (a.pawn(us, king) & pawns))
            if attackers.isEmpty { return true }
        }
        return false
    }

    /// Recomputes the hash from scratch (used after building a position field by field).
    mutating func rehash() {
        let z = Zobrist.shared
        var h: UInt64 = 0
        for square in occupied {
            if let piece = piece(at: square) { h ^= z.piece(piece.color, piece.role, square) }
        }
        for square in castlingRights { h ^= z.castling(square) }
        if let ep = enPassantSquare { h ^= z.enPassant(file: ep.file) }
        if turn == .black { h ^= z.blackToMove }
        hash = h
    }
}

extension Position: Equatable {
    /// Same board, side to move, castling rights, en-passant square and clocks.
    public static func == (lhs: Position, rhs: Position) -> Bool {
        lhs.hash == rhs.hash && lhs.white == rhs.white && lhs.black == rhs.black && lhs.pawns == rhs.pawns
            && lhs.knights == rhs.knights && lhs.bishops == rhs.bishops && lhs.rooks == rhs.rooks
            && lhs.queens == rhs.queens && lhs.kings == rhs.kings && lhs.turn == rhs.turn
            && lhs.castlingRights == rhs.castlingRights && lhs.enPassantSquare == rhs.enPassantSquare
            && lhs.halfmoveClock == rhs.halfmoveClock && lhs.fullmoveNumber == rhs.fullmoveNumber
    }
}

extension Position: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
