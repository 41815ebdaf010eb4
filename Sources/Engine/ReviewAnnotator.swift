import ChessCore
import Foundation
import PGN

/// A game's mainline as the review needs it: where it starts, and each move with its node.
public struct Mainline: Sendable {
    public var start: Position
    public var moves: [ReplayedMove]

    /// The mainline of a replayed game; nil when the game cannot be played from its start
    /// (an invalid FEN or a variant the engine does not play).
    public init?(_ replay: GameReplay) {
        let replayed = replay.run(keepMoves: true)
        guard let start = replayed.start.position else { return nil }
        switch replayed.start.variant {
        case .standard, .chess960: break
        default: return nil
        }
        self.start = start
        // A mainline stops at its first illegal move: the rest cannot be judged.
        moves = replayed.moves.filter { $0.depth == 0 }
    }
}

/// Writes a review back into a game the way lichess does: `[%eval]` in the comment after each
/// move (merged with what the comment holds, an old `[%eval]` replaced), the judgement glyph
/// after inaccuracies, mistakes and blunders (unless the move already carries a move
/// assessment), a comment and the engine's line as a variation after mistakes and blunders,
/// and an `Annotator` tag. Nothing already written is removed but an old `[%eval]`.
public enum ReviewAnnotator {
    /// How many plies of the engine's line go into a variation.
    public static let variationPlies = 8

    /// The edit that writes a review into its game: the game annotated, then laid out as the
    /// formatter lays it out (`ExportFormat`, lines shorter than `lineLength`, glyphs kept as
    /// written), so that the comments and variations the review adds leave no long lines. One
    /// edit of the game's text (`annotations` when the annotated game cannot be read back as
    /// one game).
    public static func edits(
        for review: GameReview, mainline: Mainline, replay: GameReplay, lineLength: Int = 80,
        annotator: String = "pgn-lsp"
    ) -> [Diagnostic.Edit] {
        let annotations = annotations(for: review, mainline: mainline, replay: replay, annotator: annotator)
        let range = replay.syntax.range
        let local = (range.lowerBound - replay.base)..<(range.upperBound - replay.base)
        let shifted = annotations.map { $0.shifted(by: -range.lowerBound) }
        let annotated = SourceText(apply(shifted, to: Array(replay.source.bytes[local])))
        let parser = annotated.bytes.withUnsafeBufferPointer { Parser($0) }
        guard parser.games.count == 1, let game = parser.games.first else { return annotations }
        var text = ExportFormat.format(
            GameReplay(source: annotated, syntax: game, index: replay.index), lineLength: lineLength,
            keepingGlyphs: true)
        // The game's text ends at its last token: the line break after it stays as it is.
        if text.hasSuffix("\n") { text.removeLast() }
        return [Diagnostic.Edit(range: range, text: text)]
    }

