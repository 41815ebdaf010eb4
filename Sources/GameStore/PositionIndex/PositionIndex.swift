import CStorageShims
import ChessCore
import Foundation
import GRDB

/// The position index: pgn-lsp's own tables in a game database, beside the format's, that
/// answer two questions about a position — which games reach it (at any ply of their
/// mainline), and what was played from it, how often, with what results (the opening tree,
/// over the first `treeDepth` plies). En Croissant and ocgdb read the format's tables by
/// name and never look at these.
///
/// A position is named by a 48-bit key, the high bits of its Zobrist hash (board, side to
/// move, castling rights, en-passant square when a capture is legal, as FEN equality has
/// them). Among the 25 million distinct positions of the first 40 plies of a million games,
/// another position shares a given key about once in 10 million searches.
///
/// - `PositionMoves`: one row per game, its mainline's moves as two-byte codes (`Moves2.code`,
///   the way ocgdb's `Moves2` has them), its starting FEN when it has one, and the material of
///   its last position (`ReplayMaterial.packed`). A search replays them on every core
///   (`MovesReplay`): not a game whose last position has more material than the position
///   searched, and not past the move where a game's material or pawns fell below it. The index's own copy, so that it does
///   not depend on which move columns a file has or on what other programs write in them.
/// - `PositionTree`: the positions of the first `treeDepth` plies that at least two games
///   reach, one row per position and what came next (the next position's key, -1 where games
///   ended), with the number of games, their results, and the best-rated of them. A position
///   one game reaches has no row (most of them: each game soon leaves the others' paths); the
///   explorer finds that game, if any, from the row of the position before (the one move that
///   left the others' paths), else by replaying `PositionMoves`.
/// - `PositionSingles`: a Bloom filter of the keys of the positions of the first `treeDepth`
///   plies, in blocks of 4 KB (16 bits a key). Asked only for positions without rows: a key
///   it does not hold is reached by no game (a novelty), answered without replaying the games.
/// - `PositionIndexState`: the version of the layout, and what tells whether the index still
///   describes the games (`GameDatabase.positionIndexStatus`): triggers on `Games` count every
///   insert, delete and change of moves, start position, result or ratings by any program
///   (`Changes`), and pgn-lsp sets `Indexed` to that count whenever it brought the index up to
///   date; triggers on the index's own tables count the changes other programs make to them
///   (`Edits`: pgn-lsp's own writes leave it at 0). `GameRows` and `LastGame` are the number
///   of games and the highest ID when pgn-lsp last wrote the index, and `Stamp` the file
///   change counter its last write left in the database header: while the header still holds
///   it, no program wrote the file since; when it does not, the count and the highest ID are
///   compared too, which notices games added or removed by a program that wrote with the
///   triggers turned off. An import writes the moves as it goes and the tree at its end:
///   meanwhile `Updater` holds a token of its own, which the file of its `ImportLock` holds
///   too while the import runs, and `Adding` the games it added.
public enum PositionIndex {
    /// The positions after 0 … `treeDepth` plies of each game are in the opening tree.
    public static let treeDepth = 40
    /// The layout's version: an index of another version is built again.
    static let version = 7
    /// `Next` of the tree rows of games that ended in the position.
    static let ended: Int64 = -1

    static let tables = [
        "PositionMoves", "PositionSignatures", "PositionTree", "PositionSingles", "PositionIndexState",
    ]
    static let triggers = ["PositionIndexGameAdded", "PositionIndexGameRemoved", "PositionIndexGameChanged"]

