import PGN
import XCTest

/// Hostile input gets diagnostics, never a crash, a hang or a stack overflow.
final class RobustnessTests: XCTestCase {
    func testHundredThousandNestedVariations() {
        let text = "[Event \"deep\"]\n\n1. e4 " + String(repeating: "(", count: 100_000) + "1. d4 *"
        let report = check(text)
        XCTAssertEqual(report.games, 1)
        XCTAssertTrue(report.diagnostics.contains { $0.message.contains("never closed") })
        let closed =
            "1. e4 " + String(repeating: "(1. d4 ", count: 50_000) + String(repeating: ")", count: 50_000) + " *"
        XCTAssertEqual(check(closed).diagnostics.filter { $0.severity == .error }.count, 0)
    }

    /// A tag a game already has starts the next game (header-only games), whether the game has
    /// a few tags, a TWIC game's seventeen, or more than the parser compares one by one.
    func testARepeatedTagStartsTheNextGameAtEveryNumberOfTags() {
        for count in [1, 15, 16, 17, 20, 63, 64, 65, 200] {
            let header = (0..<count).map { "[Tag\($0) \"v\"]\n" }.joined()
            let bytes = Array((header + header + header + "\n1. e4 *\n").utf8)
            let parser = bytes.withUnsafeBufferPointer { Parser($0) }
            XCTAssertEqual(parser.games.count, 3, "\(count) tags")
            XCTAssertEqual(parser.games.map(\.tags.count), [count, count, count], "\(count) tags")
        }
    }

    func testFiftyMegabyteLineWithoutNewline() {
        var text = "[Event \"long\"] 1. e4 e5 2. "
        text += String(repeating: "a", count: 25_000_000)
        text += " {" + String(repeating: "x", count: 25_000_000) + "} *"
        let report = check(text)
        XCTAssertEqual(report.games, 1)
        // A word of 25 million letters is no move: a note, quoted short, with no fix that would
        // copy it.
        let note = report.diagnostics.first { $0.code == .movetextNote }
        XCTAssertNotNil(note)
        XCTAssertLessThan(note?.message.count ?? .max, 120, "messages quote at most 40 characters of a token")
        XCTAssertEqual(note?.fixes.count, 0)
    }

    func testTruncatedGameAtEveryOffset() {
        let game = """
            [Event "Truncation"]
            [Site "?"]
            [Date "2026.11.22"]
            [Round "1"]
            [White "A"]
            [Black "B"]
            [Result "1-0"]

            1. e4 {[%clk 0:05:00]} e5 2. Nf3 $1 (2. f4 exf4 3. Nf3) 2... Nc6 3. Bb5 a6 ; Ruy Lopez
            4. Ba4 Nf6 5. O-O Be7 1-0
            """
        let bytes = Array(game.utf8)
        for length in 1..<bytes.count {
            let report = Checker.check(SourceText(Array(bytes[..<length])))
            XCTAssertFalse(report.diagnostics.filter { $0.severity <= .warning }.isEmpty, "prefix of \(length) bytes")
        }
        XCTAssertTrue(Checker.check(SourceText(bytes)).diagnostics.isEmpty)
    }

    func testEmptyAndWhitespaceOnlyTexts() {
        XCTAssertEqual(check("").games, 0)
        XCTAssertEqual(check("\n\n  \r\n").games, 0)
        XCTAssertEqual(check("%escaped line\n; comment only\n").games, 0)
    }
}
