import ChessCore
import LanguageServer
import PGN

/// The repertoires a document holds: its games whose tags name a side (`Orientation`,
/// `ChesstempoRepertoireColour`), one `Repertoire` per side, and each of their moves placed in
/// the document with the line it stands in (the move before it in its line, the move after).
struct DocumentRepertoire {
    /// A move of a repertoire game, placed in the document.
    struct PlacedMove {
        let move: ReplayedMove
        /// The index of its game in the analysis.
        let game: Int
        /// Its node in the game's syntax, the node of the move before it in its line (nil at
        /// the line's start from the game's start), and of the move after it in its line.
        let node: Int
        let parent: Int?
        var next: Int?
        /// Its bytes in the document.
        let range: Range<Int>
        /// Where a variation after it goes: past the NAGs right after it.
        let end: Int
    }

    /// A game of a repertoire, read.
    struct Chapter {
        let game: Int
        let side: Color
        let start: Position
        /// Its first tag's bytes in the document (`GameAnalysis.label`).
        let label: Range<Int>
        /// Its moves by node.
        var moves: [Int: PlacedMove] = [:]
        /// Its first mainline move's node.
        var first: Int?
        /// The document's line its first byte is on, from 0.
        var startLine = 0
    }

    var repertoires: [Color: Repertoire] = [:]
    var chapters: [Chapter] = []

    init(_ analysis: DocumentAnalysis, _ document: Document) {
        var line = 0
        for index in analysis.repertoireGames {
            let placed = analysis.games[index]
            let game = placed.analysis
            guard let side = game.repertoireSide, let start = game.start.position else { continue }
            var repertoire = repertoires[side] ?? Repertoire(side: side)
            guard repertoire.add(game.gameReplay, file: document.uri) else { continue }
            repertoires[side] = repertoire
            var chapter = Self.chapter(placed, index: index, side: side, start: start)
            chapter.startLine = document.position(of: placed.start, encoding: .utf8, fromLine: &line).line
            chapters.append(chapter)
        }
    }

    /// A game's moves with the line each stands in, from its syntax: a variation replaces the
    /// move before it, so its first move follows the move before that one.
    static func chapter(_ placed: PlacedGame, index: Int, side: Color, start: Position) -> Chapter {
        let game = placed.analysis
        let nodes = game.syntax.nodes
        var chapter = Chapter(
            game: index, side: side, start: start,
            label: (game.label.lowerBound + placed.start)..<(game.label.upperBound + placed.start))
        var last: Int?
        var beforeLast: Int?
        var stack: [(Int?, Int?)] = []
        var parents: [Int: Int?] = [:]
        for (i, node) in nodes.enumerated() {
            switch node.kind {
            case .move:
                parents[i] = last
                if let played = game.move(atNode: i) {
                    var end = node.range.upperBound
                    var k = i + 1
                    while k < nodes.count && nodes[k].kind == .nag {
                        end = nodes[k].range.upperBound
                        k += 1
                    }
                    chapter.moves[i] = PlacedMove(
                        move: played, game: index, node: i, parent: last, next: nil,
                        range: (node.range.lowerBound + placed.start)..<(node.range.upperBound + placed.start),
                        end: end + placed.start)
                    if let last, chapter.moves[last]?.next == nil { chapter.moves[last]?.next = i }
                    if last == nil && stack.isEmpty { chapter.first = chapter.first ?? i }
                }
                beforeLast = last
                last = i
            case .variationStart:
                stack.append((last, beforeLast))
                last = beforeLast
                beforeLast = beforeLast.flatMap { parents[$0] ?? nil }
            case .variationEnd:
                if let saved = stack.popLast() { (last, beforeLast) = saved }
            default:
                break
            }
        }
        return chapter
    }

    /// The positions from the chapter's start to the one before `node`'s move, and how many
    /// moves lead to that move's position.
    func line(to node: Int, in chapter: Chapter) -> [Position] {
        var positions: [Position] = []
        var current = chapter.moves[node]?.parent
        while let at = current, let move = chapter.moves[at] {
            positions.append(move.move.after)
            current = move.parent
        }
        return [chapter.start] + positions.reversed()
    }
}
