import ChessCore

/// Where a played game left a repertoire, as its mainline is followed from its start: each
/// move is in the repertoire when the position it leads to is one the repertoire reaches,
/// by its own move order or another (a transposition).
public struct RepertoireDeparture: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// The player played a move the repertoire does not: `prepared` holds its moves.
        case player
        /// The opponent played a reply the repertoire did not prepare: `prepared` holds those
        /// it did.
        case opponent
        /// The repertoire has no move in the game's position (its line ends there).
        case ended
        /// The game ended while still in the repertoire.
        case stayed
        /// The game does not start from a position of the repertoire.
        case notMet
    }

    public let kind: Kind
    /// The index in the mainline of the move where the game left (the moves before it were
    /// the repertoire's); the number of moves for `stayed`.
    public let ply: Int
    /// That move as written in SAN (nil for `stayed` and `ended`), and its move number
    /// (`12.` or `12...`).
    public let played: String?
    public let moveNumber: String
    /// The repertoire's moves in the position before it, in the order written.
    public let prepared: [Repertoire.Entry]
    /// Where the last position of the game in the repertoire is written.
    public let place: Repertoire.Place?

    /// Follows a game's mainline (`start` and its moves) through `repertoire`.
    public static func follow(
        start: Position, mainline: [ReplayedMove], through repertoire: Repertoire
    ) -> RepertoireDeparture {
        guard var place = repertoire.positions[start.hash] else {
            return RepertoireDeparture(
                kind: .notMet, ply: 0, played: mainline.first.map { $0.before.san($0.move) },
                moveNumber: PGNWriter.moveNumber(before: start), prepared: [], place: nil)
        }
        for (ply, move) in mainline.enumerated() {
            let prepared = repertoire.moves[move.before.hash] ?? []
            if let reached = repertoire.positions[move.after.hash] {
                place = reached
                continue
            }
            let kind: Kind = prepared.isEmpty ? .ended : move.before.turn == repertoire.side ? .player : .opponent
            return RepertoireDeparture(
                kind: kind, ply: ply, played: kind == .ended ? nil : move.before.san(move.move),
                moveNumber: PGNWriter.moveNumber(before: move.before), prepared: prepared, place: place)
        }
        let end = mainline.last?.after ?? start
        return RepertoireDeparture(
            kind: .stayed, ply: mainline.count, played: nil, moveNumber: PGNWriter.moveNumber(before: end),
            prepared: repertoire.moves[end.hash] ?? [], place: place)
    }
}
