import Foundation
import LanguageServer
import TestSupport

@testable import PGNServer

/// What the feature tests share: a new PGN server behind the in-memory client, with one
/// document open, and the JSON of positions and ranges as the protocol writes them.
extension TestClient {
    /// A client of a new PGN server that announced `capabilities` and `clientInfo` and opened
    /// `text` at `uri`.
    static func pgn(
        _ text: String, uri: String = testURI, capabilities: JSONValue = [:],
        clientInfo: JSONValue = ["name": "tests"]
    ) async throws -> TestClient {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        try await client.initialize(capabilities: capabilities, clientInfo: clientInfo)
        client.open(uri, text)
        return client
    }
}

/// A new folder holding `club.pgn` with `text`, removed by `body`'s end; `body` gets a client of a
/// new PGN server initialized with the folder as its workspace, and the file's URL.
func withWorkspace(
    club text: String, capabilities: JSONValue = [:], _ body: (TestClient, URL) async throws -> Void
) async throws {
    try await withWorkspaceFolder(capabilities: capabilities) { folder in
        try text.write(to: folder.appendingPathComponent("club.pgn"), atomically: true, encoding: .utf8)
    } _: { client, folder, _ in
        try await body(client, folder.appendingPathComponent("club.pgn"))
    }
}

/// A new folder, and one beside it for what the workspace must not reach, both removed by
/// `body`'s end; `prepare` gets them to make their files, then `body` gets a client of a new
/// PGN server initialized with the first as its workspace, the folder and the server.
func withWorkspaceFolder(
    capabilities: JSONValue = [:], pieceSize: Int = FilePieces.size, readingTime: Duration = .seconds(4),
    prepare: (_ folder: URL, _ outside: URL) throws -> Void,
    _ body: (TestClient, URL, PGNLanguageServer) async throws -> Void
) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-workspace-\(UUID())")
    let outside = URL(fileURLWithPath: folder.path + "-outside")
    for made in [folder, outside] {
        try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
    }
    defer {
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.removeItem(at: outside)
    }
    try prepare(folder, outside)
    let box = Locked<PGNLanguageServer?>(nil)
    let client = TestClient { server in
        let pgn = PGNLanguageServer(server: server, workspacePieceSize: pieceSize, workspaceReadingTime: readingTime)
        pgn.register()
        box.withLock { $0 = pgn }
    }
    _ = try await client.result(
        "initialize",
        [
            "processId": .null, "capabilities": capabilities,
            "workspaceFolders": [["uri": .string(folder.absoluteString), "name": "club"]],
        ])
    client.notify("initialized", [:])
    try await body(client, folder, box.withLock { $0 }!)
}

/// The same, without what lies outside the workspace.
func withWorkspaceFolder(
    capabilities: JSONValue = [:], pieceSize: Int = FilePieces.size, readingTime: Duration = .seconds(4),
    prepare: (_ folder: URL) throws -> Void, _ body: (TestClient, URL, PGNLanguageServer) async throws -> Void
) async throws {
    try await withWorkspaceFolder(
        capabilities: capabilities, pieceSize: pieceSize, readingTime: readingTime,
        prepare: { folder, _ in try prepare(folder) }, body)
}

extension TestClient {
    /// The text of the first `window/logMessage` or `window/showMessage` (`method`) that
    /// contains `text`, waited for.
    func message(_ method: String, containing text: String) async throws -> String {
        let message = try await inbox.take("\(method) with \(text)") { message in
            guard case .notification(method, let params) = message else { return false }
            return params?["message"]?.stringValue?.contains(text) == true
        }
        guard case .notification(_, let params) = message else { return "" }
        return params?["message"]?.stringValue ?? ""
    }
}

/// The document the feature tests open.
let testURI = "file:///feature.pgn"

/// `{"uri": uri}`, the `textDocument` of a request.
func textDocument(_ uri: String = testURI) -> JSONValue { ["uri": .string(uri)] }

/// A position as JSON (UTF-16 columns, the default encoding).
func position(_ line: Int, _ character: Int) -> JSONValue {
    ["line": .integer(line), "character": .integer(character)]
}

/// A range as JSON, from (line, character) to (line, character).
func range(_ startLine: Int, _ startCharacter: Int, _ endLine: Int, _ endCharacter: Int) -> JSONValue {
    ["start": position(startLine, startCharacter), "end": position(endLine, endCharacter)]
}

/// The params of a request at a position of the test document.
func at(_ line: Int, _ character: Int, uri: String = testURI) -> JSONValue {
    ["textDocument": textDocument(uri), "position": position(line, character)]
}

/// Two games, the first with a one-line variation and a comment over two lines, the second
/// with a clock comment and no result tag. By line:
///
///     0  [Event "Casual"]              8  [Event "Second"]
///     1  [White "Anna"]                9  [White "Carl"]
///     2  [Black "Boris"]              10  [Black "Dora"]
///     3  [Result "1-0"]               11
///     4                               12  1. d4 {[%clk 0:03:00]} d5 2. c4 *
///     5  1. e4 e5 2. Nf3 (2. f4 exf4) 2... Nc6 {A long
///     6  comment} 3. Bb5 1-0
///     7
let twoGames = """
    [Event "Casual"]
    [White "Anna"]
    [Black "Boris"]
    [Result "1-0"]

    1. e4 e5 2. Nf3 (2. f4 exf4) 2... Nc6 {A long
    comment} 3. Bb5 1-0

    [Event "Second"]
    [White "Carl"]
    [Black "Dora"]

    1. d4 {[%clk 0:03:00]} d5 2. c4 *

    """

/// Writes `text` to a new file of `folder` whose name is `name`'s bytes (which need not be UTF-8).
func writeFile(named name: [UInt8], in folder: URL, _ text: String) throws {
    let path = FileSystem.joined(Array(folder.path.utf8), name)
    let descriptor = FileSystem.withCPath(path) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
    defer { close(descriptor) }
    let written = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
    guard written == text.utf8.count else { throw CocoaError(.fileWriteUnknown) }
}
