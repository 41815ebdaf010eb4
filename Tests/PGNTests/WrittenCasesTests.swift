import ChessCore
import PGN
import TestSupport
import XCTest

/// The cases of `RealWorldTests` on files written for the project (`corpus/pgn-lsp` under
/// `Tests/Fixtures`), which are always there: each file holds one quirk of PGN as users have it.
final class WrittenCasesTests: XCTestCase {
    func report(_ name: String) throws -> (SourceText, Checker.Report, Parser) {
        try corpusReport("corpus/pgn-lsp/" + name)
    }

    func testByteOrderMarkIsTrivia() throws {
        try assertByteOrderMarkIsTrivia("corpus/pgn-lsp/bom.pgn", event: "A")
        let (_, report, _) = try report("bom.pgn")
        XCTAssertEqual(report.games, 2)
        XCTAssertEqual(report.diagnostics, [])
    }

    func testCRLFCollectionWithAMalformedTag() throws {
        try assertOneMalformedTag(
            "corpus/pgn-lsp/crlf-malformed-tag.pgn", games: 8, at: LineColumn(line: 41, column: 11))
        let (source, _, parser) = try report("crlf-malformed-tag.pgn")
        XCTAssertEqual(replay(source, parser, game: 3).0.tagValue("Round"), "4")
        XCTAssertTrue(replay(source, parser, game: 7).1.finalPosition != nil)
    }

    func testLatin1IsDecodedWithAWarningAndABlankLineInsideTheMovetext() throws {
        let (source, report, parser) = try report("latin1-blank-line.pgn")
        XCTAssertEqual(source.encoding, .latin1)
        XCTAssertEqual(report.diagnostics.map(\.code), [.encoding])
        XCTAssertEqual(report.games, 1)
        let (game, replayed) = replay(source, parser, game: 0)
        XCTAssertEqual(game.tagValue("White"), "Réti, Richard")
        XCTAssertEqual(replayed.moves.count, 21)
        XCTAssertTrue(replayed.finalPosition?.isCheckmate ?? false)
    }

    func testMultibyteUTF8() throws {
        let (source, report, parser) = try report("utf8-multibyte.pgn")
        XCTAssertEqual(source.encoding, .utf8)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        XCTAssertEqual(report.games, 2)
        let (game, replayed) = replay(source, parser, game: 0)
        XCTAssertEqual(game.tagValue("White"), "Petrov, Ivan (Ива́н Петро́в)")
        XCTAssertEqual(game.tagValue("Event"), "Пример 🏆")
        XCTAssertEqual(replayed.moves.filter { $0.depth == 0 }.count, 21)
    }

    func testBlankLineInsideTheTags() throws {
        let (source, report, parser) = try report("blank-line-in-tags.pgn")
        XCTAssertEqual(report.games, 1)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        XCTAssertEqual(replay(source, parser, game: 0).0.tagValue("White"), "Anderssen, Adolf")
        XCTAssertEqual(replay(source, parser, game: 0).1.moves.count, 47)
    }

    func testCommentBeforeTheFirstTag() throws {
        let (_, report, parser) = try report("comment-before-tags.pgn")
        XCTAssertEqual(report.games, 3)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        XCTAssertFalse(parser.games[0].nodes.contains { $0.kind == .comment }, "the comment belongs to no game")
    }

    func testMoveNumbersWithoutSpaceUCIMovetextAndPromotionWithoutEquals() throws {
        let (source, report, parser) = try report("move-numbers-uci.pgn")
        XCTAssertEqual(report.games, 4)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        let compact = replay(source, parser, game: 0).1
        XCTAssertEqual(compact.moves.count, 47)
        XCTAssertEqual(compact.moves.first.map { $0.before.san($0.move) }, "e4")

        let uci = replay(source, parser, game: 1).1
        XCTAssertEqual(uci.moves.count, 21)
        XCTAssertTrue(uci.moves.allSatisfy { $0.leniency.contains(.uci) || $0.leniency.contains(.longAlgebraic) })
        XCTAssertTrue(uci.moves.contains { $0.move.isCastle })
        XCTAssertTrue(uci.finalPosition?.isCheckmate ?? false)
        let hints = report.diagnostics.filter { $0.code == .nonCanonicalSAN }
        XCTAssertEqual(hints.first?.fixes.first?.edits.first?.text, "e4")

        let promotions = replay(source, parser, game: 2).1.moves
        XCTAssertEqual(promotions.map(\.move.promotion), [.queen, .knight, .rook, nil, nil, nil, nil])
        XCTAssertTrue(replay(source, parser, game: 3).1.finalPosition?.isCheckmate ?? false)
    }

