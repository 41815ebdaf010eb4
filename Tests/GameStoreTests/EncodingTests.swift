import ChessCore
import PGN
import XCTest

@testable import GameStore

/// The golden vectors of the format document, and the details of both move encodings.
final class EncodingTests: XCTestCase {
    func encode(_ pgn: String, content: MovesContent = .full) throws -> EncodedGame {
        let results = GameEncoder.encode(SourceText(pgn), content: content)
        XCTAssertEqual(results.count, 1)
        return try results[0].get()
    }

    func testRuyLopezGoldenVector() throws {
        let game = try encode("1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 *")
        XCTAssertEqual(hex(game.moves), "0c 0c 11 0f 16 00 16 11 1a 18")
        XCTAssertEqual(game.plyCount, 10)
    }

    func testFoolsMateGoldenVector() throws {
        let game = try encode("1.f3 e5 2.g4 Qh4# 0-1")
        XCTAssertEqual(hex(game.moves), "05 0c 0d 19")
        XCTAssertEqual(game.result, "0-1")
    }

    func testCommentVariationAndNAGGoldenVector() throws {
        let game = try encode("1. e4 {hello} e5 (1... c5 $1) 2. Nf3 *")
        XCTAssertEqual(hex(game.moves), "0c fd 05 00 68 65 6c 6c 6f 0c ff 0a fc 02 00 24 31 fe 11")
        // The `mainline` setting keeps the moves of the mainline only.
        XCTAssertEqual(hex(try encode("1. e4 {hello} e5 (1... c5 $1) 2. Nf3 *", content: .mainline).moves), "0c 0c 11")
    }

    func testSuffixAnnotationsAreStoredAsNumericNAGs() throws {
        XCTAssertEqual(hex(try encode("1. e4! e5?! *").moves), "0c fc 02 00 24 31 0c fc 02 00 24 36")
        XCTAssertEqual(hex(try encode("1. e4 $142 *").moves), "0c fc 04 00 24 31 34 32")
    }

    func testMoves2GoldenVectors() throws {
        XCTAssertEqual(hex(try encode("1. e4 *").moves2), "0c 07")
        let castle = try encode("[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O *")
        XCTAssertEqual(hex(castle.moves2), "84 01")
        let promotion = try encode("[FEN \"7k/4P3/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. e8=Q+ *")
        XCTAssertEqual(hex(promotion.moves2), "34 5f")
        // Knight, bishop and rook promotions: codes 2, 3 and 4.
        for (san, code) in [("e8=N", 2), ("e8=B", 3), ("e8=R", 4)] {
            let game = try encode("[FEN \"7k/4P3/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. \(san) *")
            XCTAssertEqual(Int(game.moves2[1] >> 4), code, san)
        }
        // Only the mainline goes to Moves2.
        XCTAssertEqual(hex(try encode("1. e4 (1. d4 d5) e5 *").moves2), "0c 07 34 09")
    }

    func testMoves2DecodesEveryPromotionCodeSet() throws {
        let position = try Position(fen: "7k/4P3/8/8/8/8/8/4K3 w - - 0 1")
        let queen = position.move(san: "e8=Q")!
        let knight = position.move(san: "e8=N")!
        XCTAssertEqual(Moves2.code(queen), 0x5F34)
        XCTAssertEqual(Moves2.code(queen, codes: .old), 0x2F34)
        XCTAssertEqual(Moves2.code(knight, codes: .old), 0x5F34)
        XCTAssertEqual(Moves2.code(queen, codes: .queenFirst), 0x1F34)
        XCTAssertEqual(Moves2.move(0x5F34, in: position), queen)
        XCTAssertEqual(Moves2.move(0x5F34, in: position, codes: .old), knight)
        XCTAssertEqual(Moves2.move(0x1F34, in: position, codes: .queenFirst), queen)
        XCTAssertNil(Moves2.move(0x7F34, in: position))
        // Castling reads in either convention: the king's destination or the rook's square.
        let castling = try Position(fen: "4k3/8/8/8/8/8/8/4K2R w K - 0 1")
        let short = castling.move(san: "O-O")!
        XCTAssertEqual(Moves2.move(0x0184, in: castling), short)
        XCTAssertEqual(Moves2.move(UInt16(4 | 7 << 6), in: castling), short)
    }

