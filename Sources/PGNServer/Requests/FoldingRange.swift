import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Folding: games, tag sections, variations and comments that span lines. A client that
    /// keeps only so many (`rangeLimit`) gets the outermost first, in document order: every
    /// game before any tag section, and so on inward, as far as the limit reaches.
    func registerFoldingRanges() {
        server.capabilities.features["foldingRangeProvider"] = true
        server.registerRequest("textDocument/foldingRange", lane: .background) { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let games = analysis.games
            let limit = context.session.clientCapabilities.foldingRangeLimit
            // The folds counted of the games an edit left alone are taken from the last answer.
            let kept = limit == nil ? nil : keptFolds[document.uri]
            let alignment = GameAlignment(games, from: kept?.games)
            // Each game's folds read its movetext again: on every core, for the games that have
            // none yet (all of them the first time, the edited ones after an edit).
            analysis.makeOnEveryCore(among: alignment.unmatched, lacking: { !$0.derived.hasFolds }) { _ = $0.folds }
            var depth = (whole: Int.max - 1, partial: 0)
            if let limit {
                let counts = try KeptFolds(games, alignment, kept, context)
                keptFolds[document.uri] = counts
                depth = Self.foldDepth(counts.totals, limit: limit)
            }
            var left = depth.partial
            // Written as text: a 100 MB file has hundreds of thousands of folds.
            var text = JSONText(capacity: min(analysis.games.count * 100, 1 << 20))
            text.raw("[")
            var first = true
            for game in analysis.games {
                try context.checkCancellation()
                if depth.whole < 0 && left == 0 { break }
                let origin = document.lineIndex.line(containing: game.start)
                for fold in game.analysis.folds {
                    guard fold.depth <= depth.whole || (fold.depth == depth.whole + 1 && left > 0) else { continue }
                    if fold.depth > depth.whole { left -= 1 }
                    text.raw(first ? "{\"endLine\":" : ",{\"endLine\":")
                    first = false
                    text.integer(origin + fold.end)
                    if let kind = fold.kind {
                        text.raw(",\"kind\":")
                        text.string(kind)
                    }
                    text.raw(",\"startLine\":")
                    text.integer(origin + fold.start)
                    text.raw("}")
                }
            }
            text.raw("]")
            return text.json
        }
    }

    /// Which folds fit a client's limit, from how many there are at each depth: all those
    /// `whole` deep or less, and the first `partial` of the next depth (`whole` is -1 when not
    /// even every game's fold fits).
    static func foldDepth(_ counts: [Int], limit: Int) -> (whole: Int, partial: Int) {
        var taken = 0
        for (depth, count) in counts.enumerated() {
            if taken + count > limit { return (depth - 1, limit - taken) }
            taken += count
        }
        return (counts.count, 0)
    }

    /// How many folds each game of a document has at each depth, kept for the next version.
    struct KeptFolds: Sendable {
        var games: [PlacedGame]
        /// Each game's counts by depth, one game after the other.
        var counts: [Int32] = []
        /// Where each game's counts end in `counts`.
        var ends: [Int32] = []

        /// The counts of `games`, taken from `kept` for the games an edit left alone.
        init(_ games: [PlacedGame], _ alignment: GameAlignment, _ kept: KeptFolds?, _ context: RequestContext) throws {
            self.games = games
            counts.reserveCapacity(kept?.counts.count ?? games.count * 2)
            ends.reserveCapacity(games.count)
            for index in games.indices {
                if index % 1024 == 0 { try context.checkCancellation() }
                if let kept, let k = alignment.earlier[index] {
                    counts += kept.counts[(k == 0 ? 0 : Int(kept.ends[k - 1]))..<Int(kept.ends[k])]
                } else {
                    counts += games[index].analysis.foldCounts
                }
                ends.append(Int32(clamping: counts.count))
            }
        }

        /// The whole document's counts by depth.
        var totals: [Int] {
            var totals: [Int] = []
            var start = 0
            for end in ends {
                for (depth, count) in counts[start..<Int(end)].enumerated() {
                    if depth == totals.count { totals.append(0) }
                    totals[depth] += Int(count)
                }
                start = Int(end)
            }
            return totals
        }
    }
}

/// A fold of a game, in lines from the game's first line.
struct GameFold: Sendable {
    let start: Int
    let end: Int
    let kind: String?
    /// 0 for the game, 1 for its tag section and what lies in its mainline, one more for each
    /// enclosing variation.
    let depth: Int
}

extension GameAnalysis {
    /// How many of the game's folds are at each depth (kept for the next version in
    /// `KeptFolds`, not in the game).
    var foldCounts: [Int32] {
        var counts: [Int32] = []
        for fold in folds {
            while counts.count <= fold.depth { counts.append(0) }
            counts[fold.depth] += 1
        }
        return counts
    }

    /// The game's folds, in lines from its first line: the game (depth 0), its tag section
    /// (1), variations and comments that span lines (1 in the mainline, one more for each
    /// enclosing variation). Made once per game.
    var folds: [GameFold] {
        derived.folds {
            var folds: [GameFold] = []
            let starts = source.lineStarts  // made once: a game's are made at each use
            func fold(_ range: Range<Int>, kind: String?, depth: Int) {
                let start = SourceText.line(of: range.lowerBound, in: starts)
                let end = SourceText.line(of: max(range.lowerBound, range.upperBound - 1), in: starts)
                if end > start { folds.append(GameFold(start: start, end: end, kind: kind, depth: depth)) }
            }
            fold(0..<source.bytes.count, kind: "region", depth: 0)
            if let first = tags.first, let last = tags.last {
                fold(first.range.lowerBound..<last.range.upperBound, kind: "imports", depth: 1)
            }
            var open: [Int] = []
            for node in syntax.nodes {  // read once: `syntax` reads the movetext again
                switch node.kind {
                case .variationStart: open.append(node.range.lowerBound)
                case .variationEnd:
                    if let start = open.popLast() {
                        fold(start..<node.range.upperBound, kind: nil, depth: 1 + open.count)
                    }
                case .comment: fold(node.range, kind: "comment", depth: 1 + open.count)
                default: break
                }
            }
            return folds
        }
    }
}
