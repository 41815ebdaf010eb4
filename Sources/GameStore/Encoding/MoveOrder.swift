import ChessCore

/// The order in which En Croissant lists a position's legal moves: a move's place in that
/// list is the byte that stands for it in the `Moves` column.
///
/// 1. en-passant captures, by from-square (first even when in check);
/// 2. in check: king moves by to-square, then the moves below that capture or block;
/// 3. pawn captures toward the a-file: non-promotions by to-square, then promotions by
///    to-square, each as queen, rook, bishop, knight;
/// 4. pawn captures toward the h-file, the same way;
/// 5. single pushes by to-square; 6. promotion pushes by to-square (queen, rook, bishop,
///    knight); 7. double pushes by to-square;
/// 8. knights, bishops, rooks, queens: by from-square, then to-square;
/// 9. king moves by to-square (not in check); 10. castling: king-side, then queen-side.
///
/// Chess960 uses the same order: castling comes last whatever the squares of king and rook,
/// king-side first; a king's step and castling onto the same square are different moves.
///
/// Each move gets a sort key whose fields, from the most significant, are: group (the
/// numbered rules above), promotion-or-not (within a capture group), major square, minor
/// square, promotion piece. Keys are unique within one position, so a move's index is the
/// number of legal moves with a smaller key: finding it needs no sorting and no allocation.
public enum MoveOrder {
    /// The largest number of legal moves any position has.
    public static let maximumMoveCount = 218

    // Groups, in list order.
    @usableFromInline static let groupEnPassant: UInt32 = 0
    @usableFromInline static let groupKingInCheck: UInt32 = 1
    @usableFromInline static let groupCaptureWest: UInt32 = 2
    @usableFromInline static let groupCaptureEast: UInt32 = 3
    @usableFromInline static let groupPush: UInt32 = 4
    @usableFromInline static let groupPromotionPush: UInt32 = 5
    @usableFromInline static let groupDoublePush: UInt32 = 6
    @usableFromInline static let groupKnight: UInt32 = 7  // bishop 8, rook 9, queen 10
    @usableFromInline static let groupKing: UInt32 = 11
    @usableFromInline static let groupCastle: UInt32 = 12

    @inline(__always) @usableFromInline
    static func key(
        group: UInt32, promoting: Bool = false, major: Int, minor: Int = 0, promotion: Role? = nil
    )
        -> UInt32
    {
        group << 15 | (promoting ? 1 << 14 : 0) | UInt32(major) << 8 | UInt32(minor) << 2
            | promotionRank(promotion)
    }

    /// Queen 0, rook 1, bishop 2, knight 3: the order promotions are listed in.
    @inline(__always) @usableFromInline
    static func promotionRank(_ role: Role?) -> UInt32 {
        switch role {
        case .queen?: return 0
        case .rook?: return 1
        case .bishop?: return 2
        case .knight?: return 3
        default: return 0
        }
    }

    /// The sort key of a legal move of `position`; `inCheck` is `position.isCheck`.
    @inline(__always) @usableFromInline
    static func key(of move: Move, in position: Position, inCheck: Bool) -> UInt32 {
        let from = move.from
        let to = move.to
        if move.isEnPassant { return key(group: groupEnPassant, major: from.index) }
        if move.isCastle { return key(group: groupCastle, major: move.isKingsideCastle ? 0 : 1) }
        let bit = from.bitboard
        if (position.pawns & bit).isNotEmpty {
            let promotion = move.promotion
            if to.file < from.file {
                return key(group: groupCaptureWest, promoting: promotion != nil, major: to.index, promotion: promotion)
            }
            if to.file > from.file {
                return key(group: groupCaptureEast, promoting: promotion != nil, major: to.index, promotion: promotion)
            }
            if promotion != nil { return key(group: groupPromotionPush, major: to.index, promotion: promotion) }
            if from.index ^ to.index == 16 { return key(group: groupDoublePush, major: to.index) }
            return key(group: groupPush, major: to.index)
        }
        if (position.kings & bit).isNotEmpty {
            return key(group: inCheck ? groupKingInCheck : groupKing, major: to.index)
        }
        return key(group: pieceGroup(bit, in: position), major: from.index, minor: to.index)
    }

