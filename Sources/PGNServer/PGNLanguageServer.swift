import ChessCore
import Foundation
import LanguageServer
import PGN

/// The PGN language: every feature of the server, registered on a `Server`.
public final class PGNLanguageServer: Sendable {
    public let server: Server
    public let analyzer: PGNAnalyzer
    /// The engine and the reviews done.
    public let engines = EngineCenter()
    /// The databases the explorer reads, and its answers.
    let explorer = ExplorerCenter()
    let settings = Locked(Settings())
    let pendingWarnings = Locked<[String]>([])
    let publisher: Debouncer<DocumentURI>
    /// Held while diagnostics are sent, so that a document's last publication follows its closing.
    let publication = Locked(())
    /// The semantic tokens last sent for each document, for `full/delta` requests.
    let semanticTokenResults = SemanticTokenResults()
    /// The last outline, folds and code lenses of each open document, to answer the games an
    /// edit left alone from them.
    let keptOutlines = KeptAnswers<KeptOutline>()
    let keptFolds = KeptAnswers<KeptFolds>()
    let keptLenses = KeptAnswers<KeptLenses>()
    /// The repertoires the settings name, read.
    let repertoireFiles = RepertoireFiles()
    /// The engine's verdicts on repertoire moves (`pgn.reviewRepertoire`).
    let repertoireVerdicts = RepertoireVerdicts()
    /// Each open document's last repertoire findings, with what they were made from.
    let keptRepertoireFindings = Locked<[DocumentURI: (key: Int, findings: RepertoireFindings)]>([:])
    /// The twin keys of the workspace's files, for copies of a game in another file.
    let workspaceTwins: WorkspaceTwinIndex
    /// What requests over the whole workspace left out and the log has said already.
    let loggedWorkspaceNotes = Locked<Set<String>>([])
    /// The document versions a request was answered from a reading of the screen's games
    /// alone: the client is asked to ask again once the whole reading is made.
    let screenAnswers = Locked<Set<String>>([])

    /// How requests over the whole workspace read its files: the size of the pieces
    /// (`FilePieces`), and how long they read (the walk that finds them included); what they
    /// could not read in that time is left out, and said.
    let workspacePieceSize: Int
    let workspaceReadingTime: Duration

    public convenience init(server: Server, diagnosticsDelay: Duration = .milliseconds(2)) {
        self.init(
            server: server, diagnosticsDelay: diagnosticsDelay, workspacePieceSize: FilePieces.size,
            workspaceReadingTime: .seconds(4))
    }

    /// `readingProgressBytes`: documents this large show progress while they are read whole.
    init(
        server: Server, diagnosticsDelay: Duration = .milliseconds(2), workspacePieceSize: Int,
        workspaceReadingTime: Duration, readingProgressBytes: Int = 10 << 20
    ) {
        analyzer = PGNAnalyzer(progressBytes: readingProgressBytes)
        self.workspacePieceSize = workspacePieceSize
        self.workspaceReadingTime = workspaceReadingTime
        workspaceTwins = WorkspaceTwinIndex(pieceSize: workspacePieceSize)
        self.server = server
        publisher = Debouncer(delay: diagnosticsDelay)
    }

    /// Registers every feature, and the server's name and version.
    public func register() {
        PGNAnalyzer.limitHeaps()
        server.serverInfo = Self.serverInfo
        registerSettings()
        registerDocumentLifecycle()
        registerDiagnostics()
        registerReadingProgress()
        registerTextSharing()
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
        registerRename()
        registerCommands()
        registerEngineFeatures()
        registerCodeLens()
        registerReferences()
        explorer.log.withLock { [server] in $0 = { type, message in server.log(type, message) } }
        // The opening names the first document's games are judged by, read while the client
        // is still sending that document.
        DispatchQueue.global(qos: .userInitiated).async { OpeningTags.prepare() }
    }

    /// The analysis of the document a request names, as the request sees it.
    func analysis(_ params: JSONValue, _ context: RequestContext) async throws -> (Document, DocumentAnalysis) {
        let document = try document(params, context)
        return (document, await analyzer.analysis(sharing: document))
    }

    func document(_ params: JSONValue, _ context: RequestContext) throws -> Document {
        guard let uri = params["textDocument"]?["uri"]?.stringValue else {
            throw ResponseError(.invalidParams, "textDocument.uri is missing")
        }
        return try context.document(uri)
    }

    /// A request about what the editor shows, answered before the whole reading of a large
    /// document is made (`screenAnalysis`), and the feature the client is asked to ask again
    /// for once it is made (none for a hover: the next hover reads the whole reading).
    enum ScreenRequest: String {
        case semanticTokens
        case inlayHint
        case hover

