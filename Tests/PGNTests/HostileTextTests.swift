import PGN
import TextPositions
import XCTest

/// Values no real game has, written where a reader expects numbers or quotes: each is read as
/// no value or with one clear diagnostic, never a trap.
final class HostileTextTests: XCTestCase {
    func testHugeClockAndEvaluationValuesAreNotRead() {
        for text in [
            "[%eval 1e300]", "[%eval -1e300]", "[%clk 1e300]", "[%emt 1e300]", "[%egt 1e308]",
            "[%clk 1e308:1e308]", "[%clk 99999999:00:00]", "[%eval #-9223372036854775808]",
            "[%eval #9223372036854775807]", "[%eval nan]", "[%eval inf]",
        ] {
            let commands = CommentCommand.parse(text)
            XCTAssertEqual(commands.count, 1, text)
            guard case .other = commands.first?.command else {
                return XCTFail("\(text) read as \(String(describing: commands.first?.command))")
            }
        }
    }

    func testLargestReadableValuesAreWrittenBack() {
        guard case .clock(let seconds) = CommentCommand.parse("[%clk 87600:00:00]").first?.command else {
            return XCTFail("ten years of clock time is read")
        }
        XCTAssertEqual(CommentCommand.clockText(seconds), "87600:00:00")
        guard case .evaluation(let evaluation, _) = CommentCommand.parse("[%eval -99999.99]").first?.command else {
            return XCTFail("an evaluation within the limit is read")
        }
        XCTAssertEqual(evaluation.text, "-99999.99")
    }

    func testWritingAnyNumberDoesNotTrap() {
        XCTAssertEqual(CommentCommand.clockText(.infinity), "87600:00:00")
        XCTAssertEqual(CommentCommand.clockText(-.infinity), "0:00:00")
        XCTAssertEqual(CommentCommand.clockText(.nan), "0:00:00")
        XCTAssertEqual(CommentCommand.clockText(1e300), "87600:00:00")
        XCTAssertEqual(Evaluation.pawns(1e300).text, "+100000.00")
        XCTAssertEqual(Evaluation.pawns(-.infinity).text, "-100000.00")
        XCTAssertEqual(Evaluation.pawns(.nan).text, "+0.00")
        XCTAssertEqual(Evaluation.mate(.min).text, "#-100000")
        XCTAssertEqual(Evaluation.mate(.max).text, "#100000")
    }

    func testGameWithHugeCommentValuesChecksCleanly() {
        let text = "[Event \"x\"]\n\n1. e4 { [%eval 1e300] [%clk 1e308:1e308] } e5 { [%emt 1e300] } *\n"
        XCTAssertEqual(check(text).diagnostics.filter { $0.severity == .error }.count, 0)
    }

    func testTagValueWithUnescapedQuotes() throws {
        let text = "[White \"\"Socrates Expert\"\"]\n[Black \"B\"]\n\n1. e4 *\n"
        let source = SourceText(text)
        let parser = parse(text)
        let errors = parser.diagnostics.filter { $0.severity == .error }
        XCTAssertEqual(errors.count, 1, "\(errors.map(\.message))")
        let error = try XCTUnwrap(errors.first)
        XCTAssertTrue(error.message.contains("quotes inside"), error.message)
        XCTAssertEqual(source.string(error.range), "\"\"Socrates Expert\"\"")
        XCTAssertEqual(error.fixes.first?.edits.first?.text, "\"\\\"Socrates Expert\\\"\"")
        let game = GameReplay(source: source, syntax: parser.games[0], index: 0)
        XCTAssertEqual(game.tagValue("White"), "\"Socrates Expert\"")
        XCTAssertEqual(game.tagValue("Black"), "B")

        // The fixed text reads with no error and the same value.
        let fixed = "[White \"\\\"Socrates Expert\\\"\"]\n[Black \"B\"]\n\n1. e4 *\n"
        let fixedParser = parse(fixed)
        XCTAssertEqual(fixedParser.diagnostics.filter { $0.severity == .error }.count, 0)
        let fixedGame = GameReplay(source: SourceText(fixed), syntax: fixedParser.games[0], index: 0)
        XCTAssertEqual(fixedGame.tagValue("White"), "\"Socrates Expert\"")
    }

    func testTwoTagsOnOneLineStayTwo() {
        let text = "[White \"A\"] [Black \"B\"]\n\n1. e4 *\n"
        let parser = parse(text)
        XCTAssertEqual(parser.diagnostics.filter { $0.severity == .error }.count, 0)
        XCTAssertEqual(parser.games.first?.tags.count, 2)
    }

