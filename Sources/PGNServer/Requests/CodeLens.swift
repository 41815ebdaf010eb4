import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Code lenses above each game with moves: "Review game", or after a review each player's
    /// accuracy and ACPL, the evaluation graph and "Annotate game with the review".
    func registerCodeLens() {
        server.capabilities.features["codeLensProvider"] = ["resolveProvider": false]
        server.registerRequest("textDocument/codeLens", wholeDocument: true) { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let reviews = engines.storedReviews
            // Written as text: a 100 MB file has tens of thousands of games, each with its lens.
            var lenses: [(at: LSPRange, index: Int, title: String, command: String)] = []
            // Games are placed in document order, each line lookup going on from the one before.
            var line = 0
            for (index, game) in analysis.games.enumerated() where game.analysis.hasPlayedMoves {
                if index % 1024 == 0 { try context.checkCancellation() }
                let start = document.position(of: game.start, encoding: context.positionEncoding, fromLine: &line)
                let at = LSPRange(start: start, end: start)
                if let stored = reviews[game.analysis.text] {
                    let review = stored.review
                    let title = "\(review.playerText(of: .white))  |  \(review.playerText(of: .black))"
                    lenses.append((at, index, title, "pgn.reviewGame"))
                    // White's chances move by move, as a line of blocks.
                    let graph = ReviewGraph.sparkline(review)
                    if !graph.isEmpty { lenses.append((at, index, graph, "pgn.reviewGame")) }
                    lenses.append((at, index, "Annotate game with the review", "pgn.annotateGame"))
                } else {
                    lenses.append((at, index, "Review game", "pgn.reviewGame"))
                }
            }
            var text = JSONText(capacity: min(lenses.count * (document.uri.utf8.count + 200), JSONText.pieceSize))
            text.array(lenses) { text, lens in
                text.raw("{\"command\":{\"arguments\":[")
                text.string(document.uri)
                text.raw(",")
                text.integer(lens.index)
                text.raw("],\"command\":")
                text.string(lens.command)
                text.raw(",\"title\":")
                text.string(lens.title)
                text.raw("},\"range\":")
                text.range(lens.at)
                text.raw("}")
                text.endPieceIfFull()
            }
            return text.json
        }
    }
}
