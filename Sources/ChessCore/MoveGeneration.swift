/// Receives the moves the generator finds, in batches where it can: a whole set of
/// destinations at once lets a counter add a popcount instead of visiting each move.
public protocol MoveSink {
    mutating func add(_ move: Move)
    /// Ordinary moves of a piece (not a pawn) from one square to each of `targets`.
    mutating func addMoves(from: Square, to targets: Bitboard)
    /// Pawn moves that do not promote: each `to` in `targets` comes from `to - delta`.
    mutating func addPawnMoves(to targets: Bitboard, delta: Int)
    /// Pawn moves that promote: four moves for each `to` in `targets`.
    mutating func addPromotions(to targets: Bitboard, delta: Int)
}

/// A list of at most `capacity` moves, on the stack: generating moves allocates nothing.
public struct FixedMoveList<let capacity: Int>: MoveSink, RandomAccessCollection, Sendable {
    @usableFromInline var storage = InlineArray<capacity, Move>(repeating: .null)
    public private(set) var count = 0

    public init() {}

    @inlinable public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    @inlinable public subscript(position: Int) -> Move { storage[position] }

    @inline(__always)
    public mutating func add(_ move: Move) {
        storage[count] = move
        count &+= 1
    }

    @inline(__always)
    public mutating func addMoves(from: Square, to targets: Bitboard) {
        for to in targets { add(Move(from: from, to: to)) }
    }

    @inline(__always)
    public mutating func addPawnMoves(to targets: Bitboard, delta: Int) {
        for to in targets { add(Move(from: Square(to.index &- delta), to: to)) }
    }

    @inline(__always)
    public mutating func addPromotions(to targets: Bitboard, delta: Int) {
        for to in targets {
            let from = Square(to.index &- delta)
            add(Move(from: from, to: to, promotion: .queen))
            add(Move(from: from, to: to, promotion: .rook))
            add(Move(from: from, to: to, promotion: .bishop))
            add(Move(from: from, to: to, promotion: .knight))
        }
    }
}

/// Room for every legal move of any position (218 at most).
public typealias MoveList = FixedMoveList<256>

/// The moves to one square: at most 29 (8 knights, 8 sliders, a king, and three pawn moves
/// that promote four ways), so a small list does, and costs less to set up than `MoveList`.
public typealias SquareMoveList = FixedMoveList<32>

/// Counts moves without listing them (perft's leaves).
public struct MoveCounter: MoveSink {
    public var count = 0
    public init() {}
    @inline(__always) public mutating func add(_ move: Move) { count &+= 1 }
    @inline(__always) public mutating func addMoves(from: Square, to targets: Bitboard) { count &+= targets.count }
    @inline(__always) public mutating func addPawnMoves(to targets: Bitboard, delta: Int) { count &+= targets.count }
    @inline(__always) public mutating func addPromotions(to targets: Bitboard, delta: Int) {
        count &+= 4 &* targets.count
    }
}

@inlinable @inline(__always)
func shifted(_ bitboard: Bitboard, by delta: Int) -> Bitboard {
    delta > 0 ? Bitboard(raw: bitboard.raw << UInt64(delta)) : Bitboard(raw: bitboard.raw >> UInt64(-delta))
}

extension Position {
    /// Every legal move, in generation order.
    public var legalMoves: MoveList {
        var list = MoveList()
        generateLegalMoves(into: &list)
        return list
    }

    /// The number of legal moves.
    public var legalMoveCount: Int {
        var counter = MoveCounter()
        generateLegalMoves(into: &counter)
        return counter.count
    }

    /// Whether the side to move has a legal move: the king's steps are tried first, as
    /// they decide most positions in check, and the other pieces only when the king has none.
    public var hasLegalMove: Bool {
        guard let king = kingSquare(turn) else { return false }
        var counter = MoveCounter()
        generateLegalMoves(into: &counter, from: king.bitboard, to: .all)
        if counter.count > 0 { return true }
        generateLegalMoves(into: &counter, from: pieces(turn) ^ king.bitboard, to: .all)
        return counter.count > 0
    }

