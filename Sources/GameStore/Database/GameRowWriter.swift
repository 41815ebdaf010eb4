import GRDB

/// Writes the games of one transaction, each in the steps `GameDatabase.writeInTransaction`
/// calls in order: the IDs of its names, the texts it binds, the duplicate check, its row in
/// `Games`, its part of the position index, its comment rows, its players' ratings; then
/// `finish` once. The statements are prepared once for the transaction.
struct GameRowWriter {
    let database: GameDatabase
    let db: Database
    let layout: GameDatabase.WriteLayout
    /// The rows of each table, with the games written so far.
    var counts: GameDatabase.Counts
    /// Kept up to date game by game while it describes the games; one that does not is built
    /// again as a whole (`buildPositionIndex`).
    var positionIndex: PositionIndexWriter?

    let players: NameTable
    let events: NameTable
    let sites: NameTable
    let findDuplicate: PreparedStatement
    /// `findDuplicate`'s comparison with one row that the hashes name.
    let sameGame: PreparedStatement
    let insertGame: PreparedStatement
    let writesComments: Bool
    /// The statements that insert comment rows, by their number of rows.
    var insertComments: [Int: PreparedStatement] = [:]
    /// The game's texts, bound where they are while each statement runs.
    var texts = BorrowedTexts()
    /// The players' ratings to raise at the end of the transaction (as their entries say).
    var bestElo: [Int64: Int] = [:]

    /// Comment rows go in many at a time: one statement per row would cost more than the row.
    static let commentsPerStatement = 64

    /// The slots of the game's texts in `texts`.
    enum TextSlot {
        static let date = 0
        static let utcTime = 1
        static let round = 2
        static let result = 3
        static let timeControl = 4
        static let eco = 5
        static let fen = 6
    }

    /// What tells a game apart besides its texts and moves: the IDs of its names, and while the
    /// hashes of the stored games can answer the duplicate check, its hash.
    struct Identity {
        var white: NameIDs.Entry
        var black: NameIDs.Entry
        var event: Int64
        var site: Int64
        var hash: Int?
    }

    /// Readies a transaction's writes: the file's layout checked, the position index's writer
    /// made, what the connection remembers of the file read again when another program wrote
    /// since, and the statements prepared.
    init(_ database: GameDatabase, _ db: Database) throws {
        self.database = database
        self.db = db
        let layout = try database.layout ?? database.checkWritable(db)
        database.layout = layout
        self.layout = layout
        // Asked before anything is written.
        positionIndex = try database.positionIndexWriter(db)
        try database.refreshCaches(db)
        try database.buildIdentityIndexIfNeeded(db)
        counts = database.counts!

        players = try NameTable(db, "Players", rated: true)
        events = try NameTable(db, "Events")
        sites = try NameTable(db, "Sites")
        findDuplicate = try PreparedStatement(
            db,
            """
            SELECT 1 FROM Games WHERE WhiteID = ?1 AND BlackID = ?2 AND EventID = ?3 AND SiteID = ?4 \
            AND Date IS ?5 AND UTCTime IS ?6 AND Round IS ?7 AND Moves = ?8 AND Result IS ?10 AND FEN IS ?11 LIMIT 1
            """)
        sameGame = try PreparedStatement(
            db,
            """
            SELECT 1 FROM Games WHERE ID = ?9 AND WhiteID = ?1 AND BlackID = ?2 AND EventID = ?3 AND SiteID = ?4 \
            AND Date IS ?5 AND UTCTime IS ?6 AND Round IS ?7 AND Moves = ?8 AND Result IS ?10 AND FEN IS ?11
            """)
        let moves2Column = (layout.hasMoves2 ? ", Moves2" : "") + (layout.hasTags ? ", Tags" : "")
        let moves2Value = (layout.hasMoves2 ? ", ?19" : "") + (layout.hasTags ? ", ?20" : "")
        insertGame = try PreparedStatement(
            db,
            """
            INSERT INTO Games (EventID, SiteID, Date, UTCTime, Round, WhiteID, WhiteElo, BlackID, BlackElo, \
            WhiteMaterial, BlackMaterial, Result, TimeControl, ECO, PlyCount, FEN, Moves, PawnHome\(moves2Column)) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18\(moves2Value))
            """)
        writesComments = database.options.commentRows && layout.hasComments
    }

