import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import PGN

/// A game to store: the PGN text of one game (or of several, numbered from `index`), and its
/// number in its file (from 0), which refusals quote.
public struct GameSource: Sendable {
    public var bytes: [UInt8]
    public var index: Int

    public init(bytes: [UInt8], index: Int) {
        self.bytes = bytes
        self.index = index
    }

    public init(text: String, index: Int) {
        self.init(bytes: Array(text.utf8), index: index)
    }
}

/// What a save did.
public struct StoreReport: Sendable, Equatable {
    /// Games written.
    public var stored = 0
    /// Games already in the database (same players, event, site, date, time, round, result,
    /// start position and moves).
    public var duplicates = 0
    /// Games that could not be stored, in file order.
    public var refused: [RefusedGame] = []
    /// Games stored with changes (`EncodedGame.changes`), in file order; `stored` counts them.
    public var changed: [ChangedGame] = []
    /// The `Games.ID` of each stored game, in order (empty after `importPGN`, which keeps
    /// counts only: its memory does not grow with the games).
    public var storedIDs: [Int64] = []

    public init() {}

    /// Games read: stored, duplicate or refused.
    public var total: Int { stored + duplicates + refused.count }

    /// The changed games whose mainline stops before their movetext's (`ChangedGame.incomplete`).
    public var incomplete: Int { changed.reduce(0) { $0 + ($1.incomplete ? 1 : 0) } }

    public mutating func add(_ other: StoreReport) {
        stored += other.stored
        duplicates += other.duplicates
        refused += other.refused
        changed += other.changed
        storedIDs += other.storedIDs
    }
}

/// A game stored with changes: what the import did to store it.
public struct ChangedGame: Sendable, Hashable, CustomStringConvertible {
    /// The game's number in its file or batch, from 0.
    public var index: Int
    /// What was changed, in the order of the movetext (`EncodedGame.changes`).
    public var changes: [String]
    /// Whether the mainline stops before the movetext's: a move of it cannot be played.
    public var incomplete: Bool

    public init(index: Int, changes: [String], incomplete: Bool) {
        self.index = index
        self.changes = changes
        self.incomplete = incomplete
    }

    /// `game 12 (incomplete), illegal move 23...Nf3: …; …` (games counted from 1).
    public var description: String {
        "game \(index + 1)\(incomplete ? " (incomplete)" : ""), \(changes.joined(separator: "; "))"
    }
}

extension GameDatabase {
    /// The names (of players, events, sites) a connection keeps looked up, per table, are
    /// the most recent of up to twice this many.
    nonisolated(unsafe) static var namesCached = 100_000

    /// Stores games given as PGN text: they are read on every core, then written in one
    /// transaction. `progress` is called with (games done, games in all) while writing.
    public func store(games: [GameSource], progress: ((Int, Int) -> Void)? = nil) throws -> StoreReport {
        let content = options.moves
        let commentRows = options.commentRows
        let strict = options.strict
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<[Result<EncodedGame, RefusedGame>]>.allocate(
            capacity: games.count)
        results.initialize(repeating: [])
        defer {
            results.deinitialize()
            results.deallocate()
        }
        DispatchQueue.concurrentPerform(iterations: games.count) { k in
            results[k] = GameEncoder.encode(
                bytes: games[k].bytes, firstIndex: games[k].index, content: content, commentRows: commentRows,
                strict: strict)
        }
        return try write(
            pieces: Array(results), indexOffsets: Array(repeating: 0, count: games.count), progress: progress)
    }

    /// Writes encoded games (and records refused ones) in one transaction: either every game
    /// of the batch is stored or, on an error, none is.
    public func write(
        _ games: [Result<EncodedGame, RefusedGame>], progress: ((Int, Int) -> Void)? = nil
    ) throws -> StoreReport {
        try write(pieces: [games], indexOffsets: [0], progress: progress)
    }

    /// `write(_:)` for games encoded piece by piece: the refusals of `pieces[k]` are numbered
    /// from `indexOffsets[k]`.
    func write(
        pieces: [[Result<EncodedGame, RefusedGame>]], indexOffsets: [Int], progress: ((Int, Int) -> Void)? = nil
    ) throws -> StoreReport {
        var report = StoreReport()
        try run { db in
            try withStatementJournalInMemory(db) {
                do {
                    try db.inTransaction(.immediate) {
                        report = try self.writeInTransaction(db, pieces, indexOffsets, progress: progress)
                        return .commit
                    }
                } catch {
                    forgetAfterRollback()
                    throw error
                }
            }
        }
        if report.stored > 0 { removeSearchIndex() }
        return report
    }

