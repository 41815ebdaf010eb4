import ChessCore
import Foundation
import LanguageServer
import PGN

/// The PGN language: every feature of the server, registered on a `Server`.
public final class PGNLanguageServer: Sendable {
    public let server: Server
    public let analyzer = PGNAnalyzer()
    /// The engine and the reviews done.
    public let engines = EngineCenter()
    let settings = Locked(Settings())
    let pendingWarnings = Locked<[String]>([])
    let publisher: Debouncer<DocumentURI>
    /// Held while diagnostics are sent, so that a document's last publication follows its closing.
    let publication = Locked(())
    /// The semantic tokens last sent for each document, for `full/delta` requests.
    let semanticTokenResults = SemanticTokenResults()

    public init(server: Server, diagnosticsDelay: Duration = .milliseconds(2)) {
        self.server = server
        publisher = Debouncer(delay: diagnosticsDelay)
    }

    /// Registers every feature.
    public func register() {
        registerSettings()
        registerDiagnostics()
        registerHover()
        registerInlayHints()
        registerDocumentSymbols()
        registerWorkspaceSymbols()
        registerFoldingRanges()
        registerSelectionRanges()
        registerSemanticTokens()
        registerDocumentHighlight()
        registerCompletion()
        registerCodeActions()
        registerFormatting()
        registerCommands()
        registerEngineFeatures()
    }

    /// The analysis of the document a request names, as the request sees it.
    func analysis(_ params: JSONValue, _ context: RequestContext) throws -> (Document, DocumentAnalysis) {
        guard let uri = params["textDocument"]?["uri"]?.stringValue else {
            throw ResponseError(.invalidParams, "textDocument.uri is missing")
        }
        let document = try context.document(uri)
        return (document, analyzer.analysis(of: document))
    }

    /// The byte offset of the request's `position`.
    func offset(_ params: JSONValue, in document: Document, _ context: RequestContext) throws -> Int {
        guard let line = params["position"]?["line"]?.intValue,
            let character = params["position"]?["character"]?.intValue
        else { throw ResponseError(.invalidParams, "position is missing or not a pair of integers") }
        return document.offset(of: Position(line: line, character: character), encoding: context.positionEncoding)
    }

    func range(_ byteRange: Range<Int>, _ document: Document, _ encoding: PositionEncoding) -> JSONValue {
        let range = document.range(of: byteRange, encoding: encoding)
        return [
            "start": ["line": .integer(range.start.line), "character": .integer(range.start.character)],
            "end": ["line": .integer(range.end.line), "character": .integer(range.end.character)],
        ]
    }

    func byteRange(_ json: JSONValue?, _ document: Document, _ encoding: PositionEncoding) throws -> Range<Int> {
        guard let json, let range = try? json.decode(LSPRange.self) else {
            throw ResponseError(.invalidParams, "range is missing or malformed")
        }
        return document.byteRange(of: range, encoding: encoding)
    }
}

extension Diagnostic.Severity {
    var lsp: Int { rawValue }
}

extension Range<Int> {
    /// The range moved by `offset`: a game-relative range in its document.
    func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}
