import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Players, events and openings across the open documents and the workspace's `.pgn` files
    /// (at most 1,000; read one file at a time, `WorkspaceDocuments`); with a query `fen:…`, the
    /// games that reach that position (`PositionSymbols.swift`).
    func registerWorkspaceSymbols() {
        server.capabilities.features["workspaceSymbolProvider"] = true
        server.registerRequest("workspace/symbol", staleOnEdit: false) { [self] params, context in
            let raw = params["query"]?.stringValue ?? ""
            if let fen = Self.fenQuery(raw) { return try await positionSymbols(fen, context) }
            let query = raw.lowercased()
            var results: [JSONValue] = []
            var documents = workspaceDocuments(context)
            defer { logWorkspaceNotes(documents.notes, of: context.method) }
            while results.count < 1_000, let document = try documents.next() {
                // Each name once in a document, matched or not: most games of a file repeat names.
                var seen: [SymbolKind: Set<String>] = [:]
                try documents.forEachGame(of: document) { game in
                    let replay = game.replay
                    let entries: [(String, SymbolKind)] = [
                        (replay.tagValue("White") ?? "", .variable), (replay.tagValue("Black") ?? "", .variable),
                        (replay.tagValue("Event") ?? "", .event), (replay.tagValue("Opening") ?? "", .function),
                        (replay.tagValue("ECO") ?? "", .function),
                    ]
                    for (name, kind) in entries where !name.isEmpty && name != "?" {
                        guard seen[kind, default: []].insert(name).inserted else { continue }
                        guard query.isEmpty || name.lowercased().contains(query) else { continue }
                        results.append([
                            "name": .string(name), "kind": JSONValue(kind),
                            "containerName": .string(Self.gameName(replay, index: game.index)),
                            "location": [
                                "uri": .string(document.uri),
                                "range": game.range(game.extent, context.positionEncoding),
                            ],
                        ])
                        if results.count >= 1_000 { return false }
                    }
                    return true
                }
            }
            return .array(results)
        }
    }
}
