import Foundation
import GameStore
import LanguageServer
import PGNServer
import TestSupport

/// Five games for the explorer's tests. After 1. e4 three of them (1-0, ½-½, 0-1: e5 twice, c5
/// once); after 1. e4 e5 2. Nf3 Nc6 three (the last by another move order), one of which ends
/// there. The best-rated is the last (2900 and 2850).
let explorerGames = [
    game("Anand", 2800, "Botvinnik", 2700, "1-0", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"),
    game("Carlsen", 2600, "Ding", 2650, "1/2-1/2", "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5"),
    game("Euwe", 2500, "Fischer", 2400, "0-1", "1. e4 c5 2. Nf3 d6"),
    game("Gelfand", nil, "Hou", nil, "1-0", "1. d4 d5 2. c4"),
    game("Ivanchuk", 2900, "Jobava", 2850, "1-0", "1. Nf3 Nc6 2. e4 e5"),
]

func game(
    _ white: String, _ whiteElo: Int?, _ black: String, _ blackElo: Int?, _ result: String, _ moves: String
)
    -> String
{
    var tags = "[Event \"Test\"]\n[White \"\(white)\"]\n[Black \"\(black)\"]\n[Result \"\(result)\"]\n"
    if let whiteElo { tags += "[WhiteElo \"\(whiteElo)\"]\n" }
    if let blackElo { tags += "[BlackElo \"\(blackElo)\"]\n" }
    return "\(tags)\n\(moves) \(result)\n"
}

/// Makes a database at `path` with `games`; without `index`, with no position index (as
/// another program makes one).
func makeDatabase(_ path: String, games: [String] = explorerGames, index: Bool = true) throws {
    let database = try GameDatabase(path: path, options: .init(positionIndex: index))
    _ = try database.store(games: games.enumerated().map { GameSource(text: $0.element, index: $0.offset) })
}

/// A folder for a test's databases and PGN files, removed at the end of `body`; `body` gets a
/// client of a new server with the folder as its workspace, initialized with `settings` (the
/// `pgn` section) and `capabilities`, after `prepare` made the folder's files. The games' files
/// that references write go to a folder of the test's own beside it (`XDG_CACHE_HOME`).
func withExplorer(
    settings: JSONValue = [:], capabilities: JSONValue = [:], clientInfo: JSONValue = ["name": "tests"],
    prepare: (URL) throws -> Void = ownDatabase,
    _ body: (TestClient, URL) async throws -> Void
) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-explorer-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let cache = URL(fileURLWithPath: folder.path + "-cache")
    defer {
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.removeItem(at: cache)
    }
    setenv("XDG_CACHE_HOME", cache.path, 1)
    defer { unsetenv("XDG_CACHE_HOME") }
    try prepare(folder)
    // No engine in these hovers: they are about the databases.
    var pgn = settings.objectValue ?? [:]
    if pgn["engine"] == nil { pgn["engine"] = ["hoverMs": 0] }
    let client = TestClient { PGNLanguageServer(server: $0).register() }
    _ = try await client.result(
        "initialize",
        [
            "processId": .null, "capabilities": capabilities, "clientInfo": clientInfo,
            "initializationOptions": ["pgn": .object(pgn)],
            "workspaceFolders": [["uri": .string(folder.absoluteString), "name": "games"]],
        ])
    client.notify("initialized", [:])
    try await body(client, folder)
}

/// The URI of `name` in `folder`.
func fileURI(_ folder: URL, _ name: String) -> String { folder.appendingPathComponent(name).absoluteString }

/// The params of a request at a position of the document at `uri`.
func at(_ uri: String, _ line: Int, _ character: Int) -> JSONValue {
    ["textDocument": ["uri": .string(uri)], "position": position(line, character)]
}

/// Markdown hovers, as VS Code and Neovim take them.
let markdownHovers: JSONValue = ["textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]]]

/// The default database of `withExplorer`: `explorerGames` as `games.ocgdb.db3`.
func ownDatabase(_ folder: URL) throws { try makeDatabase(folder.appendingPathComponent("games.ocgdb.db3").path) }

extension TestClient {
    /// Opens `text` as `mine.pgn` in `folder`; returns its URI.
    func openMine(_ folder: URL, _ text: String) -> String {
        let uri = fileURI(folder, "mine.pgn")
        open(uri, text)
        return uri
    }

    /// The hover's text at a place of `uri`.
    func hoverText(_ uri: String, _ line: Int, _ character: Int) async throws -> String {
        try await result("textDocument/hover", at(uri, line, character))["contents"]?["value"]?.stringValue ?? ""
    }
}