    /// The group of the knight, bishop, rook or queen on the square `bit`.
    @inline(__always) @usableFromInline
    static func pieceGroup(_ bit: Bitboard, in position: Position) -> UInt32 {
        if (position.knights & bit).isNotEmpty { return groupKnight }
        if (position.bishops & bit).isNotEmpty { return groupKnight + 1 }
        if (position.rooks & bit).isNotEmpty { return groupKnight + 2 }
        return groupKnight + 3
    }

    /// The group of the non-promoting pawn moves the generator hands over as one set: pushes
    /// (`delta` = `up`), double pushes, or captures toward the a- or h-file.
    @inline(__always) @usableFromInline
    static func pawnGroup(delta: Int, up: Int) -> UInt32 {
        if delta == up { return groupPush }
        if delta == 2 * up { return groupDoublePush }
        return delta == up - 1 ? groupCaptureWest : groupCaptureEast
    }

    /// The key bits shared by a set of promotions: their group and, for captures, the
    /// promotion flag.
    @inline(__always) @usableFromInline
    static func promotionBase(delta: Int, up: Int) -> UInt32 {
        if delta == up { return groupPromotionPush << 15 }
        return (delta == up - 1 ? groupCaptureWest : groupCaptureEast) << 15 | 1 << 14
    }

    /// The index of a legal `move` in En Croissant's order, or nil if the move is not legal.
    ///
    /// The legal moves are counted, not listed: the generator hands over each piece's
    /// destinations as a set, and the moves of a set that sort before `move` are a popcount.
    public static func index(of move: Move, in position: Position) -> Int? {
        index(of: move, in: position, inCheck: position.isCheck)
    }

    /// `index(of:in:)` when the caller knows whether the side to move is in check.
    public static func index(of move: Move, in position: Position, inCheck: Bool) -> Int? {
        let target = key(of: move, in: position, inCheck: inCheck)
        if !inCheck && position.enPassantSquare == nil && target >> 15 < groupKing {
            return quietIndex(key: target, in: position)
        }
        var counter = OrderCounter(position: position, target: target, inCheck: inCheck)
        position.generateLegalMoves(
            into: &counter, from: origins(upTo: target, in: position, inCheck: inCheck), to: .all)
        return counter.found ? counter.below : nil
    }

    /// `index(of:in:)` of the move with key `target` in the common case, with the groups in
    /// list order and nothing after the move's own piece looked at: not in check, no
    /// en-passant capture, a pawn, knight, bishop, rook or queen move.
    static func quietIndex(key target: UInt32, in position: Position) -> Int? {
        let a = Attacks.shared
        let us = position.turn
        let ours = position.pieces(us)
        let occupied = position.occupied
        guard let king = (position.kings & ours).first else { return nil }
        let pinned = position.pinned(us)
        var counter = OrderCounter(position: position, target: target, inCheck: false)

        // Pawns, counted set by set as the generator hands them over.
        position.generatePawnMoves(into: &counter, king: king, target: ~ours, pinned: pinned, attacks: a)

        // Knights, bishops, rooks, queens, each kind by square, up to the move's own piece.
        let group = target >> 15
        if group >= groupKnight {
            let last = Int(target >> 8 & 0x3F)
            let kinds = [position.knights, position.bishops, position.rooks, position.queens] as InlineArray
            let moving = Int(group - groupKnight)
            for kind in 0...moving {
                for from in kinds[kind] & ours {
                    if kind == moving && from.index > last { break }
                    var targets: Bitboard
                    switch kind {
                    case 0: targets = pinned.contains(from) ? Bitboard() : a.knight(from)
                    case 1: targets = a.bishop(from, occupied)
                    case 2: targets = a.rook(from, occupied)
                    default: targets = a.queen(from, occupied)
                    }
                    targets &= ~ours
                    if pinned.contains(from) { targets &= a.line(king, from) }
                    if kind < moving || from.index < last {
                        // Every move of a piece listed earlier comes first.
                        counter.below &+= targets.count
                    } else {
                        counter.count(targets, base: group << 15 | UInt32(from.rawValue) << 8, shift: 2)
                    }
                }
            }
        }
        return counter.found ? counter.below : nil
    }

