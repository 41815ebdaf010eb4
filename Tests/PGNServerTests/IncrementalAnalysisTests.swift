import ChessCore
import Foundation
import LanguageServer
import PGN
import PGNServer
import TestSupport
import XCTest

/// After an edit the analyzer parses only the games around it; these tests check that the result
/// is always the reading of the whole new text, over thousands of random edits of real files.
final class IncrementalAnalysisTests: XCTestCase {
    /// A corpus file (see `SharedMaterial`). Files in other encodings are read as an editor would
    /// show them after a UTF-8 decoding.
    static func corpus(_ path: String) throws -> String {
        String(decoding: try SharedMaterial.bytes("corpus/" + path), as: UTF8.self)
    }

    /// Those of `paths` that are there (GPL files only with the shared folder), with their place
    /// in `paths`, which seeds their random edits.
    static func available(_ paths: [String]) -> [(offset: Int, element: String)] {
        paths.enumerated().filter { SharedMaterial.find("corpus/" + $0.element) != nil }
    }

    /// Pieces of PGN an edit inserts, chosen to open and close comments, variations, tags and games.
    static let pieces = [
        "{", "}", "(", ")", "[", "]", "\"", ";", "\n", "\r\n", "\r", " ", "  ", "1", "2", "7", "1-0", "0-1",
        "1/2-1/2", "*", ".", "...", "%", "$1", "$", "!?", "?", "Nf3", "e4", "e5", "O-O", "x", "Q", "a",
        "[Event \"x\"]\n", "[Site \"y\"]", "[Event ", "\n\n", "{ a { b }", "1. e4 ", "2... ", "½-½", "…", "\\",
    ]

    /// 1 to 20 bytes of PGN-ish text.
    static func insertion(_ random: inout SplitMix64) -> String {
        var text = ""
        let length = Int.random(in: 1...20, using: &random)
        while text.utf8.count < length {
            text += pieces.randomElement(using: &random)!
        }
        return text
    }

    /// A random edit of `bytes`, as a content change of `document`: an insertion, a deletion or a
    /// replacement of 1 to 20 bytes, often at a game boundary, a tag or a result.
    static func randomChange(_ document: Document, _ random: inout SplitMix64) -> TextDocumentContentChangeEvent {
        let bytes = document.bytes
        func boundary(_ offset: Int) -> Int {
            var offset = min(max(offset, 0), bytes.count)
            while offset < bytes.count && bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            return offset
        }
        var start = Int.random(in: 0...bytes.count, using: &random)
        switch Int.random(in: 0..<10, using: &random) {
        case 0: start = Int.random(in: 0...min(3, bytes.count), using: &random)
        case 1: start = bytes.count - Int.random(in: 0...min(3, bytes.count), using: &random)
        case 2, 3:
            // Near something that starts or ends a game.
            let interesting: Set<UInt8> = [0x5B, 0x5D, 0x7B, 0x7D, 0x2A, 0x0A, 0x3B, 0x22]
            var k = start
            while k < bytes.count && !interesting.contains(bytes[k]) { k += 1 }
            start = k + Int.random(in: -2...2, using: &random)
        default: break
        }
        start = boundary(start)
        var end = start
        let kind = Int.random(in: 0..<3, using: &random)  // insert, delete, replace
        if kind > 0 { end = boundary(start + Int.random(in: 1...20, using: &random)) }
        let text = kind == 1 ? "" : insertion(&random)
        let range = LSPRange(
            start: document.position(of: start, encoding: .utf8), end: document.position(of: end, encoding: .utf8))
        return TextDocumentContentChangeEvent(range: range, text: text)
    }

