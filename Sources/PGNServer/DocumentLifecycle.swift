import LanguageServer

extension PGNLanguageServer {
    /// What a document's open, change, save and close set going, in this order (the only
    /// observer of documents: the message loop calls it and never waits for what it starts):
    /// 1. diagnostics (`updateDiagnostics`): pushed ones scheduled after the pause, or the check
    ///    of the reviews an edit stopped; on close the document's reading dropped, and its
    ///    pushed diagnostics cleared;
    /// 2. the index of the workspace's games (`refreshWorkspaceTwins`), read again in the
    ///    background on open, save and close;
    /// 3. on close, what the whole-document requests kept of the document (tokens' results,
    ///    outline, folds, lenses) forgotten;
    /// 4. on close, its reviews stopped (a review whose game an edit changed stops when the
    ///    edit is read, after the pause before diagnostics: `cancelStaleReviews`).
    func registerDocumentLifecycle() {
        server.observeDocuments { [self] event, context in
            updateDiagnostics(after: event, context)
            refreshWorkspaceTwins(after: event, context)
            if case .closed(let document) = event {
                forgetKeptAnswers(of: document.uri)
                engines.cancelReviews(of: document.uri, keeping: nil)
            }
        }
    }

    /// Forgets what the whole-document requests kept of a closed document.
    func forgetKeptAnswers(of uri: DocumentURI) {
        semanticTokenResults.forget(uri)
        keptOutlines.forget(uri)
        keptFolds.forget(uri)
        keptLenses.forget(uri)
        keptRepertoireFindings.withLock { $0[uri] = nil }
    }
}
