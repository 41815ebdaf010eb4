/// Reading SAN, second step: the meaning of a `SANSyntax` in a position, a legal move, or
/// `SANError.illegal`/`.ambiguous` (`.syntax` only when the text does not parse).
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
        guard let text = SANSyntax(bytes) else { throw .syntax }
        if let played = playPlainSAN(text) { return played }
        return try playAnySAN(text)
    }

    /// A move read by `readSAN`, and whether it gives check.
    public typealias SANRead = (SANMove, givesCheck: Bool)

    /// `playSAN` in place, with whether the move gives check: a replay that passes it back as
    /// `inCheck` for the next move spares testing whether each candidate piece may leave its
    /// square. The position is unchanged when the text is not a legal move.
    public mutating func readSAN(bytes: UnsafeBufferPointer<UInt8>, inCheck: Bool?) throws(SANError) -> SANRead {
        guard let text = SANSyntax(bytes) else { throw .syntax }
        if let move = plainMove(text, inCheck: inCheck) {
            play(move)
            let (leniency, check) = checkLeniency(text.check)
            return (SANMove(move: move, leniency: leniency), check)
        }
        let (read, after) = try playAnySAN(text)
        self = after
        return (read, isCheck)
    }

    /// `playSAN` in place, for readers that need the move and the position after, not how the
    /// move was written: the same move, found without checking the text's check sign. The
    /// position is unchanged when the text is not a legal move.
    /// `inCheck`, when the caller knows it, spares testing whether each candidate piece may
    /// leave its square.
    public mutating func applySAN(bytes: UnsafeBufferPointer<UInt8>, inCheck: Bool? = nil) throws(SANError) -> Move {
        guard let text = SANSyntax(bytes) else { throw .syntax }
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
    func playPlainSAN(_ text: SANSyntax) -> (SANMove, Position)? {
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
    func plainMove(_ text: SANSyntax, inCheck: Bool? = nil) -> Move? {
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

    /// Reads any move text `SANSyntax` understood, leniently, with a reason for every refusal.
    func playAnySAN(_ text: SANSyntax) throws(SANError) -> (SANMove, Position) {
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

    private func checkLeniency(_ after: Position, _ written: SANSyntax.Check) -> SANLeniency {
        after.checkLeniency(written).leniency
    }

    /// How a check sign written after the move that led here fits this position, and whether
    /// the side to move is in check.
    @inline(__always)
    private func checkLeniency(_ written: SANSyntax.Check) -> (leniency: SANLeniency, inCheck: Bool) {
        let inCheck = isCheck
        let actual: SANSyntax.Check = inCheck ? (hasLegalMove ? .check : .mate) : .none
        if actual == written { return ([], inCheck) }
        return (written == .none ? .missingCheck : .wrongCheck, inCheck)
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
