import ChessCore
import Dispatch
import Foundation
import GameStore
import LanguageServer

/// A database the explorer reads: the user's own (`pgn.database.path`, the file the save
/// actions write, whose position index the server builds when it is missing or out of date),
/// or a reference (`pgn.database.references`, opened read-only and never written).
struct ExplorerSource: Sendable, Hashable {
    var path: String
    var isOwn: Bool

    var name: String { URL(fileURLWithPath: path).lastPathComponent }
}

/// What identifies a file's contents: another program's write, or this one's, changes it.
struct FileSignature: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64

    /// Nil when nothing is at `path`.
    static func of(_ path: String) -> FileSignature? {
        var status = stat()
        guard !path.utf8.contains(0), stat(path, &status) == 0 else { return nil }
        #if os(Linux)
            let modified = status.st_mtim
        #else
            let modified = status.st_mtimespec
        #endif
        return FileSignature(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec))
    }
}

/// What the databases together know of a position.
struct Exploration: Sendable {
    /// Summed over the databases that answered.
    var answer = ExplorerAnswer()
    /// The best-rated game that reached the position, and the database it is in.
    var best: (summary: GameSummary, database: String)?
    /// The databases that answered.
    var answered: [ExplorerSource] = []
    /// Why a database that is there gave no answer (no index, index being built, unreadable).
    var notes: [String] = []

    /// The games counted, in words (`ExplorerFilter.words`); empty: all.
    var filter = ""

    /// Whether every database that is there answered.
    var isComplete: Bool { notes.isEmpty && !answered.isEmpty }
}

/// The games of one database that reach a position.
struct DatabaseMatches: Sendable {
    var source: ExplorerSource
    var total: Int
    /// At most the limit asked for, in ID order.
    var matches: [PositionMatch]
}

/// The explorer's databases: opened read-only when first needed, kept per path and opened
/// again when the file changes (its size, time or inode), with a small cache of answers by
/// database and position hash, so that a hover on a position seen before reads nothing. A
/// missing file is no database, silently. The user's own database gets its position index
/// built in the background when it lacks one or when it is out of date; until then it
/// answers with a note.
final class ExplorerCenter: Sendable {
    /// A database as last opened.
    private struct OpenDatabase {
        var signature: FileSignature
        /// The open file and whether its index is current, or why it cannot be read.
        var state: Result<(GameDatabase, PositionIndexStatus), ExplorerFailure>
    }

    private struct AnswerKey: Hashable {
        var path: String
        var signature: FileSignature
        var hash: UInt64
        var filter: ExplorerFilter
    }

    private struct Cached {
        var answer: ExplorerAnswer
        /// Looked up when a hover first needs it (nil inside: the game could not be read).
        var best: GameSummary??
    }

    private struct State {
        var databases: [String: OpenDatabase] = [:]
        var answers = LRUCache<AnswerKey, Cached>(capacity: 4096)
        /// Each database's games as the filter keeps them, counted (`FilteredExplorer`), for the
        /// file as it was.
        var filtered: [String: (signature: FileSignature, filter: ExplorerFilter, explorer: FilteredExplorer)] = [:]
        /// How many times a filter's games were counted.
        var filterCounts = 0
        /// Own databases whose index is being built.
        var building: Set<String> = []
        /// Builds that failed, by path, for the file as it was: tried again once it changes.
        var failedBuilds: [String: (FileSignature, String)] = [:]
    }

    private let state = Locked(State())
    /// Where index builds run, one at a time, off the threads that answer requests.
    private static let builds = DispatchQueue(label: "pgn-lsp.explorer.index", qos: .utility)
    /// Where reads run: SQLite waits for another program's lock by sleeping.
    private static let reads = DispatchQueue(label: "pgn-lsp.explorer.read", attributes: .concurrent)
    /// How long a read waits for another program's lock before the database is left out.
    static let readBusyTimeout = 0.25
    /// Told when a build ends (for the client's log).
    let log = Locked<(@Sendable (MessageType, String) -> Void)?>(nil)
    /// Which games the answers count (`explorer.*` settings).
    let filter = Locked(ExplorerFilter())
    /// Held while a filter's games are counted (`filtered`): one count at a time.
    private let counting = NSLock()

