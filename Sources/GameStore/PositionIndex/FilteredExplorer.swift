import ChessCore
import Foundation
import GRDB
import GRDBSQLite
import PGN

/// Which of a database's games the explorer counts: a player's (as White, Black or either),
/// played between two dates, with an average rating within bounds, at a speed. Empty: all.
public struct ExplorerFilter: Sendable, Hashable {
    /// lichess's speeds, from a `TimeControl` tag's estimated duration (`speed(timeControl:)`).
    public enum Speed: String, Sendable, Hashable, CaseIterable {
        case ultraBullet, bullet, blitz, rapid, classical, correspondence
    }

    public var player: String?
    /// With a player: the side they had.
    public var color: Color?
    /// Dates as PGN writes them, `2024`, `2024.05` or `2024.05.01`, both included.
    public var since: String?
    public var until: String?
    /// The average of both players' ratings; a game without both is left out by either bound.
    public var minElo: Int?
    public var maxElo: Int?
    public var speed: Speed?

    public init(
        player: String? = nil, color: Color? = nil, since: String? = nil, until: String? = nil, minElo: Int? = nil,
        maxElo: Int? = nil, speed: Speed? = nil
    ) {
        self.player = player
        self.color = color
        self.since = since
        self.until = until
        self.minElo = minElo
        self.maxElo = maxElo
        self.speed = speed
    }

    public var isEmpty: Bool { self == ExplorerFilter() }

    /// In words, as a hover says which games it counts: `games of Carlsen as White, from 2024,
    /// average rating 2000–2200, blitz`.
    public var words: String {
        var parts: [String] = []
        if let player {
            parts.append("games of \(player)" + (color.map { " as \($0)" } ?? ""))
        }
        switch (since, until) {
        case (let since?, let until?): parts.append("\(since) to \(until)")
        case (let since?, nil): parts.append("from \(since)")
        case (nil, let until?): parts.append("until \(until)")
        default: break
        }
        switch (minElo, maxElo) {
        case (let low?, let high?): parts.append("average rating \(low)–\(high)")
        case (let low?, nil): parts.append("average rating \(low) or more")
        case (nil, let high?): parts.append("average rating \(high) or less")
        default: break
        }
        if let speed { parts.append(speed.rawValue) }
        return parts.joined(separator: ", ")
    }

    /// lichess's speed of a `TimeControl` (`300+3`): base seconds plus 40 increments, under 30
    /// s ultra-bullet, 180 bullet, 480 blitz, 1500 rapid, else classical; `-` correspondence;
    /// nil when it cannot be read.
    public static func speed(timeControl: String?) -> Speed? {
        guard let text = timeControl?.trimmingASCIISpaces, !text.isEmpty, text != "?" else { return nil }
        if text == "-" || text.contains("/") { return .correspondence }
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count <= 2, let base = Int(parts[0]), let increment = parts.count == 2 ? Int(parts[1]) : 0 else {
            return nil
        }
        let estimate = base + 40 * increment
        if estimate < 30 { return .ultraBullet }
        if estimate < 180 { return .bullet }
        if estimate < 480 { return .blitz }
        if estimate < 1500 { return .rapid }
        return .classical
    }
}

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

/// The games a filter keeps, told game by game (`payload`): looked up one by one when an
/// indexed condition (a player, dates) leaves few, else from whole columns read through their
/// indexes (results and ratings; `TimeControl`, which has none, for the games the ratings keep
/// when they are few, else from every row).
struct KeptGames: Sendable {
    /// Set on the payload of a kept game (`GameResults.pack` holds 19 bits).
    static let keptBit: UInt32 = 1 << 31
    /// At most this many candidates (or a twentieth of the games) are looked up one by one.
    static let lookedUpAtMost = 20_000