    func writeInTransaction(
        _ db: Database, _ pieces: [[Result<EncodedGame, RefusedGame>]], _ indexOffsets: [Int],
        progress: ((Int, Int) -> Void)?, keepIDs: Bool = true
    ) throws -> StoreReport {
        let total = pieces.reduce(0) { $0 + $1.count }
        var done = 0
        let layout = try self.layout ?? checkWritable(db)
        self.layout = layout
        // Kept up to date game by game while it describes the games; one that does not is
        // built again as a whole (`buildPositionIndex`). Asked before anything is written.
        var positionIndex = try positionIndexWriter(db)
        try refreshCaches(db)
        try buildIdentityIndexIfNeeded(db)
        var counts = self.counts!
        var report = StoreReport()

        let insertPlayer = try PreparedStatement(db, "INSERT OR IGNORE INTO Players (Name, Elo) VALUES (?, ?)")
        let selectPlayer = try PreparedStatement(db, "SELECT ID FROM Players WHERE Name = ?")
        let insertEvent = try PreparedStatement(db, "INSERT OR IGNORE INTO Events (Name) VALUES (?)")
        let selectEvent = try PreparedStatement(db, "SELECT ID FROM Events WHERE Name = ?")
        let insertSite = try PreparedStatement(db, "INSERT OR IGNORE INTO Sites (Name) VALUES (?)")
        let selectSite = try PreparedStatement(db, "SELECT ID FROM Sites WHERE Name = ?")
        let findDuplicate = try PreparedStatement(
            db,
            """
            SELECT 1 FROM Games WHERE WhiteID = ?1 AND BlackID = ?2 AND EventID = ?3 AND SiteID = ?4 \
            AND Date IS ?5 AND UTCTime IS ?6 AND Round IS ?7 AND Moves = ?8 AND Result IS ?10 AND FEN IS ?11 LIMIT 1
            """)
        // The same comparison with one row that the hashes name.
        let sameGame = try PreparedStatement(
            db,
            """
            SELECT 1 FROM Games WHERE ID = ?9 AND WhiteID = ?1 AND BlackID = ?2 AND EventID = ?3 AND SiteID = ?4 \
            AND Date IS ?5 AND UTCTime IS ?6 AND Round IS ?7 AND Moves = ?8 AND Result IS ?10 AND FEN IS ?11
            """)
        let moves2Column = (layout.hasMoves2 ? ", Moves2" : "") + (layout.hasTags ? ", Tags" : "")
        let moves2Value = (layout.hasMoves2 ? ", ?19" : "") + (layout.hasTags ? ", ?20" : "")
        let insertGame = try PreparedStatement(
            db,
            """
            INSERT INTO Games (EventID, SiteID, Date, UTCTime, Round, WhiteID, WhiteElo, BlackID, BlackElo, \
            WhiteMaterial, BlackMaterial, Result, TimeControl, ECO, PlyCount, FEN, Moves, PawnHome\(moves2Column)) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18\(moves2Value))
            """)
        let writesComments = options.commentRows && layout.hasComments
        // Comment rows go in many at a time: one statement per row would cost more than the row.
        let commentsPerStatement = 64
        var insertComments: [Int: PreparedStatement] = [:]
        func insertCommentsStatement(_ count: Int) throws -> PreparedStatement {
            if let statement = insertComments[count] { return statement }
            let values = Array(repeating: "(?, ?, ?)", count: count).joined(separator: ", ")
            let statement = try PreparedStatement(db, "INSERT INTO Comments (GameID, Ply, Comment) VALUES \(values)")
            insertComments[count] = statement
            return statement
        }

        /// The ID of `name` (0 for none), and for a player the Elo known to be stored.
        func id(
            _ name: String?, cache: inout NameIDs, insert: PreparedStatement,
            select: PreparedStatement, added: inout Int, player: Bool = false, elo: Int? = nil
        ) throws -> NameIDs.Entry {
            guard let name else { return NameIDs.Entry(id: 0) }
            let hash = NameIDs.hash(name)
            if let known = cache.entry(for: name, hash: hash) { return known }
            // Looked up before any insert, unless the table surely lacks it: an insert that a
            // known name makes SQLite ignore still takes a number from `AUTOINCREMENT` (Events,
            // Sites), so the IDs given would depend on what the cache happened to hold. The
            // name is bound where it is, not copied, while each statement runs.
            var text = name
            var entry = NameIDs.Entry(id: 0)
            var found = false
            if cache.filter?.mayHold(hash) ?? true {
                found = try text.withUTF8 { utf8 in
                    select.bindText(1, borrowing: utf8)
                    defer { select.reset() }
                    guard try select.step() else { return false }
                    entry.id = select.int64(column: 0)
                    return true
                }
            }
            if !found {
                try text.withUTF8 { utf8 in
                    insert.bindText(1, borrowing: utf8)
                    // A new player gets the rating of the game that adds them: most players
                    // of a large file appear once, and their row is then written once.
                    if player { insert.bind(2, elo) }
                    defer { insert.reset() }
                    try insert.step()
                }
                guard db.changesCount > 0 else {
                    throw GameStoreError.sqlite(path: path, message: "could not find or add \"\(name)\"")
                }
                entry.id = db.lastInsertedRowID
                added += 1
                if player, let elo { entry.elo = elo }
                cache.filter?.add(hash)
            }
            cache.insert(entry, for: name, hash: hash)
            return entry
        }

        // The game's texts, bound where they are while each statement runs.
        var texts = BorrowedTexts()
        let (dateSlot, utcTimeSlot, roundSlot, resultSlot, timeControlSlot, ecoSlot, fenSlot) = (0, 1, 2, 3, 4, 5, 6)
        // The players' ratings to raise at the end of the transaction (as their entries say).
        var bestElo: [Int64: Int] = [:]
        func raise(_ player: NameIDs.Entry, _ name: String?, to elo: Int?) {
            guard let elo, let name, player.id != 0, player.elo < elo else { return }
            bestElo[player.id] = max(bestElo[player.id] ?? elo, elo)
            playerIDs.raise(name, to: elo)
        }
        for piece in pieces.indices {
            // Each game is read where its piece holds it: copying one out costs a retain and a
            // release for each of its texts and arrays.
            try pieces[piece].withUnsafeBufferPointer { games in
                for k in games.indices {
                    if let progress, done % 256 == 0 { progress(done, total) }
                    done += 1
                    switch games[k] {
                    case .failure(var refused):
                        refused.index += indexOffsets[piece]
                        report.refused.append(refused)
                    case .success(let game):
                        let whitePlayer = try id(
                            game.white, cache: &playerIDs, insert: insertPlayer, select: selectPlayer,
                            added: &counts.players,
                            player: true, elo: game.whiteElo)
                        let blackPlayer = try id(
                            game.black, cache: &playerIDs, insert: insertPlayer, select: selectPlayer,
                            added: &counts.players,
                            player: true, elo: game.blackElo)
                        let (white, black) = (whitePlayer.id, blackPlayer.id)
                        let event = try id(
                            game.event, cache: &eventIDs, insert: insertEvent, select: selectEvent,
                            added: &counts.events
                        ).id
                        let site = try id(
                            game.site, cache: &siteIDs, insert: insertSite, select: selectSite, added: &counts.sites
                        ).id

                        // Hashed only while the hashes can answer: the names' IDs and the game's
                        // `contentHash` (the mainline and the length of the whole tell games apart
                        // well enough, the query decides; hashing every comment would cost more).
                        var hash: Int?
                        if storedGameHashes != nil {
                            var identity = Hasher()
                            identity.combine(white)
                            identity.combine(black)
                            identity.combine(event)
                            identity.combine(site)
                            identity.combine(game.contentHash)
                            hash = identity.finalize()
                        }
                        texts.removeAll()
                        texts.set(dateSlot, game.date)
                        texts.set(utcTimeSlot, game.utcTime)
                        texts.set(roundSlot, game.round)
                        texts.set(resultSlot, game.result)
                        texts.set(timeControlSlot, game.timeControl)
                        texts.set(ecoSlot, game.eco)
                        texts.set(fenSlot, game.fen)
                        func bindIdentity(_ statement: PreparedStatement, _ binder: BorrowedTexts.Binder) {
                            statement.bind(1, white)
                            statement.bind(2, black)
                            statement.bind(3, event)
                            statement.bind(4, site)
                            binder.bind(statement, 5, slot: dateSlot)
                            binder.bind(statement, 6, slot: utcTimeSlot)
                            binder.bind(statement, 7, slot: roundSlot)
                            binder.bind(statement, 10, slot: resultSlot)
                            binder.bind(statement, 11, slot: fenSlot)
                        }
                        let duplicate = try texts.withBinder { binder in
                            try game.moves.withUnsafeBytes { moves in
                                if let hash, let hashes = storedGameHashes {
                                    // Only the rows whose hash matches are compared, by their ID.
                                    return try hashes.contains(hash) { row in
                                        bindIdentity(sameGame, binder)
                                        sameGame.bind(9, row)
                                        sameGame.bindBlob(8, borrowing: moves)
                                        defer { sameGame.reset() }
                                        return try sameGame.step()
                                    }
                                }
                                bindIdentity(findDuplicate, binder)
                                findDuplicate.bindBlob(8, borrowing: moves)
                                defer { findDuplicate.reset() }
                                return try findDuplicate.step()
                            }
                        }
                        if duplicate {
                            report.duplicates += 1
                            continue
                        }

                        insertGame.bind(1, event)
                        insertGame.bind(2, site)
                        insertGame.bind(6, white)
                        insertGame.bind(7, game.whiteElo)
                        insertGame.bind(8, black)
                        insertGame.bind(9, game.blackElo)
                        insertGame.bind(10, game.whiteMaterial)
                        insertGame.bind(11, game.blackMaterial)
                        insertGame.bind(15, game.plyCount)
                        insertGame.bind(18, game.pawnHome)
                        try texts.withBinder { binder in
                            binder.bind(insertGame, 3, slot: dateSlot)
                            binder.bind(insertGame, 4, slot: utcTimeSlot)
                            binder.bind(insertGame, 5, slot: roundSlot)
                            binder.bind(insertGame, 12, slot: resultSlot)
                            binder.bind(insertGame, 13, slot: timeControlSlot)
                            binder.bind(insertGame, 14, slot: ecoSlot)
                            binder.bind(insertGame, 16, slot: fenSlot)
                            try game.otherTagBytes.withUnsafeBufferPointer { tags in
                                try game.moves.withUnsafeBytes { moves in
                                    try game.moves2.withUnsafeBytes { moves2 in
                                        insertGame.bindBlob(17, borrowing: moves)
                                        if layout.hasMoves2 { insertGame.bindBlob(19, borrowing: moves2) }
                                        if layout.hasTags {
                                            if tags.isEmpty {
                                                insertGame.bind(20, nil as String?)
                                            } else {
                                                insertGame.bindText(20, borrowing: tags)
                                            }
                                        }
                                        defer { insertGame.reset() }
                                        try insertGame.step()
                                    }
                                }
                            }
                        }
                        let gameID = db.lastInsertedRowID
                        if let hash, storedGameHashes?.insert(hash, rowID: gameID) == false {
                            // A row ID too large for the table: from now on the query decides.
                            storedGameHashes = nil
                            try buildIdentityIndexIfNeeded(db)
                        }
                        if positionIndex != nil {
                            // Results and ratings count now in a save; an import's tree reads them at its end.
                            let incremental = positionIndex!.incremental
                            try positionIndex!.add(
                                gameID: gameID, moves: game.moves2, fen: game.fen, final: game.finalMaterial,
                                hashes: game.positionHashes, signature: game.signature,
                                outcome: incremental ? GameOutcome(result: game.result) : .unknown,
                                rating: incremental
                                    ? PositionIndex.rating(white: game.whiteElo, black: game.blackElo) : nil, db)
                            deferredPositionTree?.imported?.add(
                                id: gameID, outcome: GameOutcome(result: game.result),
                                rating: PositionIndex.rating(white: game.whiteElo, black: game.blackElo))
                        }
                        report.stored += 1
                        if keepIDs { report.storedIDs.append(gameID) }
                        if !game.changes.isEmpty {
                            report.changed.append(
                                ChangedGame(
                                    index: game.index + indexOffsets[piece], changes: game.changes,
                                    incomplete: game.incomplete))
                        }
                        counts.games += 1

                        if writesComments {
                            var next = 0
                            let rows = game.commentRows
                            try game.moves.withUnsafeBufferPointer { moves in
                                try game.commentBytes.withUnsafeBufferPointer { extra in
                                    while next < rows.count {
                                        let count = min(commentsPerStatement, rows.count - next)
                                        let statement = try insertCommentsStatement(count)
                                        for k in 0..<count {
                                            let row = rows[next + k]
                                            let column = Int32(3 * k)
                                            statement.bind(column + 1, gameID)
                                            statement.bind(column + 2, row.ply)
                                            statement.bindText(
                                                column + 3, borrowing: row.text(moves: moves, extra: extra))
                                        }
                                        defer { statement.reset() }
                                        try statement.step()
                                        next += count
                                    }
                                }
                            }
                            counts.comments += rows.count
                        }
                        // A player's Elo is the highest rating seen in their games.
                        raise(whitePlayer, game.white, to: game.whiteElo)
                        raise(blackPlayer, game.black, to: game.blackElo)
                    }
                }
            }
        }

        if !bestElo.isEmpty {
            let updateElo = try PreparedStatement(
                db, "UPDATE Players SET Elo = ?2 WHERE ID = ?1 AND (Elo IS NULL OR Elo < ?2)")
            for (player, elo) in bestElo {
                updateElo.bind(1, player)
                updateElo.bind(2, elo)
                try updateElo.step()
                updateElo.reset()
            }
        }
        if let positionIndex { try finishPositionIndexWrite(db, positionIndex) }
        try writeCounts(db, counts)
        self.counts = counts
        progress?(total, total)
        return report
    }