    /// Whether `move` is legal here.
    public func isLegal(_ move: Move) -> Bool {
        legalMoves.contains(move)
    }

    /// Generates every legal move into `sink`.
    @inlinable @inline(__always)
    public func generateLegalMoves<Sink: MoveSink>(into sink: inout Sink) {
        generateLegalMoves(into: &sink, from: .all, to: .all)
    }

    /// The legal moves to one square (castling excluded), in `MoveList` order.
    public func legalMoves(to square: Square) -> SquareMoveList {
        var list = SquareMoveList()
        generateLegalMoves(into: &list, to: square.bitboard)
        return list
    }

    /// Generates the legal moves whose destination is in `destinations` into `sink`.
    @inlinable @inline(__always)
    public func generateLegalMoves<Sink: MoveSink>(into sink: inout Sink, to destinations: Bitboard) {
        generateLegalMoves(into: &sink, from: .all, to: destinations)
    }

    /// Generates the legal moves of the pieces on `origins` whose destination is in
    /// `destinations` into `sink`. Castling counts as a king move to any destination; an
    /// en-passant capture as a pawn move. A caller that needs only some pieces' moves saves
    /// the work of the others: the king's steps, which test each square for attackers, cost most.
    @inlinable @inline(__always)
    public func generateLegalMoves<Sink: MoveSink>(
        into sink: inout Sink, from origins: Bitboard, to destinations: Bitboard
    ) {
        let a = Attacks.shared
        let us = turn
        let them = us.opponent
        let ours = pieces(us)
        let theirs = pieces(them)
        let occupied = ours | theirs
        guard let king = (kings & ours).first else { return }
        let checkers = attackers(of: king, by: them, occupied: occupied)
        let movesKing = origins.contains(king)

        // King moves: the king must not stand in the line of a slider it steps away from.
        if movesKing {
            let withoutKing = occupied ^ king.bitboard
            var kingTargets = Bitboard()
            for to in a.king(king) & ~ours & destinations
            where attackers(of: to, by: them, occupied: withoutKing).isEmpty {
                kingTargets.insert(to)
            }
            sink.addMoves(from: king, to: kingTargets)
        }
        if checkers.hasMoreThanOne { return }
        let mine = ours & origins

        // Every other move must capture the checker or block it.
        let target = (checkers.isEmpty ? ~ours : a.between(king, checkers.first!) | checkers) & destinations
        let pinned = pinnedPieces(king: king, us: us, occupied: occupied, attacks: a)

        for from in knights & mine & ~pinned {
            sink.addMoves(from: from, to: a.knight(from) & target)
        }
        for from in (bishops | queens) & mine {
            var targets = a.bishop(from, occupied) & target
            if pinned.contains(from) { targets &= a.line(king, from) }
            sink.addMoves(from: from, to: targets)
        }
        for from in (rooks | queens) & mine {
            var targets = a.rook(from, occupied) & target
            if pinned.contains(from) { targets &= a.line(king, from) }
            sink.addMoves(from: from, to: targets)
        }

        if (pawns & mine).isNotEmpty {
            generatePawnMoves(into: &sink, king: king, target: target, pinned: pinned, origins: origins, attacks: a)
        }

        if let square = enPassantSquare, destinations.contains(square) {
            let captured = Square(square.index + (us == .white ? -8 : 8))
            for from in a.pawn(them, square) & pawns & mine {
                let after = occupied ^ from.bitboard ^ square.bitboard ^ captured.bitboard
                let attackers =
                    theirs & ~captured.bitboard
                    & ((a.rook(king, after) & (rooks | queens)) | (a.bishop(king, after) & (bishops | queens))
                        | (a.knight(king) & knights) | (a.pawn(us, king) & pawns))
                if attackers.isEmpty { sink.add(.enPassant(from: from, to: square)) }
            }
        }

        if movesKing && checkers.isEmpty && (castlingRights & ours).isNotEmpty && destinations == .all {
            generateCastling(into: &sink, king: king, attacks: a)
        }
    }