    private let filter: ExplorerFilter
    /// The games the indexed conditions leave (1 each), when there are some.
    private var candidates: GameTable?
    /// Each kept game's payload, when the candidates were looked up one by one.
    private var looked: GameTable?
    /// Otherwise, by ID: the outcome's code, each side's rating, the speed + 1.
    private var results = GameTable(low: 0, high: -1, count: 0)
    private var whiteElo = GameTable(low: 0, high: -1, count: 0)
    private var blackElo = GameTable(low: 0, high: -1, count: 0)
    private var speeds: GameTable?
    /// The IDs of the looked-up games, in order.
    private(set) var ids: [Int64]?

    init(_ filter: ExplorerFilter, players: [Int64]?, layout: ReadLayout, _ db: Database) throws {
        self.filter = filter
        let bounds = try Row.fetchOne(db, sql: "SELECT MIN(ID), MAX(ID), COUNT(*) FROM Games")
        let (low, high, total) = (bounds?[0] ?? 0, bounds?[1] ?? -1, bounds?[2] ?? 0) as (Int64, Int64, Int)
        func table() -> GameTable { GameTable(low: low, high: high, count: total) }
        // The indexed conditions: the IDs each leaves, intersected.
        var found: [Int64]?
        func narrow(_ sql: String, _ arguments: StatementArguments = []) throws {
            let ids = try Int64.fetchAll(db, sql: sql, arguments: arguments).sorted()
            guard let earlier = found else { return found = ids }
            // Both in order: walked together.
            var both: [Int64] = []
            var (left, right) = (0, 0)
            while left < earlier.count && right < ids.count {
                if earlier[left] < ids[right] {
                    left += 1
                } else if earlier[left] > ids[right] {
                    right += 1
                } else {
                    both.append(ids[right])
                    (left, right) = (left + 1, right + 1)
                }
            }
            found = both
        }
        if let players {
            let list = players.map(String.init).joined(separator: ",")
            switch filter.color {
            case .white: try narrow("SELECT ID FROM Games WHERE WhiteID IN (\(list))")
            case .black: try narrow("SELECT ID FROM Games WHERE BlackID IN (\(list))")
            case nil:
                try narrow(
                    "SELECT ID FROM Games WHERE WhiteID IN (\(list)) UNION SELECT ID FROM Games WHERE BlackID IN (\(list))"
                )
            }
        }
        if filter.since != nil || filter.until != nil {
            // `2024` and `2024.05` take in every date they begin.
            let until = filter.until.map { $0 + String(".99.99".suffix(max(0, 10 - $0.count))) }
            try narrow(
                "SELECT ID FROM Games WHERE Date >= ? AND Date <= ?", [filter.since ?? "", until ?? "\u{10FFFF}"])
        }
        let timeControl = layout.has("TimeControl") ? "TimeControl" : "NULL"
        if let found, found.count <= max(KeptGames.lookedUpAtMost, total / 20) {
            var looked = table()
            var ids: [Int64] = []
            let statement = try PreparedStatement(
                db, "SELECT Result, WhiteElo, BlackElo, \(timeControl) FROM Games WHERE ID = ?")
            for id in found {
                statement.bind(1, id)
                defer { statement.reset() }
                guard try statement.step() else { continue }
                let row = statement.handle
                let payload = KeptGames.payload(
                    filter, result: KeptGames.text(row, 0), white: KeptGames.integer(row, 1),
                    black: KeptGames.integer(row, 2), speed: ExplorerFilter.speed(timeControl: KeptGames.text(row, 3)))
                if let payload {
                    looked[id] = payload
                    ids.append(id)
                }
            }
            self.looked = looked
            self.ids = ids
            return
        }
        if let found {
            var candidates = table()
            for id in found { candidates[id] = 1 }
            self.candidates = candidates
        }
        // Whole columns, each through its index when the file has it.
        func column(_ sql: String, into target: inout GameTable, _ value: (OpaquePointer?) -> UInt32) throws {
            let statement = try PreparedStatement(db, sql)
            while try statement.step() { target[statement.int64(column: 0)] = value(statement.handle) }
        }
        results = table()
        try column("SELECT ID, Result FROM Games WHERE Result IS NOT NULL", into: &results) {
            GameOutcome(result: KeptGames.text($0, 1)).code
        }
        whiteElo = table()
        try column("SELECT ID, WhiteElo FROM Games WHERE WhiteElo > 0", into: &whiteElo) {
            UInt32(clamping: sqlite3_column_int64($0, 1))
        }
        blackElo = table()
        try column("SELECT ID, BlackElo FROM Games WHERE BlackElo > 0", into: &blackElo) {
            UInt32(clamping: sqlite3_column_int64($0, 1))
        }
        if filter.speed != nil {
            // `TimeControl` has no index: read for the games the ratings keep when they are
            // fewer than a quarter (a row looked up costs about as much as four read in order),
            // else from every row.
            func code(_ row: OpaquePointer?, _ column: Int32) -> UInt32 {
                ExplorerFilter.speed(timeControl: KeptGames.text(row, column)).map {
                    UInt32(ExplorerFilter.Speed.allCases.firstIndex(of: $0)! + 1)
                } ?? 0
            }
            var speeds = table()
            var rated: [Int64] = []
            let byRatings = filter.minElo != nil || filter.maxElo != nil
            if byRatings {
                whiteElo.forEach { id, white in
                    guard white > 0, candidates.map({ $0[id] != 0 }) ?? true else { return }
                    let black = blackElo[id]
                    if black > 0, KeptGames.ratingsKeep(filter, white: Int(white), black: Int(black)) {
                        rated.append(id)
                    }
                }
            }
            if byRatings && rated.count <= total / 4 {
                let statement = try PreparedStatement(db, "SELECT \(timeControl) FROM Games WHERE ID = ?")
                for id in rated {
                    statement.bind(1, id)
                    defer { statement.reset() }
                    if try statement.step() { speeds[id] = code(statement.handle, 0) }
                }
            } else {
                try column("SELECT ID, \(timeControl) FROM Games", into: &speeds) { code($0, 1) }
            }
            self.speeds = speeds
        }
    }

