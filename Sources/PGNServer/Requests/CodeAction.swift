import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Quick fixes attached to diagnostics, and `source.fixAll` for the safe ones.
    func registerCodeActions() {
        server.capabilities.features["codeActionProvider"] = [
            "codeActionKinds": [
                "quickfix", "source.fixAll", "source.fixAll.pgn", "refactor.rewrite", "source.saveGame.pgn",
                "source.saveAllGames.pgn",
                .string(Self.fillOpeningTagsKind),
            ],
            "resolveProvider": false,
        ]
        server.registerRequest("textDocument/codeAction") { [self] params, context in
            let (document, analysis, wanted) = try await rangeParams(params, context).parts
            let encoding = context.positionEncoding
            let only = params["context"]?["only"]?.arrayValue?.compactMap(\.stringValue)
            func allowed(_ kind: String) -> Bool { only.map { $0.contains { kind.hasPrefix($0) } } ?? true }
            let settings = currentSettings
            var actions: [JSONValue] = []
            var engineFixes: [JSONValue] = []
            if allowed("quickfix") {
                func touches(_ r: Range<Int>) -> Bool {
                    r.overlaps(wanted) || r.contains(wanted.lowerBound) || r.upperBound == wanted.lowerBound
                        || (wanted.isEmpty && r.lowerBound == wanted.lowerBound)
                }
                var fixed: [(Diagnostic, JSONValue)] = []
                for diagnostic in analysis.diagnostics where settings.wants(diagnostic) && touches(diagnostic.range) {
                    fixed.append((diagnostic, lspDiagnostic(diagnostic, document, encoding)))
                }
                let repertoire = await repertoireFindings(analysis, document, context.session)
                for diagnostic in repertoire.diagnostics where settings.wants(diagnostic) && touches(diagnostic.range) {
                    fixed.append((diagnostic, lspDiagnostic(diagnostic, document, encoding)))
                }
                if settings.repertoireGaps {
                    engineFixes = engineGapActions(repertoire, touching: touches, document, encoding)
                }
                var merges: [JSONValue] = []
                for twin in elsewhereTwins(analysis, context.documents) where touches(twin.diagnostic.range) {
                    let lsp = lspDiagnostic(twin, document, encoding)
                    fixed.append((twin.diagnostic, lsp))
                    if let merge = mergeAction(twin, diagnostic: lsp, document, analysis, context) {
                        merges.append(merge)
                    }
                }
                for (diagnostic, lsp) in fixed {
                    for fix in diagnostic.fixes {
                        actions.append([
                            "title": .string(fix.title), "kind": "quickfix", "isPreferred": .bool(fix.isPreferred),
                            "diagnostics": [lsp], "edit": workspaceEdit(document, fix.edits, encoding),
                        ])
                    }
                }
                actions += merges
                actions += engineFixes
            }
            if allowed("refactor.rewrite"), let index = analysis.gameIndex(at: wanted.lowerBound),
                case let game = analysis.games[index], game.analysis.hasPlayedMoves
            {
                let arguments: JSONValue = [.string(document.uri), .integer(index)]
                let stored = engines.review(of: game.analysis.text)
                if context.session.clientCapabilities.supportsApplyEdit {
                    actions.append([
                        "title": .string(stored != nil ? "Annotate game with the review" : "Review and annotate game"),
                        "kind": "refactor.rewrite",
                        "command": [
                            "title": "Annotate game with the review", "command": "pgn.annotateGame",
                            "arguments": arguments,
                        ],
                    ])
                } else if let stored {
                    // A client that cannot be sent an edit (Vim's ALE) gets the annotation in the action.
                    actions.append([
                        "title": "Annotate game with the review", "kind": "refactor.rewrite",
                        "edit": workspaceEdit(document, annotationEdits(stored, game), encoding),
                    ])
                } else {
                    actions.append([
                        "title": "Review game", "kind": "refactor.rewrite",
                        "command": ["title": "Review game", "command": "pgn.reviewGame", "arguments": arguments],
                    ])
                }
            }
            if allowed("refactor.rewrite") {
                actions += await noveltyActions(document, analysis, at: wanted.lowerBound, context)
                actions += repertoireActions(document, analysis, at: wanted.lowerBound, encoding)
            }
            actions += databaseActions(document, analysis, at: wanted.lowerBound, allowed: allowed)
            if allowed(Self.fillOpeningTagsKind) {
                actions += openingTagActions(document, analysis, at: wanted.lowerBound, encoding)
            }
            if allowed("source.fixAll") {
                let edits = safeFixes(analysis)
                if !edits.isEmpty {
                    actions.append([
                        "title": .string("Fix all safe problems (\(edits.count))"), "kind": "source.fixAll.pgn",
                        "edit": workspaceEdit(document, edits, encoding),
                    ])
                } else if only?.contains(where: { $0.hasPrefix("source.fixAll") }) == true,
                    params["context"]?["triggerKind"]?.intValue != 2
                {
                    // Asked for by the user (not on save, `triggerKind` 2): say why nothing comes.
                    server.showMessage(.info, Self.nothingToFix(document.uri))
                }
            }
            guard context.session.clientCapabilities.supportsCodeActionLiterals else {
                return .array(actions.compactMap { Self.command(for: $0, context.session.clientCapabilities) })
            }
            return .array(actions)
        }
    }

    /// A code action as a `Command`, for a client that takes no `CodeAction` literals: its
    /// command, or `pgn.applyEdit` with its edit where the client can apply edits; nil otherwise.
    static func command(for action: JSONValue, _ capabilities: ClientCapabilities) -> JSONValue? {
        if let command = action["command"] { return command }
        guard let edit = action["edit"], capabilities.supportsApplyEdit else { return nil }
        return ["title": action["title"] ?? "", "command": "pgn.applyEdit", "arguments": [edit]]
    }

    /// What the user is told when a file has nothing that can be fixed safely.
    static func nothingToFix(_ uri: DocumentURI) -> String {
        "pgn-lsp: nothing to fix safely in \(FileURI.name(uri)) (the other problems need a decision: see their quick fixes)"
    }

    /// Has the client apply `edit`. A client that cannot (no `workspace.applyEdit`) gets an
    /// error that says what was not applied.
    func applyEdit(_ label: String, _ edit: JSONValue, _ context: RequestContext) async throws -> JSONValue {
        guard context.session.clientCapabilities.supportsApplyEdit else {
            let message = "\(label): this editor cannot apply edits from the server; nothing was changed"
            // Some clients show no error answer to a command: the message says it too.
            server.showMessage(.warning, "pgn-lsp: \(message)")
            throw ResponseError(.requestFailed, message)
        }
        return try await server.sendRequest("workspace/applyEdit", params: ["label": .string(label), "edit": edit])
    }

    /// The edits of every preferred fix, leaving out those that overlap an earlier one.
    func safeFixes(_ analysis: DocumentAnalysis) -> [Diagnostic.Edit] {
        let settings = currentSettings
        var edits: [Diagnostic.Edit] = []
        for diagnostic in analysis.diagnostics where settings.wants(diagnostic) {
            guard let fix = diagnostic.fixes.first(where: \.isPreferred) else { continue }
            let overlaps = fix.edits.contains { edit in
                edits.contains {
                    $0.range.overlaps(edit.range) || ($0.range.isEmpty && $0.range.lowerBound == edit.range.lowerBound)
                }
            }
            if !overlaps { edits += fix.edits }
        }
        return edits
    }

    func workspaceEdit(_ document: Document, _ edits: [Diagnostic.Edit], _ encoding: PositionEncoding) -> JSONValue {
        [
            "changes": [
                document.uri: .array(
                    edits.map { ["range": range($0.range, document, encoding), "newText": .string($0.text)] })
            ]
        ]
    }
}
