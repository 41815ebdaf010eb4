import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// The diagnostics' part of a document's open, change or close (`registerDocumentLifecycle`): pushed
    /// ones scheduled after the pause, or with pulled ones the check of the reviews an edit
    /// stopped; on close the document's reading dropped and its diagnostics cleared.
    func updateDiagnostics(after event: DocumentEvent, _ context: NotificationContext) {
        switch event {
        case .opened(let document), .changed(let document):
            guard !context.session.clientCapabilities.supportsPullDiagnostics else {
                // The client pulls; reviews of games an edit changed stop when it does, or here.
                scheduleReviewCheck(document)
                return
            }
            let encoding = context.positionEncoding
            // The closure keeps the URI and version only: a copy of the document would share
            // its bytes, and the next edit would copy them all instead of editing in place.
            let (uri, version) = (document.uri, document.version)
            publisher.schedule(uri) { [self] in
                guard let current = server.documents[uri], current.version == version else { return }
                await publish(current, encoding: encoding)
            }
        case .closed(let document):
            publisher.cancel(document.uri)
            analyzer.close(document.uri)
            if context.session.clientCapabilities.supportsPullDiagnostics { return }
            // A publication already under way sends before this one or not at all (`publish`).
            publication.withLock { _ in
                server.sendNotification(
                    "textDocument/publishDiagnostics", params: ["uri": .string(document.uri), "diagnostics": []])
            }
        case .saved:
            break
        }
    }

    /// Diagnostics are pulled (`textDocument/diagnostic`) by a client that can and that can be
    /// asked to pull again (`ClientCapabilities.supportsPullDiagnostics`), and pushed
    /// (`textDocument/publishDiagnostics`, with the document version, a short delay after the
    /// last edit) to any other: never both to one client, which would show each twice.
    func registerDiagnostics() {
        server.capabilities.features["diagnosticProvider"] = [
            "identifier": "pgn", "interFileDependencies": true, "workspaceDiagnostics": false,
        ]
        server.onInitialize { params, capabilities in
            if !params.capabilities.supportsPullDiagnostics { capabilities.features["diagnosticProvider"] = nil }
        }
        server.registerRequest("textDocument/diagnostic") { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            cancelStaleReviews(analysis, of: document.uri)
            // Twins in other files change with the workspace's files and the other open documents.
            var others = Hasher()
            for uri in context.documents.uris where uri != document.uri {
                others.combine(uri)
                others.combine(context.documents[uri]?.version)
            }
            // Repertoire gaps change with the databases' files.
            let sources = analysis.repertoireGames.isEmpty ? [] : explorerSources(for: document.uri, context)
            for source in sources {
                others.combine(source.path)
                others.combine(FileSignature.of(source.path))
            }
            let resultID =
                "\(document.version)-\(currentSettings.hashValue)-\(engines.generation)-\(workspaceTwins.generation)-\(others.finalize())"
            if params["previousResultId"]?.stringValue == resultID {
                return ["kind": "unchanged", "resultId": .string(resultID)]
            }
            let repertoire = await repertoireFindings(analysis, document, sources).diagnostics
            return [
                "kind": "full", "resultId": .string(resultID),
                "items": diagnosticsJSON(analysis, document, context.positionEncoding, repertoire: repertoire),
            ]
        }
    }

    /// Publishes the diagnostics of `document`, unless by the time they are ready the document
    /// was closed or changed: a client would keep them for a file no longer open, or for a text
    /// it no longer has, until the next publication.
    func publish(_ document: Document, encoding: PositionEncoding) async {
        let analysis = await analyzer.analysis(sharing: document)
        cancelStaleReviews(analysis, of: document.uri)
        let repertoire = await repertoireFindings(analysis, document, server.session).diagnostics
        let diagnostics = diagnosticsJSON(analysis, document, encoding, repertoire: repertoire)
        publication.withLock { _ in
            // The store drops a closed document before its observers are told, and the closing
            // clears its diagnostics under this lock: either this runs first, or it sees the close.
            guard let current = server.documents[document.uri], current.history.stamp == document.history.stamp
            else { return }
            server.sendNotification(
                "textDocument/publishDiagnostics",
                params: [
                    "uri": .string(document.uri), "version": .integer(document.version),
                    "diagnostics": diagnostics,
                ])
        }
    }

    /// After a change of settings: the diagnostics of every open document again.
    func republishAll(_ context: NotificationContext) async {
        await republish(context.documents.uris, of: context.documents, context.session)
    }

    /// Diagnostics of `uris` changed without an edit (new settings, a review): pushed again, or,
    /// to a client that pulls, a request to pull again.
    func republish(_ uris: [DocumentURI], of documents: DocumentStore, _ session: Session) async {
        guard !session.clientCapabilities.supportsPullDiagnostics else {
            Task { _ = try? await server.sendRequest("workspace/diagnostic/refresh", params: nil) }
            return
        }
        for uri in uris {
            if let document = documents[uri] { await publish(document, encoding: session.positionEncoding) }
        }
    }

    /// For a client that pulls diagnostics: once typing pauses, reviews of games the edits
    /// changed are cancelled, as a publication would.
    private func scheduleReviewCheck(_ document: Document) {
        guard engines.isReviewing(document.uri) else { return }
        let uri = document.uri
        publisher.schedule(uri) { [self] in
            guard let current = server.documents[uri] else { return }
            cancelStaleReviews(analyzer.analysis(of: current), of: uri)
        }
    }

    /// Every diagnostic of a document the settings want, and those of its reviews, as the
    /// protocol's array, written as text: a large file has thousands, sent after every edit.
    func diagnosticsJSON(
        _ analysis: DocumentAnalysis, _ document: Document, _ encoding: PositionEncoding, repertoire: [Diagnostic] = []
    ) -> JSONValue {
        let settings = currentSettings
        var text = JSONText(capacity: 4096)
        text.raw("[")
        var first = true
        for diagnostic in analysis.diagnostics where settings.wants(diagnostic) {
            text.raw(first ? "" : ",")
            first = false
            Self.write(diagnostic, document, encoding, to: &text)
        }
        for twin in elsewhereTwins(analysis, server.documents) {
            text.raw(first ? "" : ",")
            first = false
            Self.write(twin, document, encoding, to: &text)
        }
        for diagnostic in repertoire where settings.wants(diagnostic) {
            text.raw(first ? "" : ",")
            first = false
            Self.write(diagnostic, document, encoding, to: &text)
        }
        for review in reviewDiagnostics(analysis, document, encoding) {
            text.raw(first ? "" : ",")
            first = false
            text.value(review)
        }
        text.raw("]")
        return text.json
    }

    /// One diagnostic as the protocol's `Diagnostic`.
    func lspDiagnostic(_ diagnostic: Diagnostic, _ document: Document, _ encoding: PositionEncoding) -> JSONValue {
        var text = JSONText(capacity: 256)
        Self.write(diagnostic, document, encoding, to: &text)
        return text.json
    }

    /// A copy of a game in another file as the protocol's `Diagnostic`.
    func lspDiagnostic(_ twin: ElsewhereTwin, _ document: Document, _ encoding: PositionEncoding) -> JSONValue {
        var text = JSONText(capacity: 256)
        Self.write(twin, document, encoding, to: &text)
        return text.json
    }

    private static func write(
        _ twin: ElsewhereTwin, _ document: Document, _ encoding: PositionEncoding, to text: inout JSONText
    ) {
        write(twin.diagnostic, document, encoding, to: &text) { text in
            text.raw("{\"location\":{\"uri\":")
            text.string(twin.uri)
            text.raw(",\"range\":")
            text.range(twin.label.range(encoding))
            text.raw("},\"message\":")
            text.string(twin.relatedMessage)
            text.raw("}")
        }
    }

    /// Writes a diagnostic's object; `elsewhere` writes a place in another file as its related
    /// information. No `data`: code actions take the fixes from the analysis of the version
    /// they are asked about.
    private static func write(
        _ diagnostic: Diagnostic, _ document: Document, _ encoding: PositionEncoding, to text: inout JSONText,
        elsewhere: ((inout JSONText) -> Void)? = nil
    ) {
        text.raw("{\"code\":")
        text.string(diagnostic.code.rawValue)
        text.raw(",\"message\":")
        text.string(diagnostic.message)
        text.raw(",\"range\":")
        text.range(document.range(of: diagnostic.range, encoding: encoding))
        text.raw(",\"severity\":")
        text.integer(diagnostic.severity.lsp.rawValue)
        // Places in the same document, or one in another file; a client that does not show
        // them ignores the member.
        if let elsewhere {
            text.raw(",\"relatedInformation\":[")
            elsewhere(&text)
            text.raw("]")
        } else if !diagnostic.related.isEmpty {
            text.raw(",\"relatedInformation\":")
            text.array(diagnostic.related) { text, related in
                text.raw("{\"location\":{\"uri\":")
                text.string(document.uri)
                text.raw(",\"range\":")
                text.range(document.range(of: related.range, encoding: encoding))
                text.raw("},\"message\":")
                text.string(related.message)
                text.raw("}")
            }
        }
        text.raw(",\"source\":\"pgn\"}")
    }
}
