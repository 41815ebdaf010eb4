import Foundation
import PGN
import XCTest

/// One test per diagnostic code: the message, the severity and the exact range. These are
/// the examples of docs/diagnostics.md.
final class DiagnosticsTests: XCTestCase {
    let roster = "[Event \"E\"]\n[Site \"S\"]\n[Date \"2026.11.22\"]\n[Round \"1\"]\n[White \"W\"]\n[Black \"B\"]\n"

    func testEveryCodeIsInTheTableOfDocsDiagnostics() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/diagnostics.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for code in Diagnostic.Code.allCases {
            XCTAssertTrue(
                text.contains("| `\(code.rawValue)` |"), "\(code.rawValue) is not described in docs/diagnostics.md")
        }
    }

    func only(_ text: String, _ code: Diagnostic.Code) -> [(Diagnostic, String)] {
        let source = SourceText(text)
        return Checker.check(source).diagnostics.filter { $0.code == code }.map { ($0, source.string($0.range)) }
    }

    func testIllegalMoveSaysWhy() {
        let found = only(roster + "[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Nf3 *", .illegalMove)
        XCTAssertEqual(found.map(\.1), ["Nf3"])
        XCTAssertEqual(found.first?.0.message, "Illegal move Nf3 (White to move): no white knight can move to f3")
        XCTAssertEqual(found.first?.0.severity, .error)
        let pinned = only(roster + "[Result \"*\"]\n\n1. e4 e5 2. d3 Bb4+ 3. Nd2 Nc6 4. Nf3 Nf6 5. Nb3 *", .illegalMove)
        XCTAssertEqual(pinned.first?.0.message, "Illegal move Nb3 (White to move): the knight on d2 is pinned")
        let inCheck = only(roster + "[Result \"*\"]\n\n1. e4 e5 2. f3 Qh4+ 3. d3 *", .illegalMove)
        XCTAssertEqual(
            inCheck.first?.0.message,
            "Illegal move d3 (White to move): White is in check and this move does not get out of it")
    }

    func testAmbiguousMoveNamesTheCandidatesAndOffersEach() {
        let found = only(
            roster + "[Result \"*\"]\n\n1. Nf3 Nf6 2. Nc3 Nc6 3. Nd4 Nd5 4. Nb5 a6 5. Nd4 *", .ambiguousMove)
        XCTAssertEqual(found.map(\.1), ["Nb5"])
        XCTAssertEqual(
            found.first?.0.message, "Ambiguous move Nb5: the knight on c3 and the knight on d4 can both make it")
        XCTAssertEqual(found.first?.0.fixes.map(\.title), ["Play Ncb5", "Play Ndb5"])
    }

    func testUnknownMove() {
        let found = only(roster + "[Result \"*\"]\n\n1. e4 e5 2. Sf3 *", .unknownMove)
        XCTAssertEqual(found.map(\.1), ["Sf3"])
        XCTAssertEqual(found.first?.0.message, "'Sf3' is not a move")
    }

    func testWordsThatCannotBeMovesAreNotesAndTheLineGoesOn() {
        let text =
            roster
            + "[Result \"1-0\"]\n\n1. e4 d5 2. e5 f5 3. exf6 e.p. (3. d4 keep Nc6 + (3... Nh6 1-0)) 3... Nxf6 1-0"
        let found = only(text, .movetextNote)
        XCTAssertEqual(found.map(\.1), ["e.p.", "keep", "+", "1-0"])
        XCTAssertEqual(found.map(\.0.severity), Array(repeating: .warning, count: 4))
        XCTAssertEqual(
            found.first?.0.message, "'e.p.' is not a move: readers skip it, and a database keeps it as a comment")
        XCTAssertEqual(
            found.last?.0.message,
            "A result inside a variation does not end the game: readers skip it, and a database keeps it as a comment")
        XCTAssertEqual(found.first?.0.fixes.first?.title, "Make it a comment: {e.p.}")
        XCTAssertEqual(found.first?.0.fixes.first?.edits.first?.text, "{e.p.}")
        XCTAssertEqual(found.first?.0.fixes.first?.isPreferred, true)
        // Nothing else is wrong: the lines go on after the notes, and the game ends at its result.
        let source = SourceText(text)
        let others = Checker.check(source).diagnostics.filter { $0.code != .movetextNote && $0.severity <= .warning }
        XCTAssertEqual(others.map(\.message), [])
    }

    func testWordsNextToEachOtherAreOneNote() {
        let found = only(
            roster + "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 White\nresigns after a long think 1-0", .movetextNote)
        XCTAssertEqual(found.map(\.1), ["White\nresigns after a long think"])
        XCTAssertEqual(
            found.first?.0.message,
            "'White resigns after a long think' is not a move: readers skip it, and a database keeps it as a comment")
        XCTAssertEqual(found.first?.0.fixes.first?.edits.first?.text, "{White\nresigns after a long think}")
        let nodes = parse(roster + "\n1. e4 White resigns {why} but then 1-0").games[0].nodes
        XCTAssertEqual(nodes.filter { $0.kind == .note }.count, 2, "a comment between words parts them")
    }

    func testShortAndGluedResultsAreReadAsResults() {
        let short = only(roster + "[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 1/2", .resultNotation)
        XCTAssertEqual(short.map(\.1), ["1/2"])
        XCTAssertEqual(short.first?.0.message, "A draw is written 1/2-1/2: 1/2 reads as the result 1/2-1/2")
        XCTAssertEqual(short.first?.0.fixes.first?.edits.first?.text, "1/2-1/2")
        let glued = only(roster + "[Result \"1-0\"]\n\n1.e4 e5 2.d4 exd4 3.Qxd4 Nc6 4.Qd1 d61-0", .resultNotation)
        XCTAssertEqual(glued.map(\.1), ["1-0"])
        XCTAssertEqual(glued.first?.0.message, "The result is written against the move: d61-0 reads as d6 1-0")
        XCTAssertEqual(glued.first?.0.fixes.first?.edits.map(\.text), [" "])
        // Neither leaves the game without its result, nor a move that cannot be read.
        for text in [
            roster + "[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 1/2",
            roster + "[Result \"1-0\"]\n\n1.e4 e5 2.d4 exd4 3.Qxd4 Nc6 4.Qd1 d61-0",
        ] {
            let codes = Checker.check(SourceText(text)).diagnostics.map(\.code)
            XCTAssertFalse(codes.contains(.missingResult), text)
            XCTAssertFalse(codes.contains(.unknownMove), text)
        }
    }

    func testReplayStopsOnlyItsOwnLine() {
        // The illegal move in the variation does not stop the mainline, and the next game is read.
        let text =
            roster + "[Result \"*\"]\n\n1. e4 (1. d4 d5 2. Ke3) 1... e5 2. Nf3 Ke6 3. Nc3 *\n\n" + roster
            + "[Result \"*\"]\n\n1. Ke2 *"
        let source = SourceText(text)
        let errors = Checker.check(source).diagnostics.filter { $0.severity == .error }
        XCTAssertEqual(errors.map { source.string($0.range) }, ["Ke3", "Ke6", "Ke2"])
        XCTAssertEqual(errors.map(\.game), [0, 0, 1])
    }

    func testSyntaxErrors() {
        XCTAssertEqual(
            codes("[Event \"x\"]\n\n1. e4 { unclosed", minimum: .warning), ["syntax@{", "missing-result@{ unclosed"])
        XCTAssertEqual(codes("[Event \"x\n\n1. e4 *", minimum: .error), ["syntax@[", "syntax@\"x"])
        XCTAssertEqual(codes("[Event \"x\"]\n\n1. e4 (1. d4 *", minimum: .error), ["syntax@("])
        XCTAssertEqual(codes("[Event \"x\"]\n\n1. e4 ) e5 *", minimum: .error), ["syntax@)"])
        XCTAssertEqual(codes("[Event \"x\"\n[Site \"y\"]\n\n1. e4 *", minimum: .error), ["syntax@["])
        XCTAssertEqual(codes("[Event \"x\"]\n\n1. e4 () e5 *", minimum: .warning), ["syntax@()"])
        XCTAssertEqual(codes("[Event \"x\"]\n\n( 1. d4 ) 1. e4 *", minimum: .error), ["syntax@("])
        let stray = check("[Event \"x\"]\n\n1. e4 ) e5 *").diagnostics.first { $0.code == .syntax }
        XCTAssertEqual(stray?.message, "This ')' closes no variation")
        XCTAssertEqual(stray?.fixes.first?.edits.first?.text, "")
    }

    func testResultMismatchAndMissingResult() {
        let text = roster + "[Result \"1-0\"]\n\n1. e4 e5 0-1"
        XCTAssertEqual(only(text, .resultMismatch).map(\.0.message), ["The result 0-1 differs from the Result tag 1-0"])
        let mate = roster + "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 1-0"
        let found = only(mate, .resultMismatch).map(\.0.message)
        XCTAssertEqual(
            found,
            ["The result 1-0 differs from the Result tag 0-1", "White is checkmated, so the result is 0-1, not 1-0"])
        let stalemate = "[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Qf7 1-0"
        XCTAssertEqual(
            only(stalemate, .resultMismatch).map(\.0.message),
            ["Black is stalemated, so the result is 1/2-1/2, not 1-0"])
        let missing = only(roster + "[Result \"1-0\"]\n\n1. e4 e5", .missingResult)
        XCTAssertEqual(missing.map(\.1), ["e5"])
        XCTAssertEqual(missing.first?.0.fixes.first?.edits.first?.text, " 1-0")
    }

    func testMissingTagsOfTheSevenTagRoster() {
        let found = only("[Event \"x\"]\n[White \"A\"]\n\n1. e4 *", .missingTag)
        XCTAssertEqual(
            found.first?.0.message,
            "The Seven Tag Roster is incomplete: the tags Site, Date, Round, Black, Result are missing")
        XCTAssertEqual(found.first?.0.severity, .information)
        XCTAssertEqual(
            found.first?.0.fixes.first?.edits.first?.text,
            "[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n")
    }

    func testBadFENPointsAtTheCharacter() {
        let found = only(
            "[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppxpppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n*", .badFEN)
        XCTAssertEqual(found.map(\.1), ["x"])
        XCTAssertEqual(found.first?.0.message, "Bad FEN: FEN piece placement, character 13: unexpected character 'x'")
        let kings = only("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K6K w - - 0 1\"]\n\n*", .badFEN)
        XCTAssertEqual(kings.first?.0.message, "Bad FEN: FEN piece placement: White has more than one king")
    }

    func testNullMoves() {
        let found = only(roster + "[Result \"*\"]\n\n1. e4 -- 2. d4 (2. Nf3 Z0) *", .nullMove)
        XCTAssertEqual(found.map(\.1), ["--", "Z0"])
        XCTAssertEqual(found.map(\.0.severity), [.warning, .information])
    }

    func testNonCanonicalSANOffersTheCanonicalForm() {
        let found = only(roster + "[Result \"*\"]\n\n1. e2e4 e5 2. Ng1-f3 Nc6 3. Bb5 a6 4. 0-0 *", .nonCanonicalSAN)
        XCTAssertEqual(found.map(\.1), ["e2e4", "Ng1-f3", "0-0"])
        XCTAssertEqual(found.compactMap { $0.0.fixes.first?.edits.first?.text }, ["e4", "Nf3", "O-O"])
        XCTAssertEqual(
            found.last?.0.message, "Standard notation is O-O: castling is written with the letter O, not zeros")
        XCTAssertEqual(found.first?.0.severity, .hint)
    }

    func testWrongMoveNumbers() {
        let found = only(roster + "[Result \"*\"]\n\n1. e4 e5 3. Nf3 3... Nc6 3... Bb5 *", .wrongMoveNumber)
        XCTAssertEqual(found.map(\.1), ["3.", "3...", "3..."])
        XCTAssertEqual(found.first?.0.message, "This is move 2 for White: the number should be 2.")
        XCTAssertEqual(found.last?.0.fixes.first?.edits.first?.text, "3.")
    }

    func testUnknownNAGs() {
        let found = only(roster + "[Result \"*\"]\n\n1. e4 $300 e5 $200 2. Nf3 !!! *", .unknownNAG)
        XCTAssertEqual(found.map(\.1), ["$300", "$200", "!!!"])
        XCTAssertEqual(found.map(\.0.severity), [.warning, .hint, .warning])
    }

    func testUnsupportedVariantIsReportedOnce() {
        let found = only("[Variant \"Crazyhouse\"]\n\n1. e4 e5 2. N@f3 *", .unsupportedVariant)
        XCTAssertEqual(found.map(\.1), ["\"Crazyhouse\""])
        XCTAssertEqual(found.first?.0.message, "The variant \"Crazyhouse\" is not supported: its moves are not checked")
        XCTAssertEqual(codes("[Variant \"Crazyhouse\"]\n\n1. e4 e5 2. N@f3 *", minimum: .error), [])
    }

    func testEncoding() {
        var bytes = Array("[Event \"Caf".utf8) + [0xE9] + Array("\"]\n\n1. e4 *".utf8)
        let source = SourceText(bytes)
        let found = Checker.check(source).diagnostics.filter { $0.code == .encoding }
        XCTAssertEqual(found.first?.range, 11..<12)
        XCTAssertEqual(found.first?.message, "This text is not valid UTF-8; it was read as Latin-1 (ISO 8859-1)")
        bytes.removeAll()
    }
}
