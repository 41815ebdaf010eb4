import Foundation
import LanguageServer
import PGN

/// A game of a document that copies a game of another file of the workspace: its `twin-game`
/// diagnostic (with the fix that removes it), and where the game it copies is.
struct ElsewhereTwin: Sendable {
    var diagnostic: Diagnostic
    let uri: DocumentURI
    let label: WorkspaceTwinIndex.Place
    let relatedMessage: String
    /// The kept game's number in its file, and whether it goes on where the copy stops.
    let keptGame: Int
    let isShorter: Bool
}

extension PGNLanguageServer {
    /// Keeps the index of the workspace's games up to date (`registerDocumentLifecycle`): read in the
    /// background when a document is opened, saved or closed (then only the files that changed
    /// are read again); when it changed, the open documents' diagnostics are sent again.
    func refreshWorkspaceTwins(after event: DocumentEvent, _ context: NotificationContext) {
        switch event {
        case .opened, .saved, .closed: break
        case .changed: return
        }
        let session = context.session
        guard currentSettings.twinGames, !workspaceRoots(session).isEmpty else { return }
        workspaceTwins.scheduleRefresh { [self] in
            // The open documents' files are left out: they are read from the documents.
            let found = workspaceFiles(session, leavingOut: server.documents.uris)
            logWorkspaceNotes(found.notes, of: "the index of the workspace's games")
            return found.files
        } open: { [self] in
            Set(server.documents.uris)
        } changed: { [self] in
            // A document whose analysis is still being made sends its diagnostics once it is,
            // with the index as it is then: asking for it again would make it twice at once.
            let documents = server.documents
            let ready = documents.uris.filter { uri in documents[uri].map(analyzer.hasAnalysis) ?? false }
            if !ready.isEmpty { Task { await republish(ready, of: documents, session) } }
        } leftOut: { [self] notes in
            logWorkspaceNotes(notes, of: "the index of the workspace's games")
        }
    }

    /// The copies in `analysis` of games of the workspace's other files (open or on disk). Of
    /// two equal games, the copy is the one in the file whose URI sorts later; of a game and a
    /// longer one that goes on from it, the shorter. A game that copies one of its own file is
    /// left to that diagnostic.
    func elsewhereTwins(_ analysis: DocumentAnalysis, _ documents: DocumentStore) -> [ElsewhereTwin] {
        let others = documents.uris.filter { $0 != analysis.uri }
        let workspace = workspaceTwins.snapshot
        let mine = analysis.twinIdentityCounts
        guard !workspace.isEmpty || !others.isEmpty, !mine.isEmpty, currentSettings.twinGames else { return [] }
        // The other open documents as they are in the editor: their games that share an identity
        // with one of this document's.
        var candidates: [Int: [(uri: DocumentURI, game: WorkspaceTwinIndex.Game)]] = [:]
        for uri in others {
            guard let document = documents[uri] else { continue }
            let other = analyzer.analysis(of: document)
            for (index, identity) in other.twinIdentities.enumerated() {
                guard let identity, mine[identity] != nil, let key = other.games[index].analysis.twinKey else {
                    continue
                }
                let game = other.games[index]
                let range = game.analysis.label.shifted(by: game.start)
                let label = WorkspaceTwinIndex.Place { document.range(of: range, encoding: $0) }
                candidates[identity, default: []].append(
                    (uri, WorkspaceTwinIndex.Game(key: key, index: index, label: label)))
            }
        }
        // The identities this document shares with other files, in groups small enough
        // (`Twins.largestGroup`, this document's games counted): from the smaller side. Most
        // documents share none, and no game's analysis is looked at.
        var shared = Set<Int>()
        func consider(_ identity: Int, elsewhere: Int) {
            guard let here = mine[identity], elsewhere + here <= Twins.largestGroup else { return }
            shared.insert(identity)
        }
        if workspace.identityCount < mine.count {
            for (identity, count) in workspace.counts { consider(identity, elsewhere: count) }
        } else {
            for identity in mine.keys where workspace.count(identity) > 0 {
                consider(identity, elsewhere: workspace.count(identity))
            }
        }
        for (identity, games) in candidates { consider(identity, elsewhere: games.count + workspace.count(identity)) }
        guard !shared.isEmpty else { return [] }

        let open = Set(documents.uris)
        let copiesHere = Set(analysis.diagnostics.lazy.filter { $0.code == .twinGame }.compactMap(\.game))
        var found: [ElsewhereTwin] = []
        for (index, identity) in analysis.twinIdentities.enumerated() {
            guard let identity, shared.contains(identity), !copiesHere.contains(index) else { continue }
            let game = analysis.games[index]
            guard let key = game.analysis.twinKey else { continue }
            var games = candidates[identity] ?? []
            games += workspace.games(withIdentity: identity, notIn: analysis.uri, open: open)
            // Sorted, so that of equally long games the first file's first game is kept.
            games.sort { ($0.uri, $0.game.index) < ($1.uri, $1.game.index) }
            guard let kept = Twins.kept(by: key, among: games, key: \.game.key, equalCounts: { analysis.uri > $0.uri })
            else { continue }
            found.append(Self.elsewhereTwin(game, index: index, of: analysis.uri, kept: kept))
        }
        return found
    }

