import ChessCore
import PGN
import TestSupport
import XCTest

/// Each case of the shared folder's `docs/pgn-in-the-wild.md`, read from the corpus file that has it.
/// Most of these files are GPL and stay in the shared folder: without it, those tests are skipped
/// and `WrittenCasesTests` checks the same cases on files written for the project.
final class RealWorldTests: XCTestCase {
    func report(_ path: String) throws -> (SourceText, Checker.Report, Parser) { try corpusReport(path) }

    func testByteOrderMarkIsTrivia() throws {
        try assertByteOrderMarkIsTrivia("corpus/python-chess/utf8-bom.pgn", event: "A")
    }

    func testCRLFCollectionWithAMalformedTag() throws {
        try assertOneMalformedTag("corpus/collections/Malakhov.pgn", games: 1_802, at: LineColumn(line: 19, column: 11))
    }

    func testLatin1IsDecodedWithAWarning() throws {
        let (source, report, parser) = try report("corpus/scid/res_gameLatin1.pgn")
        XCTAssertEqual(source.encoding, .latin1)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }.map(\.code), [.encoding])
        let game = GameReplay(source: source, syntax: parser.games[0], index: 0)
        XCTAssertEqual(game.tagValue("White"), "Kràmnìk, VlãÚdimir")
        XCTAssertEqual(game.tagValue("Site"), "Elista RÜS")
    }

    func testMultibyteUTF8() throws {
        let (source, report, parser) = try report("corpus/scid/res_gameUTF8.pgn")
        XCTAssertEqual(source.encoding, .utf8)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        XCTAssertEqual(report.games, 1)
        XCTAssertGreaterThan(replay(source, parser, game: 0).1.moves.count, 100)
    }

    func testBlankLinesInsideTagsAndMovetext() throws {
        let (source, report, parser) = try report("corpus/python-chess/chessbase-empty-line.pgn")
        XCTAssertEqual(report.games, 1)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        XCTAssertGreaterThan(replay(source, parser, game: 0).1.moves.count, 10)
        XCTAssertEqual(try self.report("corpus/scid/res_gameLatin1.pgn").1.games, 1)
    }

    func testCommentBeforeTheFirstTag() throws {
        let (_, report, _) = try report("corpus/pgn-extract/eco.pgn")
        XCTAssertEqual(report.games, 2_014)
        XCTAssertEqual(report.diagnostics.filter { $0.severity == .error }, [])
    }

    func testMoveNumbersWithoutSpace() throws {
        let (source, report, parser) = try report("corpus/python-chess/kasparov-deep-blue-1997.pgn")
        XCTAssertEqual(report.games, 6)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        let first = replay(source, parser, game: 0)
        XCTAssertEqual(first.1.moves.first.map { $0.before.san($0.move) }, "Nf3")
    }

    func testUCIMovetextAndPromotionWithoutEquals() throws {
        let (source, report, parser) = try report("corpus/python-chess/uci-moves.pgn")
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        let (_, game) = replay(source, parser, game: 0)
        XCTAssertGreaterThan(game.moves.count, 100)
        XCTAssertTrue(game.moves.allSatisfy { $0.leniency.contains(.uci) || $0.leniency.contains(.longAlgebraic) })
        let hints = report.diagnostics.filter { $0.code == .nonCanonicalSAN }
        XCTAssertEqual(hints.first?.fixes.first?.edits.first?.text, "Nf3")

        let (promotionSource, promotions, promotionParser) = try self.report("corpus/pgn-extract/test-promotion-in.pgn")
        XCTAssertEqual(promotions.games, 8)
        XCTAssertEqual(promotions.diagnostics.filter { $0.severity == .error }, [])
        let rook = replay(promotionSource, promotionParser, game: 0).1.moves[0]
        XCTAssertEqual(rook.move.promotion, .rook)
    }

    func testNullMoves() throws {
        let (_, report, _) = try report("corpus/pgn-extract/test-allownullmoves.pgn")
        XCTAssertEqual(report.diagnostics.filter { $0.code == .nullMove }.count, 2)
        XCTAssertEqual(report.diagnostics.filter { $0.severity == .error }, [])
        let (_, anastasian, _) = try self.report("corpus/python-chess/anastasian-lewis.pgn")
        XCTAssertEqual(anastasian.diagnostics.filter { $0.severity == .error }, [])
        XCTAssertTrue(anastasian.diagnostics.contains { $0.code == .nullMove })
    }

    /// Decision: braces nest. `{ a { b } c }` is one comment, as the file means it.
    func testNestedComments() throws {
        let (_, report, parser) = try report("corpus/pgn-extract/nested-comment.pgn")
        XCTAssertEqual(report.games, 1)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        XCTAssertEqual(parser.games[0].nodes.map(\.kind), [.move, .comment, .result])
    }

    func testResultTagAgainstMarker() throws {
        let (_, report, _) = try report("corpus/pgn-extract/test-fixresulttags-in.pgn")
        XCTAssertEqual(report.diagnostics.filter { $0.code == .resultMismatch }.count, 5)
    }

    func testVariantsAreRejectedClearlyAndChess960IsPlayed() throws {
        let (_, antichess, _) = try report("corpus/python-chess/antichess-programfox.pgn")
        XCTAssertEqual(antichess.diagnostics.filter { $0.code == .unsupportedVariant }.count, antichess.games)
        XCTAssertEqual(antichess.diagnostics.filter { $0.severity == .error }, [])
        let (source, chess960, parser) = try report("corpus/python-chess/cutechess-fischerrandom.pgn")
        XCTAssertEqual(chess960.diagnostics.filter { $0.severity <= .warning }, [])
        let (_, game) = replay(source, parser, game: 0)
        XCTAssertEqual(game.start.variant, .chess960)
        XCTAssertTrue(game.moves.contains { $0.move.isCastle })
    }

    func testHeaderOnlyGamesAndBrokenHeaders() throws {
        XCTAssertEqual(try report("corpus/chess-library/no_moves_two_games.pgn").1.games, 2)
        XCTAssertEqual(try report("corpus/chess-library/no_moves_but_game_termination_multiple_2.pgn").1.games, 3)
        let (_, empty, _) = try report("corpus/chess-library/empty_body.pgn")
        XCTAssertEqual(empty.games, 2)
        XCTAssertEqual(empty.diagnostics.filter { $0.code == .wrongMoveNumber }.count, 1, "reported once, not per move")
        // `[Event "Tournament \"]`: the value ends at the quote before the `]`, its last
        // character the backslash, as readers take it.
        let (source, backslash, parser) = try report("corpus/chess-library/backslash_header.pgn")
        XCTAssertEqual(backslash.diagnostics.filter { $0.code == .syntax }, [])
        XCTAssertEqual(replay(source, parser, game: 0).0.tagValue("Event"), "Tournament \\")
    }

    func testClockCommentsOnLichessGames() throws {
        let (source, report, parser) = try report("corpus/lichess/lichess_db_10k.pgn")
        XCTAssertEqual(report.games, 5)
        XCTAssertEqual(report.diagnostics, [])
        let game = parser.games[0]
        let comment = game.nodes.first { $0.kind == .comment }!
        let commands = CommentCommand.parse(source.string(comment.range))
        XCTAssertEqual(commands.first?.command, .clock(300))
        XCTAssertEqual(GameReplay(source: source, syntax: game, index: 0).tagValue("White"), "alanbrito4")
    }

    func testFENSetUpPuzzles() throws {
        let (source, report, parser) = try report("corpus/pychess/mate_in_2.pgn")
        XCTAssertEqual(report.games, 166)
        XCTAssertEqual(report.diagnostics.filter { $0.severity == .error }, [])
        let (_, game) = replay(source, parser, game: 0)
        XCTAssertNotEqual(game.start.position, Position.startingPosition)
        XCTAssertTrue(game.finalPosition?.isCheckmate ?? false)
    }
}
