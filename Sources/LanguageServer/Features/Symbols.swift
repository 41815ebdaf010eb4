import Foundation
import PGN

extension PGNLanguageServer {
    /// The name of a game as a player reads it: `Carlsen – Nepomniachtchi, 1-0 (World
    /// Championship 2021, round 6)`.
    static func gameName(_ replay: GameReplay, index: Int) -> String {
        func tag(_ name: String) -> String? {
            guard let value = replay.tagValue(name), !value.isEmpty, value != "?", value != "-" else { return nil }
            return value
        }
        var name = "\(tag("White") ?? "?") – \(tag("Black") ?? "?")"
        if let result = tag("Result"), result != "*" { name += ", \(result)" }
        var details: [String] = []
        if let event = tag("Event") { details.append(event) }
        if let round = tag("Round") { details.append("round \(round)") }
        if !details.isEmpty { name += " (\(details.joined(separator: ", ")))" }
        if tag("White") == nil && tag("Black") == nil && details.isEmpty { name = "Game \(index + 1)" }
        return name
    }

    func registerDocumentSymbols() {
        server.capabilities.features["documentSymbolProvider"] = true
        server.registerRequest("textDocument/documentSymbol") { [self] params, context in
            let (document, analysis) = try analysis(params, context)
            let encoding = context.positionEncoding
            // A client without hierarchical symbols takes `SymbolInformation[]`: the games alone.
            let hierarchical = context.session.clientCapabilities.supportsHierarchicalSymbols
            var symbols: [JSONValue] = []
            for (index, game) in analysis.games.enumerated() {
                try context.checkCancellation()
                let a = game.analysis
                let replay = a.gameReplay
                guard hierarchical else {
                    symbols.append([
                        "name": .string(Self.gameName(replay, index: index)), "kind": 5,
                        "location": ["uri": .string(document.uri), "range": range(game.range, document, encoding)],
                    ])
                    continue
                }
                func shifted(_ r: Range<Int>) -> Range<Int> {
                    (r.lowerBound + game.start)..<(r.upperBound + game.start)
                }
                var children: [JSONValue] = a.syntax.tags.map { tag in
                    let name = a.source.string(tag.nameRange)
                    return [
                        "name": .string(name), "detail": .string(replay.value(of: tag) ?? ""), "kind": 7,
                        "range": range(shifted(tag.range), document, encoding),
                        "selectionRange": range(shifted(tag.nameRange), document, encoding),
                    ]
                }
                let mainline = a.moves.filter { $0.depth == 0 }
                if let first = a.syntax.nodes.first {
                    let movetext =
                        first.range.lowerBound..<(a.syntax.nodes.last?.range.upperBound ?? first.range.upperBound)
                    let moves = (mainline.count + 1) / 2
                    children.append([
                        "name": "Moves", "detail": .string("\(moves) move\(moves == 1 ? "" : "s")"), "kind": 2,
                        "range": range(shifted(movetext), document, encoding),
                        "selectionRange": range(shifted(first.range), document, encoding),
                        "children": .array(
                            mainline.map { move in
                                let node = a.syntax.nodes[move.node].range
                                let number = "\(move.before.fullmoveNumber)\(move.before.turn == .white ? "." : "...")"
                                return [
                                    "name": .string("\(number) \(move.before.san(move.move))"), "kind": 6,
                                    "range": range(shifted(node), document, encoding),
                                    "selectionRange": range(shifted(node), document, encoding),
                                ]
                            }),
                    ])
                }
                symbols.append([
                    "name": .string(Self.gameName(replay, index: index)), "kind": 5,
                    "detail": .string(replay.tagValue("Date") ?? ""),
                    "range": range(game.range, document, encoding),
                    "selectionRange": range(shifted(a.syntax.tags.first?.range ?? a.syntax.range), document, encoding),
                    "children": .array(children),
                ])
            }
            return .array(symbols)
        }
    }

    /// Players, events and openings across the open documents and the workspace's `.pgn` files.
    func registerWorkspaceSymbols() {
        server.capabilities.features["workspaceSymbolProvider"] = true
        server.registerRequest("workspace/symbol", staleOnEdit: false) { [self] params, context in
            let query = (params["query"]?.stringValue ?? "").lowercased()
            var results: [JSONValue] = []
            var seen = Set<String>()
            var documents: [Document] = context.documents.uris.compactMap { context.documents[$0] }
            let open = Set(documents.map(\.uri))
            for url in workspaceFiles(context) where !open.contains(url.absoluteString) {
                guard let data = try? Data(contentsOf: url), data.count < 64 << 20 else { continue }
                documents.append(
                    Document(uri: url.absoluteString, version: 0, text: String(decoding: data, as: UTF8.self)))
            }
            for document in documents {
                try context.checkCancellation()
                let analysis = analyzer.analysis(of: document)
                for (index, game) in analysis.games.enumerated() {
                    let replay = game.analysis.gameReplay
                    let entries: [(String, Int)] = [
                        (replay.tagValue("White") ?? "", 13), (replay.tagValue("Black") ?? "", 13),
                        (replay.tagValue("Event") ?? "", 24), (replay.tagValue("Opening") ?? "", 12),
                        (replay.tagValue("ECO") ?? "", 12),
                    ]
                    for (name, kind) in entries where !name.isEmpty && name != "?" {
                        guard query.isEmpty || name.lowercased().contains(query) else { continue }
                        let key = "\(document.uri)|\(name)|\(kind)"
                        guard !seen.contains(key) else { continue }
                        seen.insert(key)
                        results.append([
                            "name": .string(name), "kind": .integer(kind),
                            "containerName": .string(Self.gameName(replay, index: index)),
                            "location": [
                                "uri": .string(document.uri),
                                "range": range(game.range, document, context.positionEncoding),
                            ],
                        ])
                        if results.count >= 1_000 { return .array(results) }
                    }
                }
            }
            return .array(results)
        }
    }

    /// The workspace folders (or the root) the client named, as file URLs.
    func workspaceRoots(_ context: RequestContext) -> [URL] {
        let params = context.session.initializeParams
        var roots: [URL] = []
        for folder in params.json["workspaceFolders"]?.arrayValue ?? [] {
            if let uri = folder["uri"]?.stringValue, let url = URL(string: uri), url.isFileURL { roots.append(url) }
        }
        if roots.isEmpty, let uri = params.json["rootUri"]?.stringValue, let url = URL(string: uri), url.isFileURL {
            roots.append(url)
        }
        return roots
    }

    /// The `.pgn` files under the workspace folders (a bounded walk).
    func workspaceFiles(_ context: RequestContext) -> [URL] {
        var files: [URL] = []
        for root in workspaceRoots(context) {
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let url as URL in walker where url.pathExtension.lowercased() == "pgn" {
                files.append(url)
                if files.count >= 500 { return files }
            }
        }
        return files
    }
}
