import ChessCore
import Foundation
import GRDB
import GameStore
import TestSupport
import XCTest

/// A database from elsewhere whose position index tables hold numbers and types no import
/// writes: out-of-range counts, values of the wrong type, extreme game IDs. The explorer and
/// the position search answer with bounded figures or an error, and never stop the process.
final class HostileIndexTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    static let games = [
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n",
        "[Result \"0-1\"]\n\n1. e4 c5 2. Nf3 d6 0-1\n",
        "[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 1/2-1/2\n",
    ]

    /// A database of the three games with its index, then changed by `sql` through another
    /// connection, as a program that is not pgn-lsp would; the index state is left saying
    /// that the index is current.
    func forgedDatabase(_ sql: String) throws -> GameDatabase {
        let path = folder.path("forged-\(UUID().uuidString).ocgdb.db3")
        do {
            let database = try GameDatabase(path: path)
            let report = try database.store(
                games: Self.games.enumerated().map { GameSource(text: $1, index: $0) })
            XCTAssertEqual(report.stored, Self.games.count)
        }
        try Self.forge(path, sql)
        return try GameDatabase(path: path, options: .init(readOnly: true))
    }

    /// Runs `sql` on the file through another connection and leaves the index state and the
    /// index's triggers as they were, as a file made to look current would.
    static func forge(_ path: String, _ sql: String) throws {
        try DatabaseQueue(path: path).write { db in
            let state = try Row.fetchOne(db, sql: "SELECT * FROM PositionIndexState")
            let triggers = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger'")
            try db.execute(sql: sql)
            for trigger in triggers {
                try db.execute(
                    sql: trigger.replacingOccurrences(of: "CREATE TRIGGER", with: "CREATE TRIGGER IF NOT EXISTS"))
            }
            if let state {
                try db.execute(sql: "DELETE FROM PositionIndexState")
                let columns = Array(state.columnNames)
                try db.execute(
                    sql: "INSERT INTO PositionIndexState (\(columns.joined(separator: ","))) VALUES "
                        + "(\(columns.map { _ in "?" }.joined(separator: ",")))",
                    arguments: StatementArguments(state.databaseValues))
            }
        }
    }

    static func key(_ position: Position) -> Int64 { Int64(bitPattern: PositionIndex.key(position.hash)) }

    func position(_ moves: String) throws -> Position {
        var position = Position.startingPosition
        for san in moves.split(separator: " ") {
            position.play(try XCTUnwrap(position.move(san: String(san))))
        }
        return position
    }

    /// Every figure of an answer is within what an answer can hold.
    func assertBounded(_ answer: ExplorerAnswer, file: StaticString = #filePath, line: UInt = #line) {
        let limit = ExplorerAnswer.largestCount
        for value in [answer.games, answer.whiteWins, answer.draws, answer.blackWins, answer.ended] {
            XCTAssert((0...limit).contains(value), "\(value)", file: file, line: line)
        }
        for continuation in answer.continuations {
            for value in [continuation.games, continuation.whiteWins, continuation.draws, continuation.blackWins] {
                XCTAssert((0...limit).contains(value), "\(value)", file: file, line: line)
            }
            for value in [continuation.whiteWins, continuation.draws, continuation.blackWins] {
                XCTAssertLessThanOrEqual(value, continuation.games, file: file, line: line)
            }
            if let elo = continuation.bestElo { XCTAssert((0...PositionIndex.largestElo).contains(elo)) }
        }
    }

    func testCountsOutOfRangeAreBoundedAndTheirSumsDoNotOverflow() throws {
        let start = Self.key(.startingPosition)
        let database = try forgedDatabase(
            """
            UPDATE PositionTree SET Games = 9223372036854775807, WhiteWins = 9223372036854775807,
                Draws = 9223372036854775807, BlackWins = 9223372036854775807, BestElo = 9223372036854775807
                WHERE Position = \(start);
            UPDATE PositionTree SET Games = -5, WhiteWins = -9223372036854775808 WHERE Position = \(start)
                AND Next = (SELECT MIN(Next) FROM PositionTree WHERE Position = \(start));
            """)
        let answer = try database.explore(.startingPosition)
        assertBounded(answer)
        XCTAssertEqual(answer.continuations.count, 2)
        XCTAssertEqual(answer.games, ExplorerAnswer.largestCount)
        XCTAssertEqual(answer.continuations.map(\.games).min(), 0, "a negative count reads as none")
    }

    func testValuesOfTheWrongTypeReadAsNoneInsteadOfStoppingTheProcess() throws {
        // The table made again without its constraints, as another program could leave it.
        let start = Self.key(.startingPosition)
        let database = try forgedDatabase(
            """
            CREATE TABLE Loose AS SELECT * FROM PositionTree;
            DROP TABLE PositionTree;
            CREATE TABLE PositionTree (Position, Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo);
            INSERT INTO PositionTree SELECT * FROM Loose;
            DROP TABLE Loose;
            UPDATE PositionTree SET Games = 'many', WhiteWins = 1e300, Draws = NULL, BlackWins = x'00ff',
                BestGame = 'first', BestElo = -1e300 WHERE Position = \(start);
            INSERT INTO PositionTree VALUES (\(start), NULL, 3, 1, 1, 1, NULL, NULL);
            INSERT INTO PositionTree VALUES ('text', 'text', 'text', 'text', 'text', 'text', 'text', 'text');
            """)
        let answer = try database.explore(.startingPosition)
        assertBounded(answer)
        XCTAssertEqual(answer.continuations.count, 2)
        assertBounded(try database.explore(try position("e4")))
    }

    func testRowsRepeatedForOnePositionStillSumWithinBounds() throws {
        let start = Self.key(.startingPosition)
        var sql = """
            CREATE TABLE Loose AS SELECT * FROM PositionTree;
            DROP TABLE PositionTree;
            CREATE TABLE PositionTree (Position, Next, Games, WhiteWins, Draws, BlackWins, BestGame, BestElo);
            INSERT INTO PositionTree SELECT * FROM Loose;
            DROP TABLE Loose;
            UPDATE PositionTree SET Games = 9223372036854775807 WHERE Position = \(start);

            """
        for _ in 0..<12 {
            sql += "INSERT INTO PositionTree SELECT * FROM PositionTree WHERE Position = \(start);\n"
        }
        let answer = try forgedDatabase(sql).explore(.startingPosition)
        assertBounded(answer)
    }

    func testExtremeGameIDsInThePositionMovesDoNotOverflowTheScan() throws {
        // A position beyond the tree's rows is found by reading every game's keys.
        let database = try forgedDatabase(
            """
            INSERT INTO PositionMoves (GameID, Moves, FEN, Final)
                SELECT -9223372036854775808, Moves, FEN, Final FROM PositionMoves LIMIT 1;
            INSERT INTO PositionMoves (GameID, Moves, FEN, Final)
                SELECT 9223372036854775807, Moves, FEN, Final FROM PositionMoves LIMIT 1;
            UPDATE PositionIndexState SET SingleBlocks = 0;
            """)
        let deep = try position("e4 e5 Nf3 Nc6 Bb5 a6")
        XCTAssertNoThrow(try database.games(reaching: deep))
        assertBounded(try database.explore(deep))
    }

    func testGamesWithExtremeIDsAndRatingsAreIndexedAndExplored() throws {
        // Another program's games: IDs at both ends of the integer range, ratings and results
        // no import writes; the index built from them again.
        let path = folder.path("extreme-ids.ocgdb.db3")
        do {
            let database = try GameDatabase(path: path)
            _ = try database.store(games: Self.games.enumerated().map { GameSource(text: $1, index: $0) })
        }
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    UPDATE Games SET ID = -9223372036854775808, WhiteElo = 9223372036854775807, BlackElo = 2700
                        WHERE ID = 1;
                    UPDATE Games SET ID = 9223372036854775807, WhiteElo = 'strong', BlackElo = -5, Result = 7
                        WHERE ID = 2;
                    UPDATE Games SET WhiteElo = 1e300, BlackElo = x'00', Result = x'ff' WHERE ID = 3;
                    """)
        }
        let database = try GameDatabase(path: path)
        XCTAssertEqual(try database.buildPositionIndex(), 3)
        let answer = try database.explore(.startingPosition)
        assertBounded(answer)
        XCTAssertEqual(answer.games, 3)
        XCTAssertEqual(
            Dictionary(
                uniqueKeysWithValues: answer.continuations.map { (Position.startingPosition.san($0.move), $0.games) }),
            ["e4": 2, "d4": 1])
        XCTAssertEqual(answer.continuations.first?.bestElo, 2700, "the rating no import writes counts as none")
        let deep = try position("e4 e5 Nf3 Nc6 Bb5 a6")
        XCTAssertEqual(try database.games(reaching: deep).map(\.gameID), [Int64.min])
        let rare = try position("d4 d5 c4 e6")
        let single = try database.explore(rare, line: [.startingPosition, try position("d4"), try position("d4 d5")])
        assertBounded(single)
        XCTAssertEqual(single.ended, 1)
    }

    func testAFilterOfSinglePositionsOfAnySizeIsReadSafely() throws {
        for blocks in ["-7", "9223372036854775807", "'many'", "1e300"] {
            let database = try forgedDatabase("UPDATE PositionIndexState SET SingleBlocks = \(blocks);")
            let rare = try position("a3 h6 b3 g6")
            XCTAssertNoThrow(try database.explore(rare), blocks)
        }
    }
}