    func testMainlineCommentsBecomeCommentRows() throws {
        let game = try encode("[Event \"e\"]\n{before} 1. e4 {after e4} e5 (1... c5 {in a variation}) 2. Nf3 { x } *")
        XCTAssertEqual(game.comments.map(\.ply), [-1, 0, 2])
        XCTAssertEqual(game.comments.map(\.text), ["before", "after e4", "x"])
        // Line comments too, without the semicolon.
        XCTAssertEqual(try encode("1. e4 ; a note\ne5 *").comments.map(\.text), ["a note"])
    }

    func testCommentRowsReadTheirTextFromTheBlobOrTheirOwnBytes() throws {
        let long = String(repeating: "a", count: 65_534) + "é" + String(repeating: "b", count: 4_464)
        let pgn = "[Event \"e\"]\n{start} 1. e4 {[%clk 0:03:00]} e5 (1... c5 {in a variation}) 2. Nf3 {\(long)} {é} *"
        let expected = ["start", "[%clk 0:03:00]", long, "é"]
        // The full content: short comments are the blob's own bytes, the long one (two chunks)
        // is copied.
        let full = try encode(pgn)
        XCTAssertTrue(full.comments.map(\.text) == expected)
        XCTAssertEqual(full.comments.map(\.ply), [-1, 0, 2, 2])
        XCTAssertEqual(full.commentBytes.count, 4 + long.utf8.count)
        // Mainline content keeps no comment in the blob: every text is copied, after its length.
        let mainline = try encode(pgn, content: .mainline)
        XCTAssertTrue(mainline.comments.map(\.text) == expected)
        XCTAssertEqual(mainline.commentBytes.count, expected.reduce(0) { $0 + 4 + $1.utf8.count })
        // Latin-1 text is converted once, and the rows read the converted bytes.
        let latin1 = GameEncoder.encode(bytes: Array("1. e4 {caf".utf8) + [0xE9] + Array("} *".utf8))
        XCTAssertEqual(try latin1[0].get().comments.map(\.text), ["café"])
        XCTAssertEqual(MemoryLayout<CommentRow>.stride, 8)
    }

    func testLongCommentsAreSplitAndJoinedAgain() throws {
        // 70,000 bytes with a two-byte character across the 65,535-byte boundary.
        let text = String(repeating: "a", count: 65_534) + "é" + String(repeating: "b", count: 4_464)
        let game = try encode("1. e4 {\(text)} *")
        let blob = game.moves
        XCTAssertEqual(blob[1], MovesBlob.comment)
        let first = Int(blob[2]) | Int(blob[3]) << 8
        XCTAssertEqual(first, 65_534, "the chunk ends before the two-byte character")
        XCTAssertEqual(blob[4 + first], MovesBlob.comment)
        let second = Int(blob[5 + first]) | Int(blob[6 + first]) << 8
        XCTAssertEqual(first + second, text.utf8.count)
        XCTAssertEqual(blob.count, 1 + 3 + first + 3 + second)
        let elements = try MovesBlob.decode(blob, from: .startingPosition)
        XCTAssertEqual(elements.count, 2)
        XCTAssertEqual(elements[1], .comment(text))
        // Two short comments in a row stay two comments.
        let two = try MovesBlob.decode(try encode("1. e4 {a} {b} *").moves, from: .startingPosition)
        XCTAssertEqual(two.dropFirst(), [.comment("a"), .comment("b")])
    }

