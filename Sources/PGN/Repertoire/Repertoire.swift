import ChessCore

/// An opening repertoire for one side: every position its games reach, in every variation,
/// with the moves it plays (the side's own) or has prepared (the opponent's) from there.
/// Positions are found by their hash (board, side to move, castling rights, a capturable
/// en-passant square), so a position reached by two move orders is one position: a line
/// prepared through one order covers the other.
public struct Repertoire: Sendable {
    /// A move of the repertoire from a position, and where it was first written.
    public struct Entry: Sendable, Hashable {
        public let move: Move
        public let san: String
        public let place: Place
    }

    /// Where something of the repertoire is written: its chapter (a game of a repertoire
    /// file), the line of the move, from 1, and the offset of its first byte in the game's
    /// text (both nil for a chapter's start).
    public struct Place: Sendable, Hashable {
        public let chapter: Int
        public let line: Int?
        public let offset: Int?

        public init(chapter: Int, line: Int?, offset: Int? = nil) {
            self.chapter = chapter
            self.line = line
            self.offset = offset
        }
    }

    /// A game of a repertoire file.
    public struct Chapter: Sendable, Hashable {
        public let file: String
        /// The game's number in its file, from 1.
        public let game: Int
        public let name: String
    }

    public let side: Color
    public private(set) var chapters: [Chapter] = []
    /// The moves written from each position, in the order first written.
    public private(set) var moves: [UInt64: [Entry]] = [:]
    /// Where each position the repertoire reaches is first reached.
    public private(set) var positions: [UInt64: Place] = [:]

    public init(side: Color) { self.side = side }

    /// The side a repertoire game is for, from its tags: `Orientation` (En Croissant) or
    /// `ChesstempoRepertoireColour` (ChessTempo), `white` or `black` in any case.
    public static func side(of replay: GameReplay) -> Color? {
        for name in ["Orientation", "ChesstempoRepertoireColour"] {
            switch replay.tagValue(name)?.lowercased() {
            case "white": return .white
            case "black": return .black
            default: continue
            }
        }
        return nil
    }

    /// The side `player` had in a game (`NameKey.isMeant(by:)`, White's name first); nil when
    /// neither name is theirs.
    public static func side(of player: NameKey, in replay: GameReplay) -> Color? {
        if NameKey(replay.tagValue("White") ?? "").isMeant(by: player) { return .white }
        if NameKey(replay.tagValue("Black") ?? "").isMeant(by: player) { return .black }
        return nil
    }

    /// A chapter's name: its event, else its players, else its number.
    public static func chapterName(of replay: GameReplay) -> String {
        let known = { (name: String) -> String? in
            guard let value = replay.tagValue(name), !value.isEmpty, value != "?" else { return nil }
            return value
        }
        if let event = known("Event") { return event }
        if let white = known("White"), let black = known("Black") { return "\(white) – \(black)" }
        return "game \(replay.index + 1)"
    }

    /// Adds a game of a repertoire file: its start and every move of its mainline and
    /// variations that could be played. False when the game has no start position to play
    /// from (a bad FEN, a variant not replayed).
    @discardableResult
    public mutating func add(_ replay: GameReplay, file: String) -> Bool {
        let replayed = replay.run(keepMoves: true)
        guard let start = replayed.start.position else { return false }
        let chapter = chapters.count
        chapters.append(Chapter(file: file, game: replay.index + 1, name: Self.chapterName(of: replay)))
        if positions[start.hash] == nil { positions[start.hash] = Place(chapter: chapter, line: nil) }
        for played in replayed.moves {
            let offset = replay.syntax.nodes[played.node].range.lowerBound - replay.base
            let place = Place(chapter: chapter, line: replay.source.line(of: offset) + 1, offset: offset)
            var entries = moves[played.before.hash] ?? []
            if !entries.contains(where: { $0.move == played.move }) {
                entries.append(Entry(move: played.move, san: played.before.san(played.move), place: place))
                moves[played.before.hash] = entries
            }
            if positions[played.after.hash] == nil { positions[played.after.hash] = place }
        }
        return true
    }
}