    /// The legal pawn moves (en passant aside) of the pawns on `origins` to the squares of
    /// `target`, for callers that already know the king's square and the pinned pieces (out of
    /// check, `target` is every square not holding one of the side's own pieces).
    @inlinable @inline(__always)
    public func generatePawnMoves<Sink: MoveSink>(
        into sink: inout Sink, king: Square, target: Bitboard, pinned: Bitboard, origins: Bitboard = .all,
        attacks a: Attacks
    ) {
        let us = turn
        let ours = pieces(us)
        let theirs = pieces(us.opponent)
        let empty = ~occupied
        let up = us == .white ? 8 : -8
        let lastRank = Bitboard.rank(us == .white ? 7 : 0)
        let thirdRank = Bitboard.rank(us == .white ? 2 : 5)
        let free = pawns & ours & origins & ~pinned

        let single = shifted(free, by: up) & empty
        let double = shifted(single & thirdRank, by: up) & empty & target
        let pushes = single & target
        let westDelta = up - 1
        let eastDelta = up + 1
        let west = shifted(free & ~Bitboard.file(0), by: westDelta) & theirs & target
        let east = shifted(free & ~Bitboard.file(7), by: eastDelta) & theirs & target

        sink.addPawnMoves(to: pushes & ~lastRank, delta: up)
        sink.addPawnMoves(to: double, delta: 2 * up)
        sink.addPawnMoves(to: west & ~lastRank, delta: westDelta)
        sink.addPawnMoves(to: east & ~lastRank, delta: eastDelta)
        sink.addPromotions(to: pushes & lastRank, delta: up)
        sink.addPromotions(to: west & lastRank, delta: westDelta)
        sink.addPromotions(to: east & lastRank, delta: eastDelta)

        // A pinned pawn may still move along the pin.
        for from in pawns & ours & origins & pinned {
            let line = a.line(king, from)
            var targets = a.pawn(us, from) & theirs
            let one = Square(from.index + up)
            if empty.contains(one) {
                targets.insert(one)
                if thirdRank.contains(one) {
                    let two = Square(one.index + up)
                    if empty.contains(two) { targets.insert(two) }
                }
            }
            targets &= line & target
            for to in targets {
                if lastRank.contains(to) {
                    for role in [Role.queen, .rook, .bishop, .knight] {
                        sink.add(Move(from: from, to: to, promotion: role))
                    }
                } else {
                    sink.add(Move(from: from, to: to))
                }
            }
        }
    }

    @inlinable @inline(__always)
    func generateCastling<Sink: MoveSink>(into sink: inout Sink, king: Square, attacks a: Attacks) {
        let us = turn
        let them = us.opponent
        let occupied = self.occupied
        let rank = us.backRank
        for rook in castlingRights & pieces(us) & rooks {
            let kingside = rook.file > king.file
            let kingTo = Square(rank * 8 + (kingside ? 6 : 2))
            let rookTo = Square(rank * 8 + (kingside ? 5 : 3))
            let path = a.between(king, kingTo) | kingTo.bitboard | a.between(rook, rookTo) | rookTo.bitboard
            if (path & occupied & ~king.bitboard & ~rook.bitboard).isNotEmpty { continue }
            let withoutKing = occupied ^ king.bitboard
            var safe = true
            for square in a.between(king, kingTo)
            where attackers(of: square, by: them, occupied: withoutKing).isNotEmpty {
                safe = false
                break
            }
            if !safe { continue }
            let after = (occupied ^ king.bitboard ^ rook.bitboard) | kingTo.bitboard | rookTo.bitboard
            if attackers(of: kingTo, by: them, occupied: after).isNotEmpty { continue }
            sink.add(.castle(king: king, rook: rook))
        }
    }
}