    /// Drops what this connection remembers when another program changed the file since.
    func refreshCaches(_ db: Database) throws {
        let putAside = storedGameHashesPutAside
        storedGameHashesPutAside = nil
        let version = try Int64.fetchOne(db, sql: "PRAGMA data_version")
        if version == dataVersion && counts != nil {
            // The duplicate check's table, put aside at the end of the last import, is read
            // back; another program's write since makes it useless.
            if let putAside { storedGameHashes = try? GameHashTable(readingBack: putAside) }
            return
        }
        forgetNames()
        var counts = Counts()
        counts.games = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games") ?? 0
        counts.players = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Players") ?? 0
        counts.events = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Events") ?? 0
        counts.sites = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Sites") ?? 0
        if layout?.hasComments == true {
            counts.comments = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Comments") ?? 0
        }
        self.counts = counts
        try readNameFilters(db, counts)
        dataVersion = version
        // With no games in the file, every game it will hold is written here (until another
        // program writes: then this runs again, and the file has games).
        storedGameHashes = counts.games == 0 ? GameHashTable() : nil
    }

    /// Reads the names of the tables that hold few (a new file holds one each) into filters
    /// that tell the writer which names are new, sized for the names a large import adds
    /// (under 3 MB of filters in all). Tables with more names are read name by name as games need
    /// them: reading them all would cost a second import more than it saves.
    func readNameFilters(_ db: Database, _ counts: Counts) throws {
        func read(_ table: String, _ count: Int, names: Int) throws -> NameFilter? {
            guard count <= GameDatabase.namesCached else { return nil }
            var filter = NameFilter(names: names)
            // Names of other types never equal a name looked up or added as text.
            let cursor = try String.fetchCursor(db, sql: "SELECT Name FROM \(table) WHERE typeof(Name) = 'text'")
            while let name = try cursor.next() { filter.add(NameIDs.hash(name)) }
            return filter
        }
        playerIDs.filter = try read("Players", counts.players, names: 1_000_000)
        eventIDs.filter = try read("Events", counts.events, names: 250_000)
        siteIDs.filter = try read("Sites", counts.sites, names: 50_000)
    }