    static let schemaSQL = """
        CREATE TABLE PositionMoves (GameID INTEGER PRIMARY KEY, Moves BLOB NOT NULL, FEN TEXT, Final INTEGER NOT NULL);
        CREATE TABLE PositionSignatures (First INTEGER PRIMARY KEY, Entries BLOB NOT NULL);
        CREATE TABLE PositionTree (
            Position INTEGER NOT NULL,
            Next INTEGER NOT NULL,
            Games INTEGER NOT NULL,
            WhiteWins INTEGER NOT NULL,
            Draws INTEGER NOT NULL,
            BlackWins INTEGER NOT NULL,
            BestGame INTEGER,
            BestElo INTEGER,
            PRIMARY KEY (Position, Next)
        ) WITHOUT ROWID;
        CREATE TABLE PositionSingles (Block INTEGER PRIMARY KEY, Bits BLOB NOT NULL);
        CREATE TABLE PositionIndexState (
            Version INTEGER NOT NULL, Depth INTEGER NOT NULL, Changes INTEGER NOT NULL, Indexed INTEGER NOT NULL,
            Updater INTEGER NOT NULL DEFAULT 0, SingleBlocks INTEGER NOT NULL DEFAULT 0,
            Adding INTEGER NOT NULL DEFAULT 0, Edits INTEGER NOT NULL DEFAULT 0,
            GameRows INTEGER NOT NULL DEFAULT 0, LastGame INTEGER NOT NULL DEFAULT 0, Stamp INTEGER NOT NULL DEFAULT 0,
            Late BLOB);
        INSERT INTO PositionIndexState (Version, Depth, Changes, Indexed) VALUES (\(version), \(treeDepth), 0, 0);
        \(addedTriggerSQL)
        CREATE TRIGGER PositionIndexGameRemoved AFTER DELETE ON Games
            BEGIN UPDATE PositionIndexState SET Changes = Changes + 1; END;
        CREATE TRIGGER PositionIndexGameChanged
            AFTER UPDATE OF ID, Moves, Moves2, FEN, Result, WhiteElo, BlackElo ON Games
            BEGIN UPDATE PositionIndexState SET Changes = Changes + 1; END;
        \(editTriggers.map(\.sql).joined(separator: "\n"))
        """

    /// The trigger that counts games added. An import drops it in each of its transactions and
    /// counts its games itself (a trigger run per row costs it a sixth of its time); the
    /// transaction commits with the trigger made again.
    static let addedTriggerSQL = """
        CREATE TRIGGER PositionIndexGameAdded AFTER INSERT ON Games
            BEGIN UPDATE PositionIndexState SET Changes = Changes + 1; END;
        """

    /// The triggers that count the rows of the index's own tables that are added, removed or
    /// changed (`Edits`), by name. pgn-lsp's saves let them run and set `Edits` back to 0 in
    /// the same transaction; its imports and builds, which write rows by the million, drop
    /// those of the tables they write for the length of their transaction.
    static let editTriggers: [(name: String, sql: String)] = [
        ("PositionMoves", "Moves"), ("PositionSignatures", "Signatures"), ("PositionTree", "Tree"),
        ("PositionSingles", "Singles"),
    ].flatMap { table, short in
        [("Added", "INSERT"), ("Removed", "DELETE"), ("Changed", "UPDATE")].map { what, event in
            let name = "PositionIndex\(short)\(what)"
            return (
                name,
                "CREATE TRIGGER \(name) AFTER \(event) ON \(table) BEGIN UPDATE PositionIndexState SET Edits = Edits + 1; END;"
            )
        }
    }

    /// The edit triggers that count rows added to `PositionMoves` and `PositionSignatures`: an
    /// import drops them with `PositionIndexGameAdded`, in each of its transactions.
    static let movesAddedTriggers = editTriggers.filter {
        $0.name == "PositionIndexMovesAdded" || $0.name == "PositionIndexSignaturesAdded"
    }

    /// The edit triggers of these tables.
    static func editTriggers(of tables: [String]) -> [(name: String, sql: String)] {
        editTriggers.filter { trigger in
            tables.contains { trigger.sql.contains(" ON \($0) ") }
        }
    }

    /// Runs `body` (inside a transaction) with the edit triggers of `tables` dropped, and
    /// makes them again after it.
    static func withoutEditTriggers<T>(of tables: [String], _ db: Database, _ body: () throws -> T) throws -> T {
        let triggers = editTriggers(of: tables)
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER IF EXISTS \(trigger.name)") }
        let result = try body()
        for trigger in triggers { try db.execute(sql: trigger.sql) }
        return result
    }

    /// Tables of earlier layouts, dropped with the index.
    static let formerTables = ["PositionKeys"]

    static let dropSQL =
        (triggers + editTriggers.map(\.name)).map { "DROP TRIGGER IF EXISTS \($0);" }.joined(separator: "\n") + "\n"
        + (tables + formerTables).map { "DROP TABLE IF EXISTS \($0);" }.joined(separator: "\n")

    /// The key of a position.
    @inline(__always) public static func key(_ hash: UInt64) -> UInt64 { hash >> 16 }

    /// The highest rating the index ranks games by; a higher one counts as none.
    public static let largestElo = 99_999

    /// The rating that ranks a game: the mean of both ratings, or the one there is; nil without.
    static func rating(white: Int?, black: Int?) -> Int? {
        let ratings = [white, black].compactMap { $0 }.filter { $0 > 0 && $0 <= largestElo }
        guard !ratings.isEmpty else { return nil }
        return ratings.reduce(0, +) / ratings.count
    }
}