    func assertSame(
        _ mine: DocumentAnalysis, _ theirs: DocumentAnalysis, _ what: @autoclosure () -> String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Bool {
        let mineRanges = mine.games.map(\.range)
        let theirRanges = theirs.games.map(\.range)
        if mineRanges != theirRanges {
            let k =
                zip(mineRanges, theirRanges).enumerated().first { $1.0 != $1.1 }?.offset
                ?? min(mineRanges.count, theirRanges.count)
            XCTFail(
                "\(what()): games differ at game \(k): \(mineRanges.dropFirst(k).prefix(3)) instead of "
                    + "\(theirRanges.dropFirst(k).prefix(3)) (\(mineRanges.count) / \(theirRanges.count) games)",
                file: file, line: line)
            return false
        }
        if mine.diagnostics != theirs.diagnostics {
            let k =
                zip(mine.diagnostics, theirs.diagnostics).enumerated().first { $1.0 != $1.1 }?.offset
                ?? min(mine.diagnostics.count, theirs.diagnostics.count)
            XCTFail(
                "\(what()): diagnostics differ at \(k): \(mine.diagnostics.dropFirst(k).prefix(2)) instead of "
                    + "\(theirs.diagnostics.dropFirst(k).prefix(2))",
                file: file, line: line)
            return false
        }
        return true
    }

    enum Mode {
        /// Every edit is read.
        case everyEdit
        /// Several edits (in one or several `didChange`s) before each reading.
        case bursts
        /// Each version is a new document with the same URI, read whole.
        case reopened
    }

    /// Applies `count` random edits to `text` and compares the incremental reading with a reading of
    /// the whole text after each.
    func checkRandomEdits(_ text: String, count: Int, seed: UInt64, mode: Mode, name: String) {
        var random = SplitMix64(seed: seed)
        let incremental = PGNAnalyzer()
        let whole = PGNAnalyzer(incremental: false)
        let uri = "file:///random.pgn"
        var document = Document(uri: uri, version: 1, text: text)
        _ = incremental.analysis(of: document)
        var version = 1
        var edits = 0
        var readings = 0
        var local = 0
        defer {
            // Most readings parse a part of the text only (some edits open a comment to the end).
            print("\(name): \(local) of \(readings) readings were local")
        }
        while edits < count {
            version += 1
            var log: [TextDocumentContentChangeEvent] = []
            switch mode {
            case .everyEdit:
                let change = Self.randomChange(document, &random)
                log.append(change)
                document.apply([change], version: version, encoding: .utf8)
                edits += 1
            case .bursts:
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    var changes: [TextDocumentContentChangeEvent] = []
                    var scratch = document
                    for _ in 0..<Int.random(in: 1...3, using: &random) {
                        let change = Self.randomChange(scratch, &random)
                        scratch.apply([change], version: version, encoding: .utf8)
                        changes.append(change)
                    }
                    log += changes
                    document.apply(changes, version: version, encoding: .utf8)
                    edits += changes.count
                    version += 1
                }
            case .reopened:
                let change = Self.randomChange(document, &random)
                log.append(change)
                document.apply([change], version: version, encoding: .utf8)
                document = Document(uri: uri, version: version, text: document.text)
                edits += 1
            }
            let mine = incremental.analysis(of: document)
            let theirs = whole.analysis(of: document)
            readings += 1
            if mine.parsedBytes < document.bytes.count / 2 { local += 1 }
            let description = "\(name), seed \(seed), edit \(edits), last changes \(log.suffix(3))"
            if !assertSame(mine, theirs, description) { return }
        }
    }

    static let files = [
        "lichess/lichess_db_10k.pgn", "pgn-extract/test-C.pgn", "pgn-extract/nested-comment.pgn",
        "pgn-extract/test-fencomments.pgn", "pgn-extract/test-nagcomments.pgn", "pgn-extract/test-notags.pgn",
        "pgn-extract/test-noresults.pgn", "pgn-extract/fools-mate.pgn", "pgn-extract/test-V.pgn",
        "scid/res_gameUTF8.pgn", "chess-library/multiple.pgn", "chess-library/no_moves_two_games.pgn",
        "chess-library/no_moves_but_game_termination_multiple.pgn", "chess-library/variations.pgn",
        "chess-library/square_bracket_in_header.pgn", "chess-library/corrupted.pgn",
        "chess-library/backslash_header.pgn", "python-chess/utf8-bom.pgn", "python-chess/chessbase-empty-line.pgn",
        "python-chess/antichess-programfox.pgn", "pychess/mate_in_2.pgn", "pgn-lsp/variations-nags.pgn",
        "pgn-lsp/crlf-malformed-tag.pgn", "pgn-lsp/utf8-multibyte.pgn", "pgn-lsp/null-moves.pgn",
        "pgn-lsp/comment-before-tags.pgn", "pgn-lsp/setup-puzzles.pgn", "pgn-lsp/bom.pgn",
    ]

    func testRandomEditsReadAsTheWholeText() throws {
        for (k, path) in Self.available(Self.files) {
            let text = try Self.corpus(path)
            checkRandomEdits(text, count: 300, seed: UInt64(k + 1), mode: .everyEdit, name: path)
        }
    }

