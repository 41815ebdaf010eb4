import Foundation
import GRDB
import TestSupport
import XCTest

@testable import GameStore

/// How the opening tree is built at the end of an import or by `index`: scratch files by range of
/// keys, each sorted (or, for a range many games crowd into, added up in a table) into rows, in
/// two stages on two threads; whatever the sizes of the ranges, the rows are the same.
final class PositionTreeBuilderTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() {
        PositionTreeBuilder.occurrencesPerPart = 1 << 19
        PositionTreeBuilder.occurrencesSortedAtMost = 3 << 19
        PositionTreeBuilder.partsPerReplay = 256
        folder.cleanUp()
    }

    struct Tables: Equatable {
        var tree: [[Int64?]]
        var filter: [String]
    }

    func treeAndFilter(_ path: String) throws -> Tables {
        try DatabaseQueue(path: path).read { db in
            Tables(
                tree: try Row.fetchAll(db, sql: "SELECT * FROM PositionTree ORDER BY Position, Next").map { row in
                    (0..<8).map { row[$0] as Int64? }
                },
                filter: try String.fetchAll(
                    db, sql: "SELECT Block || ':' || hex(Bits) FROM PositionSingles ORDER BY Block"))
        }
    }

    func testSmallRangesSeveralReplaysAndAddedUpRangesGiveTheSameTree() throws {
        let path = folder.path("games.db3")
        let database = try GameDatabase(path: path)
        let report = try database.importPGN(path: SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path)
        XCTAssertGreaterThan(report.stored, 400)
        let usual = try treeAndFilter(path)
        XCTAssertGreaterThan(usual.tree.count, 400)
        XCTAssertGreaterThan(usual.filter.count, 0)
        // A few hundred occurrences a range: dozens of ranges, three to a replay, and every
        // range larger than 200 occurrences added up instead of sorted.
        PositionTreeBuilder.occurrencesPerPart = 300
        PositionTreeBuilder.partsPerReplay = 3
        PositionTreeBuilder.occurrencesSortedAtMost = 200
        XCTAssertEqual(try database.buildPositionIndex(), report.stored)
        XCTAssertEqual(try treeAndFilter(path), usual)
        PositionTreeBuilder.occurrencesSortedAtMost = 1 << 20
        XCTAssertEqual(try database.buildPositionIndex(), report.stored)
        XCTAssertEqual(try treeAndFilter(path), usual)
    }

    func testAnImportIntoANewFileRanksTheGamesFromTheResultsItKeptAsFromTheTable() throws {
        // Small ranges, three to a replay.
        PositionTreeBuilder.occurrencesPerPart = 300
        PositionTreeBuilder.partsPerReplay = 3
        PositionTreeBuilder.occurrencesSortedAtMost = 200
        let lichess = try SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path
        let path = folder.path("games.db3")
        let database = try GameDatabase(path: path)
        let stored = try database.importPGN(path: lichess).stored
        XCTAssertTrue(database.treeRankedFromImportedResults)
        try assertTreeIsBuiltAsByIndex(database, path, stored: stored)
        // Into a file that has games, a large import's tree is built from all of them, ranked
        // from the table.
        let before = folder.path("before.db3")
        let other = try GameDatabase(path: before)
        let few = try other.importPGN(path: SharedMaterial.url("corpus/pgn-lsp/position-keys.pgn").path).stored
        let many = try other.importPGN(path: lichess).stored
        XCTAssertFalse(other.treeRankedFromImportedResults)
        try assertTreeIsBuiltAsByIndex(other, before, stored: few + many)
    }

    func testResultsKeptAsideComeBackByIDAndGamesOutOfTurnAreNotUsed() throws {
        try DatabaseQueue(path: folder.path("scratch.db3")).write { db in
            // Three pieces written to the scratch file and a part of one still in memory.
            let results = try ImportedResults(near: db)
            let count = 3 * ImportedResults.piece + 5
            let outcomes: [GameOutcome] = [.whiteWins, .draw, .blackWins, .unknown]
            for k in 0..<count {
                results.add(id: 10 + Int64(k), outcome: outcomes[k % 4], rating: k % 7 == 0 ? nil : k % 3000)
            }
            XCTAssertFalse(results.broken)
            let back = try results.takeResults()
            for k in [
                0, 1, 6, 7, ImportedResults.piece - 1, ImportedResults.piece, 2 * ImportedResults.piece + 3, count - 1,
            ] {
                let (outcome, elo) = back[10 + Int64(k)]
                XCTAssertEqual(outcome, outcomes[k % 4], "game \(k)")
                XCTAssertEqual(elo, k % 7 == 0 ? -1 : Int32(k % 3000), "game \(k)")
            }
            let outOfTurn = try ImportedResults(near: db)
            outOfTurn.add(id: 1, outcome: .whiteWins, rating: 2000)
            XCTAssertFalse(outOfTurn.broken)
            outOfTurn.add(id: 3, outcome: .draw, rating: nil)
            XCTAssertTrue(outOfTurn.broken)
            XCTAssertFalse(try outOfTurn.describes(db, count: 1))
        }
    }

    func testTheImportsOfSeveralFilesBuildTheTreeOnceAfterTheLast() throws {
        let path = folder.path("games.db3")
        let database = try GameDatabase(path: path)
        let files = try ["corpus/lichess/lichess_db_1000k.pgn", "corpus/pgn-lsp/position-keys.pgn"].map {
            try SharedMaterial.url($0).path
        }
        let bytes = try files.reduce(0) { $0 + (try Data(contentsOf: URL(fileURLWithPath: $1)).count) }
        var between: [PositionIndexStatus] = []
        var lockedBetween = false
        let stored = try database.withIndexesBuiltAtTheEnd(totalBytes: bytes) {
            let first = try database.importPGN(path: files[0])
            // The first file's games are in, their tree is not: it comes after the last file.
            // Another reader (a connection of its own, its own look at the lock) sees the same.
            between = [
                try database.positionIndexStatus(), try GameDatabase.openForReading(path: path).positionIndexStatus(),
            ]
            lockedBetween = ImportLock.holder(of: path) != .nobody
            return first.stored + (try database.importPGN(path: files[1])).stored
        }
        XCTAssertEqual(between, [.updating, .updating])
        XCTAssertTrue(lockedBetween)
        XCTAssertEqual(ImportLock.holder(of: path), .nobody)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ImportLock.suffix))
        try assertTreeIsBuiltAsByIndex(database, path, stored: stored)
    }

    /// The file's index is current, with the rows and filter that building it again gives.
    func assertTreeIsBuiltAsByIndex(
        _ database: GameDatabase, _ path: String, stored: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(try database.positionIndexStatus(), .current, file: file, line: line)
        let built = try treeAndFilter(path)
        XCTAssertGreaterThan(built.tree.count, 400, file: file, line: line)
        XCTAssertEqual(try database.buildPositionIndex(), stored, file: file, line: line)
        XCTAssertEqual(try treeAndFilter(path), built, file: file, line: line)
    }

    func testAFileThatCannotBeReadAfterOthersLeavesTheirTreeBuilt() throws {
        let path = folder.path("games.db3")
        let database = try GameDatabase(path: path)
        let lichess = try SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path
        var stored = 0
        XCTAssertThrowsError(
            try database.withIndexesBuiltAtTheEnd(totalBytes: nil) {
                stored = try database.importPGN(path: lichess).stored
                _ = try database.importPGN(path: folder.path("missing.pgn"))
            })
        XCTAssertGreaterThan(stored, 400)
        try assertTreeIsBuiltAsByIndex(database, path, stored: stored)
    }

    func testGameIDsFarApartAreRankedAsCloseOnes() throws {
        let path = folder.path("games.db3")
        let database = try GameDatabase(path: path)
        let report = try database.importPGN(path: SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path)
        let close = try treeAndFilter(path)
        // Another program gives the later games IDs 2^50 further on: the index is built again,
        // with the same rows and the best games' new IDs.
        let shift: Int64 = 1 << 50
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE Games SET ID = ID + ? WHERE ID > 100", arguments: [shift])
        }
        XCTAssertEqual(try database.buildPositionIndex(), report.stored)
        var far = try treeAndFilter(path)
        far.tree = far.tree.map { row in
            var row = row
            if let best = row[6], best > shift { row[6] = best - shift }
            return row
        }
        XCTAssertEqual(far, close)
    }

    func testSortedAndAddedUpOccurrencesGiveTheRowsCountedByHand() throws {
        // 300 games; keys from a small pool so that many are shared; games ranked by number.
        var generator = SystemRandomNumberGenerator()
        let games = 300
        var table = GameTable(low: 1, high: Int64(games), count: games)
        var occurrences: [Occurrence] = []
        var expected: [UInt64: [UInt64: (games: Int, outcomes: [Int], best: Int)]] = [:]
        for game in 0..<games {
            let outcome = game % 4
            table[Int64(game + 1)] = UInt32(game) | UInt32(outcome) << 30
            var seen = Set<UInt64>()
            for _ in 0..<20 {
                let key = UInt64.random(in: 1...400, using: &generator) << 20
                guard seen.insert(key).inserted else { continue }
                let next = Bool.random(using: &generator) ? OpeningTreeBatch.ended : UInt64.random(in: 1...5) << 21
                occurrences.append(Occurrence(key: key, next: next, game: UInt32(game) | UInt32(outcome) << 30))
                var row = expected[key, default: [:]][next] ?? (0, [0, 0, 0, 0], Int.max)
                row.games += 1
                row.outcomes[outcome] += 1
                row.best = min(row.best, game)
                expected[key, default: [:]][next] = row
            }
        }
        let ranks = GameRanks(
            ids: (0..<games).map { Int64($0 + 1) }, elos: (0..<games).map { Int32(2800 - $0) }, payloads: table)
        let spill = try OccurrenceSpill(files: 1, folders: [folder.url.path])
        for occurrence in occurrences { try spill.append(occurrence, to: 0) }
        try spill.finish()
        XCTAssertEqual(spill.count(0), occurrences.count)

        let filter = SinglesFilterPart(blocks: 16)
        var sorted: [TreeRow] = []
        let sorter = OccurrenceSorter()
        try withExtendedLifetime(sorter) {
            TreeRows(ranks: ranks).add(sorted: try sorter.read(spill, 0), to: &sorted, filter: filter)
        }
        var summed: [TreeRow] = []
        try TreeRows(ranks: ranks).add(summing: spill, 0, to: &summed, filter: filter)
        XCTAssertEqual(sorted, summed)

        var byHand: [TreeRow] = []
        for key in expected.keys.sorted() where expected[key]!.values.reduce(0, { $0 + $1.games }) >= 2 {
            for next in expected[key]!.keys.sorted(by: { $0 &+ 1 < $1 &+ 1 }) {
                let counted = expected[key]![next]!
                var row = TreeRow(position: key, next: next)
                row.games = UInt32(counted.games)
                row.whiteWins = UInt32(counted.outcomes[1])
                row.draws = UInt32(counted.outcomes[2])
                row.blackWins = UInt32(counted.outcomes[3])
                row.bestGame = Int64(counted.best + 1)
                row.bestElo = Int32(2800 - counted.best)
                byHand.append(row)
            }
        }
        XCTAssertGreaterThan(byHand.count, 100)
        XCTAssertEqual(sorted, byHand)
    }

    func testScratchFilesThatCannotBeMadeGiveAClearError() throws {
        let missing = folder.path("no-such-folder")
        XCTAssertThrowsError(try OccurrenceSpill(files: 2, folders: [missing])) { error in
            guard case GameStoreError.scratchFile(let where_, let reason) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(where_, missing)
            XCTAssertEqual(reason, "No such file or directory")
            XCTAssertTrue("\(error)".contains("pgn-lsp index --db"), "\(error)")
        }
        // The next folder of the list is taken, and nothing is left in it.
        let spill = try OccurrenceSpill(files: 2, folders: [missing, folder.url.path])
        try spill.append(Occurrence(key: 7, next: 8, game: 9), to: 1)
        try spill.finish()
        XCTAssertEqual(spill.count(1), 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), [])
    }

    final class Box { var value = 0 }

    func testTwoStagesHandOverEveryItemInOrderOnEitherThread() throws {
        for fillAside in [false, true] {
            var next = 0
            var seen: [Int] = []
            try TwoStages.run(
                (Box(), Box()), fillAside: fillAside,
                fill: { box in
                    guard next < 1000 else { return false }
                    box.value = next
                    next += 1
                    return true
                },
                use: { box in seen.append(box.value) })
            XCTAssertEqual(seen, Array(0..<1000))
        }
    }

    struct Stop: Error, Equatable { var stage: String }

    func testAnErrorInEitherStageStopsBothAndIsThrown() {
        for fillAside in [false, true] {
            var used = 0
            XCTAssertThrowsError(
                try TwoStages.run(
                    (Box(), Box()), fillAside: fillAside,
                    fill: { box in
                        box.value += 1
                        if box.value == 50 { throw Stop(stage: "fill") }
                        return true
                    },
                    use: { _ in used += 1 })
            ) { XCTAssertEqual($0 as? Stop, Stop(stage: "fill")) }
            XCTAssertLessThan(used, 100)
            var filled = 0
            XCTAssertThrowsError(
                try TwoStages.run(
                    (Box(), Box()), fillAside: fillAside,
                    fill: { _ in
                        filled += 1
                        return true
                    },
                    use: { _ in throw Stop(stage: "use") })
            ) { XCTAssertEqual($0 as? Stop, Stop(stage: "use")) }
            XCTAssertLessThanOrEqual(filled, 3)
        }
    }
}
