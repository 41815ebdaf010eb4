import Foundation
import GRDB
import TestSupport
import XCTest

@testable import GameStore

/// The import pipeline: a mapped file and a stream give the same database, a game longer than
/// a piece is read whole, duplicates inside one import are found without a query per game,
/// and a failure stops the import cleanly.
final class ImportPipelineTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    func rows(_ path: String, _ sql: String) throws -> [Row] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { try Row.fetchAll($0, sql: sql) }
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = folder.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testAMappedFileAndAStreamGiveTheSameDatabase() throws {
        // Five copies of a 1 MB file (each its own round, so no game is a duplicate): several
        // pieces, cut at different places in the two readings.
        let one = try SharedMaterial.text("corpus/lichess/lichess_db_1000k.pgn")
        let copies = (1...5).map { one.replacingOccurrences(of: "[Round \"-\"]", with: "[Round \"\($0)\"]") }
        let source = try write(copies.joined(separator: "\n"), to: "five.pgn")
        let mapped = try GameDatabase(path: folder.path("mapped.db3"))
        let fromFile = try mapped.importPGN(path: source)
        // A pipe cannot be mapped: it is read in pieces.
        let pipe = Pipe()
        let feeder = Thread {
            let handle = pipe.fileHandleForWriting
            handle.write(try! Data(contentsOf: URL(fileURLWithPath: source)))
            try? handle.close()
        }
        feeder.start()
        let streamed = try GameDatabase(path: folder.path("streamed.db3"))
        let fromStream = try streamed.importPGN(from: pipe.fileHandleForReading)
        XCTAssertEqual(fromFile.stored, 5 * 438)
        XCTAssertEqual(fromFile, fromStream)
        for table in ["Games", "Players", "Events", "Sites", "Comments", "Info"] {
            let sql = "SELECT * FROM \(table) \(table == "Info" ? "WHERE Name <> 'Title' " : "")ORDER BY rowid"
            XCTAssertEqual(try rows(folder.path("mapped.db3"), sql), try rows(folder.path("streamed.db3"), sql), table)
        }
        let pageSize = try rows(folder.path("mapped.db3"), "PRAGMA page_size")[0][0] as Int
        XCTAssertEqual(pageSize, 16384)
        let journal = try rows(folder.path("mapped.db3"), "PRAGMA journal_mode")[0][0] as String
        XCTAssertEqual(journal, "delete")
    }

    func testAGameLongerThanAPieceIsReadWhole() throws {
        // Pieces are cut at about 2 MB: a 5 MB comment makes one game span several.
        let long = String(repeating: "a long note ", count: 450_000)
        let text = """
            [Event "first"]

            1. e4 e5 2. Nf3 1-0

            [Event "long"]

            1. d4 { \(long) } d5 2. c4 0-1

            [Event "last"]

            1. c4 *

            """
        let path = try write(text, to: "long.pgn")
        let database = try GameDatabase(path: folder.path("long.db3"))
        let report = try database.importPGN(path: path)
        XCTAssertEqual(report.stored, 3)
        XCTAssertEqual(report.refused, [])
        let events = try rows(folder.path("long.db3"), "SELECT Name FROM Events ORDER BY ID").map { $0[0] as String }
        XCTAssertEqual(events, ["Unknown", "first", "long", "last"])
        let comment = try rows(folder.path("long.db3"), "SELECT length(Comment) FROM Comments")
        XCTAssertEqual(comment.map { $0[0] as Int }, [long.utf8.count - 1], "trimmed of its final space")
        let plies = try rows(folder.path("long.db3"), "SELECT PlyCount FROM Games ORDER BY ID").map { $0[0] as Int }
        XCTAssertEqual(plies, [3, 3, 1])
    }

    func testTextWithNoGameStartIsCutSoThatAFileOrAStreamStaysBounded() throws {
        // Seventy megabytes in which no game starts, then a game: the text is read in pieces
        // of at most `longestGame`, not kept whole, and the game after it is stored.
        var junk = [UInt8](repeating: 0x78, count: 70 << 20)
        for k in stride(from: 99, to: junk.count, by: 100) { junk[k] = 0x0A }
        let game = Array("\n[Event \"after\"]\n\n1. e4 e5 *\n".utf8)
        let text = Data(junk + game)
        let path = folder.path("junk.pgn")
        try text.write(to: URL(fileURLWithPath: path))
        let mapped = try GameDatabase(path: folder.path("mapped.db3")).importPGN(path: path)
        let pipe = Pipe()
        let feeder = Thread {
            let handle = pipe.fileHandleForWriting
            handle.write(text)
            try? handle.close()
        }
        feeder.start()
        let streamed = try GameDatabase(path: folder.path("streamed.db3")).importPGN(from: pipe.fileHandleForReading)
        for report in [mapped, streamed] {
            XCTAssertEqual(report.stored, 1)
        }
        let events = try rows(folder.path("streamed.db3"), "SELECT Name FROM Events ORDER BY ID").map {
            $0[0] as String
        }
        XCTAssertEqual(events.last, "after")
    }

    func testDuplicatesInsideOneImportIntoANewFile() throws {
        let game = """
            [Event "e"]
            [Site "s"]
            [Date "2024.01.01"]
            [Round "1"]
            [White "A"]
            [Black "B"]
            [Result "1-0"]

            1. e4 e5 2. Nf3 1-0

            """
        let otherMoves = game.replacingOccurrences(of: "2. Nf3", with: "2. Nc3")
        let otherRound = game.replacingOccurrences(of: "[Round \"1\"]", with: "[Round \"2\"]")
        let path = try write(game + "\n" + otherMoves + "\n" + game + "\n" + otherRound + "\n" + game, to: "dups.pgn")
        let database = try GameDatabase(path: folder.path("dups.db3"))
        let report = try database.importPGN(path: path)
        XCTAssertEqual(report.stored, 3)
        XCTAssertEqual(report.duplicates, 2)
        // Again, into the same file: every game is already there.
        let again = try database.importPGN(path: path)
        XCTAssertEqual(again.stored, 0)
        XCTAssertEqual(again.duplicates, 5)
    }

    func testNearDuplicatesAreStoredAndOnlyExactCopiesAreLeftOut() throws {
        // 400 games with the same players, event, site, date and round, each one move away
        // from others; then games whose mainline and length are the same but whose comment
        // differs (their hashes are equal: the comparison decides); then every game again.
        let header = """
            [Event "Open"]
            [Site "Here"]
            [Date "2024.01.01"]
            [Round "1"]
            [White "A"]
            [Black "B"]
            [Result "*"]


            """
        let white =
            ["a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4"]
            + ["f3", "f4", "g3", "g4", "h3", "h4", "Na3", "Nc3", "Nf3", "Nh3"]
        let black =
            ["a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5"]
            + ["f6", "f5", "g6", "g5", "h6", "h5", "Na6", "Nc6", "Nf6", "Nh6"]
        var games: [String] = []
        for first in white {
            for reply in black { games.append(header + "1. \(first) \(reply) *\n") }
        }
        games += ["a", "b", "c"].map { header + "1. e4 {\($0)} e5 *\n" }
        let path = try write((games + games).joined(separator: "\n"), to: "near.pgn")
        let database = try GameDatabase(path: folder.path("near.db3"))
        let report = try database.importPGN(path: path)
        XCTAssertEqual(report.stored, 403)
        XCTAssertEqual(report.duplicates, 403)
        XCTAssertEqual(try rows(folder.path("near.db3"), "SELECT COUNT(DISTINCT Moves) AS n FROM Games")[0]["n"], 403)
        // Through the index, in a file that has games: the same answers.
        let again = try database.importPGN(path: path)
        XCTAssertEqual(again.stored, 0)
        XCTAssertEqual(again.duplicates, 806)
        let reopened = try GameDatabase(path: folder.path("near.db3"))
        XCTAssertEqual(try reopened.importPGN(path: path).duplicates, 806)
    }

    func testTheHashTableComparesEveryRowWhoseHashMatches() throws {
        var table = GameHashTable(capacity: 16)
        // Every hash has the same kept bits: each lookup is told about every row.
        for row in 1...5000 { XCTAssertTrue(table.insert(row << 32 | 7, rowID: Int64(row))) }
        XCTAssertEqual(table.count, 5000)
        var seen: [Int64] = []
        XCTAssertFalse(
            table.contains(7) {
                seen.append($0); return false
            })
        XCTAssertEqual(Set(seen), Set(1...5000))
        XCTAssertTrue(table.contains(7) { $0 == 4321 })
        XCTAssertFalse(table.contains(8) { _ in true })
        XCTAssertFalse(table.insert(1, rowID: GameHashTable.largestRowID + 1))
    }

    func testTheHashTableGrowsASixteenthAtATimeAndFindsEveryGame() throws {
        var table = GameHashTable()
        var random = SystemRandomNumberGenerator()
        var entries: [(Int, Int64)] = []
        for row in 1...200_000 {
            let hash = Int(bitPattern: UInt(random.next() as UInt64))
            XCTAssertTrue(table.insert(hash, rowID: Int64(row)))
            entries.append((hash, Int64(row)))
        }
        XCTAssertEqual(table.count, 200_000)
        for (hash, row) in entries where row % 7 == 0 { XCTAssertTrue(table.contains(hash) { $0 == row }) }
        XCTAssertFalse(table.contains(entries[0].0) { $0 == 200_001 })
        // Each table is a sixteenth of the whole, give or take: growing one copies only it.
        let slots = table.slotsPerShard
        XCTAssertEqual(slots.count, GameHashTable.shardCount)
        XCTAssertLessThanOrEqual(slots.max()!, 2 * slots.reduce(0, +) / GameHashTable.shardCount)
        XCTAssertGreaterThanOrEqual(slots.reduce(0, +) * 4, 200_000 * 5, "at most 80% full")
    }

    func testTheHashTableWaitsInAScratchFileAndComesBackTheSame() throws {
        let queue = try DatabaseQueue(path: folder.path("aside.db3"))
        for size in [0, 1, 2, 77, 5000] {
            var table = GameHashTable(capacity: 16)
            var random = SystemRandomNumberGenerator()
            var entries: [(Int, Int64)] = []
            for row in 0..<size {
                let hash = Int(bitPattern: UInt(random.next() as UInt64))
                XCTAssertTrue(table.insert(hash, rowID: Int64(row + 1)))
                entries.append((hash, Int64(row + 1)))
            }
            let aside = try queue.read { try table.putAside(near: $0) }
            let back = try GameHashTable(readingBack: aside)
            XCTAssertEqual(back.count, size)
            for (hash, row) in entries { XCTAssertTrue(back.contains(hash) { $0 == row }, "size \(size)") }
            XCTAssertFalse(back.contains(entries.first?.0 ?? 1) { $0 == Int64(size + 1) })
        }
        // Nothing left in the folder: the file was unlinked as soon as it was made.
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: folder.path("")).contains { $0.hasPrefix(".pgn-lsp") })
    }

    func testAnImportOfMillionsOfGamesPutsItsTableAsideAndFindsDuplicatesAfter() throws {
        // As for millions of games: the table goes to a scratch file while the tree is built.
        GameHashTable.putAsideFrom = 10
        defer { GameHashTable.putAsideFrom = 1 << 20 }
        var pgn = ""
        for round in 0..<60 {
            pgn += "[Event \"e\"]\n[Round \"\(round)\"]\n[White \"W\(round % 7)\"]\n[Black \"B\"]\n\n"
            pgn += round % 2 == 0 ? "1. e4 e5 2. Nf3 *\n\n" : "1. d4 d5 2. c4 *\n\n"
        }
        let input = try write(pgn, to: "aside.pgn")
        let database = try GameDatabase(path: folder.path("aside.db3"))
        XCTAssertEqual(try database.importPGN(path: input).stored, 60)
        // It waits there until the next write, not through the index builds.
        XCTAssertNil(database.storedGameHashes)
        XCTAssertNotNil(database.storedGameHashesPutAside)
        let again = try database.importPGN(path: input)
        XCTAssertEqual([again.stored, again.duplicates], [0, 60])
        XCTAssertEqual(database.storedGameHashes?.count, 60, "read back by the next write")
        XCTAssertNil(database.storedGameHashesPutAside)
        XCTAssertEqual(try rows(folder.path("aside.db3"), "SELECT COUNT(*) FROM Games")[0][0] as Int, 60)
        XCTAssertGreaterThan(try rows(folder.path("aside.db3"), "SELECT COUNT(*) FROM PositionTree")[0][0] as Int, 0)
    }

    func testAnotherProgramWritingDuringImportsIntoANewFileBuildsTheIdentityIndexFirst() throws {
        let game = "[Event \"x\"]\n[Site \"s\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. d4 d5 *\n"
        let path = folder.path("during.db3")
        let ours = try GameDatabase(path: path)
        let first = try write("[Event \"y\"]\n\n1. e4 *\n", to: "first.pgn")
        let second = try write(game, to: "second.pgn")
        try ours.withSearchIndexesBuiltAtTheEnd {
            XCTAssertEqual(try ours.importPGN(path: first).stored, 1)
            XCTAssertEqual(Array(try indexes(path).keys), [])
            // Another program copies the game in (without building any index).
            let scratch = folder.path("scratch.db3")
            XCTAssertEqual(try GameDatabase(path: scratch).store(games: [GameSource(text: game, index: 0)]).stored, 1)
            let theirs = try DatabaseQueue(path: path)
            try theirs.write { db in
                try db.execute(sql: "ATTACH DATABASE ? AS scratch", arguments: [scratch])
                try db.execute(sql: "INSERT INTO Players (Name) VALUES ('A'), ('B')")
                try db.execute(sql: "INSERT INTO Events (Name) VALUES ('x')")
                try db.execute(sql: "INSERT INTO Sites (Name) VALUES ('s')")
                try db.execute(
                    sql: """
                        INSERT INTO Games (EventID, SiteID, Date, UTCTime, Round, WhiteID, BlackID, Result, Moves) \
                        SELECT (SELECT ID FROM main.Events WHERE Name = 'x'), \
                        (SELECT ID FROM main.Sites WHERE Name = 's'), Date, UTCTime, Round, \
                        (SELECT ID FROM main.Players WHERE Name = 'A'), (SELECT ID FROM main.Players WHERE Name = 'B'), \
                        Result, Moves FROM scratch.Games WHERE ID = (SELECT MAX(ID) FROM scratch.Games)
                        """)
            }
            try theirs.close()
            let report = try ours.importPGN(path: second)
            XCTAssertEqual(report.stored, 0)
            XCTAssertEqual(report.duplicates, 1)
            XCTAssertEqual(Array(try indexes(path).keys), ["GamesIdentity"])
        }
        XCTAssertEqual(try indexes(path), schemaIndexes)
    }

    func testAGameStoredByAnotherProgramMeanwhileIsStillFoundAsADuplicate() throws {
        let game = "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. d4 d5 *\n"
        let path = folder.path("shared.db3")
        let ours = try GameDatabase(path: path)
        XCTAssertEqual(try ours.store(games: [GameSource(text: "[Event \"y\"]\n\n1. e4 *", index: 0)]).stored, 1)
        // Another connection stores the game between two of our writes.
        let theirs = try GameDatabase(path: path)
        XCTAssertEqual(try theirs.store(games: [GameSource(text: game, index: 0)]).stored, 1)
        let report = try ours.store(games: [GameSource(text: game, index: 0)])
        XCTAssertEqual(report.stored, 0)
        XCTAssertEqual(report.duplicates, 1)
    }

    func testAPlayersEloIsTheirHighestRatingWhateverTheOrder() throws {
        func game(_ round: Int, whiteElo: Int?, blackElo: Int?) -> String {
            var tags = "[Event \"e\"]\n[Round \"\(round)\"]\n[White \"Ann\"]\n[Black \"Bob\"]\n"
            if let whiteElo { tags += "[WhiteElo \"\(whiteElo)\"]\n" }
            if let blackElo { tags += "[BlackElo \"\(blackElo)\"]\n" }
            return tags + "\n1. e4 *\n\n"
        }
        let path = folder.path("elo.db3")
        let database = try GameDatabase(path: path)
        // In one batch: Ann rises then falls; Bob has no rating at first.
        let first =
            game(1, whiteElo: 2000, blackElo: nil) + game(2, whiteElo: 2200, blackElo: 1800)
            + game(3, whiteElo: 2100, blackElo: 1700)
        XCTAssertEqual(try database.importPGN(path: try write(first, to: "elo1.pgn")).stored, 3)
        func elo(_ name: String) throws -> Int? {
            try rows(path, "SELECT Elo FROM Players WHERE Name = '\(name)'")[0][0]
        }
        XCTAssertEqual(try elo("Ann"), 2200)
        XCTAssertEqual(try elo("Bob"), 1800)
        // Later batches and other connections: only a higher rating changes it.
        XCTAssertEqual(
            try database.importPGN(path: try write(game(4, whiteElo: 2150, blackElo: 1900), to: "elo2.pgn")).stored, 1)
        XCTAssertEqual(try elo("Ann"), 2200)
        XCTAssertEqual(try elo("Bob"), 1900)
        let other = try GameDatabase(path: path)
        XCTAssertEqual(
            try other.importPGN(path: try write(game(5, whiteElo: 2300, blackElo: 1000), to: "elo3.pgn")).stored, 1)
        XCTAssertEqual(try elo("Ann"), 2300)
        XCTAssertEqual(try elo("Bob"), 1900)
    }

    /// The writer skips looking up names its filter says a table lacks: names another program
    /// added meanwhile, or that a file held before it was opened, are still found, not added twice.
    func testNamesOtherProgramsAddedAreFoundNotAddedAgain() throws {
        func game(_ round: Int, white: String, black: String, event: String) -> String {
            "[Event \"\(event)\"]\n[Round \"\(round)\"]\n[White \"\(white)\"]\n[Black \"\(black)\"]\n\n1. e4 *\n\n"
        }
        let path = folder.path("filters.db3")
        let database = try GameDatabase(path: path)
        XCTAssertEqual(
            try database.importPGN(path: try write(game(1, white: "Ann", black: "Bob", event: "Open"), to: "f1.pgn"))
                .stored, 1)
        // Another program adds names, one of them as a blob, which no text name equals.
        let other = try DatabaseQueue(path: path)
        try other.write { db in
            try db.execute(sql: "INSERT INTO Players (Name) VALUES ('Cid'), (CAST('Dee' AS BLOB))")
            try db.execute(sql: "INSERT INTO Events (Name) VALUES ('Cup')")
        }
        try other.close()
        XCTAssertEqual(
            try database.importPGN(path: try write(game(2, white: "Cid", black: "Dee", event: "Cup"), to: "f2.pgn"))
                .stored, 1)
        // A new instance reads the names the file holds.
        let again = try GameDatabase(path: path)
        XCTAssertEqual(
            try again.importPGN(path: try write(game(3, white: "Cid", black: "Ann", event: "Open"), to: "f3.pgn"))
                .stored, 1)
        func strings(_ sql: String) throws -> [String] {
            try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: sql) }
        }
        XCTAssertEqual(
            try strings("SELECT Name || ' ' || typeof(Name) FROM Players ORDER BY ID"),
            ["Unknown text", "Ann text", "Bob text", "Cid text", "Dee blob", "Dee text"])
        XCTAssertEqual(
            try strings(
                """
                SELECT w.Name || ' ' || b.Name || ' ' || e.Name FROM Games g JOIN Players w ON w.ID = g.WhiteID \
                JOIN Players b ON b.ID = g.BlackID JOIN Events e ON e.ID = g.EventID ORDER BY g.ID
                """),
            ["Ann Bob Open", "Cid Dee Cup", "Cid Ann Open"])
        // Unknown, Open and Cup, with no number taken by an insert that was ignored.
        XCTAssertEqual(try strings("SELECT group_concat(ID, ' ') FROM Events"), ["0 1 2"])
    }

    func testNamesAndRatingsStayRightWhenTheCachesForgetThem() throws {
        // Caches of 3 names a half: 30 players, a few of whom come back often, go through them.
        GameDatabase.namesCached = 3
        defer { GameDatabase.namesCached = 100_000 }
        var pgn = ""
        var expected: [(white: String, black: String, event: String)] = []
        var best: [String: Int] = [:]
        for round in 0..<300 {
            let white = round % 3 == 0 ? "Often" : "P\((round * 7) % 29)"
            let black = round % 5 == 0 ? "Often" : "Q\((round * 11) % 23)"
            let event = "E\(round % 13)"
            let whiteElo = 1500 + (round * 37) % 400
            let blackElo = 1400 + (round * 53) % 500
            best[white] = max(best[white] ?? 0, whiteElo)
            best[black] = max(best[black] ?? 0, blackElo)
            expected.append((white, black, event))
            pgn += """
                [Event "\(event)"]
                [Round "\(round)"]
                [White "\(white)"]
                [Black "\(black)"]
                [WhiteElo "\(whiteElo)"]
                [BlackElo "\(blackElo)"]

                1. e4 *


                """
        }
        let path = folder.path("names.db3")
        let database = try GameDatabase(path: path)
        // Three imports: names met in an earlier one are found again, by the cache or the table.
        let third = pgn.count / 3
        let start = pgn.startIndex
        let cuts = [
            pgn.index(start, offsetBy: 0),
            pgn.range(of: "[Event", range: pgn.index(start, offsetBy: third)..<pgn.endIndex)!.lowerBound,
            pgn.range(of: "[Event", range: pgn.index(start, offsetBy: 2 * third)..<pgn.endIndex)!.lowerBound,
            pgn.endIndex,
        ]
        var stored = 0
        for k in 0..<3 {
            stored += try database.importPGN(path: try write(String(pgn[cuts[k]..<cuts[k + 1]]), to: "names\(k).pgn"))
                .stored
        }
        XCTAssertEqual(stored, 300)
        // The IDs do not depend on what the caches held: the same as with caches that forget nothing.
        GameDatabase.namesCached = 100_000
        let roomy = try GameDatabase(path: folder.path("roomy.db3"))
        for k in 0..<3 { _ = try roomy.importPGN(path: folder.path("names\(k).pgn")) }
        for table in ["Players", "Events", "Sites", "Games"] {
            let sql = "SELECT * FROM \(table) ORDER BY ID"
            XCTAssertEqual(try rows(path, sql), try rows(folder.path("roomy.db3"), sql), table)
        }
        let games = try rows(
            path,
            """
            SELECT w.Name, b.Name, e.Name FROM Games g JOIN Players w ON w.ID = g.WhiteID \
            JOIN Players b ON b.ID = g.BlackID JOIN Events e ON e.ID = g.EventID ORDER BY g.ID
            """)
        XCTAssertEqual(games.count, 300)
        for (row, game) in zip(games, expected) {
            XCTAssertEqual([row[0], row[1], row[2]], [game.white, game.black, game.event])
        }
        let players = try rows(path, "SELECT Name, Elo FROM Players WHERE ID != 0")
        XCTAssertEqual(players.count, best.count, "each name once")
        for player in players {
            XCTAssertEqual(player["Elo"] as Int?, best[player["Name"] as String], player["Name"] as String)
        }
        // The import's writes skip SQLite's own check, and leave it on for everything else.
        XCTAssertEqual(try rows(path, "PRAGMA foreign_key_check").count, 0)
        XCTAssertEqual(try database.run { try Int.fetchOne($0, sql: "PRAGMA foreign_keys") }, 1)
    }

    func testALockedDatabaseStopsAnImportWithAClearErrorAndNoHalfGame() throws {
        let path = folder.path("locked-import.db3")
        let database = try GameDatabase(path: path, options: .init(busyTimeout: 0.3))
        let other = try lockedByAnotherConnection(path)
        let source = try SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path
        XCTAssertThrowsError(try database.importPGN(path: source)) { error in
            XCTAssertEqual(error as? GameStoreError, .locked(path: path, seconds: 0.3))
        }
        try other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        XCTAssertEqual(try rows(path, "SELECT COUNT(*) FROM Games")[0][0] as Int, 0)
        // The same instance imports once the lock is gone.
        XCTAssertEqual(try database.importPGN(path: source).stored, 438)
    }

    /// The indexes of a file, name to SQL, as the file holds them.
    func indexes(_ path: String) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try rows(
                path, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            )
            .map { ($0["name"] as String, $0["sql"] as String) })
    }

    /// The indexes the schema creates, name to SQL.
    var schemaIndexes: [String: String] {
        Dictionary(
            uniqueKeysWithValues: GameDatabase.schemaSQL.split(separator: "\n").filter { $0.hasPrefix("CREATE INDEX ") }
                .map { (String($0.split(separator: " ")[2]), String($0.dropLast())) })
    }

    /// A PGN file of `count` games, each with its own two players, `Round` numbering them.
    func gamesOfNewPlayers(_ count: Int, from first: Int = 0, round: (Int) -> String = { "\($0)" }) -> String {
        (first..<first + count).map { k in
            "[Event \"e\"]\n[Site \"s\"]\n[Round \"\(round(k))\"]\n[White \"W\(k)\"]\n[Black \"B\(k)\"]\n\n1. e4 e5 *\n\n"
        }.joined()
    }

    func testAFailedImportLeavesItsEarlierTransactionsAndNoGameOfTheLast() throws {
        // Pieces of 2 MB, one batch to a transaction: a game that cannot be written in the
        // sixth piece rolls back its batch only. A batch holds up to four pieces, as many as
        // are ready when the writer takes them, so the first is committed before it.
        GameDatabase.piecesPerTransaction = 1
        defer { GameDatabase.piecesPerTransaction = 64 }
        let path = folder.path("partial.db3")
        _ = try GameDatabase(path: path)
        let sentinels = try rows(path, "SELECT COUNT(*) FROM Players")[0][0] as Int
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER Refuse BEFORE INSERT ON Games WHEN NEW.Round = 'boom'
                    BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END
                    """)
        }
        let total = 140_000
        let bad = 130_000
        let text = gamesOfNewPlayers(total) { $0 == bad ? "boom" : "\($0)" }
        XCTAssertGreaterThan(
            gamesOfNewPlayers(bad).utf8.count, (GameDatabase.piecesPerBatch + 1) * GameDatabase.pieceSize)
        let input = try write(text, to: "partial.pgn")
        let database = try GameDatabase(path: path)
        XCTAssertThrowsError(try database.importPGN(path: input)) { error in
            XCTAssertTrue("\(error)".contains("refused by a trigger"), "\(error)")
        }
        let stored = try rows(path, "SELECT COUNT(*) AS n, MAX(CAST(Round AS INTEGER)) AS last FROM Games")[0]
        // Whole pieces before the one that failed, and nothing of that one.
        let last = (stored["last"] as Int?) ?? -1
        XCTAssertGreaterThan(stored["n"] as Int, 0)
        XCTAssertLessThan(last, bad)
        XCTAssertEqual(stored["n"] as Int, last + 1)
        XCTAssertEqual(
            try rows(path, "SELECT COUNT(*) FROM Players")[0][0] as Int, sentinels + 2 * (stored["n"] as Int))
    }

    func testNamesAddedInATransactionThatRolledBackAreNotUsedAfter() throws {
        let path = folder.path("rollback.db3")
        let database = try GameDatabase(path: path)
        XCTAssertEqual(try database.importPGN(path: try write(gamesOfNewPlayers(3), to: "first.pgn")).stored, 3)
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER Refuse BEFORE INSERT ON Games WHEN NEW.Round = 'boom'
                    BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END
                    """)
        }
        // W3…W9 and B3…B9 are added, then the transaction rolls back at the last game.
        let failing = gamesOfNewPlayers(7, from: 3) { $0 == 9 ? "boom" : "\($0)" }
        XCTAssertThrowsError(try database.importPGN(path: try write(failing, to: "failing.pgn")))
        XCTAssertThrowsError(try database.store(games: [GameSource(text: failing, index: 0)]))
        // New players take the IDs those had; W3…W8 come back with IDs of their own.
        let next = gamesOfNewPlayers(4, from: 20) + gamesOfNewPlayers(6, from: 3)
        XCTAssertEqual(try database.importPGN(path: try write(next, to: "next.pgn")).stored, 10)
        XCTAssertEqual(
            try database.store(games: [GameSource(text: gamesOfNewPlayers(2, from: 30), index: 0)]).stored, 2)
        let games = try rows(
            path,
            """
            SELECT g.Round AS round, w.Name AS white, b.Name AS black FROM Games g
            JOIN Players w ON w.ID = g.WhiteID JOIN Players b ON b.ID = g.BlackID ORDER BY g.ID
            """)
        XCTAssertEqual(games.count, 15)
        for game in games {
            let round: String = game["round"]
            XCTAssertEqual([game["white"], game["black"]], ["W\(round)", "B\(round)"], "round \(round)")
        }
        // The counts in `Info` are those of the tables (30 players and the file's own).
        let info = try rows(path, "SELECT Value FROM Info WHERE Name IN ('GameCount', 'PlayerCount') ORDER BY Name")
        let counted = try rows(path, "SELECT (SELECT COUNT(*) FROM Games), (SELECT COUNT(*) FROM Players)")[0]
        XCTAssertEqual(info.map { Int($0[0] as String) }, [15, counted[1] as Int])
        XCTAssertEqual(counted[0] as Int, 15)
    }

    func testAnImportIntoANewFileEndsWithEveryIndexOfTheSchema() throws {
        XCTAssertEqual(schemaIndexes.count, 8)
        let path = folder.path("indexed.db3")
        let database = try GameDatabase(path: path)
        XCTAssertEqual(try indexes(path), schemaIndexes)
        let source = try SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path
        XCTAssertEqual(try database.importPGN(path: source).stored, 438)
        XCTAssertEqual(try indexes(path), schemaIndexes)
        // The indexes built at the end hold every game, as those kept up game by game do.
        let queue = try DatabaseQueue(path: path)
        try queue.read { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA integrity_check"), "ok")
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT ID FROM Games WHERE WhiteElo > 2000")
            XCTAssertTrue(plan.contains { ($0["detail"] as String).contains("GamesWhiteElo") }, "\(plan)")
            XCTAssertEqual(
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games INDEXED BY GamesWhiteElo WHERE WhiteElo > 2000"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games NOT INDEXED WHERE WhiteElo > 2000"))
        }
        // A second import into the same file adds to the indexes as it goes.
        let second = try write(
            try SharedMaterial.text("corpus/lichess/lichess_db_1000k.pgn").replacingOccurrences(
                of: "[Round \"-\"]", with: "[Round \"2\"]"), to: "second.pgn")
        XCTAssertFalse(try database.dropSearchIndexesOfEmptyFile())
        XCTAssertEqual(try indexes(path), schemaIndexes)
        XCTAssertEqual(try database.importPGN(path: second).stored, 438)
        XCTAssertEqual(try indexes(path), schemaIndexes)
        try queue.read { db in
            XCTAssertEqual(
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Games INDEXED BY GamesPlyCount WHERE PlyCount >= 0"),
                876)
        }
    }

    func testIndexesMissingAfterAStoppedImportAreBuiltWhenTheFileIsNextOpened() throws {
        let path = folder.path("stopped.db3")
        let database = try GameDatabase(path: path)
        XCTAssertEqual(
            try database.importPGN(path: SharedMaterial.url("corpus/lichess/lichess_db_1000k.pgn").path).stored, 438)
        // As a stopped import leaves the file: games in, search indexes not yet built.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            for name in ["GamesDate", "GamesWhiteElo", "GamesPlyCount", "GamesIdentity"] {
                try db.execute(sql: "DROP INDEX \(name)")
            }
        }
        try queue.close()
        XCTAssertEqual(try indexes(path).count, 4)
        _ = try GameDatabase(path: path)
        XCTAssertEqual(try indexes(path), schemaIndexes)
        // An instance that opened the file before the stop builds them at its next import.
        let again = try DatabaseQueue(path: path)
        try again.write { db in try db.execute(sql: "DROP INDEX GamesResult") }
        try again.close()
        let second = try write(
            try SharedMaterial.text("corpus/lichess/lichess_db_1000k.pgn").replacingOccurrences(
                of: "[Round \"-\"]", with: "[Round \"2\"]"), to: "second.pgn")
        XCTAssertEqual(try database.importPGN(path: second).stored, 438)
        XCTAssertEqual(try indexes(path), schemaIndexes)
        // A file made by another program (no GamesIdentity, no Tags column) keeps the indexes
        // it has.
        let foreign = folder.path("foreign.db3")
        let other = try DatabaseQueue(path: foreign)
        try other.write { db in
            try db.execute(
                sql: GameDatabase.schemaSQL.split(separator: "\n").filter {
                    !$0.hasPrefix("CREATE INDEX GamesIdentity") && !$0.hasPrefix("CREATE INDEX GamesDate")
                        && !$0.contains("Tags TEXT")
                }.joined(separator: "\n"))
        }
        try other.close()
        _ = try GameDatabase(path: foreign)
        XCTAssertEqual(
            Set(try indexes(foreign).keys), Set(schemaIndexes.keys).subtracting(["GamesIdentity", "GamesDate"]))
    }

    func testSeveralImportsIntoANewFileBuildTheSearchIndexesOnceAfterTheLast() throws {
        let path = folder.path("several.db3")
        let database = try GameDatabase(path: path)
        let one = try SharedMaterial.text("corpus/lichess/lichess_db_1000k.pgn")
        let sources = try (1...2).map {
            try write(one.replacingOccurrences(of: "[Round \"-\"]", with: "[Round \"\($0)\"]"), to: "part\($0).pgn")
        }
        let stored = try database.withSearchIndexesBuiltAtTheEnd {
            var stored = 0
            for source in sources {
                stored += try database.importPGN(path: source).stored
                // Between the files, no index is there: the hashes of the games written answer
                // the duplicate check.
                XCTAssertEqual(Array(try indexes(path).keys), [])
            }
            return stored
        }
        XCTAssertEqual(stored, 876)
        XCTAssertEqual(try indexes(path), schemaIndexes)
        // A failure inside still leaves the file with its indexes.
        let other = try GameDatabase(path: folder.path("failed.db3"))
        struct Stop: Error {}
        XCTAssertThrowsError(
            try other.withSearchIndexesBuiltAtTheEnd {
                _ = try other.importPGN(path: sources[0])
                throw Stop()
            }
        ) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(try indexes(folder.path("failed.db3")), schemaIndexes)
    }
}