    func testNullMoves() throws {
        let (_, report, _) = try report("null-moves.pgn")
        let nulls = report.diagnostics.filter { $0.code == .nullMove }
        XCTAssertEqual(
            nulls.map(\.severity), [.information, .warning, .warning], "in a variation, then in the mainline")
        XCTAssertEqual(report.diagnostics.filter { $0.severity == .error }, [])
    }

    /// Decision: braces nest. `{ a { b } c }` is one comment, as the file means it.
    func testNestedComments() throws {
        let (_, report, parser) = try report("comment-in-comment.pgn")
        XCTAssertEqual(report.games, 1)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        XCTAssertEqual(parser.games[0].nodes.map(\.kind), [.moveNumber, .move, .comment, .result])
    }

    func testResultTagAgainstMarkerAndBoard() throws {
        let (_, report, _) = try report("result-mismatch.pgn")
        XCTAssertEqual(report.games, 6)
        let mismatches = report.diagnostics.filter { $0.code == .resultMismatch }
        XCTAssertEqual(mismatches.filter { $0.severity == .warning }.map(\.game), [0, 1, 2, 3, 4, 4])
        XCTAssertEqual(mismatches.filter { $0.severity == .information }.map(\.game), [3])
    }

    func testVariantsAreRejectedClearlyAndChess960IsPlayed() throws {
        let (source, report, parser) = try report("variants.pgn")
        XCTAssertEqual(report.games, 2)
        XCTAssertEqual(report.diagnostics.map(\.code), [.unsupportedVariant])
        XCTAssertEqual(report.diagnostics.first?.game, 0)
        let (_, game) = replay(source, parser, game: 1)
        XCTAssertEqual(game.start.variant, .chess960)
        XCTAssertEqual(game.moves.filter { $0.move.isCastle }.count, 2)
        XCTAssertEqual(game.moves.count, 12)
    }

