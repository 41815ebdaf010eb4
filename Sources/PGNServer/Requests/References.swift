import ChessCore
import Foundation
import GameStore
import LanguageServer
import PGN

/// A game that reaches a position, where an editor can open it.
struct GameLocation: Sendable {
    var uri: String
    var range: JSONValue
    /// The game's name (players, result, event).
    var name: String
    /// The file or database it is in.
    var container: String
}

/// The games that reach a position, in the workspace and in the databases.
struct PositionGames: Sendable {
    var locations: [GameLocation] = []
    /// Every database game that reaches it, shown or not.
    var databaseTotal = 0
    var databaseShown = 0
    /// Why a database gave no games (no index, unreadable).
    var notes: [String] = []
}

extension PGNLanguageServer {
    /// At most this many database games are listed for one position.
    static let referenceLimit = 200

    /// `textDocument/references` on a move: the games that reach the position after it (at any
    /// ply of their mainline, by another move order too), in the open documents and the
    /// workspace's `.pgn` files (at the move that reaches it) and in the databases (at the
    /// game's first tag in a PGN file the server writes, `ReferenceFiles`).
    func registerReferences() {
        server.capabilities.features["referencesProvider"] = true
        server.registerRequest("textDocument/references") { [self] params, context in
            let (document, analysis, offset) = try placeParams(params, context).parts
            guard let game = analysis.game(at: offset), let index = game.analysis.node(at: offset - game.start),
                game.analysis.syntax.nodes[index].kind == .move, let move = game.analysis.move(atNode: index)
            else { return .array([]) }
            let includeDeclaration = params["context"]?["includeDeclaration"]?.boolValue ?? true
            let own = game.analysis.syntax.nodes[index].range.shifted(by: game.start)
            var found = try await games(reaching: move.after, uri: document.uri, context)
            if !includeDeclaration {
                let hovered = range(own, document, context.positionEncoding)
                found.locations.removeAll { $0.uri == document.uri && $0.range == hovered }
            }
            reportLimits(found)
            return .array(found.locations.map { ["uri": .string($0.uri), "range": $0.range] })
        }
    }

    /// Tells the user when the database games were cut to the limit, and logs why a database
    /// could not be searched.
    func reportLimits(_ found: PositionGames) {
        for note in found.notes { server.log(.warning, "pgn-lsp: \(note)") }
        if found.databaseShown < found.databaseTotal {
            server.showMessage(
                .info,
                "pgn-lsp: \(Figures.grouped(found.databaseTotal)) database games reach this position; "
                    + "the first \(found.databaseShown) are listed")
        }
    }

    /// The games that reach `position`: those of the workspace, then those of the databases
    /// (at most `referenceLimit`).
    func games(
        reaching position: Position, uri: DocumentURI, _ context: RequestContext
    ) async throws
        -> PositionGames
    {
        var found = PositionGames()
        found.locations = try workspaceGames(reaching: position.hash, context)
        let sources = explorerSources(for: uri, context)
        guard !sources.isEmpty else { return found }
        let encoding = context.positionEncoding
        let database = await ExplorerCenter.offPool { [explorer] in
            ReferenceFiles.locations(
                reaching: position, in: sources, explorer: explorer, limit: Self.referenceLimit, encoding: encoding)
        }
        found.locations += database.locations
        found.databaseTotal = database.databaseTotal
        found.databaseShown = database.databaseShown
        found.notes = database.notes
        return found
    }

    /// The games of the open documents and the workspace's `.pgn` files whose mainline
    /// reaches the position with `hash`, each at the move that first reaches it (at its first
    /// tag when it starts there).
    func workspaceGames(reaching hash: UInt64, _ context: RequestContext) throws -> [GameLocation] {
        var locations: [GameLocation] = []
        // The files this server wrote for database games are not the workspace's.
        let written = ReferenceFiles.candidates().map(\.absoluteString)
        for document in workspaceDocuments(context) where !written.contains(where: document.uri.hasPrefix) {
            try context.checkCancellation()
            let analysis = analyzer.analysis(of: document)
            // The replays of open documents are kept for their hovers; the others are not.
            let open = context.documents[document.uri] != nil
            let file = URL(string: document.uri)?.lastPathComponent ?? document.uri
            for (index, game) in analysis.games.enumerated() {
                let a = game.analysis
                guard let start = a.start.position else { continue }
                var reached: Range<Int>?
                if start.hash == hash {
                    reached = a.syntax.label
                } else if !a.playedNodes.isEmpty {
                    let moves = open ? a.moves : a.gameReplay.run(keepMoves: true).moves
                    if let move = moves.first(where: { $0.depth == 0 && $0.after.hash == hash }) {
                        reached = a.syntax.nodes[move.node].range
                    }
                }
                guard let reached else { continue }
                locations.append(
                    GameLocation(
                        uri: document.uri,
                        range: range(reached.shifted(by: game.start), document, context.positionEncoding),
                        name: Self.gameName(a.gameReplay, index: index), container: file))
            }
        }
        return locations
    }
}

