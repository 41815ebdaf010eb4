import ChessCore
import PGN
import TestSupport
import XCTest

final class TextTests: XCTestCase {
    func testPositionsInEveryEncodingOnMultibyteText() throws {
        for path in SharedMaterial.available(["corpus/pgn-lsp/utf8-multibyte.pgn", "corpus/scid/res_gameUTF8.pgn"]) {
            try checkPositionsInEveryEncoding(SharedMaterial.bytes(path))
        }
    }

    func checkPositionsInEveryEncoding(_ bytes: [UInt8]) {
        let source = SourceText(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        // Find a line with characters outside the Basic Multilingual Plane or multibyte ones.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let (lineNumber, line) = lines.enumerated().first { $0.element.utf8.count != $0.element.unicodeScalars.count }!
        let lineStart = source.lineStarts[lineNumber]
        // Every character boundary of that line maps to the same offset in all three encodings.
        var utf8 = 0
        var utf16 = 0
        var scalars = 0
        for scalar in line.unicodeScalars {
            let offset = lineStart + utf8
            XCTAssertEqual(source.position(of: offset, in: .utf8), LineColumn(line: lineNumber, column: utf8))
            XCTAssertEqual(source.position(of: offset, in: .utf16), LineColumn(line: lineNumber, column: utf16))
            XCTAssertEqual(source.position(of: offset, in: .utf32), LineColumn(line: lineNumber, column: scalars))
            XCTAssertEqual(source.offset(of: LineColumn(line: lineNumber, column: utf16), in: .utf16), offset)
            XCTAssertEqual(source.offset(of: LineColumn(line: lineNumber, column: scalars), in: .utf32), offset)
            utf8 += scalar.utf8.count
            utf16 += scalar.utf16.count
            scalars += 1
        }
        XCTAssertNotEqual(utf8, utf16)
    }

    func testSurrogatePairsAndClamping() {
        let source = SourceText("a♞b😀c\r\nsecond\rthird\n")
        XCTAssertEqual(source.lineStarts, [0, 12, 19, 25])
        XCTAssertEqual(source.position(of: 5, in: .utf16), LineColumn(line: 0, column: 3))
        XCTAssertEqual(source.position(of: 9, in: .utf16), LineColumn(line: 0, column: 5))
        XCTAssertEqual(source.position(of: 9, in: .utf32), LineColumn(line: 0, column: 4))
        XCTAssertEqual(source.position(of: 9, in: .utf8), LineColumn(line: 0, column: 9))
        XCTAssertEqual(source.offset(of: LineColumn(line: 0, column: 5), in: .utf16), 9)
        // Past the end of a line: the line's end; past the last line: the end of the text.
        XCTAssertEqual(source.offset(of: LineColumn(line: 1, column: 99), in: .utf16), 18)
        XCTAssertEqual(source.offset(of: LineColumn(line: 9, column: 0), in: .utf16), 25)
        // Inside a character: its start.
        XCTAssertEqual(source.position(of: 7, in: .utf16), LineColumn(line: 0, column: 3))
    }

    func testLatin1Positions() {
        let source = SourceText([0x61, 0xE9, 0x62, 0x0A, 0x63])
        XCTAssertEqual(source.encoding, .latin1)
        XCTAssertEqual(source.string(0..<3), "aéb")
        XCTAssertEqual(source.position(of: 2, in: .utf16), LineColumn(line: 0, column: 2))
        XCTAssertEqual(source.position(of: 2, in: .utf8), LineColumn(line: 0, column: 3))
        XCTAssertEqual(source.position(of: 4, in: .utf32), LineColumn(line: 1, column: 0))
    }

    func testCommentCommands() {
        let commands = CommentCommand.parse(
            "Good [%clk 1:55:21] [%emt 0:00:09.5] [%eval -1.25,23] [%eval #-3] [%csl Ga1,Rb2] [%cal Ge2e4,Rd1d8] [%foo bar]"
        )
        XCTAssertEqual(
            commands.map(\.command),
            [
                .clock(6921), .elapsedMoveTime(9.5), .evaluation(.pawns(-1.25), depth: 23),
                .evaluation(.mate(-3), depth: nil),
                .squares([.init(color: "G", square: Square("a1")!), .init(color: "R", square: Square("b2")!)]),
                .arrows([
                    .init(color: "G", from: Square("e2")!, to: Square("e4")!),
                    .init(color: "R", from: Square("d1")!, to: Square("d8")!),
                ]),
                .other(name: "foo", value: "bar"),
            ])
        XCTAssertEqual(commands.first?.range, 5..<19)
        XCTAssertEqual(CommentCommand.parse("[%clk 0:09:58.1]").first?.command, .clock(598.1))
        XCTAssertEqual(CommentCommand.parse("[%clk nonsense]").first?.command, .other(name: "clk", value: "nonsense"))
        XCTAssertTrue(CommentCommand.parse("[%eval 0.17").isEmpty)
        XCTAssertEqual(CommentCommand.clockText(6921), "1:55:21")
        XCTAssertEqual(CommentCommand.clockText(598.1), "0:09:58.1")
        XCTAssertEqual(Evaluation.pawns(0.35).text, "+0.35")
        XCTAssertEqual(Evaluation.pawns(-2.1).text, "-2.10")
        XCTAssertEqual(Evaluation.mate(-3).text, "#-3")
    }

    func testNAGMeanings() {
        XCTAssertEqual(NAGMeanings.glyph(1), "!")
        XCTAssertEqual(NAGMeanings.glyph(4), "??")
        XCTAssertEqual(NAGMeanings.glyph(14), "⩲")
        XCTAssertEqual(NAGMeanings.meaning(22), "White is in zugzwang")
        XCTAssertEqual(NAGMeanings.meaning(94), "White has poor rook placement")
        XCTAssertEqual(NAGMeanings.meaning(139), "Black has severe time control pressure")
        XCTAssertEqual(NAGMeanings.meaning(146), "novelty")
        XCTAssertNil(NAGMeanings.meaning(200))
        XCTAssertEqual(NAGMeanings.value(ofSuffix: "?!"), 6)
    }

    func testSuffixAnnotationsBecomeNAGs() {
        let parser = parse("1. e4! e5?? 2. Nf3!? Nc6?! 3. Bb5!! a6? *")
        XCTAssertEqual(parser.games[0].nodes.filter { $0.kind == .nag }.map(\.value), [1, 4, 5, 6, 3, 2])
    }

    func testMoveNumberForms() {
        let nodes = parse("1.e4 1...e5 2. Nf3 2 ... Nc6 3 Bb5 3… a6 *").games[0].nodes.filter { $0.kind == .moveNumber }
        XCTAssertEqual(nodes.map(\.value), [1, 1, 2, 2, 3, 3])
        XCTAssertEqual(nodes.map(\.isBlack), [false, true, false, true, false, true])
        XCTAssertEqual(codes("1.e4 1...e5 2. Nf3 2 ... Nc6 3 Bb5 3… a6 *", minimum: .warning), [])
    }

    func testGameSplitPointsForStreaming() {
        let text =
            "[Event \"a\"]\n[Site \"b\"]\n\n1. e4 {\n[%clk 0:01:00]} *\n\n[Event \"c\"]\n[Site \"d\"]\n\n1. d4 *\n"
        let bytes = Array(text.utf8)
        let cut = bytes.withUnsafeBufferPointer { PieceCutter.lastGameBoundary($0) }
        XCTAssertEqual(cut, text.utf8.count - "[Event \"c\"]\n[Site \"d\"]\n\n1. d4 *\n".utf8.count)
        let first = Array(bytes[..<cut!])
        XCTAssertNil(first.withUnsafeBufferPointer { PieceCutter.lastGameBoundary($0) })
    }
}
