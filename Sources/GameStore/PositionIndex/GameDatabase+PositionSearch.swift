import ChessCore
import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import PGN

/// A game that reaches a position: at which ply of its mainline it first does.
public struct PositionMatch: Sendable, Equatable, Hashable {
    public var gameID: Int64
    public var ply: Int

    public init(gameID: Int64, ply: Int) {
        self.gameID = gameID
        self.ply = ply
    }
}

/// What the opening tree knows of a position: the games that reached it in their first
/// `PositionIndex.treeDepth` plies, their results, and what was played next.
public struct ExplorerAnswer: Sendable, Equatable {
    public struct Continuation: Sendable, Equatable {
        public var move: Move
        public var games: Int
        public var whiteWins: Int
        public var draws: Int
        public var blackWins: Int
        /// The best-rated game that played it (the first stored, among unrated games).
        public var bestGame: Int64?
        public var bestElo: Int?

        /// White's score in these games, from 0 to 1 (draws count half), over decided and
        /// drawn games; nil when none has a known result.
        /// Adds the counts of another database's games that played the same move.
        public mutating func add(_ other: Continuation) {
            games = ExplorerAnswer.sum(games, other.games)
            whiteWins = ExplorerAnswer.sum(whiteWins, other.whiteWins)
            draws = ExplorerAnswer.sum(draws, other.draws)
            blackWins = ExplorerAnswer.sum(blackWins, other.blackWins)
        }

        public var whiteScore: Double? {
            let known = whiteWins + draws + blackWins
            return known == 0 ? nil : (Double(whiteWins) + Double(draws) / 2) / Double(known)
        }
    }

    public var games = 0
    public var whiteWins = 0
    public var draws = 0
    public var blackWins = 0
    /// Games whose mainline ends in this position.
    public var ended = 0
    /// The moves played from it, most played first (then by their SAN).
    public var continuations: [Continuation] = []
    public var bestGame: Int64?
    public var bestElo: Int?

    public init() {}

    /// The largest count an answer holds. Counts read from a file are bounded by it where they
    /// are read, and sums stop at it: a file from elsewhere cannot make them overflow.
    public static let largestCount = 1 << 40

    /// `a + b`, at most `largestCount` (negative values count as none).
    public static func sum(_ a: Int, _ b: Int) -> Int {
        min(largestCount, min(largestCount, max(0, a)) + min(largestCount, max(0, b)))
    }

    /// Adds games of known counts to the answer's totals.
    public mutating func add(games: Int, whiteWins: Int, draws: Int, blackWins: Int) {
        self.games = Self.sum(self.games, games)
        self.whiteWins = Self.sum(self.whiteWins, whiteWins)
        self.draws = Self.sum(self.draws, draws)
        self.blackWins = Self.sum(self.blackWins, blackWins)
    }

    /// Whether any game of the tree reached the position.
    public var isKnown: Bool { games > 0 }
}

/// The tags that name a stored game.
public struct GameSummary: Sendable, Equatable {
    public var id: Int64
    public var white: String?
    public var black: String?
    public var whiteElo: Int?
    public var blackElo: Int?
    public var event: String?
    public var site: String?
    public var date: String?
    public var round: String?
    public var result: String?

    public init(
        id: Int64 = 0, white: String? = nil, black: String? = nil, whiteElo: Int? = nil, blackElo: Int? = nil,
        event: String? = nil, site: String? = nil, date: String? = nil, round: String? = nil, result: String? = nil
    ) {
        self.id = id
        self.white = white
        self.black = black
        self.whiteElo = whiteElo
        self.blackElo = blackElo
        self.event = event
        self.site = site
        self.date = date
        self.round = round
        self.result = result
    }

    /// `Carlsen – Nepomniachtchi, World Championship 2021.12.03, 1-0`.
    public var label: String {
        var text = "\(Self.player(white, whiteElo)) – \(Self.player(black, blackElo))"
        var place: [String] = []
        if let event = Self.known(event) { place.append(event) }
        if let date, !date.isEmpty, !date.hasPrefix("?") { place.append(date) }
        if !place.isEmpty { text += ", " + place.joined(separator: " ") }
        if let result, !result.isEmpty, result != "*" { text += ", \(result)" }
        return text
    }