    func testDecodingGivesBackTheGameTree() throws {
        let pgn = "[Event \"e\"]\n{start} 1. e4 {hello} e5 (1... c5 $1 2. Nf3 (2. c3) d6) (1... e6) 2. Nf3 $14 *"
        let game = try encode(pgn)
        let elements = try MovesBlob.decode(game.moves, from: .startingPosition)
        let start = Position.startingPosition
        let e4 = start.move(san: "e4")!
        let afterE4 = start.playing(e4)
        let c5 = afterE4.move(san: "c5")!
        let afterC5 = afterE4.playing(c5)
        let expected: [MovetextElement] = [
            .comment("start"), .move(e4), .comment("hello"), .move(afterE4.move(san: "e5")!), .variationStart,
            .move(c5), .nag(1), .move(afterC5.move(san: "Nf3")!), .variationStart, .move(afterC5.move(san: "c3")!),
            .variationEnd, .move(afterC5.playing(afterC5.move(san: "Nf3")!).move(san: "d6")!), .variationEnd,
            .variationStart, .move(afterE4.move(san: "e6")!), .variationEnd,
            .move(afterE4.playing(afterE4.move(san: "e5")!).move(san: "Nf3")!), .nag(14),
        ]
        XCTAssertEqual(elements, expected)
        XCTAssertEqual(MovesBlob.encode(elements, from: start), game.moves)
    }

    func testBadBlobsAreReportedNotTrapped() {
        XCTAssertThrowsError(try MovesBlob.decode([12, 12, 200], from: .startingPosition)) { error in
            XCTAssertEqual(error as? MovesBlob.DecodingError, .noSuchMove(offset: 2, index: 200, legalMoves: 29))
        }
        XCTAssertThrowsError(try MovesBlob.decode([12, 253, 9, 0, 65], from: .startingPosition))
        XCTAssertThrowsError(try MovesBlob.decode([255, 12], from: .startingPosition))
        XCTAssertThrowsError(try MovesBlob.decode([12, 254], from: .startingPosition))
    }

    func testColumnValuesFromTags() throws {
        let game = try encode(
            """
            [Event "Casual"]
            [Site "?"]
            [UTCDate "2024.01.02"]
            [UTCTime "10:11:12"]
            [Round "1.10"]
            [White "A"]
            [Black "B"]
            [Result "1-0"]
            [WhiteElo "-"]
            [BlackElo "15x"]
            [TimeControl "300+3"]
            [ECO "C20"]

            1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 1-0
            """)
        XCTAssertEqual(game.date, "2024.01.02", "no Date tag: UTCDate")
        XCTAssertEqual(game.round, "1.10")
        XCTAssertEqual(game.whiteElo, 0)
        XCTAssertNil(game.blackElo)
        XCTAssertEqual(game.whiteMaterial, 38, "lost the e-pawn")
        XCTAssertEqual(game.blackMaterial, 38)
        XCTAssertEqual(game.pawnHome, 0xFFFF & ~(1 << 4) & ~(1 << 11))
        XCTAssertNil(game.fen)
        XCTAssertEqual(game.utcTime, "10:11:12")
        XCTAssertEqual(game.timeControl, "300+3")
        XCTAssertEqual(game.eco, "C20")
        XCTAssertEqual(GameEncoder.parseElo(" 2700 "), 2700)
        XCTAssertNil(GameEncoder.parseElo(""))
        XCTAssertNil(GameEncoder.parseElo("?"))
    }

