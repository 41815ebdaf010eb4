extension Move {
    /// The move in UCI: `e2e4`, `e7e8q`, `0000` for the null move. Castling is `e1g1` in
    /// standard chess and king-takes-rook (`e1h1`) in Chess960.
    public func uci(chess960: Bool) -> String {
        if isNull { return "0000" }
        var text = from.name + (chess960 ? to.name : kingDestination.name)
        if let promotion { text.append(promotion.letter) }
        return text
    }
}

extension Position {
    /// The move in UCI, written the way this position's variant wants it.
    public func uci(_ move: Move) -> String { move.uci(chess960: isChess960) }

    /// The legal move a UCI string names, in either castling convention; nil if none.
    public func move(uci text: some StringProtocol) -> Move? {
        let bytes = Array(text.utf8)
        if bytes == Array("0000".utf8) { return .null }
        guard bytes.count == 4 || bytes.count == 5,
            let f1 = Square.file(ascii: bytes[0]), let r1 = Square.rank(ascii: bytes[1]),
            let f2 = Square.file(ascii: bytes[2]), let r2 = Square.rank(ascii: bytes[3])
        else { return nil }
        let from = Square(r1 * 8 + f1)
        let to = Square(r2 * 8 + f2)
        var promotion: Role?
        if bytes.count == 5 {
            guard let role = Role(ascii: bytes[4]), role != .pawn, role != .king else {
                return nil
            }
            promotion = role
        }
        for move in legalMoves where move.from == from && move.promotion == promotion {
            if move.to == to || (move.isCastle && move.kingDestination == to && !isChess960Rook(move)) {
                return move
            }
        }
        return nil
    }

    /// In Chess960 a king step such as e1f1 could be read as castling; only accept the king
    /// destination convention when the rook is in the standard place.
    private func isChess960Rook(_ move: Move) -> Bool {
        guard move.isCastle else { return false }
        return !(move.from.file == 4 && (move.to.file == 0 || move.to.file == 7))
    }
}
