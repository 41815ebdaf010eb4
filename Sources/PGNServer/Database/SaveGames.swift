import Dispatch
import Foundation
import GameStore
import LanguageServer
import PGN

extension PGNLanguageServer {

    /// Where games are saved: `pgn.database.path` (absolute, `~/…`, or relative to the first
    /// workspace folder), else `games.ocgdb.db3` in the first workspace folder, else beside
    /// the document. A setting with a NUL character is refused.
    func databasePath(for uri: DocumentURI, _ context: RequestContext) throws -> String {
        try databasePath(for: uri, context.session)
    }

    func databasePath(for uri: DocumentURI, _ session: Session) throws -> String {
        let setting = currentSettings.databasePath
        return try resolveDatabasePath(setting.isEmpty ? "games.ocgdb.db3" : setting, for: uri, session)
    }

    /// A database path of the settings: absolute, `~/…`, or relative to the first workspace
    /// folder (else to the document's folder). A path with a NUL character is refused.
    func resolveDatabasePath(_ setting: String, for uri: DocumentURI, _ context: RequestContext) throws -> String {
        try resolveDatabasePath(setting, for: uri, context.session)
    }

    func resolveDatabasePath(_ setting: String, for uri: DocumentURI, _ session: Session) throws -> String {
        // A file name ends at a NUL character: the file opened would be another one.
        if setting.utf8.contains(0) {
            throw ResponseError(
                .invalidParams,
                "a database path of the settings (pgn.database.path, pgn.database.references) holds a NUL character: no file name can hold one; change the setting"
            )
        }
        if setting.hasPrefix("/") { return setting }
        if setting.hasPrefix("~/") {
            return FileSystem.home.appendingPathComponent(String(setting.dropFirst(2))).path
        }
        let folder =
            workspaceRoots(session).first
            ?? URL(string: uri).flatMap { $0.isFileURL ? $0.deletingLastPathComponent() : nil }
        guard let folder else {
            throw ResponseError(
                .invalidParams,
                "\(uri) is not a file in a folder and there is no workspace folder: set pgn.database.path")
        }
        return folder.appendingPathComponent(setting).path
    }

    /// The code actions that save games: the game under the cursor, and every game (`source`).
    func databaseActions(
        _ document: Document, _ analysis: DocumentAnalysis, at offset: Int, allowed: (String) -> Bool
    )
        -> [JSONValue]
    {
        var actions: [JSONValue] = []
        let uri = JSONValue.string(document.uri)
        if allowed("source.saveGame.pgn"), let index = analysis.gameIndex(at: offset) {
            actions.append([
                "title": "Save game to database", "kind": "source.saveGame.pgn",
                "command": [
                    "title": "Save game to database", "command": "pgn.saveGame", "arguments": [uri, .integer(index)],
                ],
            ])
        }
        if allowed("source.saveAllGames.pgn"), !analysis.games.isEmpty {
            actions.append([
                "title": "Save all games in the file to database", "kind": "source.saveAllGames.pgn",
                "command": [
                    "title": "Save all games in the file to database", "command": "pgn.saveAllGames",
                    "arguments": [uri],
                ],
            ])
        }
        return actions
    }

    /// `pgn.saveGame` (the game at an index or a position) and `pgn.saveAllGames`.
    func executeDatabaseCommand(
        _ name: String, _ arguments: [JSONValue], _ context: RequestContext
    ) async throws
        -> JSONValue
    {
        let (document, analysis, selected) = try selectGames(
            name, arguments, context, allGames: name == "pgn.saveAllGames", withoutMoves: true)
        let path = try databasePath(for: document.uri, context)
        let sources = selected.map { GameSource(bytes: analysis.games[$0].analysis.source.bytes, index: $0) }
        let token =
            context.session.clientCapabilities.supportsWorkDoneProgress && sources.count > 1
            ? "pgn-lsp-\(UUID().uuidString)" : nil
        let progress = await Progress.begin(
            server, token: token,
            title: "Saving \(sources.count) games to \(URL(fileURLWithPath: path).lastPathComponent)")
        let options = GameDatabase.Options(moves: currentSettings.databaseMoves)
        let outcome: Result<StoreReport, any Error> = await withCheckedContinuation { continuation in
            // SQLite waits for locks by sleeping: off the concurrency pool.
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result {
                        let database = try GameDatabase(path: path, options: options)
                        return try database.store(games: sources) { done, total in
                            progress.report(done: done, of: total, "games")
                        }
                    })
            }
        }
        switch outcome {
        case .success(let report):
            let message = Self.saveMessage(report, path: path)
            progress.end(message)
            server.showMessage(
                report.refused.isEmpty && report.incomplete == 0 ? .info : .warning, "pgn-lsp: \(message)")
            return [
                "path": .string(path), "stored": .integer(report.stored), "duplicates": .integer(report.duplicates),
                "refused": .array(report.refused.map { .string($0.description) }),
                "changed": .array(report.changed.map { .string($0.description) }),
                "incomplete": .integer(report.incomplete),
                "ids": .array(report.storedIDs.map { .integer(Int($0)) }),
            ]
        case .failure(let error):
            let message = "Nothing saved: \(error)"
            progress.end(message)
            server.showMessage(.error, "pgn-lsp: \(message)")
            throw ResponseError(.requestFailed, message)
        }
    }

    /// "Saved 438 games to FILE (2 with changes: game 7, null move 25...-- in a variation: the
    /// variation kept as a comment from there; …), 3 already in the database, 1 refused: game
    /// 12, unsupported variant "Crazyhouse"", as `import` says it.
    static func saveMessage(_ report: StoreReport, path: String) -> String {
        var saved = "Saved \(report.stored) game\(report.stored == 1 ? "" : "s") to \(path)"
        if !report.changed.isEmpty {
            let incomplete = report.incomplete > 0 ? ", \(report.incomplete) of them incomplete" : ""
            let shown = report.changed.prefix(3).map(\.description).joined(separator: "; ")
            let more = report.changed.count > 3 ? "; …" : ""
            saved += " (\(report.changed.count) with changes\(incomplete): \(shown)\(more))"
        }
        var parts = [saved]
        if report.duplicates > 0 { parts.append("\(report.duplicates) already in the database") }
        if !report.refused.isEmpty {
            let shown = report.refused.prefix(3).map(\.description).joined(separator: "; ")
            let more = report.refused.count > 3 ? "; …" : ""
            parts.append("\(report.refused.count) refused: \(shown)\(more)")
        }
        return parts.joined(separator: ", ")
    }
}