    /// The IDs of the game's players, event and site, each added to its table when new, and
    /// its hash for the duplicate check.
    mutating func identity(of game: EncodedGame) throws -> Identity {
        let white = try players.id(
            game.white, elo: game.whiteElo, cache: &database.playerIDs, added: &counts.players, in: database, db)
        let black = try players.id(
            game.black, elo: game.blackElo, cache: &database.playerIDs, added: &counts.players, in: database, db)
        let event = try events.id(game.event, cache: &database.eventIDs, added: &counts.events, in: database, db).id
        let site = try sites.id(game.site, cache: &database.siteIDs, added: &counts.sites, in: database, db).id

        // Hashed only while the hashes can answer: the names' IDs and the game's `contentHash`
        // (the mainline and the length of the whole tell games apart well enough, the query
        // decides; hashing every comment would cost more).
        var hash: Int?
        if database.storedGameHashes != nil {
            var identity = Hasher()
            identity.combine(white.id)
            identity.combine(black.id)
            identity.combine(event)
            identity.combine(site)
            identity.combine(game.contentHash)
            hash = identity.finalize()
        }
        return Identity(white: white, black: black, event: event, site: site, hash: hash)
    }

    /// Gathers the game's texts into `texts`, for the duplicate check and the game's row.
    mutating func gatherTexts(of game: EncodedGame) {
        texts.removeAll()
        texts.set(TextSlot.date, game.date)
        texts.set(TextSlot.utcTime, game.utcTime)
        texts.set(TextSlot.round, game.round)
        texts.set(TextSlot.result, game.result)
        texts.set(TextSlot.timeControl, game.timeControl)
        texts.set(TextSlot.eco, game.eco)
        texts.set(TextSlot.fen, game.fen)
    }

    /// Whether the file holds the game already: the same players, event, site, date, time,
    /// round, result, start position and moves.
    func isStored(_ game: EncodedGame, _ identity: Identity) throws -> Bool {
        try texts.withBinder { binder in
            try game.moves.withUnsafeBytes { moves in
                if let hash = identity.hash, let hashes = database.storedGameHashes {
                    // Only the rows whose hash matches are compared, by their ID.
                    return try hashes.contains(hash) { row in
                        bindIdentity(sameGame, identity, binder)
                        sameGame.bind(9, row)
                        sameGame.bindBlob(8, borrowing: moves)
                        defer { sameGame.reset() }
                        return try sameGame.step()
                    }
                }
                bindIdentity(findDuplicate, identity, binder)
                findDuplicate.bindBlob(8, borrowing: moves)
                defer { findDuplicate.reset() }
                return try findDuplicate.step()
            }
        }
    }

    /// Binds what the duplicate check compares but the moves and the row.
    private func bindIdentity(_ statement: PreparedStatement, _ identity: Identity, _ binder: BorrowedTexts.Binder) {
        statement.bind(1, identity.white.id)
        statement.bind(2, identity.black.id)
        statement.bind(3, identity.event)
        statement.bind(4, identity.site)
        binder.bind(statement, 5, slot: TextSlot.date)
        binder.bind(statement, 6, slot: TextSlot.utcTime)
        binder.bind(statement, 7, slot: TextSlot.round)
        binder.bind(statement, 10, slot: TextSlot.result)
        binder.bind(statement, 11, slot: TextSlot.fen)
    }

    /// Inserts the game's row in `Games`, and its hash in the duplicate check's table; returns
    /// the row's ID.
    mutating func insertRow(of game: EncodedGame, _ identity: Identity) throws -> Int64 {
        try bindAndInsertRow(of: game, identity)
        let gameID = db.lastInsertedRowID
        counts.games += 1
        if let hash = identity.hash, database.storedGameHashes?.insert(hash, rowID: gameID) == false {
            // A row ID too large for the table: from now on the query decides.
            database.storedGameHashes = nil
            try database.buildIdentityIndexIfNeeded(db)
        }
        return gameID
    }

