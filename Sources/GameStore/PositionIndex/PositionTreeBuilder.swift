import Foundation
import GRDB

/// Builds `PositionTree` and `PositionSingles` from `PositionMoves` and the games' results and
/// ratings, in memory bounded whatever the number of games.
///
/// One replay of the games' first plies writes each position a game reaches (its key, the next
/// position's, the game's rank and outcome) to one of several scratch files by range of keys (`OccurrenceSpill`);
/// then each file in turn, in key order, is read and sorted by key: a key of two games or more
/// gets its rows, written in the table's order, and every key goes into the filter's blocks of
/// that range. A range of keys is a range of the filter's blocks: one range's blocks are in
/// memory at a time. More ranges than `partsPerReplay` take one replay per group of ranges.
enum PositionTreeBuilder {
    /// Occurrences of positions in a range of keys, on average (16 bytes each in memory, and as
    /// much again to sort them).
    nonisolated(unsafe) static var occurrencesPerPart = 1 << 19
    /// A range with more than this many (popular positions fell in it) is added up in a table
    /// of its rows instead of sorted: the sort's two buffers stay within 48 MB, which a range
    /// holding the start position (every game) or 1. e4 would pass at a few million games.
    nonisolated(unsafe) static var occurrencesSortedAtMost = 3 << 19
    /// Ranges whose scratch files are written in one replay.
    nonisolated(unsafe) static var partsPerReplay = 256

