import Foundation
import GameStore
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Code lenses above each game with moves: "Review game", or after a review each player's
    /// accuracy and ACPL, the evaluation graph and "Annotate game with the review"; above a
    /// repertoire game, the share of the databases' games it answers and its biggest gap.
    func registerCodeLens() {
        server.capabilities.features["codeLensProvider"] = ["resolveProvider": false]
        server.registerRequest("textDocument/codeLens", lane: .background) { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let reviews = engines.storedReviews
            // Which games have moves, taken from the last answer for those an edit left alone.
            let games = analysis.games
            let kept = keptLenses[document.uri]
            let alignment = GameAlignment(games, from: kept?.games)
            var played: [Bool] = []
            played.reserveCapacity(games.count)
            // Games are read in place, by their fields: a copy of one would retain its analysis.
            for index in games.indices {
                if index % 1024 == 0 { try context.checkCancellation() }
                played.append(alignment.earlier[index].map { kept!.played[$0] } ?? games[index].analysis.hasPlayedMoves)
            }
            keptLenses[document.uri] = KeptLenses(games: games, played: played)
            // Written as text: a 100 MB file has 43,800 lenses, 8 MB of JSON at each keystroke.
            // The document's name is written once, and copied into each lens.
            var uriText = JSONText()
            uriText.string(document.uri)
            let uri = uriText.bytes
            var text = JSONText(capacity: min(games.count * (uri.count + 140), JSONText.pieceSize))
            text.raw("[")
            var first = true
            func lens(at start: LSPPosition, index: Int, title: String, command: StaticString) {
                text.raw(first ? "{\"command\":{\"arguments\":[" : ",{\"command\":{\"arguments\":[")
                first = false
                uri.withUnsafeBufferPointer { text.raw($0) }
                text.raw(",")
                text.integer(index)
                text.raw("],\"command\":\"")
                text.raw(command)
                text.raw("\",\"title\":")
                text.string(title)
                text.raw("},\"range\":")
                text.range(LSPRange(start: start, end: start))
                text.raw("}")
            }
            // Games are placed in document order, each line lookup going on from the one before.
            var line = 0
            for index in games.indices where played[index] {
                if index % 1024 == 0 { try context.checkCancellation() }
                let start = document.position(
                    of: games[index].start, encoding: context.positionEncoding, fromLine: &line)
                if !reviews.isEmpty, let stored = reviews[games[index].analysis.text] {
                    let review = stored.review
                    let title = "\(review.playerText(of: .white))  |  \(review.playerText(of: .black))"
                    lens(at: start, index: index, title: title, command: "pgn.reviewGame")
                    // White's chances move by move, as a line of blocks.
                    let graph = ReviewGraph.sparkline(review)
                    if !graph.isEmpty { lens(at: start, index: index, title: graph, command: "pgn.reviewGame") }
                    lens(at: start, index: index, title: "Annotate game with the review", command: "pgn.annotateGame")
                } else {
                    lens(at: start, index: index, title: "Review game", command: "pgn.reviewGame")
                }
                text.endPieceIfFull()
            }
            // A repertoire game's check by the engine, its coverage, and its biggest gap to go to.
            func repertoireLens(_ game: Int, _ title: String, _ command: String, _ arguments: [JSONValue]) {
                let start = document.position(of: games[game].start, encoding: context.positionEncoding)
                text.raw(first ? "{\"command\":" : ",{\"command\":")
                first = false
                text.value(["title": .string(title), "command": .string(command), "arguments": .array(arguments)])
                text.raw(",\"range\":")
                text.range(LSPRange(start: start, end: start))
                text.raw("}")
            }
            for index in analysis.repertoireGames {
                repertoireLens(
                    index, "Check the repertoire with the engine", "pgn.reviewRepertoire", [.string(document.uri)])
            }
            if !analysis.repertoireGames.isEmpty {
                let findings = await repertoireFindings(analysis, document, context.session)
                for coverage in findings.coverage {
                    var title =
                        "Repertoire: \(Figures.percent(coverage.share)) of \(Figures.grouped(coverage.games)) games answered"
                    var arguments: [JSONValue] = [.string(document.uri)]
                    if let biggest = coverage.biggest {
                        title += " · biggest gap \(biggest.move) (\(Figures.grouped(biggest.games)))"
                        let place = document.position(of: biggest.range.lowerBound, encoding: context.positionEncoding)
                        arguments.append(["line": .integer(place.line), "character": .integer(place.character)])
                    }
                    repertoireLens(coverage.game, title, "pgn.goToRepertoireGap", arguments)
                }
            }
            text.raw("]")
            return text.json
        }
    }

    /// Which games of a document have moves (a lens each), kept for the next version.
    struct KeptLenses: Sendable {
        var games: [PlacedGame]
        var played: [Bool]
    }
}