/// The PGN files that hold the database games a search found, so that any client can open
/// them as it opens any file: one file per database and position, under
/// `$XDG_CACHE_HOME/pgn-lsp/positions` (else `~/.cache/pgn-lsp/positions`, else the system's
/// temporary folder), written anew at each search.
enum ReferenceFiles {
    /// The folder of the files, made when missing; nil when none can be made.
    static func folder() -> URL? {
        for folder in candidates() {
            if (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil,
                FileManager.default.isWritableFile(atPath: folder.path)
            {
                return folder
            }
        }
        return nil
    }

    /// Where the files may go, in order of preference.
    static func candidates() -> [URL] {
        var bases: [URL] = []
        if let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            bases.append(URL(fileURLWithPath: cache))
        }
        bases.append(FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache"))
        bases.append(URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pgn-lsp-\(getuid())"))
        return bases.map { $0.appendingPathComponent("pgn-lsp").appendingPathComponent("positions") }
    }

    /// `masters-1a2b3c4d-00ff…12.pgn`: the database's name, a digest of its path, the position's hash.
    static func fileName(database path: String, position: UInt64) -> String {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let safe = String(stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(40))
        return "\(safe)-\(String(UInt32(truncatingIfNeeded: digest), radix: 16))-\(String(position, radix: 16)).pgn"
    }

    /// The database games that reach `position`, written to the files, as locations of their
    /// first tag.
    static func locations(
        reaching position: Position, in sources: [ExplorerSource], explorer: ExplorerCenter, limit: Int,
        encoding: PositionEncoding
    ) -> PositionGames {
        var result = PositionGames()
        let (found, notes) = explorer.games(reaching: position, in: sources, limit: limit)
        result.notes = notes
        for matches in found {
            result.databaseTotal += matches.total
            guard !matches.matches.isEmpty, let database = explorer.openDatabase(matches.source) else { continue }
            do {
                let games = try write(matches, of: database, position: position, encoding: encoding)
                result.locations += games
                result.databaseShown += games.count
            } catch {
                result.notes.append("the games of \(matches.source.name) could not be written: \(error)")
            }
        }
        return result
    }

    /// Writes the games of `matches` to their file; returns where each begins.
    static func write(
        _ matches: DatabaseMatches, of database: GameDatabase, position: Position, encoding: PositionEncoding
    ) throws -> [GameLocation] {
        guard let folder = folder() else {
            throw ExplorerFailure(
                "no folder for the games' file (tried $XDG_CACHE_HOME, ~/.cache and the temporary folder)")
        }
        let ids = matches.matches.map(\.gameID)
        let summaries = try database.summaries(ids: ids)
        var text = "% pgn-lsp: the games of \(matches.source.path) that reach\n% \(position.fen)\n"
        if matches.matches.count < matches.total {
            text += "% (the first \(matches.matches.count) of \(Figures.grouped(matches.total)))\n"
        }
        text += "\n"
        let report = try database.exportPGN(ids: ids) { text += $0 }
        text += "\n"
        let failed = Set(
            report.failed.compactMap { error -> Int64? in
                if case .unreadableGame(let id, _) = error { return id }
                return nil
            })
        let exported = ids.filter { !failed.contains($0) }
        let bytes = Array(text.utf8)
        let source = SourceText(bytes)
        let games = bytes.withUnsafeBufferPointer { Parser($0).games }
        let file = folder.appendingPathComponent(fileName(database: matches.source.path, position: position.hash))
        try Data(bytes).write(to: file, options: .atomic)
        return zip(exported, games).map { id, game in
            let label = game.label
            let start = source.position(of: label.lowerBound, in: encoding)
            let end = source.position(of: label.upperBound, in: encoding)
            return GameLocation(
                uri: file.absoluteString,
                range: [
                    "start": ["line": .integer(start.line), "character": .integer(start.column)],
                    "end": ["line": .integer(end.line), "character": .integer(end.column)],
                ],
                name: summaries[id]?.label ?? "Game \(id)", container: matches.source.name)
        }
    }
}
