import ChessCore
import Foundation
import GRDB

/// The explorer over the games a filter keeps: the opening tree counted again over those games
/// only. Two kept games reach a position only where two games of the file do, so the tree's
/// rows (`PositionTree`) are the only places to count at: each kept game's first
/// `PositionIndex.treeDepth` plies are replayed from `PositionMoves` (one thread replays, one
/// counts) and counted at the rows they pass, with the best-rated game of each, as the tree has
/// them. A position no two games of the file reach is found as the unfiltered explorer finds
/// it, and kept when its game is. Made once per filter, whatever the number of games kept
/// (memory: about 70 bytes a row of the tree while counting, 40 a row kept), then each answer
/// is a lookup.
public final class FilteredExplorer: Sendable {
    struct Row: Sendable, TreeRowCounts {
        /// The next position's key, `PositionIndex.ended` where games ended (as `Next`).
        var next: Int64
        var games: UInt32
        var whiteWins: UInt32
        var draws: UInt32
        var blackWins: UInt32
        var bestGame: Int64
        /// -1 when no game of the row has a rating.
        var bestElo: Int32
    }

    /// The keys of the positions kept games reach in the tree, in order; the rows of
    /// `keys[i]` are `rows[starts[i]..<starts[i + 1]]`.
    private let keys: [UInt64]
    private let starts: [Int]
    private let rows: [Row]
    private let kept: KeptGames
    private let database: GameDatabase
    /// The games the filter kept.
    public let games: Int

    fileprivate init(keys: [UInt64], starts: [Int], rows: [Row], kept: KeptGames, games: Int, database: GameDatabase) {
        self.keys = keys
        self.starts = starts
        self.rows = rows
        self.kept = kept
        self.games = games
        self.database = database
    }

    /// What the kept games played from `position`, as the index's explorer answers. `line`:
    /// the positions before it in the game at hand (see `GameDatabase.explore`).
    public func explore(_ position: Position, line: [Position] = []) throws -> ExplorerAnswer {
        try database.explore(position, line: line, keptBy: self)
    }

    /// The rows of `key` counted over the kept games; empty when none reaches it in the tree.
    func rows(at key: UInt64) -> ArraySlice<Row> {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        guard low < keys.count, keys[low] == key else { return [] }
        return rows[starts[low]..<starts[low + 1]]
    }

    /// Whether the filter keeps game `id`.
    func keeps(_ id: Int64) -> Bool { kept.payload(id) != nil }
}

extension GameDatabase {
    /// The explorer over the games `filter` keeps (`FilteredExplorer`). Throws when the player
    /// matches no name, or the position index is not current (an import is adding games, say).
    public func filteredExplorer(_ filter: ExplorerFilter) throws -> FilteredExplorer {
        let players: [Int64]? = try filter.player.map { player in
            let ids = try self.players(meantBy: player).map(\.id)
            guard !ids.isEmpty else { throw GameStoreError.noSuchPlayer(player) }
            return ids
        }
        return try run { db in
            // One read transaction: the rows agree, and the file is locked once, not at each lookup.
            guard !db.isInsideTransaction else { return try filteredExplorer(filter, players: players, db) }
            var made: FilteredExplorer?
            try db.inTransaction(.deferred) {
                made = try filteredExplorer(filter, players: players, db)
                return .commit
            }
            return made!
        }
    }

    private func filteredExplorer(
        _ filter: ExplorerFilter, players: [Int64]?, _ db: Database
    ) throws
        -> FilteredExplorer
    {
        let status = try requireCurrentIndex(db)
        guard status == .current else { throw GameStoreError.positionIndex(path: path, status: status) }
        let kept = try KeptGames(filter, players: players, layout: try readLayout(db), db)
        let tree = try TreeSkeleton(db)
        var counted = tree.rows
        tree.rows = []
        var games = 0
        let reader = PositionMovesReader()
        let statement: PreparedStatement
        let step: () throws -> Bool
        if let ids = kept.ids {
            statement = try PreparedStatement(db, "SELECT GameID, Moves, FEN FROM PositionMoves WHERE GameID = ?")
            var next = 0
            step = {
                while next < ids.count {
                    statement.reset()
                    statement.bind(1, ids[next])
                    next += 1
                    if try statement.step() { return true }
                }
                return false
            }
        } else {
            statement = try PreparedStatement(db, "SELECT GameID, Moves, FEN FROM PositionMoves ORDER BY GameID")
            step = { try statement.step() }
        }
        var read = false
        let probes = UnsafeMutablePointer<TreeSkeleton.Slot>.allocate(capacity: PositionIndex.treeDepth + 1)
        defer { probes.deallocate() }
        try counted.withUnsafeMutableBufferPointer { counted in
            try TwoStages.run(
                (PositionTreeBuilder.KeyChunk(), PositionTreeBuilder.KeyChunk()), fillAside: false,
                fill: { chunk in
                    guard !read else { return false }
                    read = try !chunk.fill(statement, reader, step: step, payload: kept.payload)
                    return chunk.games > 0
                },
                use: { chunk in
                    games += chunk.games
                    for game in 0..<chunk.games {
                        let payload = chunk.payloads[game]
                        let id = chunk.ids[game]
                        let (outcome, elo) = GameResults.unpack(payload & ~KeptGames.keptBit)
                        let keys = chunk.keys(of: game)
                        for ply in 0..<min(chunk.counts[game], PositionIndex.treeDepth + 1) {
                            probes[ply] = tree.firstSlot(keys[ply])
                        }
                        PositionTreeBuilder.forEachTreeKey(keys, chunk.counts[game]) { ply, key, next in
                            guard let row = tree.row(key, next, probed: probes[ply], in: counted) else { return }
                            // Games come in ID order: the first is the one of the lowest ID.
                            counted[row].count(outcome, elo: elo, gameID: id)
                        }
                    }
                })
        }
        // The rows some kept game reached.
        var keys: [UInt64] = []
        var starts: [Int] = []
        var rows: [FilteredExplorer.Row] = []
        for place in tree.keys.indices {
            let first = rows.count
            for row in tree.starts[place]..<tree.starts[place + 1] where counted[row].games > 0 {
                rows.append(counted[row])
            }
            if rows.count > first {
                keys.append(tree.keys[place])
                starts.append(first)
            }
        }
        starts.append(rows.count)
        return FilteredExplorer(keys: keys, starts: starts, rows: rows, kept: kept, games: games, database: self)
    }
}