    /// The review written into its game as small edits: the comments, glyphs, variations and
    /// tag the review adds, each at its place.
    public static func annotations(
        for review: GameReview, mainline: Mainline, replay: GameReplay, annotator: String = "pgn-lsp"
    ) -> [Diagnostic.Edit] {
        let syntax = replay.syntax
        let source = replay.source
        var edits: [Diagnostic.Edit] = []
        if replay.tag("Annotator") == nil {
            let line = PGNWriter.tagPair(name: "Annotator", value: annotator)
            if let last = syntax.tags.last {
                edits.append(Diagnostic.Edit(range: last.range.upperBound..<last.range.upperBound, text: "\n" + line))
            } else {
                edits.append(
                    Diagnostic.Edit(range: syntax.range.lowerBound..<syntax.range.lowerBound, text: line + "\n\n"))
            }
        }
        for (reviewed, played) in zip(review.moves, mainline.moves) {
            let nodeIndex = played.node
            let moveNode = syntax.nodes[nodeIndex]
            // The NAGs and comments that follow the move, up to the next move or variation.
            var k = nodeIndex + 1
            var hasAssessment = false
            var lastNAG: MovetextNode?
            var firstComment: MovetextNode?
            while k < syntax.nodes.count {
                let node = syntax.nodes[k]
                if node.kind == .nag {
                    if (1...6).contains(node.value) { hasAssessment = true }
                    lastNAG = node
                } else if node.kind == .comment && node.value == 0 {
                    if firstComment == nil { firstComment = node }
                } else if node.kind != .comment {
                    break
                }
                k += 1
            }
            var insertAfterMove = ""
            if let judgement = reviewed.judgement, !hasAssessment {
                insertAfterMove = judgement.glyph
            }
            if !insertAfterMove.isEmpty {
                edits.append(
                    Diagnostic.Edit(range: moveNode.range.upperBound..<moveNode.range.upperBound, text: insertAfterMove)
                )
            }
            // After a mate there is nothing left to evaluate.
            let eval = reviewed.mates ? "" : "[%eval \(reviewed.scoreAfter.pgnText)]"
            var words = ""
            if let judgement = reviewed.judgement, judgement >= .mistake {
                let after = reviewed.mates ? "mate" : reviewed.scoreAfter.pgnText
                words = "(\(reviewed.scoreBefore.pgnText) → \(after)) \(judgement.name.capitalized)."
                if let best = reviewed.bestSAN { words += " \(best) was best." }
            }
            if eval.isEmpty && words.isEmpty {
                // Nothing to write in a comment.
            } else if let comment = firstComment {
                // Inside the braces: replace an old [%eval], else put ours first.
                let inner =
                    (comment.range.lowerBound + 1)..<max(comment.range.lowerBound + 1, comment.range.upperBound - 1)
                let text = source.string(inner)
                if let old = text.range(of: #"\[%eval [^\]]*\]"#, options: .regularExpression) {
                    let start = inner.lowerBound + text.utf8.distance(from: text.startIndex, to: old.lowerBound)
                    let end = inner.lowerBound + text.utf8.distance(from: text.startIndex, to: old.upperBound)
                    edits.append(Diagnostic.Edit(range: start..<end, text: eval))  // empty after a mate: removed
                    if !words.isEmpty {
                        edits.append(Diagnostic.Edit(range: inner.upperBound..<inner.upperBound, text: " \(words) "))
                    }
                } else {
                    let addition = [eval, words].filter { !$0.isEmpty }.joined(separator: " ") + " "
                    let lead = text.first == " " ? inner.lowerBound + 1 : inner.lowerBound
                    edits.append(Diagnostic.Edit(range: lead..<lead, text: addition))
                }
            } else {
                let end = (lastNAG?.range.upperBound ?? moveNode.range.upperBound)
                let body = [eval, words].filter { !$0.isEmpty }.joined(separator: " ")
                edits.append(Diagnostic.Edit(range: end..<end, text: " { \(body) }"))
            }
            if let judgement = reviewed.judgement, judgement >= .mistake, !reviewed.bestLine.isEmpty,
                reviewed.bestMove != reviewed.move
            {
                let variation = " (" + movetext(reviewed.bestLine.prefix(variationPlies), from: reviewed.before) + ")"
                let end = k > nodeIndex + 1 ? syntax.nodes[k - 1].range.upperBound : moveNode.range.upperBound
                // After the comment we may have just added (same offset: edits keep their order).
                edits.append(Diagnostic.Edit(range: end..<end, text: variation))
            }
        }
        return edits
    }

    /// Moves in SAN with numbers, as a variation starting at `position` writes them.
    public static func movetext(_ moves: some Sequence<Move>, from position: Position) -> String {
        PGNWriter.movetext(moves, from: position)
    }

    /// Applies edits (game-relative, in any order, not overlapping but possibly at the same
    /// offset, kept in their given order there) to a text.
    public static func apply(_ edits: [Diagnostic.Edit], to bytes: [UInt8]) -> [UInt8] {
        let ordered = edits.enumerated().sorted {
            ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset)
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + edits.count * 24)
        var cursor = 0
        for (_, edit) in ordered {
            guard edit.range.lowerBound >= cursor else { continue }
            result += bytes[cursor..<edit.range.lowerBound]
            result += Array(edit.text.utf8)
            cursor = edit.range.upperBound
        }
        result += bytes[cursor...]
        return result
    }
}