    /// The game as lichess's explorer lists it: players with their ratings, result, event and
    /// year, `Carlsen (2855) – Nepomniachtchi (2782), 1-0, World Championship, 2021` (a draw
    /// `½-½`; what is unknown left out).
    public var listEntry: String {
        var parts = ["\(Self.player(white, whiteElo)) – \(Self.player(black, blackElo))"]
        switch result {
        case "1-0", "0-1": parts.append(result!)
        case "1/2-1/2", "½-½": parts.append("½-½")
        default: break
        }
        if let event = Self.known(event) { parts.append(event) }
        if let year = date?.prefix(4), year.count == 4, year.allSatisfy(\.isNumber) { parts.append(String(year)) }
        return parts.joined(separator: ", ")
    }

    /// `Carlsen (2855)`, `?` for a name not known.
    private static func player(_ name: String?, _ elo: Int?) -> String {
        let name = name.flatMap { $0.isEmpty || $0 == "?" ? nil : $0 } ?? "?"
        guard let elo, elo > 0 else { return name }
        return "\(name) (\(elo))"
    }

    /// An event's name, nil for one not known (`?`, `Unknown`, empty).
    private static func known(_ event: String?) -> String? {
        guard let event, !event.isEmpty, event != "?", event != "Unknown" else { return nil }
        return event
    }
}

extension GameDatabase {
    /// The games whose mainline reaches `position` (its board, side to move, castling rights
    /// and en-passant square, the way FEN equality has them), in ID order, with the first ply
    /// at which each does. Throws when the position index is missing or out of date.
    public func games(reaching position: Position) throws -> [PositionMatch] {
        try scan(for: position, plies: Int.max).map {
            PositionMatch(gameID: $0.id, ply: Int($0.ply))
        }
    }

    /// How many games reach `position` (as `games(reaching:)` counts them), and the first
    /// `limit` of them in ID order. A position of the opening tree is counted from the tree's
    /// rows, plus the games that reach it first after the tree's plies (none, most often:
    /// `LateMaterials` tells without a scan); others by a scan of every game.
    public func search(_ position: Position, limit: Int) throws -> (total: Int, first: [PositionMatch]) {
        func matches(_ sightings: [Sighting]) -> [PositionMatch] {
            sightings.map { PositionMatch(gameID: $0.id, ply: Int($0.ply)) }
        }
        guard let counted = try treeCount(position) else {
            let all = try scan(for: position, plies: .max)
            return (all.count, matches(Array(all.prefix(limit))))
        }
        // The games the tree does not count: those that reach it first after its plies, read
        // only when one may (their signatures allow it).
        let total = counted.games + (counted.late ? try scan(for: position, plies: .max, afterTree: true).count : 0)
        let wanted = min(total, limit)
        return (total, wanted == 0 ? [] : matches(try scan(for: position, plies: .max, limit: wanted)))
    }

    /// The games the tree counts for `position` (nil when it has no rows and the filter of
    /// single positions may hold it, or while an import adds games), and whether a game may
    /// reach it after the tree's plies.
    func treeCount(_ position: Position) throws -> (games: Int, late: Bool)? {
        let key = PositionIndex.key(position.hash)
        return try run { db -> (games: Int, late: Bool)? in
            guard try requireCurrentIndex(db) == .current else { return nil }
            let rows = try Row.fetchAll(
                db, sql: "SELECT Next, Games FROM PositionTree WHERE Position = ?", arguments: [Int64(key)])
            if rows.isEmpty {
                // No game reaches it in the tree's plies when the filter does not hold it.
                let blocks = try SinglesFilter.blocks(db)
                guard blocks > 0, try !SinglesFilter.mayHold(key, blocks: blocks, db) else { return nil }
            }
            var children = Set([PositionIndex.ended])
            for move in position.legalMoves {
                children.insert(Int64(bitPattern: PositionIndex.key(position.playing(move).hash)))
            }
            var games = 0
            for row in rows {
                // Rows of another position with the same key: never met in practice, left out.
                guard let next = IndexValue.integer(row[0]), children.contains(next) else { continue }
                games = ExplorerAnswer.sum(games, IndexValue.count(row[1]))
            }
            return (games, LateMaterials.mayReach(try LateMaterials.stored(db), ReplayMaterial(position)))
        }
    }