    func testRandomEditsWithCarriageReturns() throws {
        for (k, path) in Self.available([
            "lichess/lichess_db_10k.pgn", "chess-library/multiple.pgn", "pgn-extract/test-C.pgn",
            "pgn-lsp/variations-nags.pgn",
        ]) {
            let text = try Self.corpus(path).replacingOccurrences(of: "\n", with: "\r\n")
            checkRandomEdits(text, count: 300, seed: UInt64(100 + k), mode: .everyEdit, name: "\(path) (CRLF)")
        }
    }

    /// A whole text's reading analyses each game without a problem from the syntax its cut
    /// read (`PGNAnalyzer.cutIntoGames`) and keeps its tags and label; that syntax is the one
    /// the game's own text gives (which `GameAnalysis.syntax` reads again), and a game with a
    /// problem is read on its own: every game's tags, label and diagnostics are those of its
    /// text, in corpus files, in pieces of several megabytes and after random edits.
    func testEachGameHasTheSyntaxOfItsOwnText() throws {
        func check(_ text: String, _ name: String) {
            let document = Document(uri: "file:///cut.pgn", version: 1, text: text)
            let analysis = PGNAnalyzer(incremental: false).analysis(of: document)
            for (k, game) in analysis.games.enumerated() {
                let own = Array(document.bytes[game.range])
                let parser = own.withUnsafeBufferPointer { Parser($0) }
                let expected = parser.games.first ?? GameSyntax(range: 0..<own.count)
                let syntax = game.analysis.syntax
                guard
                    syntax.range == expected.range && syntax.tags == expected.tags && syntax.nodes == expected.nodes
                        && syntax.resultIndex == expected.resultIndex && game.analysis.tags == expected.tags
                        && game.analysis.label == expected.label
                else { return XCTFail("\(name): game \(k) at \(game.start) is read otherwise on its own") }
                let alone = PGNAnalyzer(incremental: false).analysis(
                    of: Document(uri: "file:///game.pgn", version: 1, bytes: own))
                guard alone.games.count == 1 else { continue }
                XCTAssertEqual(
                    game.analysis.diagnostics, alone.games[0].analysis.diagnostics, "\(name): game \(k)")
            }
        }
        var random = SplitMix64(seed: 500)
        for path in Self.available(Self.files).map(\.element) {
            let text = try Self.corpus(path)
            check(text, path)
            var document = Document(uri: "file:///edited.pgn", version: 1, text: text)
            for version in 2..<40 {
                document.apply([Self.randomChange(document, &random)], version: version, encoding: .utf8)
            }
            check(document.text, path + " (edited)")
        }
        // Pieces of several megabytes, read on every core.
        if let file = Self.available(["lichess/lichess_db_1000k.pgn"]).first {
            check(String(repeating: try Self.corpus(file.element), count: 5), "five copies of 1 MB")
        }
    }

    func testBurstsOfEditsReadOnce() throws {
        for (k, path) in Self.available(Self.files).prefix(8) {
            let text = try Self.corpus(path)
            checkRandomEdits(text, count: 300, seed: UInt64(200 + k), mode: .bursts, name: path)
        }
    }

    func testReopenedDocumentsAreReadWhole() throws {
        for (k, path) in Self.available(Self.files).prefix(4) {
            let text = try Self.corpus(path)
            checkRandomEdits(text, count: 150, seed: UInt64(300 + k), mode: .reopened, name: path)
        }
    }

    func testManyEditsOfALargerFile() throws {
        let text = try Self.corpus("lichess/lichess_db_100k.pgn")
        checkRandomEdits(text, count: 1000, seed: 400, mode: .everyEdit, name: "lichess_db_100k.pgn")
    }

    /// A collection of 1,802 games with CRLF line ends (no stated licence): with the shared folder only.
    func testManyEditsOfALargeCollection() throws {
        let collection = try Self.corpus("collections/Malakhov.pgn")
        checkRandomEdits(collection, count: 300, seed: 401, mode: .everyEdit, name: "Malakhov.pgn")
    }

    /// Small texts where every edit is at a game boundary or inside the few games there are.
    func testRandomEditsOfTinyTexts() {
        let texts = [
            "", "*", "1-0", "[Event \"a\"]\n[Event \"b\"]\n", "1. e4 e5 1-0 2. d4 *",
            "[Event \"a\"]\n\n1. e4 {x} 1-0\n\n[Event \"b\"]\n\n1. d4 (1. c4) *\n",
            "{ a { b } c\n[Event \"a\"]\n1. e4 *\n[Event \"b\"]\n1. d4 } *\n",
            "; x\n[Event \"a\"]\n1. e4 *\n%esc\n[Event \"b\"]\n1. d4 *\n[Event \"c\"]\n\n1. c4 0-1",
        ]
        for (k, text) in texts.enumerated() {
            checkRandomEdits(text + text + text, count: 500, seed: UInt64(500 + k), mode: .everyEdit, name: "tiny \(k)")
        }
    }

