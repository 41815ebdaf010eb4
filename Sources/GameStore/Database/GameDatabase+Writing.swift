import Dispatch
import Foundation
import GRDB
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

    /// Writes the games of `pieces` in the transaction under way (`GameRowWriter`, step by step).
    func writeInTransaction(
        _ db: Database, _ pieces: [[Result<EncodedGame, RefusedGame>]], _ indexOffsets: [Int],
        progress: ((Int, Int) -> Void)?, keepIDs: Bool = true
    ) throws -> StoreReport {
        let total = pieces.reduce(0) { $0 + $1.count }
        var done = 0
        var writer = try GameRowWriter(self, db)
        var report = StoreReport()
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
                        let identity = try writer.identity(of: game)
                        writer.gatherTexts(of: game)
                        if try writer.isStored(game, identity) {
                            report.duplicates += 1
                            continue
                        }
                        let gameID = try writer.insertRow(of: game, identity)
                        try writer.addToPositionIndex(game, gameID)
                        try writer.insertCommentRows(of: game, gameID)
                        writer.raiseRatings(of: game, identity)
                        report.stored += 1
                        if keepIDs { report.storedIDs.append(gameID) }
                        if !game.changes.isEmpty {
                            report.changed.append(
                                ChangedGame(
                                    index: game.index + indexOffsets[piece], changes: game.changes,
                                    incomplete: game.incomplete))
                        }
                    }
                }
            }
        }
        try writer.finish()
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
