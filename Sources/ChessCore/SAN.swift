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

/// The pieces of a move written in SAN or a lenient relative of it.
struct SANText: Equatable {
    enum Check { case none, check, mate }
    var role: Role?
    var fromFile: Int?
    var fromRank: Int?
    var to: Square?
    var castle: Bool?  // true for kingside
    var promotion: Role?
    var capture = false
    var separator: UInt8?
    var check = Check.none
    var isNull = false
    var leniency = SANLeniency()

    /// Whether `bytes` are exactly `literal`. (A function of its own: a nested one capturing
    /// the reader's cursors would put them on the heap, behind exclusivity checks.)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == bytes.count else { return false }
        for k in 0..<bytes.count where literal.utf8Start[k] != bytes[k] { return false }
        return true
    }

    private init() {}

    /// Reads the text, or nil when it is not a move.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let text = SANText(common: bytes) {
            self = text
        } else {
            self.init(parsing: bytes)
        }
    }

    /// The shapes most moves have (`e4`, `Nf3`, `exd5`, `Nxf3`, each with or without `+` or
    /// `#`), read as `init(parsing:)` reads them; nil for any other text.
    @inline(__always)
    init?(common bytes: UnsafeBufferPointer<UInt8>) {
        var n = bytes.count
        var check = Check.none
        if n > 0 && bytes[n - 1] == 0x2B {  // +
            check = .check
            n -= 1
        } else if n > 0 && bytes[n - 1] == 0x23 {  // #
            check = .mate
            n -= 1
        }
        guard n >= 2 && n <= 4, let toFile = Square.file(ascii: bytes[n - 2]),
            let toRank = Square.rank(ascii: bytes[n - 1])
        else { return nil }
        self.init()
        self.check = check
        to = Square(toRank * 8 + toFile)
        /// A piece letter as SAN writes it: upper case, and never `P`.
        @inline(__always) func piece(_ c: UInt8) -> Role? {
            c & 0x20 == 0 && c != 0x50 ? Role(ascii: c) : nil
        }
        switch n {
        case 2:
            return
        case 3:
            guard let role = piece(bytes[0]) else { return nil }
            self.role = role
        default:
            guard bytes[1] == 0x78 else { return nil }  // x
            if let role = piece(bytes[0]) {
                self.role = role
            } else if let file = Square.file(ascii: bytes[0]) {
                fromFile = file
            } else {
                return nil
            }
            capture = true
            separator = 0x78
        }
    }

    /// Reads any text, or nil when it is not a move.
    init?(parsing bytes: UnsafeBufferPointer<UInt8>) {
        var end = bytes.count
        var start = 0
        guard end > 0 else { return nil }
        // Null moves.
        if end == 2 && bytes[0] == 0x2D && bytes[1] == 0x2D {  // --
            isNull = true
            return
        }
        if Self.equals(bytes, "Z0") || Self.equals(bytes, "0000") || Self.equals(bytes, "@@@@") {
            isNull = true
            leniency.insert(.nullMoveNotation)
            return
        }
        // Check and mate signs, and an en-passant mark, in either order.
        var sawSuffix = true
        while sawSuffix && end > start {
            sawSuffix = false
            let last = bytes[end - 1]
            if last == 0x2B {  // +
                // `++` is mate in some texts.
                if check == .none { check = .check } else if check == .check { check = .mate }
                end -= 1
                sawSuffix = true
            } else if last == 0x23 {  // #
                check = .mate
                end -= 1
                sawSuffix = true
            } else if end - start >= 6 && bytes[end - 4] == 0x65 && bytes[end - 3] == 0x2E && bytes[end - 2] == 0x70
                && last == 0x2E
            {
                end -= 4  // e.p.
                leniency.insert(.enPassantSuffix)
                sawSuffix = true
            } else if end - start >= 4 && bytes[end - 2] == 0x65 && last == 0x70
                && Square.rank(ascii: bytes[end - 3]) != nil
            {
                end -= 2  // ep
                leniency.insert(.enPassantSuffix)
                sawSuffix = true
            }
        }
        guard end > start else { return nil }

        // Castling.
        let first = bytes[start]
        if first == 0x4F || first == 0x30 || first == 0x6F {  // O 0 o
            var k = start
            var count = 0
            while k < end && bytes[k] == first {
                count += 1
                k += 1
                if k < end && bytes[k] == 0x2D { k += 1 } else { break }
            }
            if k == end && (count == 2 || count == 3) {
                castle = count == 2
                if first == 0x30 { leniency.insert(.castlingWithZeros) }
                if first == 0x6F { leniency.insert(.lowercaseCastling) }
                return
            }
            guard first != 0x4F || count == 0 else { return nil }
        }

        // Promotion at the end: `=Q`, `Q`, `(Q)`, `/Q`.
        if end - start >= 3, let role = Role(ascii: bytes[end - 1]),
            Square.rank(ascii: bytes[end - 2]) != nil || bytes[end - 2] == 0x3D || bytes[end - 2] == 0x2F
        {
            if bytes[end - 1] >= 0x61 { leniency.insert(.lowercasePromotion) }
            promotion = role
            end -= 1
            if bytes[end - 1] == 0x3D || bytes[end - 1] == 0x2F {
                end -= 1
                if bytes[end] == 0x2F { leniency.insert(.promotionWithoutEquals) }
            } else {
                leniency.insert(.promotionWithoutEquals)
            }
        } else if end - start >= 5 && bytes[end - 3] == 0x28 && bytes[end - 1] == 0x29,
            let role = Role(ascii: bytes[end - 2])
        {
            promotion = role
            end -= 3
            leniency.insert(.promotionWithoutEquals)
        }

        // Destination square.
        guard end - start >= 2, let toFile = Square.file(ascii: bytes[end - 2]),
            let toRank = Square.rank(ascii: bytes[end - 1])
        else {
            return nil
        }
        to = Square(toRank * 8 + toFile)
        end -= 2

        // Capture sign or long-algebraic hyphen.
        if end > start
            && (bytes[end - 1] == 0x78 || bytes[end - 1] == 0x3A || bytes[end - 1] == 0x2D || bytes[end - 1] == 0x58)
        {
            separator = bytes[end - 1]
            capture = separator != 0x2D
            if separator == 0x3A { leniency.insert(.colonCapture) }
            end -= 1
        }

        // Piece letter (a lower-case `b` is a file, never a bishop).
        if end > start {
            let c = bytes[start]
            switch c {
            case 0x4E: role = .knight
            case 0x42: role = .bishop
            case 0x52: role = .rook
            case 0x51: role = .queen
            case 0x4B: role = .king
            case 0x50: role = .pawn
            case 0x6E, 0x72, 0x71, 0x6B:
                role = Role(ascii: c)
                leniency.insert(.lowercasePiece)
            default: break
            }
            if role != nil { start += 1 }
        }
        // Disambiguation: file, rank, or both.
        if end > start, let file = Square.file(ascii: bytes[start]) {
            fromFile = file
            start += 1
        }
        if end > start, let rank = Square.rank(ascii: bytes[start]) {
            fromRank = rank
            start += 1
        }
        guard start == end else { return nil }
        if separator == 0x2D && (fromFile == nil || fromRank == nil) { return nil }
    }
}

