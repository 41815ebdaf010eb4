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
            // Which games have moves, taken from the last answer for those an edit left alone.
            let games = analysis.games
            let kept = keptLenses[document.uri]
            let alignment = kept.map { GameAlignment(games, from: $0.games) } ?? GameAlignment(games)
            var played: [Bool] = []
            played.reserveCapacity(games.count)
            // Games are read in place, by their fields: a copy of one would retain its analysis.
            for index in games.indices {
                if index % 1024 == 0 { try context.checkCancellation() }
                played.append(alignment.earlier[index].map { kept!.played[$0] } ?? games[index].analysis.hasPlayedMoves)
            }
            keptLenses[document.uri] = KeptLenses(games: games, played: played)
            var lenses = LensList(uri: document.uri)
            // Games are placed in document order, each line lookup going on from the one before.
            var line = 0
            for index in games.indices where played[index] {
                if index % 1024 == 0 { try context.checkCancellation() }
                let start = document.position(
                    of: games[index].start, encoding: context.positionEncoding, fromLine: &line)
                if !reviews.isEmpty, let stored = reviews[games[index].analysis.text] {
                    let review = stored.review
                    let title = "\(review.playerText(of: .white))  |  \(review.playerText(of: .black))"
                    lenses.append(at: start, index: index, title: title, command: .review)
                    // White's chances move by move, as a line of blocks.
                    let graph = ReviewGraph.sparkline(review)
                    if !graph.isEmpty { lenses.append(at: start, index: index, title: graph, command: .review) }
                    lenses.append(at: start, index: index, title: "Annotate game with the review", command: .annotate)
                } else {
                    lenses.append(at: start, index: index, title: nil, command: .review)
                }
            }
            return lenses.json
        }
    }

    /// A document's code lenses: a 100 MB file has 43,800, 8 MB of JSON at each keystroke.
    struct LensList {
        enum Command: UInt8 {
            case review
            case annotate

            var name: StaticString {
                switch self {
                case .review: "pgn.reviewGame"
                case .annotate: "pgn.annotateGame"
                }
            }
        }

        private struct Lens {
            var index: Int32
            var line: Int32
            var character: Int32
            /// In `titles`: 0 for "Review game".
            var title: Int32
            var command: Command
        }

        /// The document's name as JSON, copied into each lens.
        private let uri: [UInt8]
        private var lenses: [Lens] = []
        /// The titles as JSON.
        private var titles: [[UInt8]] = [Self.text { $0.string("Review game") }]

        init(uri: String) { self.uri = Self.text { $0.string(uri) } }

        private static func text(_ write: (inout JSONText) -> Void) -> [UInt8] {
            var text = JSONText()
            write(&text)
            return text.bytes
        }

        /// A lens at `start` for game `index`; a nil title is "Review game".
        mutating func append(at start: LSPPosition, index: Int, title: String?, command: Command) {
            var number: Int32 = 0
            if let title {
                number = Int32(titles.count)
                titles.append(Self.text { $0.string(title) })
            }
            lenses.append(
                Lens(
                    index: Int32(clamping: index), line: Int32(clamping: start.line),
                    character: Int32(clamping: start.character), title: number, command: command))
        }

        private func write(_ lens: Lens, to text: inout JSONText) {
            text.raw("{\"command\":{\"arguments\":[")
            uri.withUnsafeBufferPointer { text.raw($0) }
            text.raw(",")
            text.integer(Int(lens.index))
            text.raw("],\"command\":\"")
            text.raw(lens.command.name)
            text.raw("\",\"title\":")
            titles[Int(lens.title)].withUnsafeBufferPointer { text.raw($0) }
            text.raw("},\"range\":")
            let at = LSPPosition(line: Int(lens.line), character: Int(lens.character))
            text.range(LSPRange(start: at, end: at))
            text.raw("}")
        }

        /// The JSON array of the lenses, written here in pieces: not as the client reads it
        /// (`JSONValue.stream`), which the one writer would do while the answers sent after
        /// it (pulled diagnostics, a tokens delta) wait for its 8 MB at 100 MB.
        var json: JSONValue {
            var text = JSONText(capacity: min(lenses.count * (uri.count + 140), JSONText.pieceSize))
            text.raw("[")
            for (k, lens) in lenses.enumerated() {
                if k > 0 { text.raw(",") }
                write(lens, to: &text)
                text.endPieceIfFull()
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