    /// Texts where games start in every way (a tag after movetext, a tag a game already has, a
    /// result followed by movetext), with text between games, and every single edit of them: each
    /// piece inserted at each offset, and one to four bytes deleted at each offset.
    func testEverySingleEditOfSmallTexts() {
        let texts = [
            "[WhiteElo \"1\"]\n[WhiteElo \"2\"]\n[WhiteElo \"3\"]\n[BlackElo \"4\"]\n[WhiteElo \"5\"]\n",
            "[Event \"a\"]\n\n1. e4 {x} 1-0\n{between} ; line\n[Event \"b\"]\n1. d4 (1. c4 e5) d5 *\n"
                + "%escape\n[Event \"c\"]\n\n1. Nf3 0-1 2. g3 1/2-1/2 e4 [Site \"s\"] 1. a3 *",
            "{ a { b } c\n[Event \"a\"]\n1. e4 *\n[Event \"b\"]\n1. d4 } * \"str\" ] ) 1. e4 e5 2. Nf3 *",
            "[Event \"a\"]\r\n[Site \"b\"]\r\n\r\n1.e4 e5 2.Nf3 Nc6 1-0\r\n\r\n[Event \"c\"]\r\n\r\n1.d4 ½-½\r\n"
                + "[Event \"d\"]\r\n1... e5 12… Nf6 exd6e.p. $12 !? *",
        ]
        var edits = 0
        for (k, text) in texts.enumerated() {
            let base = Document(uri: "file:///small\(k).pgn", version: 1, text: text)
            let count = base.bytes.count
            let whole = PGNAnalyzer(incremental: false)
            for offset in 0...count where offset == count || base.bytes[offset] & 0xC0 != 0x80 {
                var changes: [(Int, Int, String)] = Self.pieces.map { (offset, offset, $0) }
                for length in 1...4 where offset + length <= count {
                    changes.append((offset, offset + length, ""))
                    changes.append((offset, offset + length, "a"))
                }
                for (start, end, text) in changes {
                    guard end == count || base.bytes[end] & 0xC0 != 0x80 else { continue }
                    let analyzer = PGNAnalyzer()
                    _ = analyzer.analysis(of: base)
                    var document = base
                    let range = LSPRange(
                        start: base.position(of: start, encoding: .utf8), end: base.position(of: end, encoding: .utf8))
                    document.apply(
                        [TextDocumentContentChangeEvent(range: range, text: text)], version: 2, encoding: .utf8)
                    edits += 1
                    let description = "text \(k): \(start)..<\(end) replaced by \(text.debugDescription)"
                    if !assertSame(analyzer.analysis(of: document), whole.analysis(of: document), description) {
                        return
                    }
                }
            }
        }
        print("\(edits) single edits")
        XCTAssertGreaterThan(edits, 10_000)
    }

