import ChessCore
import Dispatch
import Foundation
import GRDB
import PGN

/// How a database stores its moves, told apart by `PRAGMA table_info(Games)` and `Info`.
public enum MovesLayout: String, Sendable, Equatable {
    /// `Moves` in En Croissant's one-byte encoding, with markers (files with `PawnHome`).
    case enCroissant
    /// ocgdb's two-byte `Moves2`, current promotion codes (an Info row `Data Structure Version`).
    case ocgdbMoves2
    /// ocgdb's two-byte `Moves2` with the old promotion codes (2 queen … 5 knight).
    case ocgdbMoves2Old
    /// `Moves` as SAN movetext.
    case text
    /// A two-byte `Moves` BLOB, `from | to << 6 | promotion << 12`, promotion 1 queen, 2 bishop,
    /// 3 rook, 4 knight: tried when a BLOB without En Croissant's columns does not decode as
    /// En Croissant's encoding.
    case twoByte
}

/// What an export did.
public struct ExportReport: Sendable, Equatable {
    public var exported = 0
    /// Games whose moves could not be read, with the reason (they are left out).
    public var failed: [GameStoreError] = []
    /// The layouts the games were read with, and how many games each.
    public var layouts: [MovesLayout: Int] = [:]

    public init() {}
}

/// A row of `Games` with its names joined, as read before decoding.
struct GameRow: Sendable {
    var id: Int64
    var event: String?
    var eventID: Int64?
    var site: String?
    var siteID: Int64?
    var date: String?
    var utcTime: String?
    var round: String?
    var white: String?
    var whiteID: Int64?
    var black: String?
    var blackID: Int64?
    var whiteElo: Int64?
    var blackElo: Int64?
    var result: String?
    var timeControl: String?
    var eco: String?
    var fen: String?
    var moves: [UInt8]?
    var movesAreText = false
    var moves2: [UInt8]?
    /// The `Tags` column: tag pairs no other column holds.
    var otherTags: String?
    /// Mainline comments from the `Comments` table, in order.
    var comments: [(ply: Int, text: String)] = []
}

/// What the reader learned about a file's schema.
struct ReadLayout: Sendable {
    var columns: [String: String]  // name → declared type, upper-cased
    var primary: MovesLayout
    var hasComments: Bool
    var hasEvents: Bool
    var hasSites: Bool
    var hasPlayers: Bool

    func has(_ column: String) -> Bool { columns[column] != nil }
}

extension GameDatabase {
    /// Opens an existing database for reading only.
    public static func openForReading(path: String, busyTimeout: Double = 5) throws -> GameDatabase {
        try GameDatabase(path: path, options: Options(busyTimeout: busyTimeout, readOnly: true))
    }

    func readLayout(_ db: Database) throws -> ReadLayout {
        guard try db.tableExists("Games") else {
            throw GameStoreError.notAGameDatabase(path: path, reason: "it has no Games table")
        }
        var columns: [String: String] = [:]
        for column in try db.columns(in: "Games") { columns[column.name] = column.type.uppercased() }
        let hasInfo = try db.tableExists("Info")
        let version =
            hasInfo
            ? try String.fetchOne(db, sql: "SELECT Value FROM Info WHERE Name = 'Data Structure Version'") : nil
        let primary: MovesLayout
        if columns["PawnHome"] != nil {
            primary = .enCroissant
        } else if columns["Moves2"] != nil {
            primary = version == nil ? .ocgdbMoves2Old : .ocgdbMoves2
        } else if let type = columns["Moves"], type.contains("TEXT") || type.contains("CHAR") {
            primary = .text
        } else if columns["Moves"] != nil {
            primary = .twoByte
        } else {
            throw GameStoreError.notAGameDatabase(path: path, reason: "its Games table has no Moves or Moves2 column")
        }
        return ReadLayout(
            columns: columns, primary: primary, hasComments: try db.tableExists("Comments"),
            hasEvents: try db.tableExists("Events"), hasSites: try db.tableExists("Sites"),
            hasPlayers: try db.tableExists("Players"))
    }

