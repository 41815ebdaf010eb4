import Foundation
import LanguageServer
import PGN

/// A game of a document that a request over the whole workspace reads.
struct WorkspaceGame {
    /// Its number in its document.
    let index: Int
    /// Its replay, whose ranges (and those of `syntax`) `range(_:_:)` places in the document.
    let replay: GameReplay
    /// The analyzer's analysis of it, for a game of an open document.
    let analysis: GameAnalysis?
    fileprivate let place: Place

    /// Where the ranges of `replay` are in the document: in an open document they count from
    /// the game's first byte, at `offset`; in a file read from disk from the first byte of the
    /// piece of it that holds the game (`FilePieces`), which starts at line `firstLine`.
    fileprivate enum Place {
        case open(Document, offset: Int)
        case piece(SourceText, firstLine: Int)
    }

    var syntax: GameSyntax { replay.syntax }

    /// The game's text, as a range of `replay`.
    var extent: Range<Int> {
        switch place {
        case .open: 0..<replay.source.bytes.count
        case .piece: syntax.range
        }
    }

    /// A range of `replay` as the LSP range of the document.
    func range(_ range: Range<Int>, _ encoding: PositionEncoding) -> JSONValue {
        let start: (line: Int, character: Int)
        let end: (line: Int, character: Int)
        switch place {
        case .open(let document, let offset):
            let lsp = document.range(of: range.shifted(by: offset), encoding: encoding)
            (start, end) = ((lsp.start.line, lsp.start.character), (lsp.end.line, lsp.end.character))
        case .piece(let source, let firstLine):
            let (from, to) = (
                source.position(of: range.lowerBound, in: encoding), source.position(of: range.upperBound, in: encoding)
            )
            (start, end) = ((firstLine + from.line, from.column), (firstLine + to.line, to.column))
        }
        return [
            "start": ["line": .integer(start.line), "character": .integer(start.character)],
            "end": ["line": .integer(end.line), "character": .integer(end.character)],
        ]
    }
}

/// A document that a request over the whole workspace reads: an open one, or a workspace file
/// that is read from disk (as version 0) while its games are gone through.
struct WorkspaceDocument {
    let uri: DocumentURI
    /// The document as the editor has it; nil for a file of the workspace that is not open.
    let open: Document?
    fileprivate let file: (path: [UInt8], opened: FileSystem.OpenFile)?

    var isOpen: Bool { open != nil }
}

/// The documents a request over the whole workspace reads (`workspace/symbol`, references,
/// rename), one at a time: the open documents, then the workspace's `.pgn` files that are not
/// open (`WorkspaceWalk`). A file is opened when it is reached and read a piece at a time
/// (`FilePieces`), its games one at a time (`GameStream`): what a request holds of the files of
/// the workspace is one piece of one file, whatever their number and size. The analyses of
/// those games are not kept and do not enter the analyzer's cache. Reading stops at
/// `deadline`, in the middle of a file if need be; what was left out, and why, is in `notes`.
struct WorkspaceDocuments {
    private let context: RequestContext
    private let analyzer: PGNAnalyzer
    private let open: [Document]
    private let files: [WorkspaceFile]
    private let pieceSize: Int
    private var nextOpen = 0
    private var nextFile = 0
    private let deadline: ContinuousClock.Instant
    private(set) var notes: [String]

    init(
        _ context: RequestContext, analyzer: PGNAnalyzer, open: [Document], found: WorkspaceWalk.Found,
        pieceSize: Int, deadline: ContinuousClock.Instant
    ) {
        self.context = context
        self.pieceSize = pieceSize
        self.analyzer = analyzer
        self.open = open
        files = found.files
        notes = found.notes
        self.deadline = deadline
    }

    /// The next document, nil after the last (or once the deadline has passed).
    mutating func next() throws -> WorkspaceDocument? {
        try context.checkCancellation()
        if nextOpen < open.count {
            nextOpen += 1
            let document = open[nextOpen - 1]
            return WorkspaceDocument(uri: document.uri, open: document, file: nil)
        }
        while nextFile < files.count {
            let file = files[nextFile]
            nextFile += 1
            if ContinuousClock.now > deadline {
                cut(at: file.path, partly: false)
                return nil
            }
            switch file.open(limit: PGNLanguageServer.largestWorkspaceFile) {
            case .success(let opened):
                return WorkspaceDocument(uri: file.uri, open: nil, file: (file.path, opened))
            case .failure(let failure):
                notes.append("\(FileSystem.display(file.path)): \(Self.describe(failure))")
            }
        }
        return nil
    }

    static func describe(_ failure: FileSystem.ReadFailure) -> String {
        switch failure {
        case .tooLarge(let size):
            "\(WorkspaceWalk.size(size)), over the \(PGNLanguageServer.largestWorkspaceFile >> 20) MB "
                + "that requests over the whole workspace read"
        case .cannotOpen(let reason): "cannot be read (\(reason))"
        case .notAFile, .changed: "changed while it was being read"
        }
    }

    private mutating func cut(at path: [UInt8], partly: Bool) {
        let more = files.count - nextFile
        let after = more == 0 ? "" : more == 1 ? " and the file after it" : " and the \(more) files after it"
        notes.append(
            "the time for one request ran out "
                + (partly
                    ? "in the middle of \(FileSystem.display(path)): the rest of it\(after) left out"
                    : "before \(FileSystem.display(path)): it\(after) left out"))
    }

