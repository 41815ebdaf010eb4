import GRDB

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
                let payload = KeptGames.payload(
                    filter, outcome: GameOutcome(result: statement.text(column: 0)),
                    white: statement.integer(column: 1),
                    black: statement.integer(column: 2),
                    speed: ExplorerFilter.speed(timeControl: statement.text(column: 3)))
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
        func column(_ sql: String, into target: inout GameTable, _ value: (PreparedStatement) -> UInt32) throws {
            let statement = try PreparedStatement(db, sql)
            while try statement.step() { target[statement.int64(column: 0)] = value(statement) }
        }
        results = table()
        try column("SELECT ID, Result FROM Games WHERE Result IS NOT NULL", into: &results) {
            GameOutcome(result: $0.text(column: 1)).code
        }
        whiteElo = table()
        try column("SELECT ID, WhiteElo FROM Games WHERE WhiteElo > 0", into: &whiteElo) {
            UInt32(clamping: $0.int64(column: 1))
        }
        blackElo = table()
        try column("SELECT ID, BlackElo FROM Games WHERE BlackElo > 0", into: &blackElo) {
            UInt32(clamping: $0.int64(column: 1))
        }
        if filter.speed != nil {
            // `TimeControl` has no index: read for the games the ratings keep when they are
            // fewer than a quarter (a row looked up costs about as much as four read in order),
            // else from every row.
            func code(_ row: PreparedStatement, _ column: Int32) -> UInt32 {
                ExplorerFilter.speed(timeControl: row.text(column: column)).map {
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
                    if try statement.step() { speeds[id] = code(statement, 0) }
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
        _ filter: ExplorerFilter, outcome: GameOutcome, white: Int?, black: Int?, speed: ExplorerFilter.Speed?
    ) -> UInt32? {
        guard ratingsKeep(filter, white: white, black: black) else { return nil }
        if let wanted = filter.speed, speed != wanted { return nil }
        return GameResults.pack(outcome, PositionIndex.rating(white: white, black: black)) | keptBit
    }
}