    func testFENIsKeptOnlyForAnotherStart() throws {
        let standard = try encode("[FEN \"\(FEN.startingPosition)\"]\n[SetUp \"1\"]\n\n1. e4 *")
        XCTAssertNil(standard.fen)
        let endgame = try encode("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 *")
        XCTAssertEqual(endgame.fen, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
        XCTAssertEqual(endgame.whiteMaterial, 1)
        XCTAssertEqual(endgame.blackMaterial, 0)
        XCTAssertEqual(endgame.pawnHome, 0)
    }

    func testOnlyGamesWithoutALegalStartAreRefused() {
        let text = """
            [Event "ok"]

            1. e4 e5 *

            [Event "illegal"]

            1. e4 e5 2. Nf3 Nf6 3. Ke3 *

            [Event "variant"]
            [Variant "Crazyhouse"]

            1. e4 *

            [Event "fen"]
            [FEN "8/8/8/8/8/8/8/8 w - - 0 1"]

            1. e4 *

            [Event "variation"]

            1. e4 e5 (1... Qh4) *

            [Event "null"]

            1. e4 -- 2. d4 *
            """
        for strict in [false, true] {
            let results = GameEncoder.encode(SourceText(text), firstIndex: 10, strict: strict)
            XCTAssertEqual(results.count, 6)
            XCTAssertNoThrow(try results[0].get())
            func outcome(_ k: Int) -> String {
                switch results[k] {
                case .failure(let refused): return refused.description
                case .success(let game):
                    return "stored" + (game.incomplete ? " incomplete" : "") + ": "
                        + game.changes.joined(separator: "; ")
                }
            }
            XCTAssertEqual(outcome(2), "game 13, unsupported variant \"Crazyhouse\"")
            XCTAssertTrue(outcome(3).hasPrefix("game 14, invalid FEN: "), outcome(3))
            if strict {
                // As before games were kept whatever they hold: refused, with the first change.
                XCTAssertEqual(
                    outcome(1), "game 12, illegal move 3.Ke3: the game stored up to it, the rest kept as a comment")
                XCTAssertEqual(
                    outcome(4),
                    "game 15, illegal move 1...Qh4 in a variation: the variation kept as a comment from there")
                XCTAssertEqual(
                    outcome(5), "game 16, null move 1...--: the game stored up to it, the rest kept as a comment")
            } else {
                XCTAssertEqual(
                    outcome(1),
                    "stored incomplete: illegal move 3.Ke3: the game stored up to it, the rest kept as a comment")
                XCTAssertEqual(
                    outcome(4),
                    "stored: illegal move 1...Qh4 in a variation: the variation kept as a comment from there")
                XCTAssertEqual(
                    outcome(5), "stored: null move 1...--: the game stored up to it, the rest kept as a comment")
            }
        }
    }

    /// A comment with a brace is written as a `;` comment, which every reader ends at the line's
    /// end only, braces or not.
    func testCommentsAreWrittenAsOneCommentEach() throws {
        let start = Position.startingPosition
        let e4 = start.move(san: "e4")!
        let long = (1...30).map { "word\($0)" }.joined(separator: " ")
        let text = PGNWriter.movetext(
            [
                .comment(""), .move(e4), .comment("a {b} c"), .comment(" line\nbreak\t and  spaces "),
                .comment("é è"), .comment(long),
            ], from: start, result: "*", lineLength: 80)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines.allSatisfy { $0.count < 80 }, text)
        XCTAssertEqual(
            lines.joined(separator: " "),
            "{} 1. e4 ; a {b} c {line break and spaces} {é è} {\(long)} *")
    }

    /// A tag value is one line: the database export and the formatter write a line break in it
    /// as a space, and escape `\` and `"` the same way, so both write the same tag pairs.
    func testExportAndFormattingWriteTagValuesAlike() throws {
        let e4 = Position.startingPosition.move(san: "e4")!
        let stored = StoredGame(
            id: 1,
            tags: [("Event", "Two\nlines\r\nhere"), ("Site", "a \"quoted\" \\ site"), ("Result", "*")],
            start: .startingPosition, elements: [.move(e4), .comment("a {b} c")], result: "*", layout: .enCroissant)
        let exported = PGNWriter.write(stored)
        XCTAssertTrue(exported.hasPrefix("[Event \"Two lines here\"]\n"), exported)
        // The same game as the formatter reads it from a file, where a value cannot span lines.
        let text =
            "[Site \"a \\\"quoted\\\" \\\\ site\"]\n[Event \"Two lines here\"]\n[Result \"*\"]\n\n1.e4 ; a {b} c\n*\n"
        XCTAssertEqual(ExportFormat.format(SourceText(text)), exported)
        XCTAssertEqual(PGNWriter.tagPair(name: "Event", value: "a\rb\nc"), "[Event \"a b c\"]")
    }
}