extension Position {
    /// Reads a move in SAN, exactly by default and leniently where real files demand;
    /// the result says which liberties the text took.
    public func parseSAN(_ text: String) throws(SANError) -> SANMove {
        var text = text
        let result: Result<SANMove, SANError> = text.withUTF8 { bytes in
            do throws(SANError) { return .success(try parseSAN(bytes: bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The legal move a SAN text names, or nil.
    public func move(san text: String) -> Move? { try? parseSAN(text).move }

    /// `parseSAN` over UTF-8 bytes, for readers that never make a `String`.
    public func parseSAN(bytes: UnsafeBufferPointer<UInt8>) throws(SANError) -> SANMove {
        try playSAN(bytes: bytes).0
    }

    /// Reads a move in SAN and plays it: the move, how it was written, and the position after.
    public func playSAN(bytes: UnsafeBufferPointer<UInt8>) throws(SANError) -> (SANMove, Position) {
        guard let text = SANText(bytes) else { throw .syntax }
        if let played = playPlainSAN(text) { return played }
        return try playAnySAN(text)
    }

    /// `playSAN` in place, for readers that need the move and the position after, not how the
    /// move was written: the same move, found without checking the text's check sign. The
    /// position is unchanged when the text is not a legal move.
    /// `inCheck`, when the caller knows it, spares testing whether each candidate piece may
    /// leave its square.
    public mutating func applySAN(bytes: UnsafeBufferPointer<UInt8>, inCheck: Bool? = nil) throws(SANError) -> Move {
        guard let text = SANText(bytes) else { throw .syntax }
        if let move = plainMove(text, inCheck: inCheck) {
            play(move)
            return move
        }
        let (read, after) = try playAnySAN(text)
        self = after
        return read.move
    }

    /// `plainMove` played, with the leniency of its check sign.
    @inline(__always)
    func playPlainSAN(_ text: SANText) -> (SANMove, Position)? {
        guard let move = plainMove(text) else { return nil }
        let after = playing(move)
        return (SANMove(move: move, leniency: checkLeniency(after, text.check)), after)
    }

    /// The move of the way most moves are written, read without listing legal moves: SAN that names one
    /// legal move, with exactly the disambiguation and capture sign it needs (the check sign
    /// may be anything), and legal castling written `O-O` or `O-O-O`. Nil for everything else
    /// (en passant, null moves, lenient or wrong text, castling that is not legal), which
    /// `playAnySAN` reads; for what it accepts, both agree.
    @inline(__always)
    func plainMove(_ text: SANText, inCheck: Bool? = nil) -> Move? {
        guard text.leniency.isEmpty, !text.isNull else { return nil }
        if let kingside = text.castle { return plainCastling(kingside: kingside, inCheck: inCheck) }
        guard let to = text.to, text.separator == nil || text.separator == 0x78 else { return nil }
        let a = Attacks.shared
        let us = turn
        let ours = pieces(us)
        let theirs = pieces(us.opponent)
        let occupied = ours | theirs
        guard !ours.contains(to), let king = (kings & ours).first else { return nil }
        let captures = theirs.contains(to)
        guard text.capture == captures else { return nil }
        let role = text.role ?? .pawn
        let from: Square

        /// Whether moving from `origin` to `to` leaves the king safe (the captured piece gone).
        @inline(__always)
        func isLegal(_ origin: Square) -> Bool {
            let after = (occupied ^ origin.bitboard) | to.bitboard
            if inCheck == false && origin != king {
                // Out of check, only a slider behind the piece, on a line through the king,
                // can attack the king once the piece has gone.
                if a.line(king, origin).isEmpty { return true }
                let sliders =
                    (a.rook(king, after) & (rooks | queens)) | (a.bishop(king, after) & (bishops | queens))
                return (sliders & theirs & ~to.bitboard).isEmpty
            }
            let guarded = origin == king ? to : king
            return (attackers(of: guarded, by: us.opponent, occupied: after) & ~to.bitboard).isEmpty
        }

        switch role {
        case .pawn:
            guard text.fromRank == nil else { return nil }
            let lastRank = us == .white ? 7 : 0
            if let promotion = text.promotion {
                guard to.rank == lastRank, promotion != .king, promotion != .pawn else { return nil }
            } else if to.rank == lastRank {
                return nil
            }
            let up = us == .white ? 8 : -8
            let ourPawns = pawns & ours
            if let file = text.fromFile {
                // A capture of the piece on `to`; en passant (an empty `to`) is not read here.
                guard captures, file == to.file - 1 || file == to.file + 1 else { return nil }
                let origin = to.index - up + (file - to.file)
                guard origin >= 0 && origin < 64, ourPawns.contains(Square(origin)) else { return nil }
                from = Square(origin)
            } else {
                guard !captures else { return nil }
                let one = to.index - up
                guard one >= 0 && one < 64 else { return nil }
                if ourPawns.contains(Square(one)) {
                    from = Square(one)
                } else if !occupied.contains(Square(one)) && to.rank == (us == .white ? 3 : 4)
                    && ourPawns.contains(Square(one - up))
                {
                    from = Square(one - up)
                } else {
                    return nil
                }
            }
            guard isLegal(from) else { return nil }
        case .king:
            guard text.fromFile == nil && text.fromRank == nil && text.promotion == nil, a.king(king).contains(to),
                isLegal(king)
            else { return nil }
            from = king
        case .knight, .bishop, .rook, .queen:
            guard text.promotion == nil else { return nil }
            var legal = Bitboard()
            let reaching: Bitboard
            switch role {
            case .knight: reaching = a.knight(to) & knights
            case .bishop: reaching = a.bishop(to, occupied) & bishops
            case .rook: reaching = a.rook(to, occupied) & rooks
            default: reaching = a.queen(to, occupied) & queens
            }
            for origin in reaching & ours where isLegal(origin) {
                legal.insert(origin)
            }
            var named = legal
            if let file = text.fromFile { named &= Bitboard.file(file) }
            if let rank = text.fromRank { named &= Bitboard.rank(rank) }
            guard let origin = named.first, !named.hasMoreThanOne else { return nil }
            // Exactly the disambiguation SAN asks for: a file if it tells the pieces apart,
            // else a rank if that does, else both.
            let others = legal ^ origin.bitboard
            let needFile: Bool
            let needRank: Bool
            if others.isEmpty {
                (needFile, needRank) = (false, false)
            } else if (others & Bitboard.file(origin.file)).isEmpty {
                (needFile, needRank) = (true, false)
            } else if (others & Bitboard.rank(origin.rank)).isEmpty {
                (needFile, needRank) = (false, true)
            } else {
                (needFile, needRank) = (true, true)
            }
            guard (text.fromFile != nil) == needFile && (text.fromRank != nil) == needRank else { return nil }
            from = origin
        }
        return text.promotion.map { Move(from: from, to: to, promotion: $0) } ?? Move(from: from, to: to)
    }

    /// Legal castling on one side, by the generator's own test of the king's path; nil when
    /// there is none.
    func plainCastling(kingside: Bool, inCheck: Bool?) -> Move? {
        guard !(inCheck ?? isCheck), let king = (kings & pieces(turn)).first else { return nil }
        var found = CastlingSide(kingside: kingside)
        generateCastling(into: &found, king: king, attacks: Attacks.shared)
        return found.move
    }

    /// Reads any move text `SANText` understood, leniently, with a reason for every refusal.
    func playAnySAN(_ text: SANText) throws(SANError) -> (SANMove, Position) {
        var text = text
        if text.isNull { return (SANMove(move: .null, leniency: text.leniency), playing(.null)) }

        let ours = pieces(turn)
        var candidates = MoveList()
        if let kingside = text.castle {
            for move in legalMoves where move.isCastle && move.isKingsideCastle == kingside { candidates.add(move) }
            guard let move = candidates.first else { throw .illegal(castlingProblem(kingside: kingside)) }
            let after = playing(move)
            return (SANMove(move: move, leniency: text.leniency.union(checkLeniency(after, text.check))), after)
        }
        guard let to = text.to else { throw .syntax }

        // A UCI or long-algebraic move names its origin square; the piece there decides the role.
        if text.role == nil, let file = text.fromFile, let rank = text.fromRank {
            let from = Square(rank * 8 + file)
            if let role = role(at: from), ours.contains(from) {
                text.role = role
                if text.separator == nil && role != .pawn { text.leniency.insert(.uci) }
            }
        }
        let role = text.role ?? .pawn
        var fromMask = pieces(turn, role)
        if let file = text.fromFile { fromMask &= Bitboard.file(file) }
        if let rank = text.fromRank { fromMask &= Bitboard.rank(rank) }
        if role == .pawn && text.fromFile == nil { fromMask &= Bitboard.file(to.file) }

        // Only moves to the destination matter.
        let all = legalMoves(to: to)
        var sameTarget = 0  // legal moves of this role to this square, for disambiguation
        var sharesFile = false
        var sharesRank = false
        var matched: Move?
        for move in all where !move.isCastle && move.to == to && self.role(at: move.from) == role {
            guard fromMask.contains(move.from) else { continue }
            if move.promotion != text.promotion { continue }
            if let previous = matched, previous != move {
                var list = [previous, move]
                for other in all
                where other != previous && other != move && !other.isCastle && other.to == to
                    && fromMask.contains(other.from)
                    && self.role(at: other.from) == role && other.promotion == text.promotion
                {
                    list.append(other)
                }
                throw .ambiguous(list)
            }
            matched = move
        }
        // `e1g1` and `Ke1h1` are castling as UCI and Chess960 GUIs write it.
        if matched == nil && role == .king && text.fromFile != nil && text.fromRank != nil {
            matched = legalMoves.first {
                $0.isCastle && fromMask.contains($0.from) && ($0.to == to || $0.kingDestination == to)
            }
        }
        guard let move = matched else {
            throw .illegal(illegalReason(role: role, to: to, fromMask: fromMask, promotion: text.promotion))
        }

        // How much disambiguation SAN needs, from the legal moves alone.
        for other in all
        where other.to == to && other.from != move.from && !other.isCastle && self.role(at: other.from) == role
            && role != .pawn
        {
            sameTarget += 1
            if other.from.file == move.from.file { sharesFile = true }
            if other.from.rank == move.from.rank { sharesRank = true }
        }
        var leniency = text.leniency
        let captures = move.isEnPassant || occupied.contains(to)
        if captures && !text.capture { leniency.insert(.missingCapture) }
        if !captures && text.capture { leniency.insert(.spuriousCapture) }
        if text.separator == 0x2D { leniency.insert(.longAlgebraic) }
        if !leniency.contains(.uci) && !leniency.contains(.longAlgebraic) {
            let needFile: Bool
            let needRank: Bool
            if role == .pawn {
                needFile = captures
                needRank = false
            } else if sameTarget == 0 {
                needFile = false
                needRank = false
            } else if !sharesFile {
                needFile = true
                needRank = false
            } else if !sharesRank {
                needFile = false
                needRank = true
            } else {
                needFile = true
                needRank = true
            }
            if (text.fromFile != nil && !needFile) || (text.fromRank != nil && !needRank) {
                leniency.insert(role == .pawn && text.fromRank != nil ? .longAlgebraic : .overDisambiguated)
            }
        }
        let after = playing(move)
        leniency.formUnion(checkLeniency(after, text.check))
        return (SANMove(move: move, leniency: leniency), after)
    }

    private func checkLeniency(_ after: Position, _ written: SANText.Check) -> SANLeniency {
        let actual: SANText.Check = after.isCheck ? (after.legalMoveCount == 0 ? .mate : .check) : .none
        if actual == written { return [] }
        return written == .none ? .missingCheck : .wrongCheck
    }

    private func castlingProblem(kingside: Bool) -> IllegalMoveReason {
        let a = Attacks.shared
        let rank = turn.backRank
        guard let king = kingSquare(turn),
            let rook = (castlingRights & pieces(turn)).first(where: { ($0.file > king.file) == kingside })
        else { return .castlingWithoutRight(kingside: kingside) }
        if isCheck { return .castlingOutOfCheck }
        let kingTo = Square(rank * 8 + (kingside ? 6 : 2))
        let rookTo = Square(rank * 8 + (kingside ? 5 : 3))
        let path = a.between(king, kingTo) | kingTo.bitboard | a.between(rook, rookTo) | rookTo.bitboard
        if let blocker = (path & occupied & ~king.bitboard & ~rook.bitboard).first { return .castlingBlocked(blocker) }
        for square in a.between(king, kingTo)
        where attackers(of: square, by: turn.opponent, occupied: occupied ^ king.bitboard).isNotEmpty {
            return .castlingThroughCheck(square)
        }
        return .castlingIntoCheck(kingTo)
    }

    /// Explains why no legal move fits: looks at the moves the pieces could make if the
    /// king's safety did not matter.
    private func illegalReason(role: Role, to: Square, fromMask: Bitboard, promotion: Role?) -> IllegalMoveReason {
        let a = Attacks.shared
        let us = turn
        if pieces(us, role).isEmpty { return .noSuchPiece(role) }
        var reachers = Bitboard()
        for from in fromMask {
            if role == .pawn {
                let up = us == .white ? 8 : -8
                let one = Square(from.index + up)
                let pushes = from.index + up == to.index && !occupied.contains(to)
                let double =
                    from.index + 2 * up == to.index && from.rank == (us == .white ? 1 : 6) && !occupied.contains(one)
                    && !occupied.contains(to)
                let capture =
                    a.pawn(us, from).contains(to) && (pieces(us.opponent).contains(to) || enPassantSquare == to)
                if pushes || double || capture { reachers.insert(from) }
            } else if a.attacks(role, us, from, occupied).contains(to) {
                reachers.insert(from)
            }
        }
        guard let from = reachers.first else { return .noPieceCanReach(role, to) }
        if pieces(us).contains(to) { return .occupiedByOwnPiece(to) }
        let lastRank = to.rank == (us == .white ? 7 : 0)
        if role == .pawn && lastRank && promotion == nil { return .missingPromotion }
        if promotion != nil && (role != .pawn || !lastRank || promotion == .king || promotion == .pawn) {
            return .invalidPromotion
        }
        if role == .king { return .kingIntoCheck(to) }
        if let piece = piece(at: from), pinned(us).contains(from), !a.line(kingSquare(us)!, from).contains(to) {
            return .pinned(piece, from)
        }
        if isCheck { return .inCheck }
        return .exposesKing(from)
    }

    // MARK: Writing SAN

    /// The canonical SAN of a legal move, with `+` or `#`.
    public func san(_ move: Move) -> String {
        var text = sanWithoutSuffix(move)
        let after = playing(move)
        if after.isCheck { text += after.legalMoveCount == 0 ? "#" : "+" }
        return text
    }

    /// The canonical SAN without the check sign.
    public func sanWithoutSuffix(_ move: Move) -> String {
        if move.isNull { return "--" }
        if move.isCastle { return move.isKingsideCastle ? "O-O" : "O-O-O" }
        guard let role = role(at: move.from) else { return move.uci(chess960: true) }
        let to = move.to
        let captures = move.isEnPassant || occupied.contains(to)
        var text = ""
        if role == .pawn {
            if captures { text.append(Square.fileLetter(move.from.file)) }
        } else {
            text.append(role.sanLetter!)
            var others = 0
            var sharesFile = false
            var sharesRank = false
            for other in legalMoves(to: to)
            where other.to == to && other.from != move.from && !other.isCastle && self.role(at: other.from) == role {
                others += 1
                if other.from.file == move.from.file { sharesFile = true }
                if other.from.rank == move.from.rank { sharesRank = true }
            }
            if others > 0 {
                if !sharesFile {
                    text.append(Square.fileLetter(move.from.file))
                } else if !sharesRank {
                    text += String(move.from.rank + 1)
                } else {
                    text += move.from.name
                }
            }
        }
        if captures { text.append("x") }
        text += to.name
        if let promotion = move.promotion {
            text.append("=")
            text.append(promotion.sanLetter!)
        }
        return text
    }
}

/// Keeps the castling move on one side among those the generator hands over.
private struct CastlingSide: MoveSink {
    let kingside: Bool
    var move: Move?

    init(kingside: Bool) { self.kingside = kingside }

    mutating func add(_ move: Move) {
        if move.isCastle && move.isKingsideCastle == kingside { self.move = move }
    }
    mutating func addMoves(from: Square, to targets: Bitboard) {}
    mutating func addPawnMoves(to targets: Bitboard, delta: Int) {}
    mutating func addPromotions(to targets: Bitboard, delta: Int) {}
}