/// How a game ended, as the tree counts it.
public enum GameOutcome: Sendable, Equatable {
    case whiteWins, draw, blackWins, unknown

    /// 0–3, as the index packs it beside a rating.
    var code: UInt32 {
        switch self {
        case .unknown: return 0
        case .whiteWins: return 1
        case .draw: return 2
        case .blackWins: return 3
        }
    }

    init(code: UInt32) { self = [.unknown, .whiteWins, .draw, .blackWins][Int(code & 3)] }

    public init(result: String?) {
        switch result?.trimmingASCIISpaces {
        case "1-0": self = .whiteWins
        case "0-1": self = .blackWins
        case "1/2-1/2", "½-½": self = .draw
        default: self = .unknown
        }
    }
}

/// The counts of a row of the opening tree, as its builders add games to them.
protocol TreeRowCounts {
    var games: UInt32 { get set }
    var whiteWins: UInt32 { get set }
    var draws: UInt32 { get set }
    var blackWins: UInt32 { get set }
    var bestGame: Int64 { get set }
    /// -1 when no game of the row has a rating.
    var bestElo: Int32 { get set }
}

extension TreeRowCounts {
    /// Counts a game (its games and results; the best game is set apart).
    @inline(__always) mutating func count(_ outcome: GameOutcome) {
        games += 1
        switch outcome {
        case .whiteWins: whiteWins += 1
        case .draw: draws += 1
        case .blackWins: blackWins += 1
        case .unknown: break
        }
    }

    /// Counts a game with this outcome and rating (-1 without): the row's best game is the
    /// best-rated, else the first counted.
    @inline(__always) mutating func count(_ outcome: GameOutcome, elo: Int32, gameID: Int64) {
        count(outcome)
        if games == 1 || (elo >= 0 && elo > bestElo) {
            bestGame = gameID
            bestElo = elo
        }
    }

    /// Games, White's wins, draws and Black's wins, the best game and its rating, as the
    /// explorer reads a row.
    var explorerCounts: (counts: [Int], bestGame: Int64?, bestElo: Int?) {
        ([Int(games), Int(whiteWins), Int(draws), Int(blackWins)], bestGame, bestElo < 0 ? nil : Int(bestElo))
    }
}

/// Opening-tree rows added up in memory before they are written: an open-addressing table
/// keyed by (position key, next key; `OpeningTreeBatch.ended` where games ended), in one
/// block of memory.
final class OpeningTreeBatch {
    struct Slot: TreeRowCounts {
        var position: UInt64
        var next: UInt64
        /// 0 marks a free slot.
        var games: UInt32
        var whiteWins: UInt32
        var draws: UInt32
        var blackWins: UInt32
        var bestGame: Int64
        /// -1 when no game of the row has a rating.
        var bestElo: Int32
    }

    private(set) var count = 0
    private var mask: Int
    private var slots: UnsafeMutablePointer<Slot>

    init(capacity: Int = 1 << 12) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        mask = size - 1
        slots = OpeningTreeBatch.freeSlots(size)
    }

    private static func freeSlots(_ count: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: count)
        slots.initialize(
            repeating: Slot(
                position: 0, next: 0, games: 0, whiteWins: 0, draws: 0, blackWins: 0, bestGame: 0, bestElo: -1),
            count: count)
        return slots
    }

    deinit { slots.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// `next` of a row for the games that ended in the position.
    static let ended = UInt64.max

    @inline(__always)
    private static func home(_ position: UInt64, _ next: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (position ^ (next &* 0x9E37_79B9_7F4A_7C15)) >> 17) & mask
    }

    /// Counts a game that stood in `position` and went on to `next`.
    @inline(__always)
    func add(_ position: UInt64, _ next: UInt64, outcome: GameOutcome, elo: Int32, gameID: Int64) {
        if (count + 1) * 2 > mask + 1 { grow() }
        var index = OpeningTreeBatch.home(position, next, mask)
        while slots[index].games != 0 && (slots[index].position != position || slots[index].next != next) {
            index = (index + 1) & mask
        }
        let slot = slots + index
        if slot.pointee.games == 0 {
            slot.pointee.position = position
            slot.pointee.next = next
            count += 1
        }
        slot.pointee.count(outcome, elo: elo, gameID: gameID)
    }

    private func grow() {
        let oldSlots = slots
        let oldSize = mask + 1
        let size = oldSize * 2
        mask = size - 1
        slots = OpeningTreeBatch.freeSlots(size)
        for k in 0..<oldSize where oldSlots[k].games != 0 {
            var index = OpeningTreeBatch.home(oldSlots[k].position, oldSlots[k].next, mask)
            while slots[index].games != 0 { index = (index + 1) & mask }
            slots[index] = oldSlots[k]
        }
        oldSlots.deallocate()
    }

    /// The rows in the order of the table's key.
    func sorted() -> [Slot] {
        var rows: [Slot] = []
        rows.reserveCapacity(count)
        for k in 0...mask where slots[k].games != 0 { rows.append(slots[k]) }
        // Keys are below 2^48: as SQLite compares them, with `ended` (stored as -1) first.
        rows.sort {
            $0.position != $1.position ? $0.position < $1.position : $0.next &+ 1 < $1.next &+ 1
        }
        return rows
    }
}

