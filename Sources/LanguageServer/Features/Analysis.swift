import ChessCore
import Foundation
import PGN

/// One game of a document, read on its own: its text, syntax, replay and diagnostics, with
/// byte offsets relative to the game's first byte. Shared between document versions while the
/// game's text does not change, so an edit replays only the games it touched.
public final class GameAnalysis: Sendable {
    public let source: SourceText
    public let syntax: GameSyntax
    public let start: GameStart
    public let diagnostics: [Diagnostic]
    /// Node indices of the moves that were played, in order.
    public let playedNodes: [Int]
    /// The replayed moves with their positions, computed when first asked for: most games of a
    /// large file are never hovered, and positions are most of a replay's memory.
    private let replayed = Locked<(moves: [ReplayedMove], byNode: [Int: Int])?>(nil)

    /// The game's text, as the analyzer's cache knows it.
    let text: GameText

    init(text: GameText) {
        self.text = text
        let bytes = text.bytes
        source = SourceText(bytes)
        let parser = bytes.withUnsafeBufferPointer { Parser($0) }
        syntax = parser.games.first ?? GameSyntax(range: 0..<bytes.count)
        let replay = GameReplay(source: source, syntax: syntax, index: 0).run(keepMoves: false)
        start = replay.start
        diagnostics = parser.diagnostics + replay.diagnostics
        playedNodes = replay.playedNodes
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

    /// Whether the move at a node index was played.
    public func wasPlayed(node index: Int) -> Bool {
        var low = 0
        var high = playedNodes.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if playedNodes[mid] == index { return true }
            if playedNodes[mid] < index { low = mid + 1 } else { high = mid - 1 }
        }
        return false
    }

    public var gameReplay: GameReplay { GameReplay(source: source, syntax: syntax, index: 0) }

    /// The index in `syntax.nodes` of the node covering a game-relative offset (its end included).
    public func node(at offset: Int) -> Int? {
        let nodes = syntax.nodes
        var low = 0
        var high = nodes.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = nodes[mid].range
            if offset < range.lowerBound {
                high = mid - 1
            } else if offset > range.upperBound {
                low = mid + 1
            } else {
                return mid
            }
        }
        return nil
    }

    public func move(atNode index: Int) -> ReplayedMove? {
        let replayed = replayedMoves()
        return replayed.byNode[index].map { replayed.moves[$0] }
    }
}

/// A game placed in its document.
public struct PlacedGame: Sendable {
    /// Offset of the game's first byte in the document.
    public let start: Int
    public let analysis: GameAnalysis

    public var range: Range<Int> { start..<(start + analysis.source.bytes.count) }
}

/// The PGN reading of one version of a document.
public struct DocumentAnalysis: Sendable {
    public let uri: DocumentURI
    public let version: Int
    public let bytes: [UInt8]
    public let games: [PlacedGame]
    /// Every diagnostic, with byte ranges in the document, in document order.
    public let diagnostics: [Diagnostic]

    /// The game whose text holds `offset` (its end included), if any.
    public func game(at offset: Int) -> PlacedGame? {
        var low = 0
        var high = games.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = games[mid].range
            if offset < range.lowerBound {
                high = mid - 1
            } else if offset > range.upperBound {
                low = mid + 1
            } else {
                return games[mid]
            }
        }
        return nil
    }
}

/// A game's text as a dictionary key: hashed once, over raw bytes.
struct GameText: Hashable, Sendable {
    let bytes: [UInt8]
    let digest: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        digest = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    static func == (lhs: GameText, rhs: GameText) -> Bool {
        lhs.digest == rhs.digest && lhs.bytes == rhs.bytes
    }
}

/// Reads documents into `DocumentAnalysis` values and keeps the latest one of each, with a
/// cache of game analyses by game text.
public final class PGNAnalyzer: Sendable {
    private struct State {
        var latest: [DocumentURI: DocumentAnalysis] = [:]
        var games: [GameText: GameAnalysis] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// The analysis of a document version, computed once.
    public func analysis(of document: Document) -> DocumentAnalysis {
        if let latest = state.withLock({ $0.latest[document.uri] }), latest.version == document.version,
            latest.bytes.count == document.bytes.count
        {
            return latest
        }
        let cache = state.withLock { $0.games }
        let analysis = analyze(uri: document.uri, version: document.version, bytes: document.bytes, cache: cache)
        state.withLock { state in
            if (state.latest[document.uri]?.version ?? .min) <= document.version {
                state.latest[document.uri] = analysis
            }
            // Keep the games of the open documents' latest versions.
            var kept: [GameText: GameAnalysis] = [:]
            for latest in state.latest.values {
                for game in latest.games { kept[game.analysis.text] = game.analysis }
            }
            state.games = kept
        }
        return analysis
    }

