import ChessCore
import Foundation
import LanguageServer
import PGN

#if canImport(Glibc)
    import Glibc
#endif

/// The repertoires that `repertoire.white` and `repertoire.black` name (paths or glob
/// patterns, relative to the first workspace folder): each file read from disk, or from its
/// open document, into the repertoire of its side (a game whose own tags name a side goes to
/// that one). Kept until a file, the open documents or the settings change.
final class RepertoireFiles: Sendable {
    /// By what they were read from: each repertoire document asks without its own file, so
    /// several readings of the same files are kept (a few, the settings naming a few files).
    private let kept = Locked<[[String]: [Color: Repertoire]]>([:])
    private static let keptReadings = 8

    /// The repertoires, and what they were read from (paths, sides, versions): `key` changes
    /// when they do. `leaving`: a file left out (the document asking).
    func repertoires(
        white: [String], black: [String], base: URL?, documents: DocumentStore, leaving: DocumentURI? = nil
    ) -> (repertoires: [Color: Repertoire], key: [String]) {
        var files: [(path: String, uri: DocumentURI, side: Color)] = []
        for (patterns, side) in [(white, Color.white), (black, .black)] {
            for pattern in patterns where !pattern.isEmpty {
                for path in Self.expand(pattern, base: base) where !files.contains(where: { $0.path == path }) {
                    let uri = FileURI.uri(path: Array(path.utf8))
                    if uri != leaving { files.append((path, uri, side)) }
                }
            }
        }
        var key: [String] = []
        for file in files {
            let open = documents[file.uri].map { "open \($0.version)" }
            key.append("\(file.side) \(file.path) \(open ?? FileSignature.of(file.path).map { "\($0)" } ?? "none")")
        }
        if let done = kept.withLock({ $0[key] }) { return (done, key) }
        var repertoires: [Color: Repertoire] = [:]
        for file in files {
            guard
                let bytes = documents[file.uri]?.bytes
                    ?? FileManager.default.contents(atPath: file.path).map(Array.init)
            else { continue }
            let source = SourceText(bytes)
            let parser = bytes.withUnsafeBufferPointer { Parser($0) }
            for (index, syntax) in parser.games.enumerated() {
                let replay = GameReplay(source: source, syntax: syntax, index: index)
                let side = Repertoire.side(of: replay) ?? file.side
                var repertoire = repertoires[side] ?? Repertoire(side: side)
                repertoire.add(replay, file: file.path)
                repertoires[side] = repertoire
            }
        }
        kept.withLock { kept in
            // Readings of files as they were are left behind as the files change.
            if kept.count >= Self.keptReadings { kept.removeAll() }
            kept[key] = repertoires
        }
        return (repertoires, key)
    }

    /// The files a pattern names: an absolute path, `~/…`, or one relative to `base`, with the
    /// wildcards of `glob(3)` (`*`, `?`, `[…]`), sorted.
    static func expand(_ pattern: String, base: URL?) -> [String] {
        var full = pattern
        if pattern.hasPrefix("~/") {
            full = FileSystem.home.appendingPathComponent(String(pattern.dropFirst(2))).path
        } else if !pattern.hasPrefix("/") {
            guard let base else { return [] }
            full = base.appendingPathComponent(pattern).path
        }
        guard !full.utf8.contains(0) else { return [] }
        #if os(Linux)
            var found = glob_t()
            defer { globfree(&found) }
            guard glob(full, 0, nil, &found) == 0 else { return [] }
            return (0..<Int(found.gl_pathc)).compactMap { found.gl_pathv[$0].map { String(cString: $0) } }.sorted()
        #else
            return FileManager.default.fileExists(atPath: full) ? [full] : []
        #endif
    }
}

extension PGNLanguageServer {
    /// For a game of `repertoire.player` (else `board.player`), where it left the player's
    /// repertoire (`repertoire.white`, `repertoire.black`): an inlay hint after the move that
    /// left it, saying who left it and what the repertoire plays there; nil when the game stayed
    /// in it, is not the player's, or the player's side has no repertoire.
    func repertoireHint(
        _ game: PlacedGame, _ repertoires: [Color: Repertoire], player: NameKey
    ) -> (offset: Int, label: String, tooltip: String)? {
        let a = game.analysis
        guard let side = Repertoire.side(of: player, in: a.tagReplay), let repertoire = repertoires[side],
            let start = a.start.position
        else { return nil }
        let mainline = a.moves.filter { $0.depth == 0 }
        let departure = RepertoireDeparture.follow(start: start, mainline: mainline, through: repertoire)
        guard [.player, .opponent, .ended].contains(departure.kind), departure.ply < mainline.count else { return nil }
        let move = mainline[departure.ply]
        let offset = a.syntax.nodes[move.node].range.upperBound + game.start
        let played = Self.moveName(move)
        let prepared = departure.prepared.map(\.san).joined(separator: ", ")
        let place =
            departure.place.map { place in
                let chapter = repertoire.chapters[place.chapter]
                let file = URL(fileURLWithPath: chapter.file).lastPathComponent
                return " (\(file)\(place.line.map { ":\($0)" } ?? ""), \(chapter.name))"
            } ?? ""
        switch departure.kind {
        case .player:
            return (
                offset, "⤷ repertoire: \(prepared)",
                "You left your repertoire with \(played): it plays \(prepared) here\(place)."
            )
        case .opponent:
            return (
                offset, "⤷ not prepared",
                "Your opponent left your repertoire with \(played): it prepares \(prepared) here\(place)."
            )
        default:
            return (offset, "⤷ end of repertoire", "Your repertoire ends before \(played)\(place).")
        }
    }

    /// The repertoires of the settings, in the first workspace folder of `session`.
    func settingsRepertoires(
        _ settings: Settings, _ session: Session?, _ documents: DocumentStore, leaving: DocumentURI? = nil
    ) -> (repertoires: [Color: Repertoire], key: [String]) {
        guard !settings.repertoireWhite.isEmpty || !settings.repertoireBlack.isEmpty, let session else {
            return ([:], [])
        }
        return repertoireFiles.repertoires(
            white: settings.repertoireWhite, black: settings.repertoireBlack,
            base: workspaceRoots(session).first, documents: documents, leaving: leaving)
    }
}
