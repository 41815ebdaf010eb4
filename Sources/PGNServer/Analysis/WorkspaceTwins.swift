import Foundation
import LanguageServer
import PGN

/// The twin keys of the workspace's `.pgn` files as they are on disk, so that a game of an open
/// document finds its copy in another file (a TWIC issue and the broadcast's file, two folders
/// of the same event).
///
/// Kept up to date by `refresh`, which reads again only the files whose size or modification
/// time changed; it runs in the background, when a document is opened, saved or closed. A file
/// that is open is read from its document, not from disk (`PGNLanguageServer.elsewhereTwins`).
final class WorkspaceTwinIndex: Sendable {
    /// A game of a workspace file: its key, its number in the file and where its first tag is.
    struct Game: Sendable {
        let key: TwinKey
        let index: Int
        let label: Place
    }

    /// A range of one line of another file, its columns counted in each encoding.
    struct Place: Sendable, Hashable {
        let line: Int
        let utf8: Range<Int>
        let utf16: Range<Int>
        let utf32: Range<Int>

        /// The place of `range`, from its LSP range in each encoding (a range over lines ends
        /// where its line does not: at its start).
        init(_ lspRange: (PositionEncoding) -> LSPRange) {
            func columns(_ encoding: PositionEncoding) -> Range<Int> {
                let range = lspRange(encoding)
                let end = range.end.line == range.start.line ? range.end.character : range.start.character
                return range.start.character..<max(range.start.character, end)
            }
            line = lspRange(.utf8).start.line
            utf8 = columns(.utf8)
            utf16 = columns(.utf16)
            utf32 = columns(.utf32)
        }

        init(_ range: Range<Int>, in source: SourceText) {
            self.init { encoding in
                let (start, end) = (
                    source.position(of: range.lowerBound, in: encoding),
                    source.position(of: range.upperBound, in: encoding)
                )
                return LSPRange(
                    start: LSPPosition(line: start.line, character: start.column),
                    end: LSPPosition(line: end.line, character: end.column))
            }
        }

        func range(_ encoding: PositionEncoding) -> LSPRange {
            let columns =
                switch encoding {
                case .utf8: utf8
                case .utf16: utf16
                case .utf32: utf32
                }
            return LSPRange(
                start: LSPPosition(line: line, character: columns.lowerBound),
                end: LSPPosition(line: line, character: columns.upperBound))
        }
    }

    fileprivate struct File {
        let modified: Date
        let size: Int
        let games: [Game]
    }

    private struct State {
        var files: [DocumentURI: File] = [:]
        /// Each identity's games: the file and the game's place in `files[uri].games`; files open
        /// in the editor (`open`) are left out, their documents are read instead.
        var byIdentity: [Int: [(uri: DocumentURI, game: Int)]] = [:]
        var open = Set<DocumentURI>()
        /// Counts the changes, for the result IDs of pulled diagnostics.
        var generation = 0
        var running = false
        var again = false
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "pgn-lsp.workspace-twins", qos: .utility)

    var generation: Int { state.withLock { $0.generation } }

    /// The index as it is now, read without the lock.
    struct Snapshot {
        fileprivate let files: [DocumentURI: File]
        fileprivate let byIdentity: [Int: [(uri: DocumentURI, game: Int)]]

        var isEmpty: Bool { byIdentity.isEmpty }

        /// How many games of the workspace's files not open in the editor have this identity.
        func count(_ identity: Int) -> Int { byIdentity[identity]?.count ?? 0 }

        /// Every identity with how many games have it.
        var counts: some Sequence<(identity: Int, count: Int)> { byIdentity.lazy.map { ($0.key, $0.value.count) } }
        var identityCount: Int { byIdentity.count }

        /// The games of files other than `uri` and those in `open` with this identity.
        func games(
            withIdentity identity: Int, notIn uri: DocumentURI, open: Set<DocumentURI>
        ) -> [(uri: DocumentURI, game: Game)] {
            guard let entries = byIdentity[identity] else { return [] }
            return entries.compactMap { entry in
                guard entry.uri != uri, !open.contains(entry.uri), let file = files[entry.uri] else { return nil }
                return (entry.uri, file.games[entry.game])
            }
        }
    }

    var snapshot: Snapshot { state.withLock { Snapshot(files: $0.files, byIdentity: $0.byIdentity) } }

    /// Reads again, in the background, the files of `files()` that changed since they were
    /// last read, forgets those no longer there, leaves out those `open()` names, and calls
    /// `changed` when anything did. Calls made while one runs are folded into one more run.
    func scheduleRefresh(
        _ files: @escaping @Sendable () -> [URL], open: @escaping @Sendable () -> Set<DocumentURI>,
        changed: @escaping @Sendable () -> Void
    ) {
        let start = state.withLock { state -> Bool in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            while true {
                if refresh(files(), open: open()) { changed() }
                let more = state.withLock { state -> Bool in
                    if state.again {
                        state.again = false
                        return true
                    }
                    state.running = false
                    return false
                }
                if !more { return }
            }
        }
    }

    /// Brings the index up to date with `urls`, the files `open` left out; whether anything changed.
    @discardableResult
    func refresh(_ urls: [URL], open: Set<DocumentURI> = []) -> Bool {
        let (known, wasOpen) = state.withLock { ($0.files.mapValues { ($0.modified, $0.size) }, $0.open) }
        var read: [DocumentURI: File] = [:]
        var present = Set<DocumentURI>()
        for url in urls {
            let uri = url.absoluteString
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                let size = (attributes[.size] as? NSNumber)?.intValue,
                let modified = attributes[.modificationDate] as? Date
            else { continue }
            present.insert(uri)
            if let old = known[uri], old.0 == modified, old.1 == size { continue }
            var games: [Game] = []
            if size < PGNLanguageServer.largestWorkspaceFile, let data = try? Data(contentsOf: url) {
                games = Self.games(of: SourceText([UInt8](data)))
            }
            read[uri] = File(modified: modified, size: size, games: games)
        }
        let gone = known.keys.filter { !present.contains($0) }
        guard !read.isEmpty || !gone.isEmpty || open != wasOpen else { return false }
        state.withLock { state in
            for uri in gone { state.files[uri] = nil }
            state.files.merge(read) { $1 }
            state.open = open
            var byIdentity: [Int: [(uri: DocumentURI, game: Int)]] = [:]
            for (uri, file) in state.files where !open.contains(uri) {
                for (k, game) in file.games.enumerated() { byIdentity[game.key.identity, default: []].append((uri, k)) }
            }
            state.byIdentity = byIdentity
            state.generation += 1
        }
        return true
    }

    /// The games of a text that have a twin key.
    static func games(of source: SourceText) -> [Game] {
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        var games: [Game] = []
        for (index, syntax) in parser.games.enumerated() {
            guard let key = TwinKey(GameReplay(source: source, syntax: syntax, index: index)) else { continue }
            games.append(Game(key: key, index: index, label: Place(syntax.label, in: source)))
        }
        return games
    }
}
