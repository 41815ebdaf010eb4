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

    /// `Carlsen – Nepomniachtchi, World Championship 2021.12.03, 1-0`.
    public var label: String {
        func player(_ name: String?, _ elo: Int?) -> String {
            let name = name.flatMap { $0.isEmpty || $0 == "?" ? nil : $0 } ?? "?"
            guard let elo, elo > 0 else { return name }
            return "\(name) (\(elo))"
        }
        var text = "\(player(white, whiteElo)) – \(player(black, blackElo))"
        var place: [String] = []
        if let event, !event.isEmpty, event != "?", event != "Unknown" { place.append(event) }
        if let date, !date.isEmpty, !date.hasPrefix("?") { place.append(date) }
        if !place.isEmpty { text += ", " + place.joined(separator: " ") }
        if let result, !result.isEmpty, result != "*" { text += ", \(result)" }
        return text
    }
}

extension GameDatabase {
    /// The games whose mainline reaches `position` (its board, side to move, castling rights
    /// and en-passant square, the way FEN equality has them), in ID order, with the first ply
    /// at which each does. Throws when the position index is missing or out of date.
    public func games(reaching position: Position) throws -> [PositionMatch] {
        let hash = position.hash
        let (layout, treeCount, bounds) = try run { db -> (ReadLayout, Int?, (Int64, Int64)?) in
            try requireCurrentIndex(db)
            let count = try Int.fetchOne(
                db, sql: "SELECT SUM(Games) FROM PositionTree WHERE Position = ?",
                arguments: [PositionIndex.stored(hash)])
            let row = try Row.fetchOne(db, sql: "SELECT MIN(GameID), MAX(GameID) FROM PositionKeys")
            let bounds: (Int64, Int64)? = row.flatMap { row in
                guard let low = row[0] as Int64?, let high = row[1] as Int64? else { return nil }
                return (low, high)
            }
            return (try readLayout(db), count, bounds)
        }
        guard let bounds else { return [] }
        let candidates = try scanKeys(PositionIndex.shortKey(hash), from: bounds.0, to: bounds.1)
        // Games that match within the tree's plies are all real when the tree counts as many.
        let shallow = candidates.filter { $0.firstShallow >= 0 }
        var confirmed: [PositionMatch] = []
        var toVerify: [Candidate] = []
        if let treeCount, treeCount == shallow.count {
            confirmed = shallow.map { PositionMatch(gameID: $0.id, ply: Int($0.firstShallow)) }
            toVerify = candidates.filter { $0.firstShallow < 0 }
        } else {
            toVerify = candidates
        }
        if !toVerify.isEmpty {
            confirmed += try verify(toVerify, hash: hash, layout: layout)
        }
        return confirmed.sorted { $0.gameID < $1.gameID }
    }