    /// Runs `body`, writes to `db`, with SQLite's temporary files in memory. The position
    /// index's triggers make each insert into `Games` keep a statement journal (the pages it
    /// changes, to undo it alone): in memory, a few pages, not a temporary file written for
    /// every game. Index builds sort in files again after.
    func withStatementJournalInMemory<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
        defer { try? db.execute(sql: "PRAGMA temp_store = DEFAULT") }
        return try body()
    }

    /// Forgets what this connection remembers of the file after a transaction that rolled
    /// back: the names it looked up or added (an ID it added is given to the next name
    /// added), the counts, and the duplicate check's table; the next write reads them again.
    func forgetAfterRollback() {
        forgetNames()
        counts = nil
        storedGameHashes = nil
        storedGameHashesPutAside = nil
    }

    /// Empties the caches of names looked up and of ratings stored.
    func forgetNames() {
        playerIDs.removeAll()
        eventIDs.removeAll()
        siteIDs.removeAll()
    }

    func writeCounts(_ db: Database, _ counts: Counts) throws {
        let upsert = try PreparedStatement(
            db, "INSERT INTO Info (Name, Value) VALUES (?, ?) ON CONFLICT (Name) DO UPDATE SET Value = excluded.Value")
        var rows = [
            ("GameCount", counts.games), ("PlayerCount", counts.players), ("EventCount", counts.events),
            ("SiteCount", counts.sites),
        ]
        if layout?.hasComments == true { rows.append(("CommentCount", counts.comments)) }
        for (name, value) in rows {
            upsert.bind(1, name)
            upsert.bind(2, String(value))
            try upsert.step()
            upsert.reset()
        }
    }

    /// En Croissant's position-search index (`<name>.ecsi`) describes the games as they were:
    /// it is never rebuilt by itself, so it goes after every change.
    func removeSearchIndex() {
        let url = URL(fileURLWithPath: path)
        let candidates = [
            url.deletingPathExtension().appendingPathExtension("ecsi"), url.appendingPathExtension("ecsi"),
        ]
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate.path) {
            try? FileManager.default.removeItem(at: candidate)
        }
    }
}
