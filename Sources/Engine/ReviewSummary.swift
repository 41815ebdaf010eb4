import ChessCore
import Foundation
import PGN

/// What a review of one game says, as JSON: the answer of the server's `pgn.reviewGame` and
/// `pgn.reviewFile` commands and of `pgn-lsp review --format json`, in one shape. Games are
/// counted from 1, as people count them. Percentages and centipawns are rounded to one decimal;
/// a value that cannot be computed (a side without moves) is `null`.
public struct ReviewSummary: Encodable, Sendable, Equatable {
    /// One player: the `White` or `Black` tag (`?` when missing), accuracy and average
    /// centipawn loss.
    public struct Player: Encodable, Sendable, Equatable {
        public var name: String
        public var accuracy: Double?
        public var acpl: Double?

        public func encode(to encoder: any Encoder) throws {
            try encodeFields(["name": name, "accuracy": accuracy, "acpl": acpl], to: encoder)
        }
    }

    /// One move of the mainline and its judgement.
    public struct ReviewedMoveSummary: Encodable, Sendable, Equatable {
        /// From 1, the first move of the game.
        public var ply: Int
        /// `5. Nxf7` or `5... Nxf7`.
        public var move: String
        /// `inaccuracy`, `mistake`, `blunder` or null.
        public var judgement: String?
        /// Evaluations before and after the move, from White's point of view (`+0.63`, `#-3`).
        public var before: String
        public var after: String
        /// The engine's best move when it is not the move played.
        public var best: String?
        /// The engine's line from the position before the move, with move numbers.
        public var line: String
        public var accuracy: Double?
        public var depth: Int

        public func encode(to encoder: any Encoder) throws {
            try encodeFields(
                [
                    "ply": ply, "move": move, "judgement": judgement, "before": before, "after": after, "best": best,
                    "line": line, "accuracy": accuracy, "depth": depth,
                ], to: encoder)
        }
    }

    /// The game's number in its file, from 1.
    public var game: Int
    public var white: Player
    public var black: Player
    /// The inaccuracies, mistakes and blunders, one line each (`5. Nxf7 blunder (+0.63 → -3.83), best Bxf7+`).
    public var errors: [String]
    public var moves: [ReviewedMoveSummary]
    /// Why the game was not reviewed; nil when it was.
    public var error: String?

    /// The summary of a review of the game `replay`, which is game `index` (from 0) of its file.
    public init(_ review: GameReview, of replay: GameReplay, index: Int) {
        func rounded(_ value: Double?) -> Double? { value.map { ($0 * 10).rounded() / 10 } }
        game = index + 1
        white = Player(
            name: replay.tagValue("White") ?? "?", accuracy: rounded(review.whiteAccuracy),
            acpl: rounded(review.whiteACPL))
        black = Player(
            name: replay.tagValue("Black") ?? "?", accuracy: rounded(review.blackAccuracy),
            acpl: rounded(review.blackACPL))
        errors = review.errors.map(\.summary)
        moves = review.moves.map { move in
            ReviewedMoveSummary(
                ply: move.ply + 1, move: move.numberedSAN, judgement: move.judgement?.name,
                before: move.scoreBefore.pgnText, after: move.scoreAfter.pgnText, best: move.bestSAN,
                line: PGNWriter.movetext(move.bestLine.prefix(ReviewAnnotator.variationPlies), from: move.before),
                accuracy: rounded(move.accuracy), depth: move.depth)
        }
        error = nil
    }

    /// A game that could not be reviewed, and why.
    public init(unreviewed replay: GameReplay, index: Int, error: String) {
        game = index + 1
        white = Player(name: replay.tagValue("White") ?? "?")
        black = Player(name: replay.tagValue("Black") ?? "?")
        errors = []
        moves = []
        self.error = error
    }

    /// Summaries as a JSON array, one game a line, keys in alphabetical order.
    public static func json(_ summaries: [ReviewSummary]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let games = summaries.map { summary in
            (try? encoder.encode(summary)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        }
        return "[" + games.joined(separator: ",\n") + "]"
    }

    public func encode(to encoder: any Encoder) throws {
        try encodeFields(["game": game, "white": white, "black": black, "errors": errors, "moves": moves], to: encoder)
        if let error { try encodeFields(["error": error], to: encoder) }
    }
}

/// Encodes fields in their order, a nil value as `null` (a synthesized `Encodable` leaves it out).
private func encodeFields(_ fields: KeyValuePairs<String, (any Encodable)?>, to encoder: any Encoder) throws {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    var container = encoder.container(keyedBy: Key.self)
    for (name, value) in fields {
        if let value {
            try container.encode(value, forKey: Key(stringValue: name))
        } else {
            try container.encodeNil(forKey: Key(stringValue: name))
        }
    }
}
