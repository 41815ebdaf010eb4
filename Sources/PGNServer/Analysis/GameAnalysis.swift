import ChessCore
import Foundation
import LanguageServer
import PGN
import Synchronization
import TextPositions

/// One game of a document, read on its own: its text, syntax, replay and diagnostics, with
/// byte offsets relative to the game's first byte. Shared between document versions while the
/// game's text does not change, so an edit replays only the games it touched.
public final class GameAnalysis: Sendable {
    public let source: SourceText
    /// The game's syntax without its movetext nodes: its tags and range. The nodes are most of
    /// a large document's memory (ten million in a 100 MB file): `syntax` reads them again from
    /// the game's text, in microseconds, when a request asks for them.
    private let tagSyntax: GameSyntax
    /// Where a diagnostic about the whole game stands (`GameSyntax.label`).
    public let label: Range<Int>
    public let start: GameStart
    public let diagnostics: [Diagnostic]
    /// Whether a move of the game was played.
    public let hasPlayedMoves: Bool
    /// Node indices of the moves that could not be played (after an illegal move, in a
    /// variation of one), in order: most games have none, and a large document's games are
    /// millions of moves.
    let unplayedMoveNodes: [UInt32]
    /// The game's opening and the move where its name was reached (`ReplayedGame.opening`).
    public let opening: (opening: Opening, node: Int?)?
    /// What finds the game's twins in its document (`TwinKey`); nil for a game that cannot have one.
    public let twinKey: TwinKey?
    /// The players, event and site the game names, for the file's name variants (`NameVariants`).
    public let tagNames: TagNames
    /// The side the game is a repertoire for, when its tags name one (`Repertoire.side(of:)`).
    public let repertoireSide: Color?
    /// The replayed moves with their positions, computed when first asked for: most games of a
    /// large file are never hovered, and positions are most of a replay's memory.
    private let replayed = Mutex<(moves: [ReplayedMove], byNode: [Int: Int])?>(nil)
    /// What features derive from the game (its semantic tokens' summary, folds, outline), made when
    /// first asked for: a request after an edit recomputes only the games the edit touched.
    let derived = DerivedValues()

    /// The game's text, as the analyzer's cache knows it.
    let text: GameText
    /// The number of bytes of its text.
    public let length: Int

    /// The analysis of a game's text; `parsed`: its syntax (relative to its first byte) when it
    /// was read already, without a problem, within the whole text (`PGNAnalyzer.cutIntoGames`).
    init(text: GameText, parsed: GameSyntax? = nil) {
        self.text = text
        let bytes = text.bytes
        length = bytes.count
        source = SourceText(bytes)
        var parserDiagnostics: [Diagnostic] = []
        let syntax: GameSyntax
        if let parsed {
            syntax = parsed
        } else {
            let parser = bytes.withUnsafeBufferPointer { Parser($0) }
            syntax = parser.games.first ?? GameSyntax(range: 0..<bytes.count)
            parserDiagnostics = parser.diagnostics
        }
        label = syntax.label
        var tagSyntax = syntax
        tagSyntax.nodes = []
        tagSyntax.resultIndex = nil
        self.tagSyntax = tagSyntax
        let replayer = GameReplay(source: source, syntax: syntax, index: 0)
        let replay = replayer.run(keepMoves: false)
        twinKey = TwinKey(replayer)
        tagNames = TagNames(replayer)
        repertoireSide = Repertoire.side(of: replayer)
        start = replay.start
        diagnostics = parserDiagnostics + replay.diagnostics
        hasPlayedMoves = !replay.playedNodes.isEmpty
        var unplayed: [UInt32] = []
        var next = 0
        let played = replay.playedNodes
        for (index, node) in syntax.nodes.enumerated() where node.kind == .move {
            while next < played.count && played[next] < index { next += 1 }
            if next == played.count || played[next] != index { unplayed.append(UInt32(truncatingIfNeeded: index)) }
        }
        unplayedMoveNodes = unplayed
        opening = replay.opening
    }

    /// Every move that could be played, with the positions before and after it.
    public var moves: [ReplayedMove] { replayedMoves().moves }

    private func replayedMoves() -> (moves: [ReplayedMove], byNode: [Int: Int]) {
        if let done = replayed.withLock({ $0 }) { return done }
        let moves = gameReplay.run(keepMoves: true).moves
        var byNode: [Int: Int] = [:]
        for (i, move) in moves.enumerated() { byNode[move.node] = i }
        replayed.withLock { $0 = (moves, byNode) }
        return (moves, byNode)
    }

    /// The game's syntax, its movetext read again from its text (the same reading: a game's
    /// syntax within its document is that of its text alone). Read it once for a request.
    public var syntax: GameSyntax {
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        return parser.games.first ?? GameSyntax(range: 0..<length)
    }

    /// The game's tag pairs.
    public var tags: [TagPair] { tagSyntax.tags }

    public var gameReplay: GameReplay { GameReplay(source: source, syntax: syntax, index: 0) }

    /// A reading of the game's tags alone (its movetext left out): for a request that reads
    /// only tags (names, dates, a title), without reading the moves again.
    public var tagReplay: GameReplay { GameReplay(source: source, syntax: tagSyntax, index: 0) }

    public func move(atNode index: Int) -> ReplayedMove? {
        let replayed = replayedMoves()
        return replayed.byNode[index].map { replayed.moves[$0] }
    }
}

