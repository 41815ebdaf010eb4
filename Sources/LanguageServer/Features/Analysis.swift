import ChessCore
import Foundation
import PGN

/// One game of a document, read on its own: its text, syntax, replay and diagnostics, with
/// byte offsets relative to the game's first byte. Shared between document versions while the
/// game's text does not change, so an edit replays only the games it touched.
public final class GameAnalysis: Sendable {
    public let source: SourceText
    public let syntax: GameSyntax
    public let replay: ReplayedGame
    public let diagnostics: [Diagnostic]
    /// Replayed moves by node index.
    public let movesByNode: [Int: Int]

    init(bytes: [UInt8]) {
        source = SourceText(bytes)
        let parser = bytes.withUnsafeBufferPointer { Parser($0) }
        syntax = parser.games.first ?? GameSyntax(range: 0..<bytes.count)
        let replay = GameReplay(source: source, syntax: syntax, index: 0).run()
        self.replay = replay
        diagnostics = parser.diagnostics + replay.diagnostics
        var byNode: [Int: Int] = [:]
        for (i, move) in replay.moves.enumerated() { byNode[move.node] = i }
        movesByNode = byNode
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

    public func move(atNode index: Int) -> ReplayedMove? { movesByNode[index].map { replay.moves[$0] } }
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

/// Reads documents into `DocumentAnalysis` values and keeps the latest one of each, with a
/// cache of game analyses by game text.
public final class PGNAnalyzer: Sendable {
    private struct State {
        var latest: [DocumentURI: DocumentAnalysis] = [:]
        var games: [[UInt8]: GameAnalysis] = [:]
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
            var kept: [[UInt8]: GameAnalysis] = [:]
            for latest in state.latest.values {
                for game in latest.games { kept[game.analysis.source.bytes] = game.analysis }
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

    private func analyze(
        uri: DocumentURI, version: Int, bytes: [UInt8], cache: [[UInt8]: GameAnalysis]
    )
        -> DocumentAnalysis
    {
        let parser = bytes.withUnsafeBufferPointer { Parser($0) }
        var games: [PlacedGame] = []
        // Problems outside every game (text between games) come from the reading of the whole
        // document; those inside a game from the game's own reading, which is cached.
        let gameRanges = parser.games.map(\.range)
        var diagnostics = parser.diagnostics.filter { diagnostic in
            !gameRanges.contains { $0.contains(diagnostic.range.lowerBound) }
        }
        for (index, syntax) in parser.games.enumerated() {
            let range = syntax.range
            let text = Array(bytes[range])
            let analysis = cache[text] ?? GameAnalysis(bytes: text)
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
