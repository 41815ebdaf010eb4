/// Writing SAN: canonical, disambiguated by file, then rank, then square among the legal moves.
extension Position {
    /// The canonical SAN of a legal move, with `+` or `#`.
    public func san(_ move: Move) -> String {
        var text = sanWithoutSuffix(move)
        let after = playing(move)
        if after.isCheck { text += after.hasLegalMove ? "+" : "#" }
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