    /// Whether the filter's rating bounds keep a game whose players have these ratings: their
    /// average, both known.
    static func ratingsKeep(_ filter: ExplorerFilter, white: Int?, black: Int?) -> Bool {
        guard filter.minElo != nil || filter.maxElo != nil else { return true }
        guard let white, let black, white > 0, black > 0 else { return false }
        if let low = filter.minElo, white + black < 2 * low { return false }
        if let high = filter.maxElo, white + black > 2 * high { return false }
        return true
    }

    /// The payload of game `id` (`GameResults.pack`, with `keptBit`), nil when the filter leaves it out.
    func payload(_ id: Int64) -> UInt32? {
        if let looked {
            let payload = looked[id]
            return payload & KeptGames.keptBit != 0 ? payload : nil
        }
        if let candidates, candidates[id] == 0 { return nil }
        let white = whiteElo[id]
        let black = blackElo[id]
        let speed = speeds.flatMap { speeds in
            let code = Int(speeds[id])
            return code == 0 ? nil : ExplorerFilter.Speed.allCases[code - 1]
        }
        return KeptGames.payload(
            filter, outcome: GameOutcome(code: results[id]), white: white == 0 ? nil : Int(white),
            black: black == 0 ? nil : Int(black), speed: speed)
    }

    /// The payload of a game with these values, nil when the filter's ratings or speed leave it out.
    static func payload(
        _ filter: ExplorerFilter, result: String?, white: Int?, black: Int?, speed: ExplorerFilter.Speed?
    )
        -> UInt32?
    {
        payload(filter, outcome: GameOutcome(result: result), white: white, black: black, speed: speed)
    }

