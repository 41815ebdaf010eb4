import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Document highlight: on a move, every move of the game to or from its destination square.
    func registerDocumentHighlight() {
        server.capabilities.features["documentHighlightProvider"] = true
        server.registerRequest("textDocument/documentHighlight") { [self] params, context in
            let (document, analysis, offset) = try await placeParams(params, context).parts
            guard let game = analysis.game(at: offset) else { return .null }
            let nodes = game.analysis.syntax.nodes
            guard let index = nodes.index(holding: offset - game.start, by: \.range),
                let move = game.analysis.move(atNode: index)
            else { return .null }
            let square = move.move.kingDestination
            var highlights: [JSONValue] = []
            for other in game.analysis.moves where other.depth == move.depth || other.node == move.node {
                let to = other.move.kingDestination
                let from = other.move.from
                guard to == square || from == square, !other.move.isNull else { continue }
                let node = nodes[other.node].range
                highlights.append([
                    "range": range(
                        node.shifted(by: game.start), document,
                        context.positionEncoding),
                    "kind": JSONValue(to == square ? DocumentHighlightKind.write : .read),
                ])
            }
            return .array(highlights)
        }
    }
}
