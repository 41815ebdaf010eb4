import ChessCore
import Foundation
import GRDB
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

/// The explorer over the games a filter keeps: each position of their mainlines' first
/// `PositionIndex.treeDepth` plies with the games that reached it and the moves they played
/// there, counted in memory from those games' moves (read on every core). Made once per filter
/// (a player's games in a fraction of a second), then each answer is a lookup.
public final class FilteredExplorer: Sendable {
    struct Node: Sendable {
        var games = 0
        var results = [0, 0, 0]
        var ended = 0
        /// The next position's hash, with its games and results.
        var next: [UInt64: (games: Int, results: [Int])] = [:]
    }

    private let nodes: [UInt64: Node]
    /// The games the filter kept.
    public let games: Int

    init(nodes: [UInt64: Node], games: Int) {
        self.nodes = nodes
        self.games = games
    }

    /// What the kept games played from `position`, as the index's explorer answers (no best games).
    public func explore(_ position: Position) -> ExplorerAnswer {
        var answer = ExplorerAnswer()
        guard let node = nodes[position.hash] else { return answer }
        answer.add(games: node.games, whiteWins: node.results[0], draws: node.results[1], blackWins: node.results[2])
        answer.ended = node.ended
        var moves = MoveList()
        position.generateLegalMoves(into: &moves)
        for move in moves {
            guard let next = node.next[position.playing(move).hash] else { continue }
            answer.continuations.append(
                .init(
                    move: move, games: next.games, whiteWins: next.results[0], draws: next.results[1],
                    blackWins: next.results[2]))
        }
        let san = Dictionary(uniqueKeysWithValues: answer.continuations.map { ($0.move, position.san($0.move)) })
        answer.continuations.sort { $0.games != $1.games ? $0.games > $1.games : san[$0.move]! < san[$1.move]! }
        return answer
    }

    /// The most games a filter may keep: each adds its first positions to memory.
    public static let gamesLimit = 200_000
}

extension GameDatabase {
    /// The explorer over the games `filter` keeps (`FilteredExplorer`). Throws when more than
    /// `FilteredExplorer.gamesLimit` games are kept (narrow the filter) or the player matches no
    /// name.
    public func filteredExplorer(_ filter: ExplorerFilter) throws -> FilteredExplorer {
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible?] = []
        if let player = filter.player {
            let ids = try players(meantBy: player).map(\.id)
            guard !ids.isEmpty else { throw GameStoreError.noSuchPlayer(player) }
            let list = ids.map(String.init).joined(separator: ",")
            switch filter.color {
            case .white: conditions.append("WhiteID IN (\(list))")
            case .black: conditions.append("BlackID IN (\(list))")
            case nil: conditions.append("(WhiteID IN (\(list)) OR BlackID IN (\(list)))")
            }
        }
        if let since = filter.since {
            conditions.append("Date >= ?")
            arguments.append(since)
        }
        if let until = filter.until {
            // `2024` and `2024.05` take in every date they begin.
            conditions.append("Date <= ?")
            arguments.append(until + String(".99.99".suffix(max(0, 10 - until.count))))
        }
        if filter.minElo != nil || filter.maxElo != nil {
            conditions.append("WhiteElo > 0 AND BlackElo > 0")
            if let low = filter.minElo { conditions.append("(WhiteElo + BlackElo) >= \(2 * low)") }
            if let high = filter.maxElo { conditions.append("(WhiteElo + BlackElo) <= \(2 * high)") }
        }
        let (rows, outcomes, layout) = try run { db -> ([GameRow], [GameOutcome], ReadLayout) in
            let layout = try readLayout(db)
            func column(_ name: String) -> String { layout.has(name) ? name : "NULL" }
            let sql = """
                SELECT ID, \(column("FEN")), \(column("Moves")), \(column("Moves2")), Result, \(column("TimeControl")) \
                FROM Games \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                """
            var rows: [GameRow] = []
            var outcomes: [GameOutcome] = []
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try cursor.next() {
                if let speed = filter.speed, ExplorerFilter.speed(timeControl: row[5]) != speed { continue }
                guard rows.count < FilteredExplorer.gamesLimit else {
                    throw GameStoreError.tooManyGames(FilteredExplorer.gamesLimit)
                }
                rows.append(moveRow(row))
                outcomes.append(GameOutcome(result: row[4]))
            }
            return (rows, outcomes, layout)
        }
        let mainlines = Self.mainlines(of: rows, layout: layout)
        var nodes: [UInt64: FilteredExplorer.Node] = [:]
        for (mainline, outcome) in zip(mainlines, outcomes) {
            guard let hashes = mainline?.hashes else { continue }
            let result: Int? =
                switch outcome {
                case .whiteWins: 0
                case .draw: 1
                case .blackWins: 2
                case .unknown: nil
                }
            var seen: Set<UInt64> = []
            for ply in 0..<min(hashes.count, PositionIndex.treeDepth + 1) where seen.insert(hashes[ply]).inserted {
                var node = nodes[hashes[ply]] ?? FilteredExplorer.Node()
                node.games += 1
                if let result { node.results[result] += 1 }
                if ply + 1 < hashes.count {
                    var next = node.next[hashes[ply + 1]] ?? (0, [0, 0, 0])
                    next.games += 1
                    if let result { next.results[result] += 1 }
                    node.next[hashes[ply + 1]] = next
                } else {
                    node.ended += 1
                }
                nodes[hashes[ply]] = node
            }
        }
        return FilteredExplorer(nodes: nodes, games: rows.count)
    }
}