    static func payload(
        _ filter: ExplorerFilter, outcome: GameOutcome, white: Int?, black: Int?, speed: ExplorerFilter.Speed?
    ) -> UInt32? {
        guard ratingsKeep(filter, white: white, black: black) else { return nil }
        if let wanted = filter.speed, speed != wanted { return nil }
        return GameResults.pack(outcome, PositionIndex.rating(white: white, black: black)) | keptBit
    }

    static func text(_ row: OpaquePointer?, _ column: Int32) -> String? {
        sqlite3_column_text(row, column).map { String(cString: $0) }
    }

    static func integer(_ row: OpaquePointer?, _ column: Int32) -> Int? {
        sqlite3_column_type(row, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(row, column))
    }
}

/// The tree's rows with counts at 0, to count kept games at: each position's rows in order,
/// and an open-addressing table from a position's key to its rows (one cache miss to find
/// them, one to count in them).
final class TreeSkeleton {
    struct Slot {
        /// The key + 1 (0 marks a free slot).
        var stored: UInt64
        var start: Int32
        var count: Int32
    }

    private(set) var keys: [UInt64] = []
    /// The rows of `keys[i]`: `starts[i]..<starts[i + 1]`.
    private(set) var starts: [Int] = []
    var rows: [FilteredExplorer.Row] = []
    private var slots: [Slot] = []
    private var mask = 0

    init(_ db: Database) throws {
        let statement = try PreparedStatement(db, "SELECT Position, Next FROM PositionTree ORDER BY Position, Next")
        while try statement.step() {
            let key = UInt64(bitPattern: statement.int64(column: 0))
            if keys.last != key {
                keys.append(key)
                starts.append(rows.count)
            }
            rows.append(
                .init(
                    next: statement.int64(column: 1), games: 0, whiteWins: 0, draws: 0, blackWins: 0, bestGame: 0,
                    bestElo: -1))
        }
        starts.append(rows.count)
        var size = 16
        while size < keys.count * 2 { size <<= 1 }
        mask = size - 1
        slots = Array(repeating: Slot(stored: 0, start: 0, count: 0), count: size)
        for (place, key) in keys.enumerated() {
            var index = TreeSkeleton.home(key, mask)
            while slots[index].stored != 0 { index = (index + 1) & mask }
            slots[index] = Slot(
                stored: key &+ 1, start: Int32(starts[place]), count: Int32(starts[place + 1] - starts[place]))
        }
    }

    @inline(__always) private static func home(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
    }

    /// The slot where a search for `key` starts: read for each of a game's keys before any is
    /// looked up, the reads wait for memory together instead of one after the other (a game's
    /// lookups took three times as long).
    @inline(__always) func firstSlot(_ key: UInt64) -> Slot {
        slots.withUnsafeBufferPointer { $0[TreeSkeleton.home(key, mask)] }
    }

    /// The row of `key` and `next` (`OpeningTreeBatch.ended` where the game ended) among
    /// `rows` (the skeleton's, being counted), if the tree has it; `probed`: `firstSlot(key)`.
    @inline(__always) func row(
        _ key: UInt64, _ next: UInt64, probed: Slot, in rows: UnsafeMutableBufferPointer<FilteredExplorer.Row>
    ) -> Int? {
        var found = probed
        if found.stored != key &+ 1 {
            guard found.stored != 0 else { return nil }
            found = slots.withUnsafeBufferPointer { slots in
                var index = TreeSkeleton.home(key, mask)
                while slots[index].stored != 0 && slots[index].stored != key &+ 1 { index = (index + 1) & mask }
                return slots[index]
            }
            guard found.stored != 0 else { return nil }
        }
        let wanted = next == OpeningTreeBatch.ended ? PositionIndex.ended : Int64(next)
        let first = Int(found.start)
        for row in first..<first + Int(found.count) where rows[row].next == wanted { return row }
        return nil
    }
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
                        let outcome = GameOutcome(code: payload)
                        let elo = Int32((payload & ~KeptGames.keptBit) >> 2) - 1
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
