import ChessCore

/// The position index: pgn-lsp's own tables in a game database, beside the format's, that
/// answer two questions about a position — which games reach it (at any ply of their
/// mainline), and what was played from it, how often, with what results (the opening tree,
/// over the first `treeDepth` plies). En Croissant and ocgdb read the format's tables by
/// name and never look at these.
///
/// - `PositionKeys`: one row per game, the 32-bit keys (the high half of the Zobrist hash) of
///   the positions of its mainline, from the start, 4 bytes a position. A search reads them
///   all (on every core) and confirms each candidate: by the tree's exact count when the
///   position is in it, else by replaying the game.
/// - `PositionTree`: one row per position of the first `treeDepth` plies and what came next
///   (the next position's 64-bit key, 0 where games ended), with the number of games and
///   their results, and the best-rated of them. Keys are whole Zobrist hashes: two positions
///   that share one are, for every practical purpose, never met.
/// - `PositionIndexState`: the version of the layout, and two counters that tell whether the
///   index still describes the games: triggers on `Games` count every insert, delete and change
///   of moves, start position, result or ratings by any program (`Changes`); pgn-lsp sets
///   `Indexed` to that count whenever it brought the index up to date.
public enum PositionIndex {
    /// The positions after 0 … `treeDepth` plies of each game are in the opening tree.
    public static let treeDepth = 40
    /// The layout's version: an index of another version is built again.
    static let version = 1

    static let tables = ["PositionKeys", "PositionTree", "PositionIndexState"]
    static let triggers = ["PositionIndexGameAdded", "PositionIndexGameRemoved", "PositionIndexGameChanged"]

    static let schemaSQL = """
        CREATE TABLE PositionKeys (GameID INTEGER PRIMARY KEY, Keys BLOB NOT NULL);
        CREATE TABLE PositionTree (
            Position INTEGER NOT NULL,
            Next INTEGER NOT NULL,
            Games INTEGER NOT NULL,
            WhiteWins INTEGER NOT NULL,
            Draws INTEGER NOT NULL,
            BlackWins INTEGER NOT NULL,
            BestGame INTEGER,
            BestElo INTEGER,
            PRIMARY KEY (Position, Next)
        ) WITHOUT ROWID;
        CREATE TABLE PositionIndexState (
            Version INTEGER NOT NULL, Depth INTEGER NOT NULL, Changes INTEGER NOT NULL, Indexed INTEGER NOT NULL);
        INSERT INTO PositionIndexState (Version, Depth, Changes, Indexed) VALUES (\(version), \(treeDepth), 0, 0);
        CREATE TRIGGER PositionIndexGameAdded AFTER INSERT ON Games
            BEGIN UPDATE PositionIndexState SET Changes = Changes + 1; END;
        CREATE TRIGGER PositionIndexGameRemoved AFTER DELETE ON Games
            BEGIN UPDATE PositionIndexState SET Changes = Changes + 1; END;
        CREATE TRIGGER PositionIndexGameChanged
            AFTER UPDATE OF ID, Moves, Moves2, FEN, Result, WhiteElo, BlackElo ON Games
            BEGIN UPDATE PositionIndexState SET Changes = Changes + 1; END;
        """

    static let dropSQL =
        triggers.map { "DROP TRIGGER IF EXISTS \($0);" }.joined(separator: "\n") + "\n"
        + tables.map { "DROP TABLE IF EXISTS \($0);" }.joined(separator: "\n")

    /// The key a position has in `PositionKeys`.
    @inline(__always) public static func shortKey(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash >> 32) }

    /// A hash as SQLite stores it (a signed 64-bit integer).
    @inline(__always) static func stored(_ hash: UInt64) -> Int64 { Int64(bitPattern: hash) }

    /// The rating that ranks a game: the mean of both ratings, or the one there is; nil without.
    static func rating(white: Int?, black: Int?) -> Int? {
        let ratings = [white, black].compactMap { $0 }.filter { $0 > 0 }
        guard !ratings.isEmpty else { return nil }
        return ratings.reduce(0, +) / ratings.count
    }
}