    func testFENSetUpPuzzles() throws {
        let (source, report, parser) = try report("setup-puzzles.pgn")
        XCTAssertEqual(report.games, 4)
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }, [])
        for index in 0..<4 {
            let (_, game) = replay(source, parser, game: index)
            XCTAssertNotEqual(game.start.position, Position.startingPosition)
            XCTAssertTrue(game.finalPosition?.isCheckmate ?? false, "puzzle \(index + 1)")
        }
        XCTAssertEqual(replay(source, parser, game: 2).1.start.position?.turn, .black)
    }

    /// ChessBase-style analysis: null moves (threat lines) in variations are information, notes
    /// among the moves (`keep`, `e.p.`, `!?!`, a lone `+`) warnings that leave the line going
    /// on; the one illegal move in a variation stops that variation only.
    func testChessBaseAnalysis() throws {
        let (source, report, parser) = try report("chessbase-analysis.pgn")
        XCTAssertEqual(report.games, 5)
        let codes = report.diagnostics.filter { $0.severity <= .warning }.map {
            "\($0.code.rawValue)@\(source.string($0.range))"
        }
        XCTAssertEqual(
            codes,
            [
                "movetext-note@keep", "illegal-move@Bxd4", "unknown-nag@!?!", "movetext-note@+", "movetext-note@e.p.",
            ])
        XCTAssertEqual(
            report.diagnostics.filter { $0.code == .nullMove }.map(\.severity), Array(repeating: .information, count: 7)
        )
        // Every mainline is whole: the Opera game ends in mate.
        XCTAssertTrue(replay(source, parser, game: 0).1.finalPosition?.isCheckmate ?? false)
        XCTAssertTrue(replay(source, parser, game: 2).1.finalPosition?.isCheckmate ?? false)
    }

    /// `1/2` and results written against the last move read as results, with a warning and a fix.
    func testResultsWrittenShort() throws {
        let (source, report, parser) = try report("results-written-short.pgn")
        XCTAssertEqual(report.games, 6)
        XCTAssertEqual(
            report.diagnostics.filter { $0.severity <= .warning }.map {
                "\($0.code.rawValue)@\(source.string($0.range))"
            },
            [
                "result-notation@1/2", "result-notation@1/2", "result-notation@1-0", "result-notation@0-1",
                "result-notation@1/2-1/2", "result-notation@1/2", "result-notation@1/2",
            ])
        for game in 0..<6 {
            XCTAssertNotNil(parser.games[game].resultIndex, "game \(game + 1) has its result")
            XCTAssertNotNil(replay(source, parser, game: game).1.finalPosition, "game \(game + 1) is read whole")
        }
    }

    /// Faults in variations and mainlines, a variation before any move, one left open: each
    /// game's faults are its own.
    func testFaults() throws {
        let (source, report, _) = try report("faults.pgn")
        XCTAssertEqual(report.games, 6)
        XCTAssertEqual(
            report.diagnostics.filter { $0.severity == .error }.map {
                "\($0.game!)\($0.code.rawValue)@\(source.string($0.range))"
            },
            [
                "0illegal-move@Nd3", "1ambiguous-move@Nd7", "2illegal-move@Bh3", "3illegal-move@Nd4",
                "4unknown-move@Sf3", "5syntax@(", "5syntax@(",
            ])
    }

    /// Tags a database column cannot hold as written read as they are; a value ending in a
    /// backslash before the tag's `]` ends there, as readers take it.
    func testTagsAsWrittenAndABackslashBeforeTheClosingQuote() throws {
        let (source, report, parser) = try report("tags-as-written.pgn")
        XCTAssertEqual(report.games, 6)
        XCTAssertEqual(replay(source, parser, game: 1).0.tagValue("WhiteElo"), "?")
        XCTAssertEqual(replay(source, parser, game: 2).0.tagValue("Variant"), "fischerandom")
        XCTAssertEqual(replay(source, parser, game: 2).1.start.variant, .chess960)
        let text = "[Event \"Tournament \\\"]\n[Site \"a \\\"quoted\\\" word\"]\n\n1. e4 *"
        let written = parse(text)
        let game = GameReplay(source: SourceText(text), syntax: written.games[0], index: 0)
        XCTAssertEqual(game.tagValue("Event"), "Tournament \\")
        XCTAssertEqual(game.tagValue("Site"), "a \"quoted\" word")
        XCTAssertEqual(written.diagnostics, [])
    }

    /// Studies' diagrams: games with a position and a comment, or nothing, and no moves.
    func testStudyDiagrams() throws {
        let (_, report, parser) = try report("study-diagrams.pgn")
        XCTAssertEqual(report.games, 4)
        XCTAssertEqual(parser.games.map { $0.nodes.filter { $0.kind == .move }.count }, [0, 0, 0, 0])
        XCTAssertEqual(report.diagnostics.filter { $0.severity <= .warning }.map(\.code), [.missingResult])
    }

    /// A comment left open ends where the next game's tags begin: a `}` forgotten never costs
    /// the games after it. A `[%cal …]` line inside a comment is no tag.
    func testACommentLeftOpenEndsAtTheNextGamesTags() {
        let text =
            "[Event \"a\"]\n\n1. e4 { forgot to close\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. c4 {x\n[%cal Ge2e4]} *\n"
        let parser = parse(text)
        XCTAssertEqual(parser.games.count, 3)
        XCTAssertEqual(parser.games.map { $0.nodes.filter { $0.kind == .move }.count }, [1, 1, 1])
        XCTAssertEqual(parser.diagnostics.map(\.message), ["This comment is never closed: '}' is missing"])
        // Braces nested and left open: the first `}` closes the comment, before the next game.
        let nested = parse("[Event \"a\"]\n\n1. e4 {see {this} e5 {ok} *\n\n[Event \"b\"]\n\n1. d4 } *\n")
        XCTAssertEqual(nested.games.count, 2)
        XCTAssertEqual(nested.games[0].nodes.map(\.kind), [.moveNumber, .move, .comment, .move, .comment, .result])
    }
}
