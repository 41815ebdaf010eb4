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
    /// Whether more workspace games reach it than `workspaceReferenceLimit`, which are listed.
    var workspaceCut = false
}

extension PGNLanguageServer {
    /// At most this many database games are listed for one position.
    static let referenceLimit = 200
    /// At most this many games of the workspace are listed for one position.
    static let workspaceReferenceLimit = 1_000

    /// `textDocument/references` on a move: the games that reach the position after it (at any
    /// ply of their mainline, by another move order too), in the open documents and the
    /// workspace's `.pgn` files and in the databases (in a PGN file the server writes,
    /// `ReferenceFiles`, on a line that names the game), each at the move that reaches it.
    func registerReferences() {
        server.capabilities.features["referencesProvider"] = true
        server.registerRequest("textDocument/references") { [self] params, context in
            let (document, analysis, offset) = try await placeParams(params, context).parts
            guard let game = analysis.game(at: offset) else { return .array([]) }
            let nodes = game.analysis.syntax.nodes
            guard let index = nodes.index(holding: offset - game.start, by: \.range), nodes[index].kind == .move,
                let move = game.analysis.move(atNode: index)
            else { return .array([]) }
            let includeDeclaration = params["context"]?["includeDeclaration"]?.boolValue ?? true
            let own = nodes[index].range.shifted(by: game.start)
            var found = try await games(reaching: move.after, uri: document.uri, context)
            if !includeDeclaration {
                let hovered = range(own, document, context.positionEncoding)
                found.locations.removeAll { $0.uri == document.uri && $0.range == hovered }
            }
            reportLimits(found)
            return .array(found.locations.map { ["uri": .string($0.uri), "range": $0.range] })
        }
    }

    /// A game of a PGN file as the explorer lists games (`GameSummary.listEntry`), `Game 3`
    /// for one that names neither player nor event.
    static func listEntry(_ replay: GameReplay, index: Int) -> String {
        func tag(_ name: String) -> String? {
            guard let value = replay.tagValue(name), !value.isEmpty, value != "?", value != "-" else { return nil }
            return value
        }
        guard tag("White") != nil || tag("Black") != nil || tag("Event") != nil else { return "Game \(index + 1)" }
        return GameSummary(
            white: tag("White"), black: tag("Black"), whiteElo: tag("WhiteElo").flatMap { Int($0) },
            blackElo: tag("BlackElo").flatMap { Int($0) }, event: tag("Event"), date: tag("Date") ?? tag("UTCDate"),
            result: tag("Result")
        ).listEntry
    }

    /// Tells the user when the database games were cut to the limit, and logs why a database
    /// could not be searched.
    func reportLimits(_ found: PositionGames) {
        for note in found.notes { server.log(.warning, "pgn-lsp: \(note)") }
        if found.workspaceCut {
            server.showMessage(
                .info,
                "pgn-lsp: more than \(Figures.grouped(Self.workspaceReferenceLimit)) workspace games reach this "
                    + "position; the first \(Figures.grouped(Self.workspaceReferenceLimit)) are listed")
        }
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
        (found.locations, found.workspaceCut) = try workspaceGames(reaching: position.hash, context)
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
    /// tag when it starts there): at most `workspaceReferenceLimit`, and whether there were more.
    func workspaceGames(reaching hash: UInt64, _ context: RequestContext) throws -> ([GameLocation], Bool) {
        var locations: [GameLocation] = []
        var cut = false
        // The files this server wrote for database games are not the workspace's (the walk
        // leaves out their folder; an editor may have them open).
        let written = ReferenceFiles.folders().map(\.absoluteString)
        var documents = workspaceDocuments(context)
        defer { logWorkspaceNotes(documents.notes, of: context.method) }
        while !cut, let document = try documents.next() {
            let uri = document.uri
            if written.contains(where: uri.hasPrefix) { continue }
            let file = FileURI.name(uri)
            try documents.forEachGame(of: document) { game in
                // The start position and the mainline's moves: the replays of open documents
                // are kept for their hovers, the others are made here and dropped.
                let start: Position?
                let moves: () -> [ReplayedMove]
                if let a = game.analysis {
                    start = a.start.position
                    moves = { a.hasPlayedMoves ? a.moves : [] }
                } else {
                    let replayed = game.replay.run(keepMoves: true)
                    start = replayed.start.position
                    moves = { replayed.moves }
                }
                guard let start else { return true }
                let reached =
                    start.hash == hash
                    ? game.syntax.label
                    : moves().first { $0.depth == 0 && $0.after.hash == hash }.map { game.syntax.nodes[$0.node].range }
                guard let reached else { return true }
                guard locations.count < Self.workspaceReferenceLimit else {
                    cut = true
                    return false
                }
                locations.append(
                    GameLocation(
                        uri: uri,
                        range: game.range(reached, context.positionEncoding),
                        name: Self.listEntry(game.replay, index: game.index), container: file))
                return true
            }
        }
        return (locations, cut)
    }
}
