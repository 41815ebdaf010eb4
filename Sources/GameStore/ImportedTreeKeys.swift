import Foundation
import GRDB

/// What an import into a file without games writes aside for its opening tree, game by game
/// as the writer stores them: each game's tree occurrences (`PositionTreeBuilder.forEachTreeKey`
/// over the keys of its first positions, which the readers computed), in one scratch file in
/// the order of the games, and its result and rating. At the end the tree is built from them
/// (`PositionTreeBuilder.rebuild`) instead of replaying every game's moves from `PositionMoves`
/// and reading every game's result from `Games`; the rows and the filter are the same.
///
/// The games must come with consecutive IDs, each written once: the first gap, a count that
/// differs from the games in `PositionMoves` at the end (a transaction rolled back after its
/// games were added here), or a scratch file that cannot be written (a full disk), and the tree
/// is built by replaying them after all; the import itself goes on.
final class ImportedTreeKeys {
    /// One file: the occurrences, each with the game's number in the import (its ID − `firstID`)
    /// in place of its rank.
    private var spill: OccurrenceSpill?
    /// Results and ratings (`GameResults.pack`) by number, in chunks of `chunk`.
    private var results: [[UInt32]] = []
    private static let chunk = 1 << 16
    private(set) var firstID: Int64 = 0
    /// Games added.
    private(set) var games = 0
    /// Whether a game came with an ID out of turn, or more games came than a rank can number.
    private(set) var broken = false
    private let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: PositionTreeBuilder.KeyChunk.limit)
    private let occurrences = UnsafeMutablePointer<Occurrence>.allocate(capacity: PositionTreeBuilder.KeyChunk.limit)

    init(near db: Database) throws {
        spill = try OccurrenceSpill(files: 1, near: db)
    }

    deinit {
        keys.deallocate()
        occurrences.deallocate()
    }

    /// Adds a game stored with this ID: the hashes of its mainline's positions from its start,
    /// its outcome and its rating (nil without).
    func add(id: Int64, hashes: [UInt64], outcome: GameOutcome, rating: Int?) {
        guard !broken, let spill else { return }
        if games == 0 { firstID = id }
        guard id == firstID + Int64(games), games < Int(GameRanks.rankMask) else {
            broken = true
            return
        }
        let count = min(hashes.count, PositionTreeBuilder.KeyChunk.limit)
        for ply in 0..<count { keys[ply] = PositionIndex.key(hashes[ply]) }
        let number = UInt32(games)
        var made = 0
        PositionTreeBuilder.forEachTreeKey(keys, count) { _, key, next in
            occurrences[made] = Occurrence(key: key, next: next, game: number)
            made += 1
        }
        do {
            try spill.append(UnsafeBufferPointer(start: occurrences, count: made), to: 0)
        } catch {
            broken = true
            self.spill = nil
            return
        }
        if games % ImportedTreeKeys.chunk == 0 {
            results.append([])
            results[results.count - 1].reserveCapacity(ImportedTreeKeys.chunk)
        }
        results[results.count - 1].append(GameResults.pack(outcome, rating))
        games += 1
    }

    /// Whether the file's `PositionMoves` holds these games and no other (`count` rows).
    func describes(_ db: Database, count: Int) throws -> Bool {
        guard !broken, spill != nil, games > 0, games == count else { return false }
        let bounds = try Row.fetchOne(db, sql: "SELECT MIN(GameID), MAX(GameID) FROM PositionMoves")
        return bounds?[0] == firstID && bounds?[1] == firstID + Int64(games - 1)
    }

    /// The games' results and ratings, by ID; the chunks are given back as they are copied.
    func takeResults() -> GameResults {
        var table = GameTable(low: firstID, high: firstID + Int64(games - 1), count: games)
        var id = firstID
        for index in results.indices {
            for packed in results[index] {
                table[id] = packed
                id += 1
            }
            results[index] = []
        }
        results = []
        return GameResults(table: table)
    }

    /// Calls `body` with every occurrence written, in order, a piece at a time, each with the
    /// game's number in place of its rank.
    func forEachOccurrence(_ body: (Occurrence) throws -> Void) throws {
        guard let spill else { return }
        try spill.finish()
        let piece = OccurrenceSpill.buffered * 16
        let buffer = UnsafeMutablePointer<Occurrence>.allocate(capacity: piece)
        defer { buffer.deallocate() }
        var first = 0
        while first < spill.count(0) {
            let count = min(piece, spill.count(0) - first)
            try spill.read(0, from: first, count: count, into: buffer)
            for index in 0..<count { try body(buffer[index]) }
            first += count
        }
    }

    /// Gives the scratch file back to the system (after its last reading).
    func discard() { spill = nil }
}