    /// Replaces the tree's rows and the filter; `db` is in a transaction. With `imported` (the
    /// results an import into a file without games kept, when they are all the file's games),
    /// the games are ranked from them instead of from `Games`. Returns whether they were.
    @discardableResult
    static func rebuild(_ db: Database, imported: ImportedResults? = nil) throws -> Bool {
        try db.execute(sql: "DELETE FROM PositionTree")
        let games = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM PositionMoves") ?? 0
        if games == 0 { return false }
        // Kept results that cannot be read back are read from the table.
        let kept = try imported.flatMap { try $0.describes(db, count: games) ? try? $0.takeResults() : nil }
        let ranks = try (kept ?? GameResults(db, games: games)).ranked()
        let plies = PositionIndex.treeDepth + 1
        let blocks = SinglesFilter.blocks(forKeys: games * plies)
        let parts = max(1, min(blocks, (games * plies + occurrencesPerPart - 1) / occurrencesPerPart))
        let insert = try PreparedStatement(
            db,
            """
            INSERT INTO PositionTree (Position, Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let sorter = OccurrenceSorter()
        var first = 0
        while first < parts {
            let last = min(parts, first + partsPerReplay)
            let spill = try OccurrenceSpill(files: last - first, near: db)
            // Replayed here, written to the files beside.
            let statement = try PreparedStatement(db, "SELECT GameID, Moves, FEN FROM PositionMoves ORDER BY GameID")
            let reader = PositionMovesReader()
            // A statement stepped again after its last row starts over.
            var read = false
            try TwoStages.run(
                (KeyChunk(), KeyChunk()), fillAside: false,
                fill: { chunk in
                    guard !read else { return false }
                    read = try !chunk.fill(statement, reader, ranks)
                    return chunk.games > 0
                },
                use: { chunk in
                    for game in 0..<chunk.games {
                        let payload = chunk.payloads[game]
                        try forEachTreeKey(chunk.keys(of: game), chunk.counts[game]) { _, key, next in
                            let part = SinglesFilter.block(of: key, blocks: blocks) * parts / blocks
                            guard part >= first && part < last else { return }
                            try spill.append(Occurrence(key: key, next: next, game: payload), to: part - first)
                        }
                    }
                })
            try spill.finish()
            // Sorted and added up beside, written here.
            var next = first
            let rows = TreeRows(ranks: ranks)
            try TwoStages.run(
                (TreePart(), TreePart()), fillAside: true,
                fill: { done in
                    guard next < last else { return false }
                    let part = next
                    next += 1
                    let range = ((part * blocks + parts - 1) / parts)..<(((part + 1) * blocks + parts - 1) / parts)
                    done.filter = SinglesFilterPart(blocks: blocks, range: range)
                    done.rows.removeAll(keepingCapacity: true)
                    if spill.count(part - first) <= occurrencesSortedAtMost {
                        rows.add(sorted: try sorter.read(spill, part - first), to: &done.rows, filter: done.filter!)
                    } else {
                        try rows.add(summing: spill, part - first, to: &done.rows, filter: done.filter!)
                    }
                    return true
                },
                use: { done in
                    for row in done.rows { try row.write(with: insert) }
                    try done.filter?.write(db)
                    done.filter = nil
                })
            first = last
        }
        return kept != nil
    }

    /// Up to `gamesPerChunk` games' keys, read from `PositionMoves`.
    final class KeyChunk {
        static let gamesPerChunk = 4096
        static let limit = PositionIndex.treeDepth + 2
        private let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: gamesPerChunk * limit)
        var counts = [Int](repeating: 0, count: gamesPerChunk)
        var payloads = [UInt32](repeating: 0, count: gamesPerChunk)
        var ids = [Int64](repeating: 0, count: gamesPerChunk)
        var games = 0

        deinit { storage.deallocate() }

        func keys(of game: Int) -> UnsafePointer<UInt64> { UnsafePointer(storage + game * KeyChunk.limit) }

        /// The next games of the statement; returns false when it has no rows left.
        func fill(_ statement: PreparedStatement, _ reader: PositionMovesReader, _ ranks: GameRanks) throws -> Bool {
            try fill(statement, reader, step: { try statement.step() }, payload: { ranks.payloads[$0] })
        }

        /// The next games of the rows `step` moves `statement` to (false: no rows left), those
        /// `payload` gives a value; returns false when `step` has no rows left.
        func fill(
            _ statement: PreparedStatement, _ reader: PositionMovesReader, step: () throws -> Bool,
            payload: (Int64) -> UInt32?
        ) throws -> Bool {
            games = 0
            while games < KeyChunk.gamesPerChunk {
                guard try step() else { return false }
                let id = statement.int64(column: 0)
                guard let value = payload(id), reader.start(statement.handle, fenColumn: 2) else { continue }
                counts[games] = reader.keys(
                    statement.handle, movesColumn: 1, into: storage + games * KeyChunk.limit, limit: KeyChunk.limit)
                payloads[games] = value
                ids[games] = id
                games += 1
            }
            return true
        }
    }

    /// A range of keys' rows and filter blocks, made ready to write.
    final class TreePart {
        var rows: [TreeRow] = []
        var filter: SinglesFilterPart?
    }

    /// Writes summed rows (new ones) in key order.
    static func write(_ sums: OpeningTreeBatch, with insert: PreparedStatement) throws {
        for row in sums.sorted() { try TreeRow(row).write(with: insert) }
    }

    /// Calls `body` with each key of the tree's plies among a game's first keys, a position
    /// the game reaches again counted once (with the move played the first time), with its ply
    /// and the next position's key (`OpeningTreeBatch.ended` after the last). `keys` holds
    /// `count` keys: the game's positions from its start, up to `treeDepth` + 2 of them.
    @inline(__always)
    static func forEachTreeKey(
        _ keys: UnsafePointer<UInt64>, _ count: Int, _ body: (_ ply: Int, _ key: UInt64, _ next: UInt64) throws -> Void
    ) rethrows {
        let last = min(PositionIndex.treeDepth, count - 1)
        guard last >= 0 else { return }
        for ply in 0...last {
            let key = keys[ply]
            let next = ply + 1 < count ? keys[ply + 1] : OpeningTreeBatch.ended
            // A position comes back only with the same side to move, at least 4 plies later.
            var earlier = ply - 4
            var repeated = false
            while earlier >= 0 {
                if keys[earlier] == key {
                    repeated = true
                    break
                }
                earlier -= 2
            }
            if !repeated { try body(ply, key, next) }
        }
    }

    /// Replays every row of `PositionMoves` in ID order, through the connection of `db`, and
    /// calls `body` with the keys of each game's first `treeDepth` + 2 positions.
    static func forEachGame(
        _ db: Database, _ body: (_ id: Int64, _ keys: UnsafePointer<UInt64>, _ count: Int) throws -> Void
    ) throws {
        let statement = try PreparedStatement(db, "SELECT GameID, Moves, FEN FROM PositionMoves ORDER BY GameID")
        let reader = PositionMovesReader()
        let limit = PositionIndex.treeDepth + 2
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: limit)
        defer { keys.deallocate() }
        while try statement.step() {
            guard reader.start(statement.handle, fenColumn: 2) else { continue }
            let count = reader.keys(statement.handle, movesColumn: 1, into: keys, limit: limit)
            try body(statement.int64(column: 0), keys, count)
        }
    }
}

/// A number for each game ID, in an array when the IDs are dense, else in a dictionary.
struct GameTable {
    private var dense: [UInt32] = []
    private var first: Int64 = 0
    private var sparse: [Int64: UInt32] = [:]

    /// For the IDs from `low` to `high` of `count` games.
    init(low: Int64, high: Int64, count: Int) {
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if high >= low && !overflow && span < Int64(min(count, 1 << 40)) * 4 + 1_000_000 {
            first = low
            dense = Array(repeating: 0, count: Int(span + 1))
        }
    }

    subscript(id: Int64) -> UInt32 {
        get {
            if let index = denseIndex(id) { return dense[index] }
            return sparse[id] ?? 0
        }
        set {
            if let index = denseIndex(id) {
                dense[index] = newValue
            } else {
                sparse[id] = newValue
            }
        }
    }

    /// The place of `id` in `dense`, if it has one (any two IDs apart, without overflow).
    @inline(__always) private func denseIndex(_ id: Int64) -> Int? {
        guard !dense.isEmpty, id >= first else { return nil }
        let offset = UInt64(bitPattern: id &- first)
        return offset < UInt64(dense.count) ? Int(offset) : nil
    }

    /// Calls `body` with each ID set and its number, in the order of IDs when they are dense.
    func forEach(_ body: (Int64, UInt32) -> Void) {
        if dense.isEmpty {
            for (id, value) in sparse { body(id, value) }
        } else {
            for index in dense.indices { body(first + Int64(index), dense[index]) }
        }
    }
}

/// Each game's outcome and rating, by ID, read once.
struct GameResults {
    private var table: GameTable

    /// `games`: about how many games the file has, when known (counting them reads the whole
    /// table; the lowest and highest IDs are read from its ends).
    init(_ db: Database, games: Int? = nil) throws {
        let bounds = try Row.fetchOne(
            db, sql: "SELECT MIN(ID), MAX(ID)\(games == nil ? ", COUNT(*)" : "") FROM Games")
        table = GameTable(low: bounds?[0] ?? 0, high: bounds?[1] ?? -1, count: games ?? bounds?[2] ?? 0)
        let statement = try PreparedStatement(db, "SELECT ID, Result, WhiteElo, BlackElo FROM Games")
        while try statement.step() {
            let rating = PositionIndex.rating(
                white: statement.integer(column: 2), black: statement.integer(column: 3))
            table[statement.int64(column: 0)] = GameResults.pack(
                GameOutcome(result: statement.text(column: 1)), rating)
        }
    }

    /// From results gathered otherwise (`ImportedResults`).
    init(table: GameTable) { self.table = table }

    static func pack(_ outcome: GameOutcome, _ rating: Int?) -> UInt32 {
        outcome.code | UInt32(max(0, min(100_000, (rating ?? -1) + 1))) << 2
    }

    /// The outcome and rating (-1 without) of a `pack`ed value.
    @inline(__always) static func unpack(_ packed: UInt32) -> (GameOutcome, Int32) {
        (GameOutcome(code: packed), Int32(packed >> 2) - 1)
    }

    subscript(id: Int64) -> (GameOutcome, Int32) { GameResults.unpack(table[id]) }

    /// The games ranked as the tree chooses its best game: the best-rated first, then by ID.
    func ranked() throws -> GameRanks {
        var low = Int64.max
        var high = Int64.min
        var count = 0
        table.forEach { id, _ in
            low = min(low, id)
            high = max(high, id)
            count += 1
        }
        guard count < 1 << 30 else {
            throw GameStoreError.notAGameDatabase(path: "", reason: "more than \((1 << 30) - 1) games")
        }
        // A game's number: its ID − `low`, or, for IDs too far apart, its place among them.
        var spread: [Int64] = []
        if count > 0 && UInt64(bitPattern: high &- low) >= GameRanks.numberMask {
            table.forEach { id, _ in spread.append(id) }
            spread.sort()
        }
        func key(_ packed: UInt32) -> UInt64 { UInt64(100_001 - packed >> 2) << 40 }
        var byRank: [UInt64] = []
        byRank.reserveCapacity(count)
        if spread.isEmpty {
            table.forEach { id, packed in byRank.append(key(packed) | UInt64(id - low)) }
        } else {
            for (place, id) in spread.enumerated() { byRank.append(key(table[id]) | UInt64(place)) }
        }
        byRank.sort()
        var ranks = GameRanks(byRank: byRank, low: low, spread: spread, payloads: table)
        for (rank, key) in byRank.enumerated() {
            let id = ranks.id(ofNumber: key & GameRanks.numberMask)
            ranks.payloads[id] = UInt32(rank) | GameOutcome(code: table[id]).code << 30
        }
        return ranks
    }
}

/// Games ranked for the tree's best game (`GameResults.ranked`): a row's best game is the one
/// of the lowest rank among its games. 12 bytes a game.
struct GameRanks {
    /// By rank: 100,001 − (the rating + 1, 0 without) in the high bits, the game's number in
    /// the low 40.
    private let byRank: [UInt64]
    private let low: Int64
    /// The IDs in order, when they are too far apart to be numbered from `low`.
    private let spread: [Int64]
    /// By ID: the rank, and the outcome's code in the two high bits.
    fileprivate(set) var payloads: GameTable

    static let rankMask: UInt32 = (1 << 30) - 1
    static let numberMask: UInt64 = (1 << 40) - 1

    fileprivate init(byRank: [UInt64], low: Int64, spread: [Int64], payloads: GameTable) {
        self.byRank = byRank
        self.low = low
        self.spread = spread
        self.payloads = payloads
    }

    /// Games `ids` (by rank) and their ratings (-1 without), and `payloads` by ID.
    init(ids: [Int64], elos: [Int32], payloads: GameTable) {
        let low = ids.min() ?? 0
        self.low = low
        spread = []
        byRank = zip(ids, elos).map { UInt64(100_000 - Int($0.1)) << 40 | UInt64($0.0 - low) }
        self.payloads = payloads
    }

    fileprivate func id(ofNumber number: UInt64) -> Int64 {
        spread.isEmpty ? low + Int64(number) : spread[Int(number)]
    }

    @inline(__always) func id(_ rank: Int) -> Int64 { id(ofNumber: byRank[rank] & GameRanks.numberMask) }
    @inline(__always) func elo(_ rank: Int) -> Int32 { Int32(100_000 - Int(byRank[rank] >> 40)) }
}

/// A fixed number of bits.
final class BitSet {
    private let table: LargeTable
    private let words: UnsafeMutablePointer<UInt64>

    init(count: Int) {
        let wordCount = (count + 63) / 64
        table = LargeTable(bytes: wordCount * 8)
        words = table.base.bindMemory(to: UInt64.self, capacity: wordCount)
    }

    @inline(__always) func contains(_ bit: Int) -> Bool { words[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    @inline(__always) func insert(_ bit: Int) { words[bit >> 6] |= 1 << UInt64(bit & 63) }

}

/// For each key: the first game seen at it (its continuation, outcome and rating), and whether
/// another game was seen there since. 32 bytes an entry, in one block of memory.
final class FirstSightings {
    struct Entry {
        /// The key + 1 (0 marks a free slot).
        var stored: UInt64
        var game: Int64
        var next: UInt64
        /// Bits 0–1: the outcome; bit 2: shared; bits 3…: the rating + 1.
        var packed: UInt32

        var key: UInt64 { stored &- 1 }
        var shared: Bool { packed & 4 != 0 }
        var outcome: GameOutcome { GameOutcome(code: packed) }
        var elo: Int32 { Int32(packed >> 3) - 1 }
    }

    // One builder's, on one thread: no run-time checks of exclusive access.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var mask: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size * 3 < capacity * 4 { size <<= 1 }
        mask = size - 1
        entries = FirstSightings.allocate(size)
    }

    deinit { entries.deallocate() }

    private static func allocate(_ size: Int) -> UnsafeMutablePointer<Entry> {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: size)
        entries.initialize(repeating: Entry(stored: 0, game: 0, next: 0, packed: 0), count: size)
        return entries
    }

    @inline(__always) private func slot(_ key: UInt64) -> Int {
        var index = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
        while entries[index].stored != 0 && entries[index].stored != key &+ 1 { index = (index + 1) & mask }
        return index
    }

    /// Notes a game at `key`, and adds to `sums` the rows that are due: this game's when
    /// another was seen there before, and the first game's too the first time.
    @inline(__always)
    func sight(
        _ key: UInt64, game: Int64, next: UInt64, outcome: GameOutcome, elo: Int32, into sums: OpeningTreeBatch
    ) {
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        let index = slot(key)
        let entry = entries[index]
        if entry.stored == 0 {
            entries[index] = Entry(
                stored: key &+ 1, game: game, next: next, packed: outcome.code | UInt32(max(0, Int(elo) + 1)) << 3)
            count += 1
            return
        }
        if !entry.shared {
            guard entry.game != game else { return }
            entries[index].packed |= 4
            sums.add(key, entry.next, outcome: entry.outcome, elo: entry.elo, gameID: entry.game)
        }
        sums.add(key, next, outcome: outcome, elo: elo, gameID: game)
    }

    /// Calls `body` with each key one game only was seen at.
    func forEachSingle(_ body: (UInt64) -> Void) {
        for index in 0...mask where entries[index].stored != 0 && !entries[index].shared { body(entries[index].key) }
    }

    private func grow() {
        let old = entries
        let oldSize = mask + 1
        mask = oldSize * 2 - 1
        entries = FirstSightings.allocate(oldSize * 2)
        for index in 0..<oldSize where old[index].stored != 0 { entries[slot(old[index].key)] = old[index] }
        old.deallocate()
    }
}