    /// What the opening tree holds for `position`: the games that reached it within their
    /// first `PositionIndex.treeDepth` plies. `line` holds the positions before it in the
    /// game at hand, from its start (optional): a position one game reaches is then found from
    /// the last one before it that several games reach, without replaying every game.
    /// Throws when the position index is missing or out of date.
    public func explore(_ position: Position, line: [Position] = []) throws -> ExplorerAnswer {
        try explore(position, line: line, keptBy: nil)
    }

    /// The same over the games `filtered`'s filter keeps, when there is one.
    func explore(_ position: Position, line: [Position], keptBy filtered: FilteredExplorer?) throws -> ExplorerAnswer {
        let key = PositionIndex.key(position.hash)
        // While an import adds games, the tree has not their counts yet: the moves of the
        // games stored so far are replayed instead.
        var replayed = false
        var rows = try run { db -> [(next: Int64, counts: [Int], bestGame: Int64?, bestElo: Int?)] in
            if let filtered {
                return filtered.rows(at: key).map {
                    let (counts, bestGame, bestElo) = $0.explorerCounts
                    return ($0.next, counts, bestGame, bestElo)
                }
            }
            if try requireCurrentIndex(db) == .updating {
                replayed = true
                return []
            }
            // Each value read as the index writes it, bounded: the file may come from elsewhere.
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo FROM PositionTree \
                    WHERE Position = ?
                    """, arguments: [Int64(key)]
            ).compactMap { row in
                guard let next = IndexValue.integer(row[0]) else { return nil }
                let games = IndexValue.count(row[1])
                let results = (2...4).map { min(games, IndexValue.count(row[$0])) }
                return (next, [games] + results, IndexValue.integer(row[5]), IndexValue.elo(row[6]))
            }
        }
        if rows.isEmpty {
            // Kept games reach a position of the tree only where it has counted them.
            if filtered != nil, try treeHolds(key) { return ExplorerAnswer() }
            // No row: one game at most reaches it, the one that left the others' paths on this
            // line, else none if the filter of single positions says so, else a replay of the
            // games tells (as it does at once while an import adds games).
            var sightings: [Sighting]
            if replayed {
                sightings = try scan(for: position, plies: PositionIndex.treeDepth)
            } else if let single = try singleGame(reaching: key, line: line) {
                sightings = [single]
            } else if try !singlesMayHold(key) {
                return ExplorerAnswer()
            } else {
                sightings = try scan(for: position, plies: PositionIndex.treeDepth)
            }
            if let filtered { sightings.removeAll { !filtered.keeps($0.id) } }
            if sightings.isEmpty { return ExplorerAnswer() }
            let results = try run { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT ID, Result, WhiteElo, BlackElo FROM Games \
                        WHERE ID IN (\(sightings.map { String($0.id) }.joined(separator: ",")))
                        """)
            }
            var byID: [Int64: (GameOutcome, Int?)] = [:]
            for row in results {
                guard let id = IndexValue.integer(row[0]) else { continue }
                byID[id] = (
                    GameOutcome(result: row[1] as DatabaseValue == .null ? nil : String.fromDatabaseValue(row[1])),
                    PositionIndex.rating(
                        white: IndexValue.integer(row[2]).map { Int($0) },
                        black: IndexValue.integer(row[3]).map { Int($0) }
                    )
                )
            }
            let sums = OpeningTreeBatch(capacity: sightings.count)
            for sighting in sightings {
                let (outcome, rating) = byID[sighting.id] ?? (.unknown, nil)
                sums.add(
                    key, sighting.next, outcome: outcome, elo: rating.map { Int32(clamping: $0) } ?? -1,
                    gameID: sighting.id)
            }
            rows = sums.sorted().map {
                let (counts, bestGame, bestElo) = $0.explorerCounts
                return (
                    $0.next == OpeningTreeBatch.ended ? PositionIndex.ended : Int64($0.next), counts, bestGame, bestElo
                )
            }
        }
        var children: [UInt64: Move] = [:]
        for move in position.legalMoves { children[PositionIndex.key(position.playing(move).hash)] = move }
        var answer = ExplorerAnswer()
        var places: [Move: Int] = [:]
        for row in rows {
            let (games, white, draws, black) = (row.counts[0], row.counts[1], row.counts[2], row.counts[3])
            if row.next == PositionIndex.ended {
                answer.ended = ExplorerAnswer.sum(answer.ended, games)
            } else if let move = children[UInt64(bitPattern: row.next)] {
                let continuation = ExplorerAnswer.Continuation(
                    move: move, games: games, whiteWins: white, draws: draws, blackWins: black,
                    bestGame: row.bestGame, bestElo: row.bestElo)
                if let place = places[move] {
                    // Only in a file whose table lost its key: one move, one entry.
                    answer.continuations[place].add(continuation)
                } else {
                    places[move] = answer.continuations.count
                    answer.continuations.append(continuation)
                }
            } else {
                // Another position with the same key: never met in practice, left out.
                continue
            }
            answer.add(games: games, whiteWins: white, draws: draws, blackWins: black)
            if let bestElo = row.bestElo, answer.bestElo == nil || bestElo > answer.bestElo! {
                answer.bestElo = bestElo
                answer.bestGame = row.bestGame
            } else if answer.bestGame == nil && answer.bestElo == nil {
                answer.bestGame = row.bestGame
            }
        }
        let san = Dictionary(uniqueKeysWithValues: answer.continuations.map { ($0.move, position.san($0.move)) })
        answer.continuations.sort {
            $0.games != $1.games ? $0.games > $1.games : san[$0.move]! < san[$1.move]!
        }
        return answer
    }

    /// The names, ratings, event, date and result of stored games, by ID (missing IDs are left out).
    public func summaries(ids: [Int64]) throws -> [Int64: GameSummary] {
        guard !ids.isEmpty else { return [:] }
        return try run { db in
            let layout = try readLayout(db)
            var summaries: [Int64: GameSummary] = [:]
            var start = 0
            while start < ids.count {
                let chunk = ids[start..<min(ids.count, start + 500)]
                start += 500
                let rows = try fetchRows(
                    db, layout: layout, where: "g.ID IN (\(chunk.map(String.init).joined(separator: ",")))",
                    arguments: [], afterID: nil, limit: chunk.count)
                for row in rows {
                    summaries[row.id] = GameSummary(
                        id: row.id, white: row.white, black: row.black, whiteElo: row.whiteElo.map { Int($0) },
                        blackElo: row.blackElo.map { Int($0) }, event: row.event, site: row.site, date: row.date,
                        round: row.round, result: row.result)
                }
            }
            return summaries
        }
    }

    /// The status of a usable index (`.current`, or `.updating` while an import adds games);
    /// throws for any other.
    @discardableResult
    func requireCurrentIndex(_ db: Database) throws -> PositionIndexStatus {
        let status = try checkedPositionIndexStatus(db)
        guard status.isUsable else { throw GameStoreError.positionIndex(path: path, status: status) }
        return status
    }

    /// The game that reaches `key` after leaving, on `line`, the path of all other games: the
    /// one game of the row of the last position of `line` that has rows.
    func singleGame(reaching key: UInt64, line: [Position]) throws -> Sighting? {
        guard !line.isEmpty else { return nil }
        let keys = line.suffix(PositionIndex.treeDepth + 1).map { PositionIndex.key($0.hash) } + [key]
        return try run { db -> Sighting? in
            let edge = try PreparedStatement(
                db, "SELECT Next, Games, BestGame FROM PositionTree WHERE Position = ?1 AND (Next = ?2 OR ?2 IS NULL)")
            // The last position of the line with rows, and the row of its next position.
            var game: Int64?
            for index in stride(from: keys.count - 2, through: 0, by: -1) {
                edge.bind(1, Int64(keys[index]))
                edge.bind(2, Int64(keys[index + 1]))
                defer { edge.reset() }
                if try edge.step() {
                    guard edge.int64(column: 1) == 1 else { return nil }
                    game = edge.int64(column: 2)
                    break
                }
                edge.reset()
                edge.bind(1, Int64(keys[index]))
                edge.bind(2, nil as Int64?)
                // The position has rows, none for this move: no game went on this way.
                if try edge.step() { return nil }
            }
            guard let game else { return nil }
            let statement = try PreparedStatement(db, "SELECT Moves, FEN FROM PositionMoves WHERE GameID = ?")
            statement.bind(1, game)
            let reader = PositionMovesReader()
            guard try statement.step(), reader.start(statement.handle, fenColumn: 1) else { return nil }
            let limit = PositionIndex.treeDepth + 2
            var keys = [UInt64](repeating: 0, count: limit)
            let count = keys.withUnsafeMutableBufferPointer {
                reader.keys(statement.handle, movesColumn: 0, into: $0.baseAddress!, limit: limit)
            }
            for ply in 0..<min(count, PositionIndex.treeDepth + 1) where keys[ply] == key {
                return Sighting(
                    id: game, ply: Int32(ply), next: ply + 1 < count ? keys[ply + 1] : OpeningTreeBatch.ended)
            }
            return nil
        }
    }

    /// Whether the opening tree has rows for `key`.
    func treeHolds(_ key: UInt64) throws -> Bool {
        try run { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM PositionTree WHERE Position = ? LIMIT 1", arguments: [Int64(key)])
                ?? false
        }
    }

    /// Whether the filter of positions one game reaches may hold `key` (false: no game does).
    func singlesMayHold(_ key: UInt64) throws -> Bool {
        try run { db in
            let blocks = try SinglesFilter.blocks(db)
            return try SinglesFilter.mayHold(key, blocks: blocks, db)
        }
    }

    /// A game that reaches the searched position: the first ply where it does, and the key of
    /// the position after it (`OpeningTreeBatch.ended` when the game ends there).
    struct Sighting: Sendable {
        var id: Int64
        var ply: Int32
        var next: UInt64
    }

    /// The games that reach `position` within their first `plies` moves, in ID order: those
    /// whose signature (`GameSignature`) allows it, replayed, on every core, each part through
    /// a read-only connection of its own. `afterTree`: only the games that reach it first
    /// after the tree's plies. `limit`: the first games found, read in one part.
    func scan(for position: Position, plies: Int, afterTree: Bool = false, limit: Int = .max) throws -> [Sighting] {
        let bounds = try run { db -> (Int64, Int64)? in
            try requireCurrentIndex(db)
            let row = try Row.fetchOne(db, sql: "SELECT MIN(First), MAX(First) FROM PositionSignatures")
            guard let row, let low = IndexValue.integer(row[0]), let high = IndexValue.integer(row[1]), low <= high
            else { return nil }
            return (low, high)
        }
        guard let (low, high) = bounds, limit > 0 else { return [] }
        // The rows from low to high, split into parts in unsigned arithmetic: any two IDs make a span.
        let span = UInt64(bitPattern: high &- low)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let parts = limit < .max ? 1 : max(1, Int(min(UInt64(cores), span / 10_000 + 1)))
        var results = [Result<[Sighting], any Error>](repeating: .success([]), count: parts)
        let path = self.path
        let timeout = options.busyTimeout
        let target = ScanTarget(
            hash: position.hash, material: ReplayMaterial(position), plies: plies, afterTree: afterTree, limit: limit)
        results.withUnsafeMutableBufferPointer { output in
            let output = UncheckedSendable(output)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let step = span / UInt64(parts)
                let first = low &+ Int64(bitPattern: step &* UInt64(part))
                let last = part == parts - 1 ? high : low &+ Int64(bitPattern: step &* UInt64(part + 1)) &- 1
                output.value[part] = Result {
                    try GameDatabase.scan(for: target, path: path, busyTimeout: timeout, from: first, to: last)
                }
            }
        }
        return try results.flatMap { try $0.get() }
    }

    /// What a scan looks for.
    struct ScanTarget: Sendable {
        var hash: UInt64
        var material: ReplayMaterial
        var plies: Int
        var afterTree: Bool
        var limit: Int
    }

    /// The games of the signature rows whose `First` is from `low` to `high` that reach the target.
    static func scan(
        for target: ScanTarget, path: String, busyTimeout: Double, from low: Int64, to high: Int64
    )
        throws -> [Sighting]
    {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        func failure(_ code: Int32) -> any Error {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            return translate(
                DatabaseError(resultCode: ResultCode(rawValue: code), message: message), path: path,
                busyTimeout: busyTimeout)
        }
        let opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil)
        guard opened == SQLITE_OK, let connection else { throw failure(opened) }
        sqlite3_busy_timeout(connection, Int32(min(busyTimeout * 1000, Double(Int32.max))))
        // One read transaction for both statements: the rows they read agree.
        guard sqlite3_exec(connection, "BEGIN", nil, nil, nil) == SQLITE_OK else { throw failure(SQLITE_ERROR) }
        var rows: OpaquePointer?
        var moves: OpaquePointer?
        defer {
            sqlite3_finalize(rows)
            sqlite3_finalize(moves)
        }
        var prepared = sqlite3_prepare_v2(
            connection, "SELECT Entries FROM PositionSignatures WHERE First BETWEEN ?1 AND ?2 ORDER BY First", -1,
            &rows, nil)
        guard prepared == SQLITE_OK else { throw failure(prepared) }
        prepared = sqlite3_prepare_v2(
            connection, "SELECT Moves, FEN FROM PositionMoves WHERE GameID = ?1", -1, &moves, nil)
        guard prepared == SQLITE_OK else { throw failure(prepared) }
        sqlite3_bind_int64(rows, 1, low)
        sqlite3_bind_int64(rows, 2, high)
        var found: [Sighting] = []
        let reader = PositionMovesReader()
        let wanted = SignatureTarget(target.material)
        while true {
            let step = sqlite3_step(rows)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure(step) }
            let bytes = Int(sqlite3_column_bytes(rows, 0))
            guard let entries = sqlite3_column_blob(rows, 0) else { continue }
            for offset in stride(from: 0, to: bytes - GameSignature.size + 1, by: GameSignature.size) {
                let (id, signature) = GameSignature.read(entries, offset)
                guard target.afterTree ? wanted.mayMatchAfterTree(signature) : wanted.mayMatch(signature) else {
                    continue
                }
                sqlite3_bind_int64(moves, 1, id)
                defer { sqlite3_reset(moves) }
                let fetched = sqlite3_step(moves)
                if fetched == SQLITE_DONE { continue }
                guard fetched == SQLITE_ROW else { throw failure(fetched) }
                guard reader.start(moves, fenColumn: 1),
                    let (ply, next) = reader.find(
                        target.hash, material: target.material, moves, movesColumn: 0, plies: target.plies),
                    !target.afterTree || ply > PositionIndex.treeDepth
                else { continue }
                found.append(Sighting(id: id, ply: Int32(ply), next: next))
                if found.count >= target.limit { return found }
            }
        }
        return found
    }
}

/// How counts are written for people.
public enum Figures {
    /// `1234567` → `1,234,567`.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var result = ""
        for (k, digit) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 && digit != "-" && result != "-" { result.append(",") }
            result.append(digit)
        }
        return result
    }

    /// `0.537` → `54%`.
    public static func percent(_ share: Double) -> String {
        let bounded = share.isFinite ? min(1, max(0, share)) : 0
        return "\(Int((bounded * 100).rounded()))%"
    }
}