extension PositionIndex {
    /// The position a search names: a FEN, or its first fields. Without a side to move, White
    /// moves; without castling rights, each side keeps those its king and rooks on their
    /// starting squares allow (a board typed from a diagram rarely says); the move counters
    /// play no part in a search.
    public static func position(query: String) throws(FENError) -> Position {
        let fields = query.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 1 || fields.count == 2 else { return try Position(fen: query) }
        let board = try Position(fen: fields.joined(separator: " "))
        func has(_ color: Color, _ role: Role, _ name: String) -> Bool {
            guard let square = Square(name) else { return false }
            return board.pieces(color, role).contains(square)
        }
        var rights = ""
        if has(.white, .king, "e1") {
            if has(.white, .rook, "h1") { rights += "K" }
            if has(.white, .rook, "a1") { rights += "Q" }
        }
        if has(.black, .king, "e8") {
            if has(.black, .rook, "h8") { rights += "k" }
            if has(.black, .rook, "a8") { rights += "q" }
        }
        let turn = fields.count == 2 ? fields[1] : "w"
        return try Position(fen: "\(fields[0]) \(turn) \(rights.isEmpty ? "-" : rights)")
    }
}

/// A Bloom filter of the positions of the tree's plies (`PositionSingles`), in blocks of 4 KB
/// (a row each), all of a key's bits in one 64-byte line of its block: one cache miss a key
/// while it is built.
struct SinglesFilter {
    static let blockBytes = 4096
    static let lineBytes = 64
    static let probes = 10
    /// About 16 bits per key: a key never added is taken for one about once in 1,000 (each such
    /// time the explorer replays every game, a quarter of a second at a million games).
    static func blocks(forKeys count: Int) -> Int { max(16, (count * 16 + blockBytes * 8 - 1) / (blockBytes * 8)) }

    /// The block of a key: by its high bits, so that keys in order fill blocks in order (the
    /// tree's builder makes the filter one range of keys at a time).
    @inline(__always) static func block(of key: UInt64, blocks: Int) -> Int {
        Int(truncatingIfNeeded: ((key >> 16) &* UInt64(blocks)) >> 32)
    }

    /// Calls `body` with the byte and bit of each of the key's probes in its block: all in
    /// the line the key's low bits choose, 9 bits of two products of the key each.
    @inline(__always) static func forEachBit(of key: UInt64, _ body: (Int, UInt8) -> Void) {
        let line = Int(truncatingIfNeeded: key & 63) * lineBytes
        let first = key &* 0x9E37_79B9_7F4A_7C15
        let second = key &* 0xBF58_476D_1CE4_E5B9
        for probe in 0..<probes {
            let bits = probe < 7 ? first >> UInt64(64 - 9 * (probe + 1)) : second >> UInt64(64 - 9 * (probe - 6))
            let bit = Int(truncatingIfNeeded: bits & 511)
            body(line + bit >> 3, 1 << UInt8(bit & 7))
        }
    }

    static func contains(_ key: UInt64, in block: UnsafeRawBufferPointer) -> Bool {
        guard block.count == blockBytes else { return false }
        var all = true
        forEachBit(of: key) { byte, mask in if block[byte] & mask == 0 { all = false } }
        return all
    }

    static func insert(_ key: UInt64, into block: UnsafeMutableRawBufferPointer) {
        forEachBit(of: key) { byte, mask in block[byte] |= mask }
    }

}

/// The blocks of a range of the filter, in memory while the tree's builder makes them.
final class SinglesFilterPart {
    let blocks: Int
    /// The blocks held: `range` of the whole filter.
    let range: Range<Int>
    private let table: LargeTable