    /// Calls `body` with each game of `document`, in order, until it returns false; whether
    /// every game was seen.
    @discardableResult
    mutating func forEachGame(of document: WorkspaceDocument, _ body: (WorkspaceGame) throws -> Bool) throws -> Bool {
        if let open = document.open {
            for (index, game) in analyzer.analysis(of: open).games.enumerated() {
                let placed = WorkspaceGame(
                    index: index, replay: game.analysis.gameReplay, analysis: game.analysis,
                    place: .open(open, offset: game.start))
                guard try body(placed) else { return false }
            }
            return true
        }
        guard let (path, opened) = document.file else { return true }
        var pieces = FilePieces(opened, size: pieceSize)
        var counted = 0
        var stopped = false
        while let piece = pieces.next() {
            // What is not UTF-8 read as U+FFFD, as an editor shows it.
            var bytes = piece.bytes
            if !SourceText.isValidUTF8(bytes) { bytes = Array(String(decoding: bytes, as: UTF8.self).utf8) }
            let source = SourceText(bytes)
            let before = counted
            let whole = try GameStream.forEachGame(in: bytes) { syntax, index in
                counted = before + index + 1
                if counted % 256 == 0 {
                    try context.checkCancellation()
                    if ContinuousClock.now > deadline {
                        stopped = true
                        return false
                    }
                }
                let replay = GameReplay(source: source, syntax: syntax, index: before + index)
                return try body(
                    WorkspaceGame(
                        index: before + index, replay: replay, analysis: nil,
                        place: .piece(source, firstLine: piece.firstLine)))
            }
            if stopped { cut(at: path, partly: true) }
            guard whole else { return false }
        }
        if let failure = pieces.failure {
            notes.append("\(FileSystem.display(path)): \(Self.describe(failure))")
        }
        return true
    }
}

extension PGNLanguageServer {
    /// Workspace files this large or larger are left out by what reads them all, before
    /// anything of them is read.
    static let largestWorkspaceFile = 64 << 20

    /// A workspace file read from disk as version 0 of a document; nil when it cannot be read
    /// or is `largestWorkspaceFile` or larger.
    static func diskDocument(_ uri: DocumentURI) -> Document? {
        guard let path = FileURI.path(uri),
            case .success(let bytes) = FileSystem.read(path, limit: largestWorkspaceFile, followingLinks: true)
        else { return nil }
        // What is not UTF-8 read as U+FFFD, as an editor shows it.
        if SourceText.isValidUTF8(bytes) { return Document(uri: uri, version: 0, bytes: bytes) }
        return Document(uri: uri, version: 0, text: String(decoding: bytes, as: UTF8.self))
    }

    /// The workspace folders (or the root) the client named, as paths.
    func workspaceRootPaths(_ session: Session) -> [[UInt8]] {
        let params = session.initializeParams
        var roots = (params.workspaceFolders ?? []).compactMap { FileURI.path($0.uri) }
        if roots.isEmpty, let uri = params.rootURI, let root = FileURI.path(uri) { roots.append(root) }
        return roots
    }

    /// The `.pgn` files under the workspace folders (`WorkspaceWalk`), those named by
    /// `leavingOut` (open documents) and the files this server writes for the client left out.
    func workspaceFiles(
        _ session: Session, leavingOut uris: [DocumentURI] = [], isCancelled: () -> Bool = { false }
    )
        -> WorkspaceWalk.Found
    {
        var leavingOut = Set(
            uris.compactMap { uri in FileURI.path(uri).flatMap(FileSystem.followedStatus)?.identity })
        for folder in ReferenceFiles.folders() {
            if let status = FileSystem.status(Array(folder.path.utf8)) { leavingOut.insert(status.identity) }
        }
        var limits = WorkspaceWalk.Limits()
        limits.largestFile = Self.largestWorkspaceFile
        return WorkspaceWalk.pgnFiles(
            under: workspaceRootPaths(session), leavingOut: leavingOut, limits: limits, isCancelled: isCancelled)
    }

    /// The open documents, then the workspace's `.pgn` files that are not open, one at a time
    /// (`WorkspaceDocuments`).
    func workspaceDocuments(_ context: RequestContext) -> WorkspaceDocuments {
        let deadline = ContinuousClock.now + workspaceReadingTime
        let uris = context.documents.uris
        let found = workspaceFiles(context.session, leavingOut: uris) { context.isCancelled }
        return WorkspaceDocuments(
            context, analyzer: analyzer, open: uris.compactMap { context.documents[$0] }, found: found,
            pieceSize: workspacePieceSize, deadline: deadline)
    }

    /// Logs what a request over the whole workspace left out, each note once in a session:
    /// `workspace/symbol` is asked at every keystroke.
    func logWorkspaceNotes(_ notes: [String], of what: String) {
        let new = loggedWorkspaceNotes.withLock { logged in
            if logged.count > 10_000 { logged = [] }
            return notes.filter { logged.insert($0).inserted }
        }
        guard !new.isEmpty else { return }
        var lines = new.prefix(20).map { "- \($0)" }
        if new.count > 20 { lines.append("- and \(new.count - 20) more") }
        server.log(.info, "pgn-lsp: \(what) left out:\n" + lines.joined(separator: "\n"))
    }
}

extension PGNLanguageServer {
    /// The workspace folders (or the root) the client named, as file URLs.
    func workspaceRoots(_ session: Session) -> [URL] {
        let params = session.initializeParams
        var roots: [URL] = []
        for folder in params.workspaceFolders ?? [] {
            if let url = URL(string: folder.uri), url.isFileURL { roots.append(url) }
        }
        if roots.isEmpty, let uri = params.rootURI, let url = URL(string: uri), url.isFileURL {
            roots.append(url)
        }
        return roots
    }
}
