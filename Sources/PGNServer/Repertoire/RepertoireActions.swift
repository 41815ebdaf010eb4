import ChessCore
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// The code actions "Mark as White's repertoire" and "Mark as Black's repertoire" for the
    /// game at `offset` when its tags name no side and it looks like one (variations, or no
    /// players named): each writes the `Orientation` tag (En Croissant's) after its last tag.
    func repertoireActions(
        _ document: Document, _ analysis: DocumentAnalysis, at offset: Int, _ encoding: PositionEncoding
    ) -> [JSONValue] {
        guard let placed = analysis.game(at: offset), placed.analysis.repertoireSide == nil else { return [] }
        let game = placed.analysis
        let named = ["White", "Black"].contains { name in
            game.tagReplay.tagValue(name).map { !$0.isEmpty && $0 != "?" } ?? false
        }
        guard !named || game.syntax.nodes.contains(where: { $0.kind == .variationStart }) else { return [] }
        let edit: (String) -> Diagnostic.Edit
        if let last = game.tags.last {
            let at = last.range.upperBound + placed.start
            edit = { Diagnostic.Edit(range: at..<at, text: "\n[Orientation \"\($0)\"]") }
        } else {
            let at = placed.start
            edit = { Diagnostic.Edit(range: at..<at, text: "[Orientation \"\($0)\"]\n\n") }
        }
        return [Color.white, .black].map { side in
            let name = side == .white ? "white" : "black"
            return [
                "title": .string("Mark as \(side)'s repertoire"), "kind": "refactor.rewrite",
                "edit": workspaceEdit(document, [edit(name)], encoding),
            ]
        }
    }
}

extension PGNLanguageServer {
    /// `pgn.goToRepertoireGap`: the editor shows the place its code lens names (a client that
    /// takes `window/showDocument`), else a message says where it is.
    func goToRepertoireGap(_ arguments: [JSONValue], _ context: RequestContext) async throws -> JSONValue {
        guard let uri = arguments.first?.stringValue else {
            throw ResponseError(.invalidParams, "pgn.goToRepertoireGap takes the document URI and a position")
        }
        guard let line = arguments.dropFirst().first?["line"]?.intValue,
            let character = arguments.dropFirst().first?["character"]?.intValue
        else {
            server.showMessage(.info, "The repertoire has no gap against the databases")
            return ["shown": false]
        }
        let place: JSONValue = ["line": .integer(line), "character": .integer(character)]
        if context.session.clientCapabilities.value(at: "window", "showDocument", "support")?.boolValue == true {
            let answer = try? await server.sendRequest(
                "window/showDocument",
                params: ["uri": .string(uri), "takeFocus": true, "selection": ["start": place, "end": place]])
            if answer?["success"]?.boolValue == true { return ["shown": true] }
        }
        server.showMessage(.info, "The biggest gap of the repertoire is at line \(line + 1), column \(character + 1)")
        return ["shown": false]
    }
}