    /// Runs `body` off the concurrency pool, on the explorer's queue.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            reads.async { continuation.resume(returning: body()) }
        }
    }

    /// The database at `source`, opened (or opened again, when the file changed); nil when no
    /// file is there.
    private func database(
        _ source: ExplorerSource
    ) -> (Result<(GameDatabase, PositionIndexStatus), ExplorerFailure>, FileSignature)? {
        guard let signature = FileSignature.of(source.path) else {
            state.withLock { $0.databases[source.path] = nil }
            return nil
        }
        if let open = state.withLock({ $0.databases[source.path] }), open.signature == signature {
            // An import that stops before its end leaves the file as it was: whether it still
            // runs is asked again.
            guard case .success((let database, .updating)) = open.state else { return (open.state, signature) }
            let opened: Result<(GameDatabase, PositionIndexStatus), ExplorerFailure>
            do {
                opened = .success((database, try database.positionIndexStatus()))
            } catch {
                opened = .failure(ExplorerFailure("\(source.name) cannot be read: \(error)"))
            }
            state.withLock { $0.databases[source.path] = OpenDatabase(signature: signature, state: opened) }
            return (opened, signature)
        }
        let opened: Result<(GameDatabase, PositionIndexStatus), ExplorerFailure>
        do {
            let database = try GameDatabase.openForReading(path: source.path, busyTimeout: Self.readBusyTimeout)
            opened = .success((database, try database.positionIndexStatus()))
        } catch GameStoreError.locked(let path, _) {
            // Not kept: the next request tries again.
            return (
                .failure(
                    ExplorerFailure("\(URL(fileURLWithPath: path).lastPathComponent) is locked by another program")),
                signature
            )
        } catch {
            opened = .failure(ExplorerFailure("\(source.name) cannot be read: \(error)"))
        }
        state.withLock { $0.databases[source.path] = OpenDatabase(signature: signature, state: opened) }
        return (opened, signature)
    }

    /// The database if its index answers, else why not (and for the user's own database, the
    /// build of its index is started); nil when no file is there.
    private func indexed(_ source: ExplorerSource) -> Result<(GameDatabase, FileSignature), ExplorerFailure>? {
        guard let (opened, signature) = database(source) else { return nil }
        switch opened {
        case .failure(let failure): return .failure(failure)
        case .success((let database, let status)):
            if status == .current { return .success((database, signature)) }
            // Its tree has not the import's games yet; the import brings it up to date.
            if status == .updating {
                return .failure(ExplorerFailure("\(source.name): \(status) (the explorer answers once it is done)"))
            }
            guard source.isOwn else {
                return .failure(
                    ExplorerFailure(
                        "\(source.name): \(status); build it with `pgn-lsp index --db \(source.path)`"))
            }
            return .failure(buildIndex(source, signature: signature))
        }
    }

    /// Starts building the index of the user's own database (once at a time); says what is
    /// happening meanwhile.
    private func buildIndex(_ source: ExplorerSource, signature: FileSignature) -> ExplorerFailure {
        let path = source.path
        let started: Bool? = state.withLock { state in
            if let (failedOn, _) = state.failedBuilds[path], failedOn == signature { return nil }
            if state.building.contains(path) { return false }
            state.building.insert(path)
            return true
        }
        guard let started else {
            let reason = state.withLock { $0.failedBuilds[path]?.1 } ?? ""
            return ExplorerFailure("\(source.name): its position index could not be built: \(reason)")
        }
        if started {
            Self.builds.async { [self] in
                let outcome = Result {
                    var options = GameDatabase.Options()
                    options.positionIndexOnly = true
                    return try GameDatabase(path: path, options: options).buildPositionIndex()
                }
                state.withLock { state in
                    state.building.remove(path)
                    state.databases[path] = nil
                    if case .failure(let error) = outcome {
                        state.failedBuilds[path] = (FileSignature.of(path) ?? signature, "\(error)")
                    } else {
                        state.failedBuilds[path] = nil
                    }
                }
                let report = log.withLock { $0 }
                switch outcome {
                case .success(let games):
                    report?(.info, "pgn-lsp: built the position index of \(path) (\(games) games)")
                case .failure(let error):
                    report?(.warning, "pgn-lsp: could not build the position index of \(path): \(error)")
                }
            }
        }
        return ExplorerFailure("\(source.name): building its position index (the explorer answers once it is done)")
    }

    /// Whether an index build is running for `path`.
    func isBuilding(_ path: String) -> Bool { state.withLock { $0.building.contains(path) } }

    /// The database's games as `filter` keeps them, counted once per file and filter: a request
    /// that needs them while they are being counted waits for that count.
    private func filtered(
        _ database: GameDatabase, at path: String, _ signature: FileSignature, _ filter: ExplorerFilter
    ) throws -> FilteredExplorer {
        func kept() -> FilteredExplorer? {
            state.withLock { state in
                state.filtered[path].flatMap { $0.signature == signature && $0.filter == filter ? $0.explorer : nil }
            }
        }
        if let explorer = kept() { return explorer }
        counting.lock()
        defer { counting.unlock() }
        if let explorer = kept() { return explorer }
        let explorer = try database.filteredExplorer(filter)
        state.withLock {
            $0.filtered[path] = (signature, filter, explorer)
            $0.filterCounts += 1
        }
        return explorer
    }

    /// How many times a filter's games were counted, in all databases.
    var filterCounts: Int { state.withLock { $0.filterCounts } }

    /// Counts the games the filter keeps in each database of `sources` beside the requests, so
    /// that the first answer after the filter changed need not wait for it.
    func countFilteredGames(in sources: [ExplorerSource]) {
        for source in sources {
            Self.reads.async { _ = self.answer(source, .startingPosition, line: [], best: false) }
        }
    }

    /// What one database knows of a position; nil when no file is there.
    private func answer(
        _ source: ExplorerSource, _ position: Position, line: [Position], best wantsBest: Bool
    ) -> Result<(ExplorerAnswer, GameSummary?), ExplorerFailure>? {
        guard let indexed = indexed(source) else { return nil }
        switch indexed {
        case .failure(let failure): return .failure(failure)
        case .success((let database, let signature)):
            let filter = self.filter.withLock { $0 }
            let key = AnswerKey(path: source.path, signature: signature, hash: position.hash, filter: filter)
            var cached = state.withLock { $0.answers[key] }
            do {
                if cached == nil, !filter.isEmpty {
                    let explorer = try filtered(database, at: source.path, signature, filter)
                    cached = Cached(answer: try explorer.explore(position, line: line), best: nil)
                }
                if cached == nil { cached = Cached(answer: try database.explore(position, line: line), best: nil) }
                if wantsBest, cached!.best == nil {
                    let id = cached!.answer.bestGame
                    cached!.best = .some(try id.flatMap { try database.summaries(ids: [$0])[$0] })
                }
            } catch GameStoreError.locked {
                return .failure(ExplorerFailure("\(source.name) is locked by another program"))
            } catch let error as GameStoreError where error.isAboutTheFilter {
                return .failure(ExplorerFailure("\(source.name): \(error)"))
            } catch {
                return .failure(ExplorerFailure("\(source.name) cannot be read: \(error)"))
            }
            let done = cached!
            state.withLock { $0.answers[key] = done }
            return .success((done.answer, done.best ?? nil))
        }
    }

    /// What the databases together know of `position`: counts summed, continuations merged,
    /// the best-rated game of them all (`best`: looked up, for a hover). `line`: the positions
    /// before it in the game at hand, from its start (they let a position that one database
    /// game reaches be found without reading every game's keys).
    func explore(
        _ position: Position, line: [Position] = [], in sources: [ExplorerSource], best: Bool = false
    ) -> Exploration {
        var exploration = Exploration()
        exploration.filter = filter.withLock { $0.words }
        var continuations: [Move: ExplorerAnswer.Continuation] = [:]
        var bestElo: Int?
        for source in sources {
            guard let result = answer(source, position, line: line, best: best) else { continue }
            switch result {
            case .failure(let failure): exploration.notes.append(failure.message)
            case .success((let answer, let summary)):
                exploration.answered.append(source)
                exploration.answer.add(
                    games: answer.games, whiteWins: answer.whiteWins, draws: answer.draws, blackWins: answer.blackWins)
                exploration.answer.ended = ExplorerAnswer.sum(exploration.answer.ended, answer.ended)
                for continuation in answer.continuations {
                    guard var merged = continuations[continuation.move] else {
                        continuations[continuation.move] = continuation
                        continue
                    }
                    merged.add(continuation)
                    if let elo = continuation.bestElo, merged.bestElo.map({ elo > $0 }) ?? true {
                        merged.bestElo = elo
                        merged.bestGame = nil
                    }
                    continuations[continuation.move] = merged
                }
                if let summary, exploration.best == nil || (answer.bestElo ?? -1) > (bestElo ?? -1) {
                    exploration.best = (summary, source.name)
                    bestElo = answer.bestElo
                }
            }
        }
        let san = Dictionary(uniqueKeysWithValues: continuations.keys.map { ($0, position.san($0)) })
        exploration.answer.continuations = continuations.values.sorted {
            $0.games != $1.games ? $0.games > $1.games : san[$0.move]! < san[$1.move]!
        }
        return exploration
    }

    /// The games of each database that reach `position` (at any ply of their mainline), at
    /// most `limit` in all; the notes say which databases could not be searched.
    func games(
        reaching position: Position, in sources: [ExplorerSource], limit: Int
    ) -> (found: [DatabaseMatches], notes: [String]) {
        var found: [DatabaseMatches] = []
        var notes: [String] = []
        var room = limit
        for source in sources {
            guard let indexed = indexed(source) else { continue }
            switch indexed {
            case .failure(let failure): notes.append(failure.message)
            case .success((let database, _)):
                do {
                    let matches = try database.games(reaching: position)
                    found.append(
                        DatabaseMatches(source: source, total: matches.count, matches: Array(matches.prefix(room))))
                    room = max(0, room - matches.count)
                } catch {
                    notes.append("\(source.name) cannot be searched: \(error)")
                }
            }
        }
        return (found, notes)
    }

    /// The open database of `source` (for exporting games), if its index answers.
    func openDatabase(_ source: ExplorerSource) -> GameDatabase? {
        guard case .success((let database, _)) = indexed(source) else { return nil }
        return database
    }
}

