import LanguageServer

extension PGNLanguageServer {
    /// Every `pgn.*` command, listed once: `executeCommandProvider` announces these names,
    /// `workspace/executeCommand` dispatches to them, and docs/commands.md describes each (a
    /// test holds the two to the same names). Commands that act on games take the document
    /// URI, then a game index counted from 0 (what the code lenses send) or a position
    /// (`selectGames`).
    var builtInCommands: [ServerCommand] {
        [
            ServerCommand(
                "pgn.fixAll",
                summary:
                    "applies every safe quick fix of the document (none: a message and the answer say so); arguments: the URI"
            ) { [self] arguments, context in try await fixAll(arguments, context) },
            ServerCommand(
                "pgn.applyEdit",
                summary: "applies a code action's workspace edit, for a client that takes code actions as commands"
            ) { [self] arguments, context in
                guard let edit = arguments.first, edit["changes"]?.objectValue != nil else {
                    throw ResponseError(.invalidParams, "pgn.applyEdit takes a workspace edit")
                }
                _ = try await applyEdit("Apply the fix", edit, context)
                return .null
            },
            ServerCommand(
                "pgn.fillOpeningTags",
                summary:
                    "sets the `ECO` and `Opening` tags of one game to its opening; answers `{\"applied\", \"games\"}`"
            ) { [self] arguments, context in try await fillOpeningTags("pgn.fillOpeningTags", arguments, context) },
            ServerCommand(
                "pgn.fillAllOpeningTags",
                summary:
                    "sets the `ECO` and `Opening` tags of every game of the document; answers as `pgn.fillOpeningTags`"
            ) { [self] arguments, context in try await fillOpeningTags("pgn.fillAllOpeningTags", arguments, context) },
            ServerCommand(
                "pgn.reviewGame", reportsProgress: true,
                summary: "reviews one game with the engine; answers `[ReviewSummary]`"
            ) { [self] arguments, context in try await executeEngineCommand("pgn.reviewGame", arguments, context) },
            ServerCommand(
                "pgn.reviewFile", reportsProgress: true,
                summary: "reviews every game of the document; answers `[ReviewSummary]`"
            ) { [self] arguments, context in try await executeEngineCommand("pgn.reviewFile", arguments, context) },
            ServerCommand(
                "pgn.annotateGame", reportsProgress: true,
                summary: "reviews one game if needed and writes the review into it; answers `{\"applied\"}`"
            ) { [self] arguments, context in try await executeEngineCommand("pgn.annotateGame", arguments, context) },
            ServerCommand(
                "pgn.saveGame", reportsProgress: true,
                summary:
                    "saves one game (with moves or not) to the database; answers `{\"path\", \"stored\", \"duplicates\", \"refused\", \"changed\", \"incomplete\", \"ids\"}`"
            ) { [self] arguments, context in try await executeDatabaseCommand("pgn.saveGame", arguments, context) },
            ServerCommand(
                "pgn.saveAllGames", reportsProgress: true,
                summary: "saves every game of the document to the database; answers as `pgn.saveGame`"
            ) { [self] arguments, context in try await executeDatabaseCommand("pgn.saveAllGames", arguments, context) },
            ServerCommand(
                "pgn.goToRepertoireGap",
                summary:
                    "shows a repertoire game's biggest gap (its code lens's arguments: the URI and a position) through `window/showDocument`, else says where it is; answers `{\"shown\"}`"
            ) { [self] arguments, context in try await goToRepertoireGap(arguments, context) },
            ServerCommand(
                "pgn.setExplorerFilter",
                summary:
                    "sets which games the explorer counts, as the `explorer.*` settings do, until the settings change again; arguments: an object of `player`, `color`, `since`, `until`, `minElo`, `maxElo`, `speed` (those left out are cleared); answers `{\"filter\"}` in words"
            ) { [self] arguments, context in try await setExplorerFilter(arguments, context) },
            ServerCommand(
                "pgn.reviewRepertoire",
                summary:
                    "judges with the engine every move of the repertoire's side in every line of the document's repertoire games (`repertoire-mistake` warnings); arguments: the URI; answers `{\"moves\", \"errors\"}`"
            ) { [self] arguments, context in try await reviewRepertoire(arguments, context) },
            ServerCommand(
                "pgn.prepareRepertoireGap",
                summary:
                    "writes a repertoire gap's reply with the engine's answer to it (at `review.depth`) into the repertoire; arguments: the URI, the gap's position and its reply (`1... c5`); answers as `workspace/applyEdit`"
            ) { [self] arguments, context in try await prepareRepertoireGap(arguments, context) },
        ]
    }

    func registerCommands() {
        server.registerCommands(builtInCommands)
    }

    /// `pgn.fixAll`: the preferred fixes that do not overlap, applied through the client.
    private func fixAll(_ arguments: [JSONValue], _ context: RequestContext) async throws -> JSONValue {
        guard let uri = arguments.first?.stringValue ?? arguments.first?["uri"]?.stringValue else {
            throw ResponseError(.invalidParams, "pgn.fixAll takes the document URI")
        }
        let document = try context.document(uri)
        let edits = safeFixes(analyzer.analysis(of: document))
        guard !edits.isEmpty else {
            let message = Self.nothingToFix(uri)
            server.showMessage(.info, message)
            return .string(message)
        }
        _ = try await applyEdit(
            "Fix all safe problems", workspaceEdit(document, edits, context.positionEncoding), context)
        return .null
    }
}
