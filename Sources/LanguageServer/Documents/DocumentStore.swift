/// The open documents by URI. A value: the server hands each request a copy, which is cheap (the
/// documents share storage until changed) and never sees edits that arrive after the request.
public struct DocumentStore: Sendable {
    private var documents: [DocumentURI: Document] = [:]

    public init() {}

    public subscript(uri: DocumentURI) -> Document? { documents[uri] }

    public var count: Int { documents.count }

    public var uris: [DocumentURI] { documents.keys.sorted() }

    /// Opens a document, replacing one already open under the same URI.
    @discardableResult
    public mutating func open(_ item: TextDocumentItem) -> Document { open(Document(item)) }

    /// The same for a document already made.
    @discardableResult
    public mutating func open(_ document: Document) -> Document {
        documents[document.uri] = document
        return document
    }

    /// Applies the changes of one `didChange`, in order.
    public mutating func change(
        _ params: DidChangeTextDocumentParams, encoding: PositionEncoding
    ) throws(DocumentError) -> Document {
        let uri = params.textDocument.uri
        guard var document = documents.removeValue(forKey: uri) else { throw .notOpen(uri) }
        // Removed while changed so that the bytes are not shared and are edited in place.
        document.apply(params.contentChanges, version: params.textDocument.version, encoding: encoding)
        documents[uri] = document
        return document
    }

    /// Holds an open document's text in `text`, the same bytes held in other arrays
    /// (`DocumentText.sharing`), if no change came since the text of `stamp`.
    @discardableResult
    public mutating func hold(_ uri: DocumentURI, at stamp: UInt64, in text: DocumentText) -> Bool {
        guard var document = documents.removeValue(forKey: uri) else { return false }
        if document.history.stamp == stamp { document.hold(text) }
        documents[uri] = document
        return document.history.stamp == stamp
    }

    @discardableResult
    public mutating func close(_ uri: DocumentURI) throws(DocumentError) -> Document {
        guard let document = documents.removeValue(forKey: uri) else { throw .notOpen(uri) }
        return document
    }
}

public enum DocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    case notOpen(DocumentURI)

    public var description: String {
        switch self {
        case .notOpen(let uri): return "document not open: \(uri)"
        }
    }
}

/// A change to the set of open documents, as observers see it, in the order the client sent them.
public enum DocumentEvent: Sendable {
    case opened(Document)
    case changed(Document)
    case saved(Document, text: String?)
    case closed(Document)

    public var uri: DocumentURI {
        switch self {
        case .opened(let document), .changed(let document), .saved(let document, _), .closed(let document):
            return document.uri
        }
    }
}