    /// Forgets a closed document.
    public func close(_ uri: DocumentURI) {
        state.withLock { $0.latest[uri] = nil }
    }

    /// The latest analysis of every open document.
    public var all: [DocumentAnalysis] { state.withLock { Array($0.latest.values) } }

    /// Where the games of a text are, and the problems outside every game (text between
    /// games); those inside a game come from the game's own reading, which is cached. A large
    /// text is cut at tag sections (as `pgn-lsp check` cuts files) and read on every core.
    static func cutIntoGames(_ bytes: [UInt8]) -> (ranges: [Range<Int>], outside: [Diagnostic]) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var cuts = [0]
        if bytes.count > 4 << 20 && cores > 1 {
            let step = bytes.count / (4 * cores)
            bytes.withUnsafeBufferPointer { buffer in
                for k in 1..<(4 * cores) {
                    let end = k * step
                    if end > cuts[cuts.count - 1],
                        let cut = Checker.lastGameBoundary(
                            UnsafeBufferPointer(rebasing: buffer[cuts[cuts.count - 1]..<end]))
                    {
                        cuts.append(cuts[cuts.count - 1] + cut)
                    }
                }
            }
        }
        cuts.append(bytes.count)
        let bounds = cuts
        let pieces = bounds.count - 1
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<([Range<Int>], [Diagnostic])>.allocate(
            capacity: pieces)
        results.initialize(repeating: ([], []))
        defer {
            results.deinitialize()
            results.deallocate()
        }
        bytes.withUnsafeBufferPointer { buffer in
            nonisolated(unsafe) let buffer = buffer
            DispatchQueue.concurrentPerform(iterations: pieces) { k in
                let parser = Parser(UnsafeBufferPointer(rebasing: buffer[bounds[k]..<bounds[k + 1]]), base: bounds[k])
                let ranges = parser.games.map(\.range)
                let outside = parser.diagnostics.filter { d in !ranges.contains { $0.contains(d.range.lowerBound) } }
                results[k] = (ranges, outside)
            }
        }
        return (results.flatMap(\.0), results.flatMap(\.1))
    }

    private func analyze(
        uri: DocumentURI, version: Int, bytes: [UInt8], cache: [GameText: GameAnalysis]
    )
        -> DocumentAnalysis
    {
        let (gameRanges, outside) = Self.cutIntoGames(bytes)
        var games: [PlacedGame] = []
        var diagnostics = outside
        // Games not seen before are read on every core: they are independent.
        let texts = gameRanges.map { GameText(Array(bytes[$0])) }
        nonisolated(unsafe) let fresh = UnsafeMutableBufferPointer<GameAnalysis?>.allocate(capacity: texts.count)
        fresh.initialize(repeating: nil)
        defer {
            fresh.deinitialize()
            fresh.deallocate()
        }
        let missing = texts.indices.filter { cache[texts[$0]] == nil }
        let chunk = max(1, missing.count / (8 * ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: (missing.count + chunk - 1) / chunk) { part in
            for k in (part * chunk)..<min(missing.count, (part + 1) * chunk) {
                fresh[missing[k]] = GameAnalysis(text: texts[missing[k]])
            }
        }
        for (index, range) in gameRanges.enumerated() {
            let analysis = fresh[index] ?? cache[texts[index]]!
            games.append(PlacedGame(start: range.lowerBound, analysis: analysis))
            for var diagnostic in analysis.diagnostics {
                diagnostic.range =
                    (diagnostic.range.lowerBound + range.lowerBound)..<(diagnostic.range.upperBound + range.lowerBound)
                diagnostic.game = index
                diagnostic.fixes = diagnostic.fixes.map { fix in
                    var fix = fix
                    fix.edits = fix.edits.map {
                        Diagnostic.Edit(
                            range: ($0.range.lowerBound + range.lowerBound)..<($0.range.upperBound + range.lowerBound),
                            text: $0.text)
                    }
                    return fix
                }
                diagnostics.append(diagnostic)
            }
        }
        diagnostics.sort { $0.range.lowerBound < $1.range.lowerBound }
        return DocumentAnalysis(uri: uri, version: version, bytes: bytes, games: games, diagnostics: diagnostics)
    }
}
