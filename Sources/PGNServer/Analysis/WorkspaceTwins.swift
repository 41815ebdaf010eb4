import Foundation
import GameStore
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

        /// The place of `range` in `source`, a piece of its file that starts at the start of
        /// line `firstLine`.
        init(_ range: Range<Int>, in source: SourceText, firstLine: Int = 0) {
            self.init { encoding in
                let (start, end) = (
                    source.position(of: range.lowerBound, in: encoding),
                    source.position(of: range.upperBound, in: encoding)
                )
                return LSPRange(
                    start: LSPPosition(line: firstLine + start.line, character: start.column),
                    end: LSPPosition(line: firstLine + end.line, character: end.column))
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
        let modified: Int64
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
    /// The size of the pieces in which the files are read (`FilePieces`).
    private let pieceSize: Int
    /// The most games the index holds, its files together (`defaultLargestIndex`).
    private let largestIndex: Int

    init(pieceSize: Int = FilePieces.size, largestIndex: Int = WorkspaceTwinIndex.defaultLargestIndex) {
        self.pieceSize = pieceSize
        self.largestIndex = largestIndex
    }

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

    /// The most games the index holds, its files together: each costs a few hundred bytes. The
    /// files it would go beyond with are left out, and said.
    static let defaultLargestIndex = 250_000

    /// Reads again, in the background, the files of `files()` that changed since they were
    /// last read, forgets those no longer there, leaves out those `open()` names, and calls
    /// `changed` when anything did, `leftOut` with what could not be held. Calls made while one
    /// runs are folded into one more run.
    func scheduleRefresh(
        _ files: @escaping @Sendable () -> [WorkspaceFile], open: @escaping @Sendable () -> Set<DocumentURI>,
        changed: @escaping @Sendable () -> Void, leftOut: @escaping @Sendable ([String]) -> Void = { _ in }
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
                var notes: [String] = []
                if refresh(files(), open: open(), notes: &notes) { changed() }
                if !notes.isEmpty { leftOut(notes) }
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

    /// Brings the index up to date with `files` (`WorkspaceWalk`), the files `open` left out;
    /// whether anything changed. The files are read one at a time, and their games too; those
    /// that would take the index beyond `largestIndex` games are left out (in `notes`).
    @discardableResult
    func refresh(_ files: [WorkspaceFile], open: Set<DocumentURI> = [], notes: inout [String]) -> Bool {
        let (known, wasOpen) = state.withLock {
            ($0.files.mapValues { ($0.modified, $0.size, $0.games.count) }, $0.open)
        }
        var read: [DocumentURI: File] = [:]
        var present = Set<DocumentURI>()
        var total = 0
        for file in files {
            let uri = file.uri
            if let old = known[uri], old.0 == file.modified, old.1 == file.size, total + old.2 <= largestIndex {
                present.insert(uri)
                total += old.2
                continue
            }
            guard total < largestIndex else {
                notes.append(
                    "the index of twins across files holds \(Figures.grouped(largestIndex)) games: "
                        + "\(FileSystem.display(file.path)) and the files after it are left out")
                break
            }
            var games: [Game] = []
            if case .success(let opened) = file.open(limit: PGNLanguageServer.largestWorkspaceFile) {
                // A piece at a time (`FilePieces`), its games one at a time.
                var pieces = FilePieces(opened, size: pieceSize)
                var counted = 0
                while let piece = pieces.next() {
                    let source = SourceText(piece.bytes)
                    let before = counted
                    let whole = GameStream.forEachGame(in: piece.bytes) { syntax, index in
                        counted = before + index + 1
                        if let key = TwinKey(GameReplay(source: source, syntax: syntax, index: before + index)) {
                            let label = Place(syntax.label, in: source, firstLine: piece.firstLine)
                            games.append(Game(key: key, index: before + index, label: label))
                        }
                        return total + games.count <= largestIndex
                    }
                    guard whole else { break }
                }
            }
            guard total + games.count <= largestIndex else {
                notes.append(
                    "the index of twins across files holds \(Figures.grouped(largestIndex)) games: "
                        + "\(FileSystem.display(file.path)) and the files after it are left out")
                break
            }
            present.insert(uri)
            total += games.count
            read[uri] = File(modified: file.modified, size: file.size, games: games)
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
}
