import ChessCore

/// Replays the moves of one game in source order, variations included, without recursion.
///
/// Feed it what the movetext says, in order: `play` for each move, `beginVariation` at `(`
/// and `endVariation` at `)`. A variation is an alternative to the move just before it, so it
/// starts from the position before that move. After a move that cannot be played, the rest
/// of its line is skipped (`.skipped`); a variation right after the failed move (an
/// alternative to it) is replayed, a variation of a skipped move cannot be, and the line a
/// variation returns to goes on as it was.
public struct LineReplayer: Sendable {
    /// One line of play: the mainline or a variation.
    public struct Line: Sendable {
        /// The position reached so far.
        public var position: Position
        /// The position before the last move, from which a variation of that move starts.
        public var beforeLastMove: Position?
        /// False once a move of this line could not be played.
        public var isPlayable: Bool
        /// Plies played in the game up to `position` (0 at the start position).
        public var ply: Int
        /// Whether the side to move is in check at `position`, once a move of this line has
        /// told it.
        var inCheck: Bool? = nil
    }

    public enum Outcome: Sendable {
        case played(PlayedMove)
        case failed(SANError, before: Position)
        case skipped
    }

    /// A move that was played, with what a reader needs to show or check it; the positions
    /// before and after it are the current line's (`position`, `positionBeforeLastMove`),
    /// read from there instead of copied into every outcome.
    public struct PlayedMove: Sendable {
        public var move: Move
        public var leniency: SANLeniency
        /// Ply of the move in the game: 1 for White's first move from the standard start.
        public var ply: Int
        /// 0 in the mainline, 1 inside a variation, 2 inside a variation of a variation, …
        public var depth: Int
    }

    public private(set) var lines: [Line]
    /// Plies the start position is into the game (from its fullmove number and side to move).
    public let startPly: Int

    public init(start: Position) {
        startPly = PGNWriter.ply(of: start)
        lines = [Line(position: start, beforeLastMove: nil, isPlayable: true, ply: startPly)]
    }

    /// The line moves go to now.
    public var current: Line { lines[lines.count - 1] }

    /// The current line's position: after the move just played.
    public var position: Position { lines[lines.count - 1].position }

    /// The position before the current line's last move (before the move just played).
    public var positionBeforeLastMove: Position? { lines[lines.count - 1].beforeLastMove }

    /// Variation depth: 0 in the mainline.
    public var depth: Int { lines.count - 1 }

    /// Plays the move written as `san` (UTF-8 bytes) in the current line.
    public mutating func play(san: UnsafeBufferPointer<UInt8>) -> Outcome {
        let top = lines.count - 1
        guard lines[top].isPlayable else {
            // A variation after this move would replace a move that was never played.
            lines[top].beforeLastMove = nil
            return .skipped
        }
        // Played in place: the line's position is left as it was when the move fails.
        lines[top].beforeLastMove = lines[top].position
        do {
            let (read, givesCheck) = try lines[top].position.readSAN(bytes: san, inCheck: lines[top].inCheck)
            lines[top].inCheck = givesCheck
            lines[top].ply += 1
            return .played(PlayedMove(move: read.move, leniency: read.leniency, ply: lines[top].ply, depth: top))
        } catch {
            // The line stops here, but a variation right after this move is an alternative to
            // it and starts from the same position.
            lines[top].isPlayable = false
            return .failed(error, before: lines[top].position)
        }
    }

    public enum VariationStart: Sendable, Equatable {
        /// The variation replays from the position before the move it replaces.
        case replayable
        /// There is no move before the `(` in its line: nothing for it to replace.
        case noMoveToReplace
        /// The move it replaces was skipped after an earlier failure: the variation is skipped too.
        case afterFailure
    }

    /// Starts a variation at `(`.
    @discardableResult
    public mutating func beginVariation() -> VariationStart {
        let parent = lines[lines.count - 1]
        if let start = parent.beforeLastMove {
            let ply = parent.isPlayable ? parent.ply - 1 : parent.ply
            lines.append(Line(position: start, beforeLastMove: nil, isPlayable: true, ply: ply))
            return .replayable
        }
        lines.append(Line(position: parent.position, beforeLastMove: nil, isPlayable: false, ply: parent.ply))
        // A playable line without a last move has not started yet.
        return parent.isPlayable ? .noMoveToReplace : .afterFailure
    }

    /// Ends a variation at `)`. Returns false for a `)` with no variation open (it is ignored).
    @discardableResult
    public mutating func endVariation() -> Bool {
        guard lines.count > 1 else { return false }
        lines.removeLast()
        return true
    }

    /// The move number and side a move indication should show for the next move of the
    /// current line: (number, isBlack).
    public var nextMoveNumber: (number: Int, black: Bool) {
        let ply = current.ply
        return (ply / 2 + 1, ply % 2 == 1)
    }
}
