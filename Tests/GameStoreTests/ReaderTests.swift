import ChessCore
import Foundation
import GRDB
import GameStore
import XCTest

/// Databases written by other programs, made here with SQL: each layout the reader recognises.
final class ReaderTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    static let promotionFEN = "7k/4P3/8/8/8/8/8/4K3 w - - 0 1"

    func make(_ name: String, _ sql: String, arguments: [StatementArguments] = []) throws -> String {
        let path = folder.path(name)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: sql)
            for argument in arguments {
                try db.execute(
                    sql: "INSERT INTO Games (ID, Date, Result, FEN, Moves) VALUES (?, ?, ?, ?, ?)", arguments: argument)
            }
        }
        return path
    }

    static func bytes(_ codes: [UInt16]) -> Data { Data(codes.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }

    let ocgdbTables = """
        CREATE TABLE Info (Name TEXT UNIQUE NOT NULL, Value TEXT);
        CREATE TABLE Events (ID INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT UNIQUE);
        CREATE TABLE Sites (ID INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT UNIQUE);
        CREATE TABLE Players (ID INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT UNIQUE, Elo INTEGER);
        CREATE TABLE Games (ID INTEGER PRIMARY KEY AUTOINCREMENT, EventID INTEGER, SiteID INTEGER, Date TEXT,
            Round TEXT, WhiteID INTEGER, WhiteElo INTEGER, BlackID INTEGER, BlackElo INTEGER, Result TEXT,
            TimeControl TEXT, ECO TEXT, PlyCount INTEGER, FEN TEXT, Moves BLOB, Moves2 BLOB);
        CREATE TABLE Comments (ID INTEGER PRIMARY KEY AUTOINCREMENT, GameID INTEGER, Ply INTEGER, Comment TEXT);
        INSERT INTO Events VALUES (1, 'Club');
        INSERT INTO Players VALUES (1, 'Ann', 2000), (2, 'Bob', NULL);
        """

    /// e7e8=N then Kh7, with the knight written in the given promotion code.
    func ocgdbFile(_ name: String, knightCode: UInt16, info: Bool) throws -> String {
        let moves = ReaderTests.bytes([52 | 60 << 6 | knightCode << 12, 63 | 55 << 6])
        return try make(
            name,
            ocgdbTables
                + (info ? "INSERT INTO Info VALUES ('Data Structure Version', '0.6');" : "")
                    + """
                    INSERT INTO Games (ID, EventID, SiteID, Date, WhiteID, BlackID, Result, FEN, Moves2)
                        VALUES (1, 1, NULL, '2024-01-02', 1, 2, NULL, '\(ReaderTests.promotionFEN)', x'\(moves.map { String(format: "%02x", $0) }.joined())');
                    INSERT INTO Comments (GameID, Ply, Comment) VALUES (1, 0, 'underpromotion'), (1, -1, 'start');
                    """)
    }

    func expectPromotionGame(_ game: StoredGame, layout: MovesLayout) throws {
        let start = try Position(fen: ReaderTests.promotionFEN)
        let promotion = start.move(san: "e8=N")!
        let king = start.playing(promotion).move(san: "Kh7")!
        XCTAssertEqual(game.layout, layout)
        XCTAssertEqual(game.mainline, [promotion, king])
        XCTAssertEqual(game.elements, [.comment("start"), .move(promotion), .comment("underpromotion"), .move(king)])
        XCTAssertEqual(game.tag("Date"), "2024.01.02", "dashes become dots")
        XCTAssertEqual(game.tag("Result"), "*", "NULL result")
        XCTAssertEqual(game.tag("Event"), "Club")
        XCTAssertEqual(game.tag("Site"), "?")
        XCTAssertEqual(game.tag("White"), "Ann")
        XCTAssertEqual(game.tag("FEN"), ReaderTests.promotionFEN)
        XCTAssertTrue(game.pgn.hasSuffix("{start} 1. e8=N {underpromotion} 1... Kh7 *\n"), game.pgn)
    }

    func testOcgdbMoves2WithTheCurrentPromotionCodes() throws {
        let path = try ocgdbFile("current.ocgdb.db3", knightCode: 2, info: true)
        let database = try GameDatabase.openForReading(path: path)
        try expectPromotionGame(try database.game(id: 1), layout: .ocgdbMoves2)
        // Such a file can be read but not written: it lacks En Croissant's columns.
        XCTAssertThrowsError(try GameDatabase(path: path)) { error in
            guard case .notAGameDatabase(_, let reason) = error as? GameStoreError else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue(reason.contains("PawnHome"), reason)
        }
    }

    func testOcgdbMoves2WithTheOldPromotionCodes() throws {
        let path = try ocgdbFile("old.ocgdb.db3", knightCode: 5, info: false)
        try expectPromotionGame(try GameDatabase.openForReading(path: path).game(id: 1), layout: .ocgdbMoves2Old)
    }

    func testTextMoves() throws {
        let path = try make(
            "text.db3",
            "CREATE TABLE Games (ID INTEGER PRIMARY KEY, Date TEXT, Result TEXT, FEN TEXT, Moves TEXT);",
            arguments: [[1, "2020.??.??", "1-0", nil, "1. e4 e5 2. Nf3 {good} Nc6 (2... d6 $1) 3. Bb5 1-0"]])
        let game = try GameDatabase.openForReading(path: path).game(id: 1)
        XCTAssertEqual(game.layout, .text)
        let start = Position.startingPosition
        XCTAssertEqual(game.mainline.map { $0.uci(chess960: false) }, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"])
        XCTAssertEqual(game.elements.filter { $0 == .nag(1) || $0 == .comment("good") }.count, 2)
        XCTAssertTrue(game.pgn.contains("2. Nf3 {good} 2... Nc6 (2... d6 $1) 3. Bb5 1-0"), game.pgn)
        XCTAssertEqual(game.tag("White"), "?")
        XCTAssertEqual(game.start, start)
    }

    func testTwoByteMovesAndTheAmbiguousBlob() throws {
        let path = try make(
            "two-byte.db3",
            "CREATE TABLE Games (ID INTEGER PRIMARY KEY, Date TEXT, Result TEXT, FEN TEXT, Moves BLOB);",
            arguments: [
                // e7e8=Q with queen = 1: no one-byte reading of these bytes is legal.
                [1, nil, "1-0", ReaderTests.promotionFEN, ReaderTests.bytes([52 | 60 << 6 | 1 << 12])],
                // One byte, 12: e4 in En Croissant's order (and not two bytes a move).
                [2, nil, "*", nil, Data([12])],
            ])
        let database = try GameDatabase.openForReading(path: path)
        let first = try database.game(id: 1)
        XCTAssertEqual(first.layout, .twoByte)
        XCTAssertEqual(first.mainline.map { $0.uci(chess960: false) }, ["e7e8q"])
        let second = try database.game(id: 2)
        XCTAssertEqual(second.layout, .enCroissant)
        XCTAssertEqual(second.mainline.map { $0.uci(chess960: false) }, ["e2e4"])
        var text = ""
        let report = try database.exportPGN { text += $0 }
        XCTAssertEqual(report.exported, 2)
        XCTAssertEqual(report.layouts, [.twoByte: 1, .enCroissant: 1])
        XCTAssertTrue(text.contains("1. e8=Q+ 1-0"), text)
    }

    /// En Croissant's own file declares Round and Result INTEGER; they hold text and are read by name.
    func testEnCroissantDeclaredTypes() throws {
        let path = try make(
            "encroissant.db3",
            """
            CREATE TABLE Players (ID INTEGER PRIMARY KEY, Name TEXT UNIQUE, Elo INTEGER);
            CREATE TABLE Events (ID INTEGER PRIMARY KEY, Name TEXT UNIQUE);
            CREATE TABLE Sites (ID INTEGER PRIMARY KEY, Name TEXT UNIQUE);
            CREATE TABLE Games (ID INTEGER PRIMARY KEY, EventID INTEGER, SiteID INTEGER, Date TEXT, UTCTime TEXT,
                Round INTEGER, WhiteID INTEGER, WhiteElo INTEGER, BlackID INTEGER, BlackElo INTEGER,
                WhiteMaterial INTEGER, BlackMaterial INTEGER, Result INTEGER, TimeControl TEXT, ECO TEXT,
                PlyCount INTEGER, FEN TEXT, Moves BLOB, PawnHome INTEGER);
            INSERT INTO Players VALUES (0, 'Unknown', NULL), (1, 'Carl', 1800);
            INSERT INTO Games (ID, EventID, SiteID, Date, Round, WhiteID, BlackID, Result, Moves, PawnHome)
                VALUES (1, 0, 0, '2023.05.06', '3', 1, 0, '0-1', x'0c0c', 0);
            """)
        let game = try GameDatabase.openForReading(path: path).game(id: 1)
        XCTAssertEqual(game.layout, .enCroissant)
        XCTAssertEqual(game.tag("Round"), "3")
        XCTAssertEqual(game.tag("Result"), "0-1")
        XCTAssertEqual(game.tag("White"), "Carl")
        XCTAssertEqual(game.tag("Black"), "?", "the sentinel player")
        XCTAssertEqual(game.mainline.count, 2)
        XCTAssertEqual(game.result, "0-1")
    }

    func testAGameThatCannotBeDecodedIsReportedAndTheOthersExported() throws {
        let path = folder.path("broken.db3")
        let database = try GameDatabase(path: path)
        _ = try database.store(games: [GameSource(text: "1. e4 e5 *\n\n1. d4 d5 *", index: 0)])
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE Games SET Moves = x'0cf0' WHERE ID = 1")
        }
        var text = ""
        let report = try GameDatabase.openForReading(path: path).exportPGN { text += $0 }
        XCTAssertEqual(report.exported, 1)
        XCTAssertEqual(
            report.failed.map(\.description),
            [
                "game 1 cannot be read: byte 1: move 240 does not exist (the position has 20 legal moves)"
            ])
        XCTAssertTrue(text.contains("1. d4 d5 *"))
        XCTAssertThrowsError(try database.game(id: 99)) { error in
            XCTAssertEqual(error as? GameStoreError, .noSuchGame(id: 99))
        }
    }

    /// Three ocgdb games (1. e4, 1. d4, 1. c4) whose comment rows are inserted in `order` of
    /// their game IDs, one before the first move and one after it for each.
    func ocgdbGamesWithComments(_ name: String, order: [Int]) throws -> String {
        // e2e4, d2d4, c2c4 in Moves2's layout: from | to << 6.
        let codes: [UInt16] = [12 | 28 << 6, 11 | 27 << 6, 10 | 26 << 6]
        let moves = codes.map { ReaderTests.bytes([$0]) }
        var sql = ocgdbTables + "INSERT INTO Info VALUES ('Data Structure Version', '0.6');"
        for (k, blob) in moves.enumerated() {
            let hex = blob.map { String(format: "%02x", $0) }.joined()
            sql += "INSERT INTO Games (ID, Result, Moves2) VALUES (\(k + 1), '*', x'\(hex)');"
        }
        for game in order {
            sql += "INSERT INTO Comments (GameID, Ply, Comment) VALUES (\(game), -1, 'before \(game)');"
            sql += "INSERT INTO Comments (GameID, Ply, Comment) VALUES (\(game), 0, 'after \(game)');"
        }
        // A row for no game is left out.
        sql += "INSERT INTO Comments (GameID, Ply, Comment) VALUES (NULL, 0, 'lost');"
        return try make(name, sql)
    }

    func testCommentRowsComeBackWithTheirGamesInWhateverOrderTheyWereStored() throws {
        let expected = [
            "{before 1} 1. e4 {after 1} *", "{before 2} 1. d4 {after 2} *", "{before 3} 1. c4 {after 3} *",
        ]
        // In game order, as ocgdb and pgn-lsp write them (read in one pass), and out of it.
        for order in [[1, 2, 3], [2, 1, 3], [3, 2, 1], [1, 3, 2]] {
            let path = try ocgdbGamesWithComments("order\(order.map(String.init).joined()).db3", order: order)
            let database = try GameDatabase.openForReading(path: path)
            var text = ""
            let report = try database.exportPGN { text += $0 }
            XCTAssertEqual(report.exported, 3)
            let movetexts = text.split(separator: "\n").filter { $0.hasPrefix("{") }.map(String.init)
            XCTAssertEqual(movetexts, expected, "\(order)")
            XCTAssertFalse(text.contains("lost"))
            // One game alone, and those of a list.
            XCTAssertTrue(try database.game(id: 2).pgn.contains(expected[1]), "\(order)")
            var two = ""
            _ = try database.exportPGN(ids: [3, 1]) { two += $0 }
            let listed = two.split(separator: "\n").filter { $0.hasPrefix("{") }.map(String.init)
            XCTAssertEqual(listed, [expected[0], expected[2]])
        }
    }

    func testCommentRowsOutOfGameOrderComeBackAcrossBatches() throws {
        // 2,100 games of 1. e4 (more than one batch of the export); the comment of the last
        // game is stored first.
        let path = try make(
            "batches.db3",
            ocgdbTables
                + """
                INSERT INTO Info VALUES ('Data Structure Version', '0.6');
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2100)
                    INSERT INTO Games (ID, Result, Moves2) SELECT i, '*', x'0c07' FROM n;
                INSERT INTO Comments (GameID, Ply, Comment) VALUES (2100, -1, 'last'), (1, 0, 'first'),
                    (2049, 0, 'second batch');
                """)
        for ordered in [false, true] {
            if ordered {
                // The same comments in game order.
                try DatabaseQueue(path: path).write { db in
                    try db.execute(sql: "UPDATE Comments SET ID = ID + 10 WHERE GameID = 2100")
                }
            }
            var text = ""
            let report = try GameDatabase.openForReading(path: path).exportPGN { text += $0 }
            XCTAssertEqual(report.exported, 2_100)
            let movetexts = text.split(separator: "\n").filter { $0.hasPrefix("1.") || $0.hasPrefix("{") }
            XCTAssertEqual(movetexts.count, 2_100)
            XCTAssertEqual(movetexts[0], "1. e4 {first} *", "ordered: \(ordered)")
            XCTAssertEqual(movetexts[2_048], "1. e4 {second batch} *", "ordered: \(ordered)")
            XCTAssertEqual(movetexts[2_099], "{last} 1. e4 *", "ordered: \(ordered)")
            XCTAssertEqual(movetexts.filter { $0.contains("{") }.count, 3)
        }
    }
}
