import ChessCore
import Engine
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

extension PGNLanguageServer {
    /// The code action that prepares a gap's reply with the engine's answer to it, beside the
    /// quick fix that takes the databases' most played answer.
    func engineGapActions(
        _ findings: RepertoireFindings, touching: (Range<Int>) -> Bool, _ document: Document,
        _ encoding: PositionEncoding
    ) -> [JSONValue] {
        findings.plans.filter { touching($0.range) }.map { plan in
            let start = document.range(of: plan.range, encoding: encoding).start
            let title = "Prepare \(plan.reply) with the engine's answer"
            return [
                "title": .string(title), "kind": "quickfix",
                "command": [
                    "title": .string(title), "command": "pgn.prepareRepertoireGap",
                    "arguments": [
                        .string(document.uri), ["line": .integer(start.line), "character": .integer(start.character)],
                        .string(plan.reply),
                    ],
                ],
            ]
        }
    }

    /// `pgn.prepareRepertoireGap`: the engine's answer to a gap's reply (at `review.depth` or
    /// `review.movetime`), written with the reply into the repertoire through the client.
    func prepareRepertoireGap(_ arguments: [JSONValue], _ context: RequestContext) async throws -> JSONValue {
        guard arguments.count == 3, let uri = arguments[0].stringValue, let line = arguments[1]["line"]?.intValue,
            let character = arguments[1]["character"]?.intValue, let reply = arguments[2].stringValue
        else {
            throw ResponseError(
                .invalidParams, "pgn.prepareRepertoireGap takes the document URI, the gap's position and its reply")
        }
        let document = try context.document(uri)
        let analysis = await analyzer.analysis(sharing: document)
        let findings = await repertoireFindings(analysis, document, context.session)
        let offset = document.offset(
            of: LSPPosition(line: line, character: character), encoding: context.positionEncoding)
        guard let plan = findings.plans.first(where: { $0.range.lowerBound == offset && $0.reply == reply }) else {
            throw ResponseError(.invalidParams, "the repertoire has no gap \(reply) there any more")
        }
        let settings = currentSettings
        let analysed: PositionAnalysis?
        do {
            analysed = try await engines.pool(settings).analyse(plan.after, limit: settings.reviewLimit)
        } catch {
            throw ResponseError(.requestFailed, "the engine could not answer \(reply): \(error)")
        }
        guard let best = analysed?.bestMove ?? analysed?.best?.moves.first else {
            throw ResponseError(.requestFailed, "the engine gave no move after \(reply)")
        }
        let text = plan.reply + " " + GapPlan.answer(best, in: plan.after)
        return try await applyEdit(
            "Prepare \(reply)", workspaceEdit(document, [plan.edit(text)], context.positionEncoding), context)
    }
}