    /// What the opening tree holds for `position`. Throws when the position index is missing or
    /// out of date.
    public func explore(_ position: Position) throws -> ExplorerAnswer {
        let rows = try run { db -> [Row] in
            try requireCurrentIndex(db)
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo FROM PositionTree \
                    WHERE Position = ?
                    """, arguments: [PositionIndex.stored(position.hash)])
        }
        var answer = ExplorerAnswer()
        guard !rows.isEmpty else { return answer }
        var children: [UInt64: Move] = [:]
        for move in position.legalMoves { children[position.playing(move).hash] = move }
        for row in rows {
            let next = UInt64(bitPattern: row[0] as Int64)
            let games: Int = row[1]
            let white: Int = row[2]
            let draws: Int = row[3]
            let black: Int = row[4]
            let bestGame: Int64? = row[5]
            let bestElo: Int? = row[6]
            if next == 0 {
                answer.ended += games
            } else if let move = children[next] {
                answer.continuations.append(
                    .init(
                        move: move, games: games, whiteWins: white, draws: draws, blackWins: black, bestGame: bestGame,
                        bestElo: bestElo))
            } else {
                // Another position with the same key: never met in practice, left out.
                continue
            }
            answer.games += games
            answer.whiteWins += white
            answer.draws += draws
            answer.blackWins += black
            if let bestElo, answer.bestElo == nil || bestElo > answer.bestElo! {
                answer.bestElo = bestElo
                answer.bestGame = bestGame
            } else if answer.bestGame == nil && answer.bestElo == nil {
                answer.bestGame = bestGame
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

    func requireCurrentIndex(_ db: Database) throws {
        let status = try GameDatabase.positionIndexStatus(db)
        guard status == .current else { throw GameStoreError.positionIndex(path: path, status: status) }
    }

    /// A game whose keys hold the searched key: the first ply where it does within the tree's
    /// plies (-1 if none), and the first beyond them (-1 if none).
    struct Candidate: Sendable {
        var id: Int64
        var firstShallow: Int32
        var firstDeep: Int32
    }

    /// Reads every game's keys, on every core, each part through a read-only connection of its own.
    func scanKeys(_ key: UInt32, from low: Int64, to high: Int64) throws -> [Candidate] {
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, Int((high - low) / 10_000) + 1))
        var results = [Result<[Candidate], any Error>](repeating: .success([]), count: parts)
        let path = self.path
        let timeout = options.busyTimeout
        results.withUnsafeMutableBufferPointer { output in
            let output = UncheckedSendable(output)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let span = high - low + 1
                let first = low + span * Int64(part) / Int64(parts)
                let last = low + span * Int64(part + 1) / Int64(parts) - 1
                output.value[part] = Result {
                    try GameDatabase.scanKeys(key, path: path, busyTimeout: timeout, from: first, to: last)
                }
            }
        }
        return try results.flatMap { try $0.get() }
    }

    static func scanKeys(
        _ key: UInt32, path: String, busyTimeout: Double, from low: Int64, to high: Int64
    ) throws
        -> [Candidate]
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
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let prepared = sqlite3_prepare_v2(
            connection, "SELECT GameID, Keys FROM PositionKeys WHERE GameID BETWEEN ?1 AND ?2", -1, &statement, nil)
        guard prepared == SQLITE_OK else { throw failure(prepared) }
        sqlite3_bind_int64(statement, 1, low)
        sqlite3_bind_int64(statement, 2, high)
        var found: [Candidate] = []
        let depth = PositionIndex.treeDepth
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure(step) }
            let count = Int(sqlite3_column_bytes(statement, 1)) / 4
            guard count > 0, let blob = sqlite3_column_blob(statement, 1) else { continue }
            var shallow: Int32 = -1
            var deep: Int32 = -1
            var ply = 0
            while ply < count {
                if blob.loadUnaligned(fromByteOffset: ply * 4, as: UInt32.self).littleEndian == key {
                    if ply <= depth {
                        if shallow < 0 { shallow = Int32(ply) }
                        ply = depth + 1
                        continue
                    }
                    deep = Int32(ply)
                    break
                }
                ply += 1
            }
            if shallow >= 0 || deep >= 0 {
                found.append(Candidate(id: sqlite3_column_int64(statement, 0), firstShallow: shallow, firstDeep: deep))
            }
        }
        return found
    }

    /// The candidates whose mainline really reaches the position, read from their moves.
    func verify(_ candidates: [Candidate], hash: UInt64, layout: ReadLayout) throws -> [PositionMatch] {
        var matches: [PositionMatch] = []
        var start = 0
        while start < candidates.count {
            let chunk = candidates[start..<min(candidates.count, start + 2000)]
            start += 2000
            let rows = try run { db in
                try fetchMoveRows(db, layout: layout, ids: chunk.map(\.id))
            }
            for game in GameDatabase.positionsOfRows(rows, layout: layout) {
                if let ply = game.hashes?.firstIndex(of: hash) {
                    matches.append(PositionMatch(gameID: game.id, ply: ply))
                }
            }
        }
        return matches
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
    public static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded()))%" }
}