    /// The squares of the pieces whose moves can sort before a move with key `target`, or be
    /// it: the moves of the others need not be generated to find its index. Pawns are always
    /// in (their moves cost a few shifts); the king only when in check or when the move is a
    /// king move or castling, since testing its steps costs the most.
    @inline(__always) @usableFromInline
    static func origins(upTo target: UInt32, in position: Position, inCheck: Bool) -> Bitboard {
        let group = target >> 15
        if group >= groupKing { return .all }
        let ours = position.pieces(position.turn)
        var origins = position.pawns
        if inCheck { origins |= position.kings }
        if group >= groupKnight {
            let from = UInt64(target >> 8 & 0x3F)
            let upToFrom = Bitboard(raw: from == 63 ? ~0 : (1 << (from + 1)) &- 1)
            // Knights, bishops, rooks, queens: the groups before the move's whole, its own up to its square.
            let groups = [position.knights, position.bishops, position.rooks, position.queens] as InlineArray
            for k in 0..<Int(group - groupKnight) { origins |= groups[k] }
            origins |= groups[Int(group - groupKnight)] & upToFrom
        }
        return origins & ours
    }

    /// The legal move with index `index` in En Croissant's order, or nil when there are not
    /// that many legal moves.
    public static func move(at index: Int, in position: Position) -> Move? {
        var collector = KeyCollector(position: position, inCheck: position.isCheck)
        position.generateLegalMoves(into: &collector)
        guard index >= 0 && index < collector.count else { return nil }
        return collector.select(index)
    }

    /// Every legal move of `position` in En Croissant's order.
    public static func orderedMoves(in position: Position) -> [Move] {
        let moves = position.legalMoves
        let inCheck = position.isCheck
        return moves.sorted {
            key(of: $0, in: position, inCheck: inCheck) < key(of: $1, in: position, inCheck: inCheck)
        }
    }
}

/// Counts the legal moves whose sort key is below a target key, a set of destinations at a time.
struct OrderCounter: MoveSink {
    let position: Position
    let target: UInt32
    let inCheck: Bool
    let up: Int
    var below = 0
    var found = false

    init(position: Position, target: UInt32, inCheck: Bool) {
        self.position = position
        self.target = target
        self.inCheck = inCheck
        up = position.turn == .white ? 8 : -8
    }

    /// Moves whose key is `base + square << shift` for each square of `targets`.
    @inline(__always)
    mutating func count(_ targets: Bitboard, base: UInt32, shift: UInt32) {
        guard target >= base, targets.isNotEmpty else { return }
        let difference = target &- base
        let step: UInt32 = 1 << shift
        let limit = (difference &+ step &- 1) >> shift  // squares below this sort first
        if limit >= 64 {
            below &+= targets.count
            return
        }
        below &+= (targets.raw & ((1 << UInt64(limit)) &- 1)).nonzeroBitCount
        if difference & (step &- 1) == 0 && targets.contains(Square(Int(difference >> shift))) { found = true }
    }

    @inline(__always)
    mutating func add(_ move: Move) {
        let key = MoveOrder.key(of: move, in: position, inCheck: inCheck)
        if key < target {
            below &+= 1
        } else if key == target {
            found = true
        }
    }

    @inline(__always)
    mutating func addMoves(from: Square, to targets: Bitboard) {
        let bit = from.bitboard
        if (position.kings & bit).isNotEmpty {
            let group = inCheck ? MoveOrder.groupKingInCheck : MoveOrder.groupKing
            count(targets, base: group << 15, shift: 8)
            return
        }
        let group = MoveOrder.pieceGroup(bit, in: position)
        count(targets, base: group << 15 | UInt32(from.rawValue) << 8, shift: 2)
    }