/// Values derived from one game's analysis for the whole-document requests, each made once:
/// a request after an edit recomputes only the games the edit touched. A request reads one for
/// each of tens of thousands of games: each is read under the lock directly (no key path).
final class DerivedValues: Sendable {
    private struct Slots {
        var outline: PGNLanguageServer.GameOutline?
        var folds: [GameFold]?
        /// In the encoding of the last request (a client keeps to one).
        var tokens: (encoding: PositionEncoding, run: TokenRun)?
    }
    /// In the object itself (a `Mutex`, not a `Locked`: a 100 MB document has 44,000 games).
    private let slots = Mutex(Slots())

    func outline(_ make: () -> PGNLanguageServer.GameOutline) -> PGNLanguageServer.GameOutline {
        value({ $0.outline }, { $0.outline = $1 }, make)
    }

    var hasOutline: Bool { slots.withLock { $0.outline != nil } }

    func folds(_ make: () -> [GameFold]) -> [GameFold] { value({ $0.folds }, { $0.folds = $1 }, make) }

    var hasFolds: Bool { slots.withLock { $0.folds != nil } }

    func tokenRun(_ encoding: PositionEncoding, _ make: () -> TokenRun) -> TokenRun {
        if let done = slots.withLock({ $0.tokens?.encoding == encoding ? $0.tokens?.run : nil }) { return done }
        let made = make()
        slots.withLock { $0.tokens = (encoding, made) }
        return made
    }

    func hasTokenSummary(_ encoding: PositionEncoding) -> Bool {
        slots.withLock { $0.tokens?.encoding == encoding }
    }

    @inline(__always)
    private func value<Value: Sendable>(
        _ read: (Slots) -> Value?, _ write: (inout Slots, Value) -> Void, _ make: () -> Value
    ) -> Value {
        if let done = slots.withLock({ read($0) }) { return done }
        let made = make()
        slots.withLock { write(&$0, made) }
        return made
    }
}

extension DocumentAnalysis {
    /// Makes a value each game keeps (`DerivedValues`) for the games that lack it, on every
    /// core when there are many: all the games of a file the first time, the few an edit made
    /// after it. A request reads the values game by game after this; the few left are made
    /// where they are read.
    func makeOnEveryCore(lacking: (GameAnalysis) -> Bool, _ make: @Sendable (GameAnalysis) -> Void) {
        makeOnEveryCore(among: games.indices, lacking: lacking, make)
    }

    /// The same among some of the games (those an edit made, told by `GameAlignment`).
    func makeOnEveryCore(
        among indices: some Collection<Int>, lacking: (GameAnalysis) -> Bool, _ make: @Sendable (GameAnalysis) -> Void
    ) {
        guard indices.count > 256 else { return }
        let missing = indices.map { games[$0] }.filter { lacking($0.analysis) }
        guard missing.count > 256 else { return }
        PGNAnalyzer.forEachOnEveryCore(missing.count) { make(missing[$0].analysis) }
    }
}

/// A game placed in its document.
public struct PlacedGame: Sendable {
    /// Offset of the game's first byte in the document.
    public let start: Int
    /// Offset just past its last byte, kept beside the start: a request over every game of a
    /// large document (the tokens' delta) finds where each is without reading its analysis, one
    /// object of 44,000 scattered in memory.
    public let end: Int
    public let analysis: GameAnalysis
    /// `analysis`'s identity, compared without reading the object (`GameAlignment`).
    let analysisID: ObjectIdentifier

    /// `range`: the bytes of `analysis`'s text in the document.
    init(_ range: Range<Int>, analysis: GameAnalysis) {
        start = range.lowerBound
        end = range.upperBound
        self.analysis = analysis
        analysisID = ObjectIdentifier(analysis)
    }

    public var range: Range<Int> { start..<end }

    /// The same game, `delta` bytes further on.
    func shifted(by delta: Int) -> PlacedGame { PlacedGame(range.shifted(by: delta), analysis: analysis) }
}

/// The PGN reading of one version of a document.
public struct DocumentAnalysis: Sendable {
    public let uri: DocumentURI
    public let version: Int
    public let games: [PlacedGame]
    /// Every diagnostic, with byte ranges in the document, in document order.
    public let diagnostics: [Diagnostic]
    /// The problems outside every game (text between games), in the order the parser found them.
    var outside: [Diagnostic] = []
    /// `Parser.longComments`: where a later edit can change how the text before it is read.
    var longComments: [Lexer.LongComment] = []
    /// How many bytes were parsed to cut this version into games: the whole text, or after an
    /// edit only the games around it.
    public var parsedBytes = 0
    /// The document text this is the reading of (`EditHistory.stamp`), and its length.
    var stamp: UInt64 = 0
    var length = 0
    /// The names written another way (`name-variant`): kept for the next reading, which reuses
    /// them when the games it read again have the same names.
    var nameFindings: [NameVariants.Finding] = []
    /// Each game's twin identity (`TwinKey.identity`), and how many games have each: twins in
    /// other files are looked for in these, without touching every game's analysis again.
    var twinIdentities: [Int?] = []
    var twinIdentityCounts: [Int: Int] = [:]
    /// The indices of the games that are repertoires (`GameAnalysis.repertoireSide`).
    var repertoireGames: [Int] = []