        /// The refresh request of the feature, with the capability that allows it.
        var refresh: String? { self == .hover ? nil : rawValue }
    }

    /// The analysis a request about what the editor shows (`range`) is answered from: the whole
    /// document's when it is made, the document is small or an earlier version's reading is
    /// kept (after an edit the reading takes milliseconds), else a reading of the games around
    /// the range (`PGNAnalyzer.screenAnalysis`), and the client is asked to ask again for that
    /// feature once the whole reading is made (`screenAnswered`).
    func screenAnalysis(
        _ document: Document, _ range: Range<Int>, _ context: RequestContext, for request: ScreenRequest
    ) async -> DocumentAnalysis {
        // A hover after an edit of a large document does not wait for the edit's reading either
        // (0.1 s at 1 GB: the file's twins and names are found again): the games around it are
        // read from the cache, which has all but the one typed in.
        let unread =
            !analyzer.hasAnyAnalysis(of: document.uri) || (request == .hover && !analyzer.hasAnalysis(of: document))
        guard document.length >= Self.screenFirstBytes, unread else {
            return await analyzer.analysis(sharing: document)
        }
        let analysis = analyzer.screenAnalysis(of: document, covering: range)
        if let feature = request.refresh { screenAnswered(document, context, feature) }
        return analysis
    }

    /// After an answer of `feature` (`semanticTokens`, `inlayHint`) from the screen's games
    /// alone: once the whole reading of the document is made, the client is asked to ask again
    /// for it (when it can be asked). Only that feature: a refresh of the tokens makes Neovim
    /// drop the whole tokens it is waiting for and ask for them again.
    func screenAnswered(_ document: Document, _ context: RequestContext, _ feature: String) {
        let key = "\(document.uri)#\(document.history.stamp)#\(feature)"
        guard screenAnswers.withLock({ $0.insert(key).inserted }) else { return }
        let capabilities = context.session.clientCapabilities
        Task { [self] in
            _ = await analyzer.analysis(sharing: document)
            screenAnswers.withLock { _ = $0.remove(key) }
            if capabilities.value(at: "workspace", feature, "refreshSupport")?.boolValue == true {
                _ = try? await server.sendRequest("workspace/\(feature)/refresh")
            }
        }
    }

    /// Documents this large answer requests about what the editor shows before their whole
    /// reading is made.
    static let screenFirstBytes = 1 << 20

    /// The params of a request about one place (`textDocument`, `position`), read once.
    struct PlaceParams {
        let document: Document
        let analysis: DocumentAnalysis
        /// The byte offset of `position`.
        let offset: Int

        var parts: (Document, DocumentAnalysis, Int) { (document, analysis, offset) }
    }

    /// `screen`: answered before the whole document's reading is made (`screenAnalysis`).
    func placeParams(
        _ params: JSONValue, _ context: RequestContext, screen: ScreenRequest? = nil
    ) async throws -> PlaceParams {
        let document = try document(params, context)
        guard let line = params["position"]?["line"]?.intValue,
            let character = params["position"]?["character"]?.intValue
        else { throw ResponseError(.invalidParams, "position is missing or not a pair of integers") }
        let offset = document.offset(
            of: LSPPosition(line: line, character: character), encoding: context.positionEncoding)
        let analysis =
            if let screen { await screenAnalysis(document, offset..<offset, context, for: screen) } else {
                await analyzer.analysis(sharing: document)
            }
        return PlaceParams(document: document, analysis: analysis, offset: offset)
    }

    /// The params of a request about a range (`textDocument`, `range`), read once.
    struct RangeParams {
        let document: Document
        let analysis: DocumentAnalysis
        /// The bytes of `range`.
        let range: Range<Int>

        var parts: (Document, DocumentAnalysis, Range<Int>) { (document, analysis, range) }
    }

    /// `screen`: answered before the whole document's reading is made (`screenAnalysis`).
    func rangeParams(
        _ params: JSONValue, _ context: RequestContext, screen: ScreenRequest? = nil
    ) async throws -> RangeParams {
        let document = try document(params, context)
        let range = try byteRange(params["range"], document, context.positionEncoding)
        let analysis =
            if let screen { await screenAnalysis(document, range, context, for: screen) } else {
                await analyzer.analysis(sharing: document)
            }
        return RangeParams(document: document, analysis: analysis, range: range)
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
    var lsp: DiagnosticSeverity {
        switch self {
        case .error: return .error
        case .warning: return .warning
        case .information: return .information
        case .hint: return .hint
        }
    }
}

extension Range<Int> {
    /// The range moved by `offset`: a game-relative range in its document.
    func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}
