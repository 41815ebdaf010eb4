import Foundation
import GRDB

/// The results and ratings an import into a file without games keeps for its opening tree,
/// game by game as the writer stores them: at the end the games are ranked from them
/// (`PositionTreeBuilder.rebuild`) instead of reading every game's result and ratings back
/// from `Games`; the ranks are the same. 4 bytes a game, in a scratch file (`OccurrenceSpill`,
/// four to an occurrence's 16 bytes) but for the last 256 KB.
///
/// The games must come with consecutive IDs, each written once: the first gap, a count that
/// differs from the games in `PositionMoves` at the end (a transaction rolled back after its
/// games were added here), or a scratch file that cannot be written (a full disk), and the
/// ranks are read from `Games` after all; the import itself goes on.
final class ImportedResults {
    private let spill: OccurrenceSpill
    /// `GameResults.pack` of the games not yet in the scratch file, in the order of their IDs
    /// (the file holds those of the games before, from `firstID` on).
    private var pending: [UInt32] = []
    /// Results to a piece written at once: a multiple of 4.
    static let piece = 1 << 16
    private(set) var firstID: Int64 = 0
    /// Games added.
    private(set) var games = 0
    /// Whether a game came with an ID out of turn, more games came than a rank can number, or
    /// the scratch file could not be written.
    private(set) var broken = false

    init(near db: Database) throws {
        spill = try OccurrenceSpill(files: 1, near: db)
        pending.reserveCapacity(ImportedResults.piece)
    }

    /// Adds a game stored with this ID: its outcome and its rating (nil without).
    func add(id: Int64, outcome: GameOutcome, rating: Int?) {
        guard !broken else { return }
        if games == 0 { firstID = id }
        guard id == firstID + Int64(games), games < Int(GameRanks.rankMask) else { return giveUp() }
        pending.append(GameResults.pack(outcome, rating))
        games += 1
        if pending.count == ImportedResults.piece {
            do {
                try pending.withUnsafeBytes { try spill.append(bytes: $0, to: 0) }
            } catch {
                return giveUp()
            }
            pending.removeAll(keepingCapacity: true)
        }
    }

    private func giveUp() {
        broken = true
        pending = []
    }

    /// Whether the file's `PositionMoves` holds these games and no other (`count` rows).
    func describes(_ db: Database, count: Int) throws -> Bool {
        guard !broken, games > 0, games == count else { return false }
        let bounds = try Row.fetchOne(db, sql: "SELECT MIN(GameID), MAX(GameID) FROM PositionMoves")
        return bounds?[0] == firstID && bounds?[1] == firstID + Int64(games - 1)
    }

    /// The games' results and ratings, by ID.
    func takeResults() throws -> GameResults {
        var table = GameTable(low: firstID, high: firstID + Int64(games - 1), count: games)
        var id = firstID
        try spill.finish()
        let perRead = ImportedResults.piece / 4
        let buffer = UnsafeMutablePointer<Occurrence>.allocate(capacity: perRead)
        defer { buffer.deallocate() }
        var first = 0
        while first < spill.count(0) {
            let count = min(perRead, spill.count(0) - first)
            try spill.read(0, from: first, count: count, into: buffer)
            let results = UnsafeRawPointer(buffer)
            for k in 0..<count * 4 {
                table[id] = results.load(fromByteOffset: k * 4, as: UInt32.self)
                id += 1
            }
            first += count
        }
        for packed in pending {
            table[id] = packed
            id += 1
        }
        pending = []
        return GameResults(table: table)
    }
}