    /// One character changed in the middle of 1 MB: a few games are parsed, not the document.
    func testAnEditParsesOnlyTheGamesAroundIt() throws {
        let text = try Self.corpus("lichess/lichess_db_1000k.pgn")
        let analyzer = PGNAnalyzer()
        var document = Document(uri: "file:///big.pgn", version: 1, text: text)
        let first = analyzer.analysis(of: document)
        XCTAssertEqual(first.parsedBytes, document.bytes.count)
        // `Nc6` in a game in the middle becomes `Nc5`, which cannot be played.
        let needle = Array(" Nc6 ".utf8)
        var move = document.bytes.count / 2
        while !document.bytes[move...].starts(with: needle) { move += 1 }
        move += 1
        XCTAssertEqual(Array(document.bytes[move..<move + 3]), Array("Nc6".utf8))
        let position = document.position(of: move, encoding: .utf8)
        let range = LSPRange(
            start: LSPPosition(line: position.line, character: position.character + 2),
            end: LSPPosition(line: position.line, character: position.character + 3))
        document.apply([TextDocumentContentChangeEvent(range: range, text: "5")], version: 2, encoding: .utf8)
        let second = analyzer.analysis(of: document)
        XCTAssertEqual(second.games.count, first.games.count)
        let averageGame = document.bytes.count / first.games.count
        XCTAssertLessThan(second.parsedBytes, 5 * averageGame, "bytes parsed after a one-character edit")
        XCTAssertGreaterThan(second.parsedBytes, 0)
        XCTAssertTrue(second.diagnostics.contains { $0.severity == .error && $0.range.lowerBound == move })
        // And the games away from the edit are the same objects.
        XCTAssertTrue(first.games[0].analysis === second.games[0].analysis)
        XCTAssertTrue(first.games[first.games.count - 1].analysis === second.games[second.games.count - 1].analysis)
        // An edit that opens a comment reads on until the comment closes; closing it again is local.
        document.apply(
            [TextDocumentContentChangeEvent(range: LSPRange(start: position, end: position), text: "{")], version: 3,
            encoding: .utf8)
        let opened = analyzer.analysis(of: document)
        XCTAssertTrue(
            assertSame(opened, PGNAnalyzer(incremental: false).analysis(of: document), "after an unclosed '{'"))
        document.apply(
            [
                TextDocumentContentChangeEvent(
                    range: LSPRange(start: position, end: document.position(of: move + 1, encoding: .utf8)), text: "")
            ],
            version: 4, encoding: .utf8)
        let closed = analyzer.analysis(of: document)
        XCTAssertTrue(
            assertSame(closed, PGNAnalyzer(incremental: false).analysis(of: document), "after removing the '{'"))
    }

    /// A request may read a version that a later edit already replaced: it is read from an
    /// earlier analysis, and the later version stays the current one.
    func testAnOlderVersionIsReadFromAnEarlierAnalysis() throws {
        let text = try Self.corpus("lichess/lichess_db_100k.pgn")
        let analyzer = PGNAnalyzer()
        let whole = PGNAnalyzer(incremental: false)
        var document = Document(uri: "file:///a.pgn", version: 1, text: text)
        _ = analyzer.analysis(of: document)
        func edited(_ document: Document, at offset: Int, _ text: String, version: Int) -> Document {
            var document = document
            let position = document.position(of: offset, encoding: .utf8)
            document.apply(
                [TextDocumentContentChangeEvent(range: LSPRange(start: position, end: position), text: text)],
                version: version, encoding: .utf8)
            return document
        }
        let second = edited(document, at: text.utf8.count / 3, "{", version: 2)
        let third = edited(second, at: text.utf8.count / 3 + 1, "}", version: 3)
        let newest = analyzer.analysis(of: third)
        XCTAssertTrue(assertSame(newest, whole.analysis(of: third), "the third version"))
        XCTAssertLessThan(newest.parsedBytes, 20_000)
        let older = analyzer.analysis(of: second)
        XCTAssertTrue(assertSame(older, whole.analysis(of: second), "the second version, read after the third"))
        XCTAssertEqual(older.version, 2)
        XCTAssertLessThan(older.parsedBytes, 20_000, "read from the first version's analysis")
        document = edited(third, at: 10, " ", version: 4)
        let fourth = analyzer.analysis(of: document)
        XCTAssertTrue(assertSame(fourth, whole.analysis(of: document), "the fourth version"))
        XCTAssertLessThan(fourth.parsedBytes, 20_000, "read from the third version's analysis")
        XCTAssertEqual(analyzer.all.map(\.version), [4])
    }

    func testCombinedEditsDescribeTheWholeChange() {
        var random = SplitMix64(seed: 9)
        for _ in 0..<2000 {
            var text = (0..<Int.random(in: 0...30, using: &random)).map { _ in
                UInt8.random(in: 97...100, using: &random)
            }
            let original = text
            var edits: [AppliedEdit] = []
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let a = Int.random(in: 0...text.count, using: &random)
                let b = Int.random(in: a...text.count, using: &random)
                let inserted = (0..<Int.random(in: 0...4, using: &random)).map { _ in UInt8(120) }
                text.replaceSubrange(a..<b, with: inserted)
                edits.append(AppliedEdit(replacedRange: a..<b, insertedLength: inserted.count))
            }
            let combined = AppliedEdit.combining(edits)!
            XCTAssertEqual(original.count + combined.delta, text.count)
            XCTAssertEqual(
                Array(original[..<combined.replacedRange.lowerBound]), Array(text[..<combined.replacedRange.lowerBound])
            )
            XCTAssertEqual(
                Array(original[combined.replacedRange.upperBound...]),
                Array(text[combined.insertedRange.upperBound...]))
        }
    }
}