    func testExtremeLinesAndColumnsAreClamped() {
        let source = SourceText("[Event \"é\"]\n1. e4 😀 *\n")
        for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
            XCTAssertEqual(source.offset(of: LineColumn(line: 0, column: .max), in: encoding), 12)
            XCTAssertEqual(source.offset(of: LineColumn(line: 1, column: .max), in: encoding), 25)
            XCTAssertEqual(source.offset(of: LineColumn(line: 1, column: .min), in: encoding), 13)
            XCTAssertEqual(source.offset(of: LineColumn(line: .max, column: .max), in: encoding), 26)
            XCTAssertEqual(source.offset(of: LineColumn(line: .min, column: 5), in: encoding), 0)
            XCTAssertEqual(source.position(of: .max, in: encoding), LineColumn(line: 2, column: 0))
            XCTAssertEqual(source.position(of: .min, in: encoding), LineColumn(line: 0, column: 0))
        }
    }

    func testARunOfStrayBytesIsOneProblem() {
        let text = "[Event \"x\"]\n\n1. e4 " + String(repeating: "\u{0}", count: 200_000) + " e5 *\n"
        let parser = parse(text)
        let stray = parser.diagnostics.filter { $0.message.hasPrefix("Unexpected character") }
        XCTAssertEqual(stray.count, 1)
        XCTAssertEqual(stray.first?.range.count, 200_000)
        XCTAssertEqual(stray.first?.fixes.first?.edits.first?.range.count, 200_000)
        XCTAssertEqual(parser.games.first?.nodes.filter { $0.kind == .move }.count, 2)
    }

    func testOneGameKeepsAThousandProblemsAndCountsTheRest() {
        let text = "[Event \"x\"]\n\n1. e4\n" + String(repeating: "]\n", count: 5_000) + "*\n\n[Event \"y\"]\n\n]\n*\n"
        let parser = parse(text)
        let first = parser.diagnostics.filter { $0.game == 0 }
        XCTAssertEqual(first.count, Parser.diagnosticsPerGame + 1)
        XCTAssertEqual(first.last?.message, "4000 more problems in this game from here on are not shown")
        XCTAssertEqual(parser.omittedDiagnostics[.error], 3_999)
        XCTAssertEqual(parser.diagnostics.filter { $0.game == 1 }.count, 1, "the next game starts afresh")
        let report = check(text)
        XCTAssertEqual(report.diagnostics.filter { $0.severity == .error }.count + (report.omitted[.error] ?? 0), 5_001)
    }

    func testTextBeforeAnyGameKeepsAThousandProblemsAndCheckShowsAHundred() {
        let text = String(repeating: "]\n", count: 5_000)
        let parser = parse(text)
        XCTAssertEqual(parser.diagnostics.count, Parser.diagnosticsPerGame + 1)
        XCTAssertEqual(parser.diagnostics.last?.message, "4000 more problems outside games from here on are not shown")
        XCTAssertNil(parser.diagnostics.last?.game)
        let report = check(text)
        XCTAssertEqual(report.diagnostics.count, Checker.shownPerGame + 1)
        XCTAssertEqual(report.diagnostics.last?.message, "4900 more problems outside games from here on are not shown")
        XCTAssertEqual(report.diagnostics.count + (report.omitted[.error] ?? 0), 5_000, "the summary counts every one")
    }

    func testAGameWithAHundredThousandTags() {
        var text = (0..<100_000).map { "[Tag\($0) \"v\"]\n" }.joined()
        text += "[Tag5 \"again\"]\n\n1. e4 *\n"
        let parser = parse(text)
        XCTAssertEqual(parser.games.map(\.tags.count), [100_000, 1], "a repeated name starts the next game")
    }

    func testPositionsAgreeWithAWalkAlongTheLineOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [
            [0x61], [0x0A], [0x0D], [0x0D, 0x0A], Array("é".utf8), Array("日".utf8), Array("😀".utf8), [0xE9], [0],
        ]
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).flatMap { _ in
                pieces.randomElement(using: &generator)!
            }
            let source = SourceText(bytes)
            for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
                for offset in 0...bytes.count {
                    let position = source.position(of: offset, in: encoding)
                    XCTAssertEqual(position, walk(source, to: offset, encoding), "\(bytes) \(offset)")
                    XCTAssertLessThanOrEqual(source.offset(of: position, in: encoding), offset)
                    // Back to the same place, but for an offset inside a line break, which means the line's end.
                    if offset <= source.lineEnd(position.line) {
                        let back = source.offset(of: position, in: encoding)
                        XCTAssertEqual(source.position(of: back, in: encoding), position)
                    }
                }
            }
        }
    }

    /// Line and column of an offset, found by walking the line character by character.
    private func walk(_ source: SourceText, to offset: Int, _ encoding: PositionEncoding) -> LineColumn {
        let line = source.line(of: offset)
        var i = source.lineStarts[line]
        var column = 0
        while i < offset {
            let c = source.bytes[i]
            var length = 1
            var units = 1
            if c >= 0x80 {
                if source.encoding == .latin1 {
                    units = encoding == .utf8 ? 2 : 1
                } else {
                    let declared = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1
                    length = min(declared, source.bytes.count - i)
                    units = encoding == .utf8 ? length : encoding == .utf16 && declared == 4 ? 2 : 1
                }
            }
            if i + length > offset { break }
            column += units
            i += length
        }
        return LineColumn(line: line, column: column)
    }
}