    private static func elsewhereTwin(
        _ game: PlacedGame, index: Int, of uri: DocumentURI, kept: (uri: DocumentURI, game: WorkspaceTwinIndex.Game)
    ) -> ElsewhereTwin {
        let name = FileURI.name(kept.uri)
        let other = "game \(kept.game.index + 1) of \(name)"
        let (plies, keptPlies) = (game.analysis.twinKey?.plies ?? 0, kept.game.key.plies)
        let shorter = keptPlies > plies
        let message = Twins.message(isShorter: shorter, kept: other, copyPlies: plies, keptPlies: keptPlies)
        var diagnostic = Diagnostic(
            .twinGame, .information, message, range: game.analysis.label.shifted(by: game.start), game: index)
        diagnostic.fixes = [
            Diagnostic.Fix(
                title: "Remove this copy", edits: [Diagnostic.Edit(range: game.range, text: "")], isPreferred: false)
        ]
        return ElsewhereTwin(
            diagnostic: diagnostic, uri: kept.uri, label: kept.game.label,
            relatedMessage: shorter ? "the longer copy, \(other)" : "the first copy, \(other)",
            keptGame: kept.game.index, isShorter: shorter)
    }

    /// "Keep the longer copy, merging their tags" for a copy of a game of another file: the
    /// copy removed here, and the tags only it has added after the kept game's last tag in the
    /// other file (as the editor has it, or as it is on disk). Nil when the copy has no tag the
    /// kept game lacks, or the other file no longer holds that game.
    func mergeAction(
        _ twin: ElsewhereTwin, diagnostic lsp: JSONValue, _ document: Document, _ analysis: DocumentAnalysis,
        _ context: RequestContext
    ) -> JSONValue? {
        guard let index = twin.diagnostic.game, index < analysis.games.count,
            let identity = analysis.games[index].analysis.twinKey?.identity
        else { return nil }
        let copy = analysis.games[index]
        let isOpen = context.documents[twin.uri] != nil
        guard let other = context.documents[twin.uri] ?? Self.diskDocument(twin.uri) else { return nil }
        let source = SourceText(other.bytes)
        let games = source.bytes.withUnsafeBufferPointer { Parser($0) }.games
        guard twin.keptGame < games.count, let last = games[twin.keptGame].tags.last?.range.upperBound else {
            return nil
        }
        let kept = GameReplay(source: source, syntax: games[twin.keptGame], index: twin.keptGame)
        guard TwinKey(kept)?.identity == identity else { return nil }
        guard let tags = Twins.mergedTags(from: copy.analysis.tagReplay, into: kept) else { return nil }
        let encoding = context.positionEncoding
        let remove: JSONValue = ["range": range(copy.range, document, encoding), "newText": ""]
        let merge: JSONValue = ["range": range(last..<last, other, encoding), "newText": .string(tags)]
        let capabilities = context.session.clientCapabilities
        let edit: JSONValue
        if capabilities.supportsDocumentChanges || capabilities.supportsChangeAnnotations {
            edit = [
                "documentChanges": [
                    [
                        "textDocument": ["uri": .string(document.uri), "version": .integer(document.version)],
                        "edits": [remove],
                    ],
                    [
                        "textDocument": [
                            "uri": .string(other.uri), "version": isOpen ? .integer(other.version) : .null,
                        ],
                        "edits": [merge],
                    ],
                ]
            ]
        } else {
            edit = ["changes": [document.uri: [remove], other.uri: [merge]]]
        }
        let title = Twins.mergeTitle(isShorter: twin.isShorter)
        return ["title": .string(title), "kind": "quickfix", "isPreferred": false, "diagnostics": [lsp], "edit": edit]
    }
}
