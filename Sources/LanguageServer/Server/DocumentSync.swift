extension Server {
    /// Applies `didOpen`, `didChange`, `didClose` and `didSave` to the document store, then tells the
    /// observers. Runs on the connection's thread, so changes are applied strictly in arrival order.
    func synchronizeDocuments(method: String, params: JSONValue) throws {
        let event: DocumentEvent
        switch method {
        case "textDocument/didOpen":
            let opened = try Document(didOpen: params)
            let (document, wasOpen) = state.withLock { state in
                let wasOpen = state.documents[opened.uri] != nil
                return (state.documents.open(opened), wasOpen)
            }
            if wasOpen { log(.warning, "\(opened.uri) was opened again; its text is replaced") }
            event = .opened(document)
        case "textDocument/didChange":
            let change = try DidChangeTextDocumentParams(json: params)
            let (document, previousVersion) = try state.withLock { state in
                let previousVersion = state.documents[change.textDocument.uri]?.version
                let document = try state.documents.change(change, encoding: state.session!.positionEncoding)
                return (document, previousVersion)
            }
            if let previousVersion, change.textDocument.version <= previousVersion {
                log(.warning, "\(document.uri): version \(change.textDocument.version) after \(previousVersion)")
            }
            cancelPending(
                where: { $0.staleOnEdit && $0.documentURI == document.uri }, reason: .contentModified)
            event = .changed(document)
        case "textDocument/didClose":
            let uri = try DidCloseTextDocumentParams(json: params).textDocument.uri
            let document = try state.withLock { state in try state.documents.close(uri) }
            cancelPending(where: { $0.staleOnEdit && $0.documentURI == uri }, reason: .contentModified)
            event = .closed(document)
        default:
            let save = try DidSaveTextDocumentParams(json: params)
            guard let document = state.withLock({ $0.documents[save.textDocument.uri] }) else {
                throw DocumentError.notOpen(save.textDocument.uri)
            }
            event = .saved(document, text: save.text)
        }
        let (observers, context) = state.withLock { state in
            (
                state.registry.documentObservers,
                NotificationContext(method: method, documents: state.documents, session: state.session!, server: self)
            )
        }
        for observer in observers { observer(event, context) }
    }
}