/// How a game ended, as the tree counts it.
public enum GameOutcome: Sendable, Equatable {
    case whiteWins, draw, blackWins, unknown

    public init(result: String?) {
        switch result?.trimmingASCIISpaces {
        case "1-0": self = .whiteWins
        case "0-1": self = .blackWins
        case "1/2-1/2", "½-½": self = .draw
        default: self = .unknown
        }
    }
}

/// The opening-tree rows of many games, added up in memory before they are written.
struct OpeningTreeBatch {
    struct Edge: Hashable {
        var position: UInt64
        var next: UInt64
    }

    struct Counts {
        var games = 0
        var whiteWins = 0
        var draws = 0
        var blackWins = 0
        var bestGame: Int64? = nil
        var bestElo: Int? = nil
    }

    var edges: [Edge: Counts] = [:]

    var isEmpty: Bool { edges.isEmpty }

    /// Adds a game: `hashes` are the Zobrist hashes of its mainline positions from the start.
    /// A position the game reaches twice counts once, with the move played the first time.
    mutating func add(hashes: UnsafeBufferPointer<UInt64>, outcome: GameOutcome, rating: Int?, gameID: Int64) {
        let last = min(PositionIndex.treeDepth, hashes.count - 1)
        guard last >= 0 else { return }
        for ply in 0...last {
            let position = hashes[ply]
            // A position comes back only with the same side to move, at least 4 plies later.
            var repeated = false
            var earlier = ply - 4
            while earlier >= 0 {
                if hashes[earlier] == position {
                    repeated = true
                    break
                }
                earlier -= 2
            }
            if repeated { continue }
            let edge = Edge(position: position, next: ply + 1 < hashes.count ? hashes[ply + 1] : 0)
            edges[edge, default: Counts()].add(outcome: outcome, rating: rating, gameID: gameID)
        }
    }

    /// The edges in the order of the table's key (signed, as SQLite compares integers).
    func sorted() -> [(Edge, Counts)] {
        edges.sorted {
            let a = (PositionIndex.stored($0.key.position), PositionIndex.stored($0.key.next))
            let b = (PositionIndex.stored($1.key.position), PositionIndex.stored($1.key.next))
            return a < b
        }
    }
}

extension OpeningTreeBatch.Counts {
    mutating func add(outcome: GameOutcome, rating: Int?, gameID: Int64) {
        games += 1
        switch outcome {
        case .whiteWins: whiteWins += 1
        case .draw: draws += 1
        case .blackWins: blackWins += 1
        case .unknown: break
        }
        if let rating, bestElo == nil || rating > bestElo! {
            bestElo = rating
            bestGame = gameID
        } else if bestGame == nil && bestElo == nil {
            bestGame = gameID
        }
    }
}

extension PositionIndex {
    /// The position a search names: a FEN, or its first fields. Without a side to move, White
    /// moves; without castling rights, each side keeps those its king and rooks on their
    /// starting squares allow (a board typed from a diagram rarely says); the move counters
    /// play no part in a search.
    public static func position(query: String) throws(FENError) -> Position {
        let fields = query.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 1 || fields.count == 2 else { return try Position(fen: query) }
        let board = try Position(fen: fields.joined(separator: " "))
        func has(_ color: Color, _ role: Role, _ name: String) -> Bool {
            guard let square = Square(name) else { return false }
            return board.pieces(color, role).contains(square)
        }
        var rights = ""
        if has(.white, .king, "e1") {
            if has(.white, .rook, "h1") { rights += "K" }
            if has(.white, .rook, "a1") { rights += "Q" }
        }
        if has(.black, .king, "e8") {
            if has(.black, .rook, "h8") { rights += "k" }
            if has(.black, .rook, "a8") { rights += "q" }
        }
        let turn = fields.count == 2 ? fields[1] : "w"
        return try Position(fen: "\(fields[0]) \(turn) \(rights.isEmpty ? "-" : rights)")
    }
}