/// Why a database gave no answer, in words for the hover.
struct ExplorerFailure: Error, Sendable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// A map that keeps its `capacity` most recently used entries.
struct LRUCache<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    subscript(key: Key) -> Value? {
        mutating get {
            guard let entry = entries[key] else { return nil }
            clock += 1
            entries[key] = (entry.value, clock)
            return entry.value
        }
        set {
            clock += 1
            guard let newValue else {
                entries[key] = nil
                return
            }
            entries[key] = (newValue, clock)
            if entries.count > capacity {
                // The least recently used quarter goes at once: one sort per many insertions.
                let oldest = entries.sorted { $0.value.used < $1.value.used }.prefix(max(1, capacity / 4))
                for (key, _) in oldest { entries[key] = nil }
            }
        }
    }
}

extension PGNLanguageServer {
    /// The databases the explorer reads for a document: the user's own (`pgn.database.path`,
    /// when the file exists), then each of `pgn.database.references`, each path once.
    func explorerSources(for uri: DocumentURI, _ context: RequestContext) -> [ExplorerSource] {
        explorerSources(for: uri, context.session)
    }

    /// The same outside a request (diagnostics pushed after an edit); none before `initialize`.
    func explorerSources(for uri: DocumentURI, _ session: Session?) -> [ExplorerSource] {
        guard let session else { return [] }
        var sources: [ExplorerSource] = []
        func add(_ path: String, own: Bool) {
            let path = URL(fileURLWithPath: path).standardizedFileURL.path
            if !sources.contains(where: { $0.path == path }) { sources.append(ExplorerSource(path: path, isOwn: own)) }
        }
        if let own = try? databasePath(for: uri, session) { add(own, own: true) }
        for reference in currentSettings.databaseReferences where !reference.isEmpty {
            if let path = try? resolveDatabasePath(reference, for: uri, session) { add(path, own: false) }
        }
        return sources.filter { FileSignature.of($0.path) != nil }
    }
}