    /// The IDs of the games, in order; with `player`, only the games where that player (exact
    /// name) has White or Black.
    public func gameIDs(player: String? = nil) throws -> [Int64] {
        try run { db in
            guard let player else { return try Int64.fetchAll(db, sql: "SELECT ID FROM Games ORDER BY ID") }
            return try Int64.fetchAll(
                db,
                sql: """
                    SELECT g.ID FROM Games g JOIN Players p ON p.ID = g.WhiteID OR p.ID = g.BlackID \
                    WHERE p.Name = ? GROUP BY g.ID ORDER BY g.ID
                    """, arguments: [player])
        }
    }

    /// How an export reads `Comments` over its batches of games. When the table's rows come in
    /// game order (checked once), each batch reads on from where the last one stopped: one
    /// pass over the table in all. Otherwise each batch reads the whole table.
    struct CommentScan {
        /// Nil until checked.
        var inGameOrder: Bool?
        /// The ID of the last comment row read.
        var lastCommentID = Int64.min
    }

    /// One game, decoded.
    public func game(id: Int64) throws -> StoredGame {
        let (rows, layout) = try run { db -> ([GameRow], ReadLayout) in
            let layout = try readLayout(db)
            return (
                try fetchRows(db, layout: layout, where: "g.ID = ?", arguments: [id], afterID: nil, limit: 1), layout
            )
        }
        guard let row = rows.first else { throw GameStoreError.noSuchGame(id: id) }
        return try GameDatabase.decode(row, layout: layout)
    }

    /// The most players a name may stand for in `exportPGN(player:)`.
    public static let playersMeantLimit = 20_000