    init(blocks: Int, range: Range<Int>? = nil) {
        self.blocks = blocks
        self.range = range ?? 0..<blocks
        table = LargeTable(bytes: self.range.count * SinglesFilter.blockBytes)
    }

    /// Adds a key of a block in `range`.
    @inline(__always)
    func insert(_ key: UInt64) {
        let block =
            table.base + (SinglesFilter.block(of: key, blocks: blocks) - range.lowerBound) * SinglesFilter.blockBytes
        SinglesFilter.insert(key, into: UnsafeMutableRawBufferPointer(start: block, count: SinglesFilter.blockBytes))
    }

    /// Writes the blocks of `range` that hold a key (the table emptied, and the number of
    /// blocks set, before the first range).
    func write(_ db: Database) throws {
        if range.lowerBound == 0 {
            try db.execute(sql: "DELETE FROM PositionSingles")
            try db.execute(sql: "UPDATE PositionIndexState SET SingleBlocks = ?", arguments: [blocks])
        }
        let insert = try PreparedStatement(db, "INSERT INTO PositionSingles (Block, Bits) VALUES (?, ?)")
        for block in range {
            let bytes = UnsafeRawBufferPointer(
                start: table.base + (block - range.lowerBound) * SinglesFilter.blockBytes,
                count: SinglesFilter.blockBytes)
            guard bytes.contains(where: { $0 != 0 }) else { continue }
            insert.bind(1, Int64(block))
            insert.bindBlob(2, borrowing: bytes)
            defer { insert.reset() }
            try insert.step()
        }
    }
}

/// Zeroed memory read and written at random (`SinglesFilterPart`, `BitSet`): on huge pages
/// where the system has them, so that its pages do not each cost a TLB miss.
final class LargeTable: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    private let huge: Bool

    init(bytes: Int) {
        if let table = cstorage_allocate_table(UInt(max(bytes, 8))) {
            base = table
            huge = true
        } else {
            base = .allocate(byteCount: max(bytes, 8), alignment: 64)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: max(bytes, 8))
            huge = false
        }
    }

    deinit { if huge { cstorage_free_table(base) } else { base.deallocate() } }
}

extension SinglesFilter {
    /// The filter's number of blocks the index state gives: 0 (no filter) for a value no index
    /// writes.
    static func blocks(_ db: Database) throws -> Int {
        let value = try DatabaseValue.fetchOne(db, sql: "SELECT SingleBlocks FROM PositionIndexState")
        guard let blocks = value.flatMap({ IndexValue.integer($0) }), blocks > 0, blocks <= largestBlockCount else {
            return 0
        }
        return Int(blocks)
    }

    /// More blocks than a filter of 2^40 positions has.
    static let largestBlockCount: Int64 = 1 << 32

    /// Whether the filter in the file may hold `key` (false: no game reaches its position).
    static func mayHold(_ key: UInt64, blocks: Int, _ db: Database) throws -> Bool {
        guard blocks > 0 else { return true }
        guard
            let bits = try Data.fetchOne(
                db, sql: "SELECT Bits FROM PositionSingles WHERE Block = ?",
                arguments: [block(of: key, blocks: blocks)])
        else { return false }
        return bits.withUnsafeBytes { contains(key, in: $0) }
    }

    /// Adds keys to the filter in the file (a save's new single positions).
    static func add(_ keys: [UInt64], _ db: Database) throws {
        guard !keys.isEmpty else { return }
        var blocks = try SinglesFilter.blocks(db)
        if blocks == 0 {
            blocks = SinglesFilter.blocks(forKeys: 0)
            try db.execute(sql: "UPDATE PositionIndexState SET SingleBlocks = ?", arguments: [blocks])
        }
        var changed: [Int: [UInt8]] = [:]
        for key in keys {
            let block = SinglesFilter.block(of: key, blocks: blocks)
            if changed[block] == nil {
                let stored = try Data.fetchOne(
                    db, sql: "SELECT Bits FROM PositionSingles WHERE Block = ?", arguments: [block])
                changed[block] = stored.map { Array($0) } ?? Array(repeating: 0, count: blockBytes)
                if changed[block]!.count != blockBytes { changed[block] = Array(repeating: 0, count: blockBytes) }
            }
            changed[block]!.withUnsafeMutableBytes { insert(key, into: $0) }
        }
        for (block, bits) in changed {
            try db.execute(
                sql: "INSERT OR REPLACE INTO PositionSingles (Block, Bits) VALUES (?, ?)",
                arguments: [block, Data(bits)])
        }
    }
}
