/// A document's URI exactly as the client wrote it.
public typealias DocumentURI = String

public struct TextDocumentIdentifier: Codable, Sendable, Hashable {
    public var uri: DocumentURI

    public init(uri: DocumentURI) {
        self.uri = uri
    }
}

public struct VersionedTextDocumentIdentifier: Codable, Sendable, Hashable {
    public var uri: DocumentURI
    public var version: Int

    public init(uri: DocumentURI, version: Int) {
        self.uri = uri
        self.version = version
    }
}

/// A document as the client opens it.
public struct TextDocumentItem: Codable, Sendable, Hashable {
    public var uri: DocumentURI
    public var languageId: String
    public var version: Int
    public var text: String

    public init(uri: DocumentURI, languageId: String, version: Int, text: String) {
        self.uri = uri
        self.languageId = languageId
        self.version = version
        self.text = text
    }
}

/// One change of `textDocument/didChange`: `text` replaces `range`, or the whole document when there is no range.
public struct TextDocumentContentChangeEvent: Codable, Sendable, Hashable {
    public var range: LSPRange?
    public var text: String

    public init(range: LSPRange? = nil, text: String) {
        self.range = range
        self.text = text
    }
}

public struct DidOpenTextDocumentParams: Sendable, Hashable {
    public var textDocument: TextDocumentItem

    public init(textDocument: TextDocumentItem) {
        self.textDocument = textDocument
    }
}

public struct DidChangeTextDocumentParams: Sendable, Hashable {
    public var textDocument: VersionedTextDocumentIdentifier
    public var contentChanges: [TextDocumentContentChangeEvent]

    public init(textDocument: VersionedTextDocumentIdentifier, contentChanges: [TextDocumentContentChangeEvent]) {
        self.textDocument = textDocument
        self.contentChanges = contentChanges
    }
}

public struct DidCloseTextDocumentParams: Sendable, Hashable {
    public var textDocument: TextDocumentIdentifier

    public init(textDocument: TextDocumentIdentifier) {
        self.textDocument = textDocument
    }
}

public struct DidSaveTextDocumentParams: Sendable, Hashable {
    public var textDocument: TextDocumentIdentifier
    public var text: String?

    public init(textDocument: TextDocumentIdentifier, text: String? = nil) {
        self.textDocument = textDocument
        self.text = text
    }
}

// The document notifications carry whole documents, so they are read straight from the JSON value
// rather than through Codable, which would copy the text twice more.

extension DidOpenTextDocumentParams {
    public init(json: JSONValue) throws {
        let item = try json.requiredMember("textDocument", of: "params")
        textDocument = TextDocumentItem(
            uri: try item.requiredString("uri", of: "textDocument"),
            languageId: try item.optionalString("languageId", of: "textDocument") ?? "",
            version: try item.requiredInt("version", of: "textDocument"),
            text: try item.requiredString("text", of: "textDocument"))
    }
}

extension Document {
    /// The document a `didOpen` notification opens, its text taken as the reader kept it: a
    /// long text is not copied again.
    public init(didOpen json: JSONValue) throws {
        let item = try json.requiredMember("textDocument", of: "params")
        let text = try item.requiredText("text", of: "textDocument")
        self.init(
            uri: try item.requiredString("uri", of: "textDocument"),
            languageID: try item.optionalString("languageId", of: "textDocument") ?? "",
            version: try item.requiredInt("version", of: "textDocument"),
            bytes: text.bytes, lineIndex: text.lineIndex)
    }
}

extension DidChangeTextDocumentParams {
    public init(json: JSONValue) throws {
        let document = try json.requiredMember("textDocument", of: "params")
        textDocument = VersionedTextDocumentIdentifier(
            uri: try document.requiredString("uri", of: "textDocument"),
            version: try document.optionalInt("version", of: "textDocument") ?? 0)
        guard let changes = try json.requiredMember("contentChanges", of: "params").arrayValue else {
            throw ResponseError(.invalidParams, "contentChanges must be an array")
        }
        contentChanges = try changes.map { change in
            let range = try change["range"].map { range -> LSPRange in
                if range.isNull { throw ResponseError(.invalidParams, "contentChanges.range must be a range") }
                return try LSPRange(json: range, of: "contentChanges.range")
            }
            return TextDocumentContentChangeEvent(range: range, text: try change.requiredString("text", of: "change"))
        }
    }
}

extension DidCloseTextDocumentParams {
    public init(json: JSONValue) throws {
        let document = try json.requiredMember("textDocument", of: "params")
        textDocument = TextDocumentIdentifier(uri: try document.requiredString("uri", of: "textDocument"))
    }
}

extension DidSaveTextDocumentParams {
    public init(json: JSONValue) throws {
        let document = try json.requiredMember("textDocument", of: "params")
        textDocument = TextDocumentIdentifier(uri: try document.requiredString("uri", of: "textDocument"))
        text = try json.optionalString("text", of: "params")
    }
}

extension LSPPosition {
    init(json: JSONValue, of context: String) throws {
        guard case .object = json else { throw ResponseError(.invalidParams, "\(context) must be a position") }
        self.init(
            line: try json.requiredInt("line", of: context), character: try json.requiredInt("character", of: context))
    }
}

extension LSPRange {
    init(json: JSONValue, of context: String) throws {
        guard case .object = json else { throw ResponseError(.invalidParams, "\(context) must be a range") }
        self.init(
            start: try LSPPosition(json: try json.requiredMember("start", of: context), of: context + ".start"),
            end: try LSPPosition(json: try json.requiredMember("end", of: context), of: context + ".end"))
    }
}