extension PGNLanguageServer {
    /// Starts counting the games the explorer's filter keeps in the databases of `uris`.
    func countFilteredGames(for uris: [DocumentURI], _ session: Session) {
        var sources: [ExplorerSource] = []
        for uri in uris {
            for source in explorerSources(for: uri, session) where !sources.contains(source) { sources.append(source) }
        }
        explorer.countFilteredGames(in: sources)
    }

    /// `pgn.setExplorerFilter`: the `explorer.*` settings from the editor, for the session (the
    /// next change of the settings sets them again); the diagnostics follow (repertoire gaps).
    func setExplorerFilter(_ arguments: [JSONValue], _ context: RequestContext) async throws -> JSONValue {
        guard let given = (arguments.first ?? [:]).objectValue else {
            throw ResponseError(.invalidParams, "pgn.setExplorerFilter takes an object of the explorer.* settings")
        }
        var section: [String: JSONValue] = [
            "player": "", "color": "", "since": "", "until": "", "minElo": 0, "maxElo": 0, "speed": "",
        ]
        for (key, value) in given {
            guard section[key] != nil else {
                throw ResponseError(.invalidParams, "pgn.setExplorerFilter: unknown filter \(key)")
            }
            section[key] = value
        }
        let warnings = apply(["explorer": .object(section)], source: "pgn.setExplorerFilter", log: false)
        if let warning = warnings.first { throw ResponseError(.invalidParams, warning) }
        if !currentSettings.explorerFilter.isEmpty { countFilteredGames(for: context.documents.uris, context.session) }
        await republish(context.documents.uris, of: context.documents, context.session)
        let words = currentSettings.explorerFilter.words
        return ["filter": .string(words.isEmpty ? "every game" : words)]
    }
}