    @inline(__always)
    mutating func addPawnMoves(to targets: Bitboard, delta: Int) {
        let group = MoveOrder.pawnGroup(delta: delta, up: up)
        count(targets, base: group << 15, shift: 8)
    }

    @inline(__always)
    mutating func addPromotions(to targets: Bitboard, delta: Int) {
        let base = MoveOrder.promotionBase(delta: delta, up: up)
        for rank: UInt32 in 0..<4 { count(targets, base: base | rank, shift: 8) }
    }
}

/// Collects every legal move with its sort key (`key << 16 | move`), a set of destinations at
/// a time, on the stack.
struct KeyCollector: MoveSink {
    let position: Position
    let inCheck: Bool
    let up: Int
    var keys = InlineArray<256, UInt64>(repeating: 0)
    var count = 0

    init(position: Position, inCheck: Bool) {
        self.position = position
        self.inCheck = inCheck
        up = position.turn == .white ? 8 : -8
    }

    @inline(__always)
    mutating func append(_ key: UInt32, _ move: Move) {
        keys[count] = UInt64(key) << 16 | UInt64(move.raw)
        count &+= 1
    }

    @inline(__always)
    mutating func add(_ move: Move) {
        append(MoveOrder.key(of: move, in: position, inCheck: inCheck), move)
    }

    @inline(__always)
    mutating func addMoves(from: Square, to targets: Bitboard) {
        let bit = from.bitboard
        if (position.kings & bit).isNotEmpty {
            let group = inCheck ? MoveOrder.groupKingInCheck : MoveOrder.groupKing
            for to in targets { append(group << 15 | UInt32(to.rawValue) << 8, Move(from: from, to: to)) }
            return
        }
        let group = MoveOrder.pieceGroup(bit, in: position)
        let base = group << 15 | UInt32(from.rawValue) << 8
        for to in targets { append(base | UInt32(to.rawValue) << 2, Move(from: from, to: to)) }
    }

    @inline(__always)
    mutating func addPawnMoves(to targets: Bitboard, delta: Int) {
        let group = MoveOrder.pawnGroup(delta: delta, up: up)
        for to in targets {
            append(group << 15 | UInt32(to.rawValue) << 8, Move(from: Square(to.index &- delta), to: to))
        }
    }

    @inline(__always)
    mutating func addPromotions(to targets: Bitboard, delta: Int) {
        let base = MoveOrder.promotionBase(delta: delta, up: up)
        for to in targets {
            let from = Square(to.index &- delta)
            let key = base | UInt32(to.rawValue) << 8
            append(key, Move(from: from, to: to, promotion: .queen))
            append(key | 1, Move(from: from, to: to, promotion: .rook))
            append(key | 2, Move(from: from, to: to, promotion: .bishop))
            append(key | 3, Move(from: from, to: to, promotion: .knight))
        }
    }

    /// The move with exactly `index` smaller keys (keys are unique): quickselect, on the keys'
    /// memory (the inline array's checked subscript cost more than the selection itself).
    mutating func select(_ index: Int) -> Move {
        let count = self.count
        return withUnsafeMutablePointer(to: &keys) { storage in
            let keys = UnsafeMutableRawPointer(storage).assumingMemoryBound(to: UInt64.self)
            var low = 0
            var high = count - 1
            while low < high {
                let pivot = keys[(low + high) / 2]
                var i = low
                var j = high
                while i <= j {
                    while keys[i] < pivot { i &+= 1 }
                    while keys[j] > pivot { j &-= 1 }
                    if i <= j {
                        let t = keys[i]
                        keys[i] = keys[j]
                        keys[j] = t
                        i &+= 1
                        j &-= 1
                    }
                }
                if index <= j {
                    high = j
                } else if index >= i {
                    low = i
                } else {
                    break
                }
            }
            return Move(raw: UInt16(truncatingIfNeeded: keys[index]))
        }
    }
}
