extension Position {
    /// Counts the leaf nodes of the legal move tree to `depth` plies: the standard check of
    /// a move generator against known counts.
    public func perft(_ depth: Int) -> UInt64 {
        if depth <= 0 { return 1 }
        if depth == 1 { return UInt64(legalMoveCount) }
        var nodes: UInt64 = 0
        let moves = legalMoves
        for move in moves {
            var child = self
            child.play(move)
            nodes &+= child.perft(depth - 1)
        }
        return nodes
    }

    /// Perft split by root move, in generation order.
    public func perftDivide(_ depth: Int) -> [(move: Move, nodes: UInt64)] {
        legalMoves.map { move in (move, playing(move).perft(depth - 1)) }
    }
}