    private func bindAndInsertRow(of game: EncodedGame, _ identity: Identity) throws {
        insertGame.bind(1, identity.event)
        insertGame.bind(2, identity.site)
        insertGame.bind(6, identity.white.id)
        insertGame.bind(7, game.whiteElo)
        insertGame.bind(8, identity.black.id)
        insertGame.bind(9, game.blackElo)
        insertGame.bind(10, game.whiteMaterial)
        insertGame.bind(11, game.blackMaterial)
        insertGame.bind(15, game.plyCount)
        insertGame.bind(18, game.pawnHome)
        try texts.withBinder { binder in
            binder.bind(insertGame, 3, slot: TextSlot.date)
            binder.bind(insertGame, 4, slot: TextSlot.utcTime)
            binder.bind(insertGame, 5, slot: TextSlot.round)
            binder.bind(insertGame, 12, slot: TextSlot.result)
            binder.bind(insertGame, 13, slot: TextSlot.timeControl)
            binder.bind(insertGame, 14, slot: TextSlot.eco)
            binder.bind(insertGame, 16, slot: TextSlot.fen)
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
    }

    /// Adds the game to the position index, when the file has one that is up to date.
    mutating func addToPositionIndex(_ game: EncodedGame, _ gameID: Int64) throws {
        guard positionIndex != nil else { return }
        // Results and ratings count now in a save; an import's tree reads them at its end.
        let incremental = positionIndex!.incremental
        try positionIndex!.add(
            gameID: gameID, moves: game.moves2, fen: game.fen, final: game.finalMaterial,
            hashes: game.positionHashes, signature: game.signature,
            outcome: incremental ? GameOutcome(result: game.result) : .unknown,
            rating: incremental ? PositionIndex.rating(white: game.whiteElo, black: game.blackElo) : nil, db)
        database.deferredPositionTree?.imported?.add(
            id: gameID, outcome: GameOutcome(result: game.result),
            rating: PositionIndex.rating(white: game.whiteElo, black: game.blackElo))
    }

    /// Inserts the rows of the game's mainline comments in `Comments`, when the file has the
    /// table and the write stores them.
    mutating func insertCommentRows(of game: EncodedGame, _ gameID: Int64) throws {
        guard writesComments else { return }
        var next = 0
        let rows = game.commentRows
        try game.moves.withUnsafeBufferPointer { moves in
            try game.commentBytes.withUnsafeBufferPointer { extra in
                while next < rows.count {
                    let count = min(GameRowWriter.commentsPerStatement, rows.count - next)
                    let statement = try insertCommentsStatement(count)
                    for k in 0..<count {
                        let row = rows[next + k]
                        let column = Int32(3 * k)
                        statement.bind(column + 1, gameID)
                        statement.bind(column + 2, row.ply)
                        statement.bindText(column + 3, borrowing: row.text(moves: moves, extra: extra))
                    }
                    defer { statement.reset() }
                    try statement.step()
                    next += count
                }
            }
        }
        counts.comments += rows.count
    }

    /// The statement that inserts `count` comment rows.
    private mutating func insertCommentsStatement(_ count: Int) throws -> PreparedStatement {
        if let statement = insertComments[count] { return statement }
        let values = Array(repeating: "(?, ?, ?)", count: count).joined(separator: ", ")
        let statement = try PreparedStatement(db, "INSERT INTO Comments (GameID, Ply, Comment) VALUES \(values)")
        insertComments[count] = statement
        return statement
    }

    /// Notes the game's ratings: a player's Elo is the highest rating seen in their games.
    mutating func raiseRatings(of game: EncodedGame, _ identity: Identity) {
        raise(identity.white, game.white, to: game.whiteElo)
        raise(identity.black, game.black, to: game.blackElo)
    }

    private mutating func raise(_ player: NameIDs.Entry, _ name: String?, to elo: Int?) {
        guard let elo, let name, player.id != 0, player.elo < elo else { return }
        bestElo[player.id] = max(bestElo[player.id] ?? elo, elo)
        database.playerIDs.raise(name, to: elo)
    }

    /// Ends the transaction's writes: the players' ratings raised, the position index's part
    /// done, the counts written.
    func finish() throws {
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
        if let positionIndex { try database.finishPositionIndexWrite(db, positionIndex) }
        try database.writeCounts(db, counts)
        database.counts = counts
    }

    /// The statements that find and add the names of one table (`Players`, `Events` or `Sites`).
    struct NameTable {
        let insert: PreparedStatement
        let select: PreparedStatement
        /// Whether a new name gets a rating (`Players`).
        let rated: Bool

        init(_ db: Database, _ table: String, rated: Bool = false) throws {
            self.rated = rated
            insert = try PreparedStatement(
                db,
                rated
                    ? "INSERT OR IGNORE INTO \(table) (Name, Elo) VALUES (?, ?)"
                    : "INSERT OR IGNORE INTO \(table) (Name) VALUES (?)")
            select = try PreparedStatement(db, "SELECT ID FROM \(table) WHERE Name = ?")
        }

        /// The ID of `name` (0 for none), and for a player the Elo known to be stored.
        func id(
            _ name: String?, elo: Int? = nil, cache: inout NameIDs, added: inout Int, in database: GameDatabase,
            _ db: Database
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
                    if rated { insert.bind(2, elo) }
                    defer { insert.reset() }
                    try insert.step()
                }
                guard db.changesCount > 0 else {
                    throw GameStoreError.sqlite(path: database.path, message: "could not find or add \"\(name)\"")
                }
                entry.id = db.lastInsertedRowID
                added += 1
                if rated, let elo { entry.elo = elo }
                cache.filter?.add(hash)
            }
            cache.insert(entry, for: name, hash: hash)
            return entry
        }
    }
}