    /// The game whose text holds `offset` (its end included), if any.
    public func game(at offset: Int) -> PlacedGame? {
        gameIndex(at: offset).map { games[$0] }
    }

    /// The index in `games` of the game whose text holds `offset` (its end included), if any.
    public func gameIndex(at offset: Int) -> Int? {
        games.index(holding: offset, by: \.range)
    }
}

/// A game's text as a dictionary key: hashed once, over raw bytes.
struct GameText: Hashable, Sendable {
    let bytes: [UInt8]
    let digest: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        digest = Self.digest(bytes)
    }

    /// A digest of the bytes, eight at a time (a 100 MB document's games are hashed in 10 ms,
    /// not in the 100 ms `Hasher` takes over bytes). Equal digests are checked byte by byte
    /// (`==`): two texts with one digest cost a comparison, never a wrong answer.
    static func digest(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { raw in
            let key: UInt64 = 0x9E37_79B9_7F4A_7C15
            var state = key ^ UInt64(raw.count)
            func mix(_ word: UInt64) {
                let product = (state ^ word).multipliedFullWidth(by: key)
                state = product.high ^ product.low
            }
            var i = 0
            while i + 8 <= raw.count {
                mix(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            var tail: UInt64 = 0
            for k in i..<raw.count { tail |= UInt64(raw[k]) << (8 * (k - i)) }
            mix(tail)
            mix(0x2545_F491_4F6C_DD1D)
            return Int(truncatingIfNeeded: state)
        }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    /// Compared with `memcmp`: a file of copied games (a collection and its own excerpts) has
    /// thousands of equal texts, which `Array`'s `==` compares a byte at a time. On the 100 MB
    /// file of 100 copies, keeping its games in the cache after opening it takes about 15 ms
    /// instead of 40 ms (profiled).
    static func == (lhs: GameText, rhs: GameText) -> Bool {
        guard lhs.digest == rhs.digest, lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { a in
            rhs.bytes.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }
}

/// Where the games of a text are and what lies between them.
struct GameCut {
    var ranges: [Range<Int>]
    /// Diagnostics outside every game, in the order the parser found them.
    var outside: [Diagnostic]
    var longComments: [Lexer.LongComment]
    /// Each game's analysis, when the cut was asked to read them (`cutIntoGames(_:analyzing:)`).
    var analyses: [GameAnalysis] = []
}

/// Reads documents into `DocumentAnalysis` values and keeps the latest ones of each, with a
/// cache of game analyses by game text.
///
/// After an edit, only the games around it are parsed again: the reading of the previous
/// version gives where its games start, the parse restarts at a game start before the edit and
/// stops at the first game start after the edit that is also a game start of the previous
/// version (moved by the edit). Games before and after keep their analyses.
public final class PGNAnalyzer: Sendable {
    private struct State {
        /// The latest analyses of each document, newest last: the last is the current one, the
        /// others are bases for requests that read a version an edit already replaced.
        var latest: [DocumentURI: [DocumentAnalysis]] = [:]
        var games: [GameText: GameAnalysis] = [:]
        /// How many games the latest analyses held when the cache was last trimmed to them.
        var liveGames = 0
        /// The bytes of the games in the cache, and of those the latest analyses held at the
        /// last trim: typing in one large game makes a new large game at every keystroke.
        var cachedBytes = 0
        var liveBytes = 0

        /// Whether the cache may grow by `bytes` of games before it is trimmed again.
        func hasRoom(for bytes: Int) -> Bool {
            games.count <= 2 * liveGames + 1024 && cachedBytes + bytes <= 2 * liveBytes + PGNAnalyzer.spareCacheBytes
        }

        /// Adds the analyses the cache does not hold yet, when it has room for all of them;
        /// false when it has not (nothing is added then).
        mutating func add(_ analyses: [GameAnalysis]) -> Bool {
            guard hasRoom(for: analyses.reduce(0) { $0 + $1.text.bytes.count }) else { return false }
            for game in analyses where games[game.text] == nil {
                games[game.text] = game
                cachedBytes += game.text.bytes.count
            }
            return true
        }

        /// Keeps only the games of the open documents' latest versions; returns the bytes dropped.
        @discardableResult
        mutating func trim() -> Int {
            var kept: [GameText: GameAnalysis] = [:]
            kept.reserveCapacity(latest.values.reduce(0) { $0 + ($1.last?.games.count ?? 0) })
            var bytes = 0
            for latest in latest.values.compactMap(\.last) {
                for game in latest.games where kept[game.analysis.text] == nil {
                    kept[game.analysis.text] = game.analysis
                    bytes += game.analysis.text.bytes.count
                }
            }
            let dropped = cachedBytes - bytes
            games = kept
            liveGames = kept.count
            cachedBytes = bytes
            liveBytes = bytes
            return dropped
        }
    }

    /// The bytes of game text the cache may hold beyond twice the open documents' games.
    public static let spareCacheBytes = 8 << 20

    private let state = Locked(State())

    /// Whether an edit is read again only around it; otherwise every version is read as a new
    /// text (tests compare the two).
    public let incremental: Bool

    /// Documents this large tell `onWholeReading` of their whole readings.
    public let progressBytes: Int

    private let wholeReadingHook = Mutex<(@Sendable (WholeReading) -> Void)?>(nil)

    /// Documents this large tell `onGamesRead` of their whole readings' games.
    public let sharingBytes: Int

    private let gamesReadHook = Mutex<(@Sendable (Document, [PlacedGame]) -> Void)?>(nil)

    public init(incremental: Bool = true, progressBytes: Int = 10 << 20, sharingBytes: Int = 1 << 20) {
        self.incremental = incremental
        self.progressBytes = progressBytes
        self.sharingBytes = sharingBytes
    }

    /// Calls `hook` when a whole reading of a document of `progressBytes` or more begins (on
    /// opening, or after a change that replaced most of the text), so that it can follow it.
    public func onWholeReading(_ hook: @escaping @Sendable (WholeReading) -> Void) {
        wholeReadingHook.withLock { $0 = hook }
    }

    /// Calls `hook` with a document of `sharingBytes` or more and its games once its whole
    /// reading is made and kept: each game's analysis holds a copy of its text, which the
    /// document's text may share (`DocumentText.sharing`) instead of holding the bytes twice.
    public func onGamesRead(_ hook: @escaping @Sendable (Document, [PlacedGame]) -> Void) {
        gamesReadHook.withLock { $0 = hook }
    }

    /// The analysis of a document version, computed once.
    public func analysis(of document: Document) -> DocumentAnalysis {
        let earlier = state.withLock { $0.latest[document.uri] } ?? []
        if let same = Self.made(document, in: earlier) { return same }
        // The newest earlier text of this document.
        let base = earlier.last { document.history.edits(since: $0.stamp) != nil }
        var result: DocumentAnalysis
        var reread: [GameAnalysis]?
        var readWhole = false
        if incremental, let base, let (analysis, games) = reading(document, after: base) {
            (result, reread) = (analysis, games)
        } else {
            let cache = state.withLock { $0.games }
            result = analyze(document, cache: cache)
            readWhole = true
        }
        let stored = result
        state.withLock { state in
            var versions = state.latest[document.uri] ?? []
            if let current = versions.last {
                // A later text of the same document, or else a version not older, is the current
                // one; an older one is kept before it.
                let newer = document.history.edits(since: current.stamp) != nil || current.version <= result.version
                versions.insert(stored, at: newer ? versions.count : versions.count - 1)
                if versions.count > Self.keptVersions { versions.removeFirst() }
            } else {
                versions = [stored]
            }
            state.latest[document.uri] = versions
            // After an edit: the games read again join the cache; the stale ones leave it at the
            // next trim.
            if reread.map({ state.add($0) }) != true { state.trim() }
        }
        if readWhole, document.length >= sharingBytes, let hook = gamesReadHook.withLock({ $0 }) {
            hook(document, result.games)
        }
        return result
    }

    /// A document version's analysis being made, which other requests for it wait for.
    private struct Flight {
        let stamp: UInt64
        let task: Task<DocumentAnalysis, Never>
    }
    private let flights = Locked<[DocumentURI: Flight]>([:])

    /// The analysis of a document version, made once however many requests ask at the same
    /// time: the first starts it, the others wait for it (on a file just opened, the
    /// diagnostics, tokens, folds and lenses all ask at once).
    public func analysis(sharing document: Document) async -> DocumentAnalysis {
        let stamp = document.history.stamp
        if let ready = Self.made(document, in: state.withLock { $0.latest[document.uri] } ?? []) { return ready }
        let task = flights.withLock { flights -> Task<DocumentAnalysis, Never> in
            if let flight = flights[document.uri], flight.stamp == stamp { return flight.task }
            // Off the concurrency pool: the reading of a large document takes a second.
            let task = Task<DocumentAnalysis, Never> { [self] in
                await OffPoolExecutor.run { self.analysis(of: document) }
            }
            flights[document.uri] = Flight(stamp: stamp, task: task)
            return task
        }
        let analysis = await task.value
        flights.withLock { flights in
            if flights[document.uri]?.stamp == stamp { flights[document.uri] = nil }
        }
        return analysis
    }

    /// A reading of only the games around `range`, for a request about what the editor shows
    /// while the whole document's analysis is not made yet: the games from the last game start
    /// at or before the range to the first after it, each read as the whole reading would (its
    /// analysis joins the cache, which the whole reading then takes). It has no diagnostics
    /// and no findings across games (twins, name variants).
    public func screenAnalysis(of document: Document, covering range: Range<Int>) -> DocumentAnalysis {
        let text = document.content
        let lower = min(max(range.lowerBound, 0), text.count)
        // The last game start at or before the range: looked for in the 64 KB before it, then
        // in four times more, and so on.
        var start = 0
        var reach = 1 << 16
        while lower > 0 {
            let window = max(0, lower + 1 - reach)..<min(lower + 1, text.count)
            if let found = text.withBytes(in: window, PieceCutter.lastGameBoundary) {
                start = window.lowerBound + found
                break
            }
            if window.lowerBound == 0 { break }
            reach *= 4
        }
        let parser = Self.parse(text, from: start, firstGameIndex: 0, reading: range.upperBound - start) {
            $0 > range.upperBound
        }
        let ranges = parser.games.map(\.range)
        let cache = state.withLock { $0.games }
        let analyses = Self.analyses(of: Self.texts(of: ranges, in: text)) { cache[$0] }
        state.withLock { _ = $0.add(analyses) }
        let games = zip(ranges, analyses).map { PlacedGame($0, analysis: $1) }
        return DocumentAnalysis(
            uri: document.uri, version: document.version, games: games, diagnostics: [],
            stamp: document.history.stamp, length: text.count)
    }

    /// A parse of `text` from `start` (0 or a game start of a parse of the whole text) that
    /// stops as `Parser.init(_:base:start:firstGameIndex:stoppingAt:)` does, made on a part of
    /// the text: the next `reading` bytes and 64 KB more, then four times as much while the
    /// parse went on to within `margin` of the part's end (what it read there could depend on
    /// what follows). The same games and diagnostics as on the whole text, without a copy of it.
    static func parse(
        _ text: DocumentText, from start: Int, firstGameIndex: Int, reading: Int,
        stoppingAt stop: @escaping (Int) -> Bool
    ) -> Parser {
        var length = max(reading, 0) + (1 << 16)
        while true {
            let end = min(text.count, start + length)
            let parser = text.withBytes(in: start..<end) { buffer in
                Parser(buffer, base: start, start: 0, firstGameIndex: firstGameIndex, stoppingAt: stop)
            }
            if end == text.count || (parser.stoppedAt != nil && parser.endOffset + Self.margin <= end) {
                return parser
            }
            length *= 4
        }
    }

    /// Whether a reading of some version of the document is kept: the reading of a later one
    /// then reads only around the edits since, which takes milliseconds.
    public func hasAnyAnalysis(of uri: DocumentURI) -> Bool {
        state.withLock { !($0.latest[uri]?.isEmpty ?? true) }
    }

    /// The analysis of this version among a document's kept analyses, with its bytes.
    private static func made(_ document: Document, in kept: [DocumentAnalysis]) -> DocumentAnalysis? {
        kept.last { $0.stamp == document.history.stamp }
    }

    /// Whether the analysis of this document version is made already (`analysis(of:)` would
    /// return it at once).
    public func hasAnalysis(of document: Document) -> Bool {
        state.withLock { $0.latest[document.uri] }?.contains { $0.stamp == document.history.stamp } ?? false
    }

    /// Forgets a closed document, and the games only it held.
    public func close(_ uri: DocumentURI) {
        let dropped = state.withLock { state in
            state.latest[uri] = nil
            return state.trim()
        }
        if dropped > Self.spareCacheBytes { Self.returnFreedMemory() }
    }

    /// The number of games the cache holds and their bytes.
    public var cacheSize: (games: Int, bytes: Int) { state.withLock { ($0.games.count, $0.cachedBytes) } }

    /// Hands memory freed by a large close back to the system, which the allocator may keep.
    private static func returnFreedMemory() {
        #if os(Linux)
            _ = releaseFreeHeapPages(0)
        #endif
    }

    /// The latest analysis of every open document (without its bytes).
    public var all: [DocumentAnalysis] { state.withLock { $0.latest.values.compactMap(\.last) } }

    /// How many analyses of each document are kept.
    static let keptVersions = 4

    /// Whether `offset` lies in one of `ranges` (sorted, not overlapping).
    static func inside(_ ranges: [Range<Int>], _ offset: Int) -> Bool {
        let after = ranges.firstIndex(atLeast: offset + 1, by: \.lowerBound)
        return after > 0 && ranges[after - 1].contains(offset)
    }

    /// Where a text is cut to be read on `cores` cores: 0, the starts of the pieces after the
    /// first (each a game start) and the text's length. Pieces of at most 8 MB, then smaller
    /// towards the end (a share of what is left, at least 1 MB), so that no core reads a large
    /// last piece alone while the others wait: on the 100 MB file opened in Neovim, eight pieces
    /// of 12.5 MB left one core alone for 0.1 s. A text under 4 MB, or one core, is one piece.
    static func pieceBounds(_ buffer: UnsafeBufferPointer<UInt8>, cores: Int) -> [Int] {
        var cuts = [0]
        guard buffer.count > 4 << 20 && cores > 1 else { return [0, buffer.count] }
        var from = 0
        while true {
            let left = buffer.count - from
            let step = max(min(8 << 20, left / (2 * cores)), 1 << 20)
            guard left > step + step / 2 else { break }
            if let cut = PieceCutter.lastGameBoundary(UnsafeBufferPointer(rebasing: buffer[from..<(from + step)])),
                cut > 0
            {
                from += cut
            } else if let cut = PieceCutter.firstGameBoundary(
                UnsafeBufferPointer(rebasing: buffer[(from + step - 1)...]))
            {
                // No game starts in the piece (a game of megabytes): it ends at the next one.
                from += step - 1 + cut
            } else {
                break
            }
            cuts.append(from)
        }
        return cuts + [buffer.count]
    }

    /// Where the games of a text are, and the problems outside every game (text between
    /// games); those inside a game come from the game's own reading, which is cached. A large
    /// text is cut at tag sections (as `pgn-lsp check` cuts files) and read on every core.
    /// `analyzing`: each game is analysed as soon as its piece is read, from the syntax the
    /// cut read (`GameCut.analyses`); `known` gives the analyses already made of a text. A
    /// game's movetext nodes are dropped once it is analysed, so only those of the pieces
    /// being read are in memory at once, never the whole text's. `progress` is told of each
    /// piece read: its length and its number of games.
    static func cutIntoGames(
        _ bytes: [UInt8], analyzing known: (@Sendable (GameText) -> GameAnalysis?)? = nil,
        progress: (@Sendable (_ bytes: Int, _ games: Int) -> Void)? = nil
    ) -> GameCut {
        let bounds = bytes.withUnsafeBufferPointer {
            pieceBounds($0, cores: ProcessInfo.processInfo.activeProcessorCount)
        }
        let pieces = bounds.count - 1
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<GameCut>.allocate(capacity: pieces)
        results.initialize(repeating: GameCut(ranges: [], outside: [], longComments: []))
        defer {
            results.deinitialize()
            results.deallocate()
        }
        bytes.withUnsafeBufferPointer { buffer in
            nonisolated(unsafe) let buffer = buffer
            DispatchQueue.concurrentPerform(iterations: pieces) { k in
                var parser = Parser(
                    UnsafeBufferPointer(rebasing: buffer[bounds[k]..<bounds[k + 1]]), base: bounds[k],
                    keepingSyntax: known != nil)
                var games = parser.takeGames()
                let ranges = games.map(\.range)
                var outside: [Diagnostic] = []
                // The games the parser found a problem in.
                var troubled = Set<Int>()
                for diagnostic in parser.diagnostics {
                    let after = ranges.firstIndex(atLeast: diagnostic.range.lowerBound + 1, by: \.lowerBound)
                    if after > 0 && ranges[after - 1].contains(diagnostic.range.lowerBound) {
                        troubled.insert(after - 1)
                    } else {
                        outside.append(diagnostic)
                    }
                }
                var analyses: [GameAnalysis] = []
                if let known {
                    // A game the parser found a problem in is read again on its own: its
                    // diagnostics are those of its own text.
                    analyses.reserveCapacity(games.count)
                    for index in games.indices {
                        let range = ranges[index]
                        let text = GameText(Array(buffer[range]))
                        if let analysis = known(text) {
                            analyses.append(analysis)
                        } else if troubled.contains(index) {
                            analyses.append(GameAnalysis(text: text))
                        } else {
                            games[index].shift(by: -range.lowerBound)
                            analyses.append(GameAnalysis(text: text, parsed: games[index]))
                        }
                        games[index] = GameSyntax(range: range)
                    }
                }
                games = []
                results[k] = GameCut(
                    ranges: ranges, outside: outside, longComments: parser.longComments, analyses: analyses)
                progress?(bounds[k + 1] - bounds[k], ranges.count)
            }
        }
        var cut = GameCut(ranges: [], outside: [], longComments: [])
        for piece in results {
            // Pieces number their games from 0.
            let before = cut.ranges.count
            cut.outside += piece.outside.map { diagnostic in
                var diagnostic = diagnostic
                diagnostic.game = diagnostic.game.map { $0 + before }
                return diagnostic
            }
            cut.ranges += piece.ranges
            cut.longComments += piece.longComments
            cut.analyses += piece.analyses
        }
        return cut
    }

    /// The whole text cut into games.
    private func analyze(_ document: Document, cache: [GameText: GameAnalysis]) -> DocumentAnalysis {
        // The array the document was opened from, else a copy (an edit that replaced most of it).
        let bytes = document.content.array
        let hook = bytes.count >= progressBytes ? wholeReadingHook.withLock { $0 } : nil
        let reading = hook.map { hook in
            let reading = WholeReading(uri: document.uri, length: bytes.count)
            hook(reading)
            return reading
        }
        var cut = Self.cutIntoGames(bytes, analyzing: { cache[$0] }, progress: reading.map { $0.pieceRead })
        let games = zip(cut.ranges, cut.analyses).map { PlacedGame($0, analysis: $1) }
        cut.analyses = []
        let analysis = Self.assemble(document, games: games, cut: cut, parsedBytes: bytes.count)
        reading?.finish(games: games.count)
        return analysis
    }

    /// Bytes on each side of an edit that the lexer may look at beyond a token (`1-0`, `…`,
    /// `½-½`, `e.p.` look a few bytes ahead).
    static let margin = 8

    /// The reading of a document from the reading of an earlier text of it, parsing only around
    /// what the edits since changed, with the games read again; nil when the edits are not known
    /// (another text, too many edits) or a reading of the whole text is better.
    private func reading(
        _ document: Document, after previous: DocumentAnalysis
    ) -> (
        DocumentAnalysis, [GameAnalysis]
    )? {
        let text = document.content
        guard let edits = document.history.edits(since: previous.stamp),
            let change = AppliedEdit.combining(edits), previous.length + change.delta == text.count,
            !previous.games.isEmpty, change.insertedLength < max(text.count / 2, 1 << 16)
        else { return nil }
        let old = previous.games
        let delta = change.delta
        let oldEnd = change.replacedRange.upperBound

        // Restart at the start of the game before the last one that starts before the edit: the
        // parse of everything before that point, and the decision to start a game there, read no
        // byte the edit changed. A brace comment before the edit whose end was found by reading
        // on past it is read again when the edit is in what was read (`Lexer.LongComment`).
        var edge = change.replacedRange.lowerBound
        if let long = previous.longComments.first(where: {
            $0.start < edge && (edge < $0.scanned || $0.scanned >= previous.length)
        }) {
            edge = long.start
        }
        // The games that start at least `margin` before the edge.
        let before = old.firstIndex(atLeast: edge - Self.margin + 1, by: \.start)
        let first = max(before - 2, 0)
        let start = before >= 2 ? old[first].start : 0

        // Stop at a game start after the edit that was a game start before it: from there on the
        // parse is the previous one, moved by `delta`.
        func oldGame(startingAt offset: Int) -> Int? {
            let found = old.firstIndex(atLeast: offset, by: \.start)
            return found < old.count && old[found].start == offset ? found : nil
        }
        // The parse reaches past the edit to the next game start that was one before it.
        let parser = Self.parse(
            text, from: start, firstGameIndex: first, reading: oldEnd + delta + Self.margin - start
        ) { offset in
            offset - delta >= oldEnd + Self.margin && oldGame(startingAt: offset - delta) != nil
        }
        let ranges = parser.games.map(\.range)
        let resumed = parser.stoppedAt.map { oldGame(startingAt: $0 - delta)! } ?? old.count
        let resumedAt = parser.stoppedAt ?? text.count + 1

        var cut = GameCut(ranges: [], outside: [], longComments: [])
        cut.outside = previous.outside.filter { $0.range.lowerBound < start }
        cut.outside += parser.diagnostics.filter { !Self.inside(ranges, $0.range.lowerBound) }
        cut.longComments = previous.longComments.filter { $0.start < start }
        cut.longComments += parser.longComments.filter { $0.start < resumedAt }
        if parser.stoppedAt != nil {
            let renumber = first + ranges.count - resumed
            let resumedOld = old[resumed].start
            for old in previous.outside where old.range.lowerBound >= resumedOld {
                var diagnostic = old.shifted(by: delta)
                diagnostic.game = diagnostic.game.map { $0 + renumber }
                cut.outside.append(diagnostic)
            }
            cut.longComments += previous.longComments.filter { $0.start >= resumedOld }.map { $0.moved(by: delta) }
        }

        // The games read again: most are in the previous reading or the cache.
        var known: [GameText: GameAnalysis] = [:]
        for game in old[first..<resumed] { known[game.analysis.text] = game.analysis }
        let texts = Self.texts(of: ranges, in: text)
        let analyses = Self.analyses(of: texts) { text in
            known[text] ?? state.withLock { $0.games[text] }
        }

        var games = Array(old[..<first])
        games.reserveCapacity(first + ranges.count + old.count - resumed)
        for (range, analysis) in zip(ranges, analyses) {
            games.append(PlacedGame(range, analysis: analysis))
        }
        for game in old[resumed...] {
            games.append(game.shifted(by: delta))
        }
        // An edit that leaves the names of the games it touched as they were (typing moves or
        // comments) leaves the file's name variants as they were: finding them again takes a
        // look at every name of the file.
        let sameNames =
            resumed - first == analyses.count
            && zip(old[first..<resumed], analyses).allSatisfy { $0.analysis.tagNames == $1.tagNames }
        return (
            Self.assemble(
                document, games: games, cut: cut, parsedBytes: parser.endOffset - start,
                nameFindings: sameNames ? previous.nameFindings : nil),
            analyses
        )
    }

    /// The `twin-game` diagnostics of a document's games, with their fixes: remove the copy,
    /// or remove it and give the kept game the tags only the copy has.
    static func twinDiagnostics(_ games: [PlacedGame], identities: [Int?], counts: [Int: Int]) -> [Diagnostic] {
        let pairs = Twins.find(identities: identities, counts: counts) { games[$0].analysis.twinKey! }
        guard !pairs.isEmpty else { return [] }
        func label(_ game: PlacedGame) -> Range<Int> { game.analysis.label.shifted(by: game.start) }
        return pairs.map { pair in
            let (copy, kept) = (games[pair.copy], games[pair.kept])
            var diagnostic = Twins.diagnostic(
                pair, copyLabel: label(copy), keptLabel: label(kept),
                copyPlies: copy.analysis.twinKey?.plies ?? 0, keptPlies: kept.analysis.twinKey?.plies ?? 0)
            let remove = Diagnostic.Edit(range: copy.range, text: "")
            diagnostic.fixes = [Diagnostic.Fix(title: "Remove this copy", edits: [remove], isPreferred: false)]
            // The tags the copy has and the kept game lacks, added after the kept game's last one.
            if let tags = Twins.mergedTags(from: copy.analysis.tagReplay, into: kept.analysis.tagReplay),
                let last = kept.analysis.tags.last?.range.upperBound
            {
                let at = last + kept.start
                let merge = Diagnostic.Edit(range: at..<at, text: tags)
                diagnostic.fixes.append(
                    Diagnostic.Fix(
                        title: Twins.mergeTitle(isShorter: pair.isShorter),
                        edits: pair.copy < pair.kept ? [remove, merge] : [merge, remove], isPreferred: false))
            }
            return diagnostic
        }
    }

    /// The names of a document's games written in another way than the file's usual one.
    static func nameFindings(_ games: [PlacedGame]) -> [NameVariants.Finding] {
        NameVariants.find(games.map { $0.analysis.tagNames }) { text(games, $0, $1) }
    }

    private static func text(_ games: [PlacedGame], _ game: Int, _ name: Int) -> String {
        let analysis = games[game].analysis
        return analysis.tagReplay.value(of: analysis.tags[analysis.tagNames.names[name].tag]) ?? ""
    }

    /// The `name-variant` hints of a document's games: a player, event or site written in
    /// another way than the file's usual one, with the fix that writes the usual one.
    static func nameVariantDiagnostics(_ games: [PlacedGame], _ findings: [NameVariants.Finding]) -> [Diagnostic] {
        findings.map { finding in
            let game = games[finding.game]
            let range = game.analysis.tagNames.names[finding.name].range.shifted(by: game.start)
            return NameVariants.diagnostic(finding, name: text(games, finding.game, finding.name), range: range)
        }
    }

    /// The texts of the games at `ranges` of a document's text, copied and hashed.
    static func texts(of ranges: [Range<Int>], in text: DocumentText) -> [GameText] {
        ranges.map { GameText(text.bytes(in: $0)) }
    }

    /// The texts of the games at `ranges`, copied and hashed on every core.
    static func texts(of ranges: [Range<Int>], in bytes: [UInt8]) -> [GameText] {
        guard ranges.count > 64 else { return ranges.map { GameText(Array(bytes[$0])) } }
        return bytes.withUnsafeBufferPointer { buffer in
            nonisolated(unsafe) let buffer = buffer
            return mapOnEveryCore(ranges.count) { k in GameText(Array(buffer[ranges[k]])) }
        }
    }

    /// Calls `body` with each of `0..<count` on every core, in chunks (eight for each core):
    /// what the games of a document need, one at a time and independently.
    static func forEachOnEveryCore(_ count: Int, _ body: @Sendable (Int) -> Void) {
        let chunk = max(1, count / (8 * ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: (count + chunk - 1) / chunk) { part in
            for k in (part * chunk)..<min(count, (part + 1) * chunk) { body(k) }
        }
    }

    /// `make` of each of `0..<count`, made on every core.
    static func mapOnEveryCore<Value>(_ count: Int, _ make: @Sendable (Int) -> Value) -> [Value] {
        nonisolated(unsafe) let values = UnsafeMutableBufferPointer<Value>.allocate(capacity: count)
        defer {
            values.deinitialize()
            values.deallocate()
        }
        nonisolated(unsafe) let base = values.baseAddress
        forEachOnEveryCore(count) { k in (base! + k).initialize(to: make(k)) }
        return Array(values)
    }

    /// The analyses of game texts: those `known` gives, the others read on every core (games are
    /// independent).
    private static func analyses(of texts: [GameText], known: (GameText) -> GameAnalysis?) -> [GameAnalysis] {
        nonisolated(unsafe) let fresh = UnsafeMutableBufferPointer<GameAnalysis?>.allocate(capacity: texts.count)
        fresh.initialize(repeating: nil)
        defer {
            fresh.deinitialize()
            fresh.deallocate()
        }
        var unknown: [Int] = []
        for (index, text) in texts.enumerated() {
            if let analysis = known(text) { fresh[index] = analysis } else { unknown.append(index) }
        }
        let missing = unknown
        forEachOnEveryCore(missing.count) { k in
            let index = missing[k]
            fresh[index] = GameAnalysis(text: texts[index])
        }
        return fresh.map { $0! }
    }

    /// The analysis of a document from its games and what lies between them.
    private static func assemble(
        _ document: Document, games: [PlacedGame], cut: GameCut, parsedBytes: Int,
        nameFindings known: [NameVariants.Finding]? = nil
    )
        -> DocumentAnalysis
    {
        var diagnostics = cut.outside
        var repertoireGames: [Int] = []
        for (index, game) in games.enumerated() {
            if game.analysis.repertoireSide != nil { repertoireGames.append(index) }
            let offset = game.start
            for local in game.analysis.diagnostics {
                var diagnostic = local.shifted(by: offset)
                diagnostic.game = index
                diagnostics.append(diagnostic)
            }
        }
        let identities = games.map { $0.analysis.twinKey?.identity }
        let identityCounts = Twins.counts(identities)
        diagnostics += twinDiagnostics(games, identities: identities, counts: identityCounts)
        let nameFindings = known ?? Self.nameFindings(games)
        diagnostics += nameVariantDiagnostics(games, nameFindings)
        diagnostics.sort { $0.range.lowerBound < $1.range.lowerBound }
        return DocumentAnalysis(
            uri: document.uri, version: document.version, games: games,
            diagnostics: diagnostics, outside: cut.outside, longComments: cut.longComments, parsedBytes: parsedBytes,
            stamp: document.history.stamp, length: document.length, nameFindings: nameFindings,
            twinIdentities: identities, twinIdentityCounts: identityCounts, repertoireGames: repertoireGames)
    }
}

#if os(Linux)
    /// glibc's `malloc_trim`: gives free heap pages back to the system.
    @_silgen_name("malloc_trim")
    private func releaseFreeHeapPages(_ pad: Int) -> Int32

    /// glibc's `mallopt`.
    @_silgen_name("mallopt")
    private func setAllocatorOption(_ option: Int32, _ value: Int32) -> Int32
#endif

extension PGNAnalyzer {
    /// Keeps the allocator to two heaps per core (glibc makes up to eight per core, one for
    /// each thread that finds the others busy, and each keeps what was freed in it). At 100 MB
    /// in VS Code's typing sequence with a busy core the peak was 415 MB with glibc's default,
    /// 400–405 MB with two heaps per core and 381 MB with one; with one, the first reading of
    /// the file took 1.8 × `check` in one opening of three (waits for the heaps' locks).
    static func limitHeaps() {
        #if os(Linux)
            let arenaMax: Int32 = -8  // M_ARENA_MAX
            _ = setAllocatorOption(arenaMax, Int32(2 * max(1, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }
}