    /// The players (ID and name) whose name `query` may mean, as one types a name to look for
    /// it (`NameKey.isMeant(by:)`: any case and accents, the start of each word, in any order),
    /// in ID order.
    public func players(meantBy query: String) throws -> [(id: Int64, name: String)] {
        let key = NameKey(query)
        guard !key.words.isEmpty else { return [] }
        return try run { db in
            guard try db.tableExists("Players") else { return [] }
            var found: [(id: Int64, name: String)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT ID, Name FROM Players ORDER BY ID")
            while let row = try rows.next() {
                guard let name = row[1] as String? else { continue }
                if NameKey(name).isMeant(by: key) { found.append((row[0], name)) }
            }
            return found
        }
    }

    /// The names of players closest to `query` (`NameKey.distance`), closest first, at most
    /// `limit`, and none further than a third of its letters (at least 2): what someone who
    /// typed `query` may have meant.
    public func players(closestTo query: String, limit: Int = 5) throws -> [String] {
        let key = NameKey(query)
        let letters = key.words.joined().count
        guard letters > 0 else { return [] }
        let furthest = max(2, letters / 3)
        return try run { db in
            guard try db.tableExists("Players") else { return [] }
            var found: [(distance: Int, name: String)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT Name FROM Players")
            while let row = try rows.next() {
                guard let name = row[0] as String?, !name.isEmpty, name != "?" else { continue }
                let distance = NameKey(name).distance(to: key)
                if distance <= furthest { found.append((distance, name)) }
            }
            found.sort { ($0.distance, $0.name) < ($1.distance, $1.name) }
            return found.prefix(limit).map(\.name)
        }
    }

    /// Writes games as PGN, in ID order, a blank line between them: all of them, those of the
    /// players `player` may mean (`players(meantBy:)`: `carlsen`, `Carlsen, M`), or those with
    /// the given IDs. Games are read in batches and decoded on every core; `write` receives the
    /// text of each batch in order.
    public func exportPGN(
        player: String? = nil, ids: [Int64]? = nil, write: (String) throws -> Void
    ) throws -> ExportReport {
        var report = ExportReport()
        let layout = try run { db in try readLayout(db) }
        var condition: String?
        let arguments: StatementArguments = []
        if let player {
            let meant = try players(meantBy: player)
            guard !meant.isEmpty, layout.has("WhiteID"), layout.has("BlackID") else { return report }
            guard meant.count <= Self.playersMeantLimit else {
                throw GameStoreError.tooManyPlayers(query: player, count: meant.count)
            }
            let list = meant.map { String($0.id) }.joined(separator: ",")
            condition = "(g.WhiteID IN (\(list)) OR g.BlackID IN (\(list)))"
        }
        if let ids {
            if ids.isEmpty { return report }
            let list = ids.map(String.init).joined(separator: ",")
            condition = (condition.map { $0 + " AND " } ?? "") + "g.ID IN (\(list))"
        }
        let batchSize = 2_048
        var first = true
        var comments = CommentScan()
        func fetch(after id: Int64?) throws -> [GameRow] {
            try run { db in
                try fetchRows(
                    db, layout: layout, where: condition, arguments: arguments, afterID: id, limit: batchSize,
                    comments: &comments)
            }
        }
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        var rows = try fetch(after: nil)
        while !rows.isEmpty {
            let batch = rows
            nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result<StoredGame, GameStoreError>>
                .allocate(capacity: batch.count)
            nonisolated(unsafe) let texts = UnsafeMutableBufferPointer<String>.allocate(capacity: batch.count)
            texts.initialize(repeating: "")
            defer {
                results.deinitialize()
                results.deallocate()
                texts.deinitialize()
                texts.deallocate()
            }
            let chunk = (batch.count + width - 1) / width
            let decoding = DispatchGroup()
            for part in 0..<width {
                let lower = part * chunk
                let upper = min(batch.count, lower + chunk)
                guard lower < upper else { break }
                DispatchQueue.global().async(group: decoding) {
                    for k in lower..<upper {
                        do {
                            let game = try GameDatabase.decode(batch[k], layout: layout)
                            texts[k] = game.pgn
                            (results.baseAddress! + k).initialize(to: .success(game))
                        } catch {
                            let failure =
                                (error as? GameStoreError)
                                ?? .unreadableGame(id: batch[k].id, reason: "\(error)")
                            (results.baseAddress! + k).initialize(to: .failure(failure))
                        }
                    }
                }
            }
            // The next batch is read while this one is decoded.
            let next = Result { batch.count < batchSize ? [] : try fetch(after: batch.last!.id) }
            decoding.wait()
            var output = ""
            for k in 0..<batch.count {
                switch results[k] {
                case .success(let game):
                    if !first { output += "\n" }
                    first = false
                    output += texts[k]
                    report.exported += 1
                    report.layouts[game.layout, default: 0] += 1
                case .failure(let error):
                    report.failed.append(error)
                }
            }
            try write(output)
            rows = try next.get()
        }
        return report
    }

    /// Reads rows of `Games` with their names, `afterID` on, at most `limit`.
    func fetchRows(
        _ db: Database, layout: ReadLayout, where condition: String?, arguments: StatementArguments, afterID: Int64?,
        limit: Int
    ) throws -> [GameRow] {
        // One batch: reading the table once for it costs least.
        var comments = CommentScan(inGameOrder: false)
        return try fetchRows(
            db, layout: layout, where: condition, arguments: arguments, afterID: afterID, limit: limit,
            comments: &comments)
    }

    /// Reads rows of `Games` in ID order, with their names and, when their moves do not hold
    /// their comments, the rows of `Comments`, read as `comments` says.
    func fetchRows(
        _ db: Database, layout: ReadLayout, where condition: String?, arguments: StatementArguments, afterID: Int64?,
        limit: Int, comments scan: inout CommentScan
    ) throws -> [GameRow] {
        func column(_ name: String) -> String { layout.has(name) ? "g.\(name)" : "NULL" }
        let eventName = layout.hasEvents && layout.has("EventID") ? "e.Name" : "NULL"
        let siteName = layout.hasSites && layout.has("SiteID") ? "s.Name" : "NULL"
        let playerNames = layout.hasPlayers && layout.has("WhiteID") && layout.has("BlackID")
        var joins = ""
        if eventName != "NULL" { joins += " LEFT JOIN Events e ON e.ID = g.EventID" }
        if siteName != "NULL" { joins += " LEFT JOIN Sites s ON s.ID = g.SiteID" }
        if playerNames {
            joins += " LEFT JOIN Players w ON w.ID = g.WhiteID LEFT JOIN Players b ON b.ID = g.BlackID"
        }
        var conditions: [String] = []
        if let condition { conditions.append(condition) }
        var arguments = arguments
        if let afterID {
            conditions.append("g.ID > ?")
            arguments += [afterID]
        }
        let sql = """
            SELECT g.ID, \(eventName), \(siteName), \(column("Date")), \(column("UTCTime")), \(column("Round")), \
            \(playerNames ? "w.Name" : "NULL"), \(column("WhiteID")), \(playerNames ? "b.Name" : "NULL"), \
            \(column("BlackID")), \(column("WhiteElo")), \(column("BlackElo")), \(column("Result")), \
            \(column("TimeControl")), \(column("ECO")), \(column("FEN")), \(column("Moves")), \(column("Moves2")), \(column("EventID")), \(column("SiteID")), \
            \(column("Tags")) \
            FROM Games g\(joins)\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) \
            ORDER BY g.ID LIMIT \(limit)
            """
        var rows: [GameRow] = []
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() {
            var game = GameRow(id: row[0])
            game.event = text(row, 1)
            game.site = text(row, 2)
            game.date = text(row, 3)
            game.utcTime = text(row, 4)
            game.round = text(row, 5)
            game.white = text(row, 6)
            game.whiteID = row[7]
            game.black = text(row, 8)
            game.blackID = row[9]
            game.whiteElo = integer(row, 10)
            game.blackElo = integer(row, 11)
            game.result = text(row, 12)
            game.timeControl = text(row, 13)
            game.eco = text(row, 14)
            game.fen = text(row, 15)
            switch row[16] as DatabaseValue {
            case let value where value.isNull: break
            case let value:
                switch value.storage {
                case .blob(let data): game.moves = Array(data)
                case .string(let string):
                    game.moves = Array(string.utf8)
                    game.movesAreText = true
                default: break
                }
            }
            if let data = row[17] as Data? { game.moves2 = Array(data) }
            game.eventID = row[18]
            game.siteID = row[19]
            game.otherTags = text(row, 20)
            rows.append(game)
        }
        // ocgdb keeps mainline comments apart; so does a `mainline` Moves blob. A blob with
        // comments of its own needs none.
        var index: [Int64: Int] = [:]
        for (k, row) in rows.enumerated()
        where layout.primary != .enCroissant || row.moves2 != nil && row.moves == nil
            || row.moves.map({ !row.movesAreText && !MovesBlob.hasComments($0) }) == true
        {
            index[row.id] = k
        }
        guard layout.hasComments, let firstID = index.keys.min(), let lastID = index.keys.max() else { return rows }
        if scan.inGameOrder == nil { scan.inGameOrder = try commentsComeInGameOrder(db) }
        if scan.inGameOrder == true {
            // From where the last batch stopped to the first comment of a later game.
            let comments = try Row.fetchCursor(
                db, sql: "SELECT ID, GameID, Ply, Comment FROM Comments WHERE ID > ? ORDER BY ID",
                arguments: [scan.lastCommentID])
            while let comment = try comments.next() {
                let gameID = comment[1] as Int64?
                if let gameID, gameID > lastID { break }
                scan.lastCommentID = comment[0]
                guard let gameID, let k = index[gameID] else { continue }
                rows[k].comments.append((comment[2] as Int? ?? -1, comment[3] as String? ?? ""))
            }
        } else {
            // Each batch reads the whole table (it has no index on GameID).
            let comments = try Row.fetchCursor(
                db, sql: "SELECT GameID, Ply, Comment FROM Comments WHERE GameID BETWEEN ? AND ? ORDER BY GameID, ID",
                arguments: [firstID, lastID])
            while let comment = try comments.next() {
                guard let gameID = comment[0] as Int64?, let k = index[gameID] else { continue }
                rows[k].comments.append((comment[1] as Int? ?? -1, comment[2] as String? ?? ""))
            }
        }
        return rows
    }

    /// Whether every row of `Comments` comes, in ID order, after those of earlier games (as
    /// ocgdb and pgn-lsp write them, a game's comments right after the game): one pass over
    /// the table, in SQLite.
    func commentsComeInGameOrder(_ db: Database) throws -> Bool {
        let statement = try PreparedStatement(db, "SELECT GameID FROM Comments WHERE GameID IS NOT NULL ORDER BY ID")
        defer { statement.reset() }
        var previous = Int64.min
        while try statement.step() {
            let gameID = statement.int64(column: 0)
            if gameID < previous { return false }
            previous = gameID
        }
        return true
    }

    func text(_ row: Row, _ index: Int) -> String? {
        let value = row[index] as DatabaseValue
        switch value.storage {
        case .string(let string): return string
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        case .null: return nil
        }
    }

    func integer(_ row: Row, _ index: Int) -> Int64? {
        let value = row[index] as DatabaseValue
        switch value.storage {
        case .int64(let number): return number
        case .double(let number): return Int64(exactly: number.rounded())
        case .string(let string): return Int64(string.trimmingASCIISpaces)
        default: return nil
        }
    }
}
