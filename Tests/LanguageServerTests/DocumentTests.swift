import LanguageServer
import XCTest

final class DocumentTests: XCTestCase {
    // Line 0 in bytes: a0 é1 ␠3 Ж4 日6 本9 😀12 b16, end 17; in UTF-16 units: a0 é1 ␠2 Ж3 日4 本5 😀6 b8, end 9.
    let text = "aé Ж日本😀b\r\nsecond\rthird\n"

    func testLinesEndAtLineFeedCarriageReturnOrBoth() {
        let document = Document(uri: "file:///a.pgn", version: 1, text: text)
        XCTAssertEqual(document.lineIndex.lineStarts, [0, 19, 26, 32])
        XCTAssertEqual(document.line(0).map { String(decoding: $0, as: UTF8.self) }, "aé Ж日本😀b")
        XCTAssertEqual(document.line(1).map { String(decoding: $0, as: UTF8.self) }, "second")
        XCTAssertEqual(document.line(2).map { String(decoding: $0, as: UTF8.self) }, "third")
        XCTAssertEqual(document.line(3).map(Array.init), [])
        XCTAssertNil(document.line(4))
    }

    func testLineStartsOfLongTextsAreFoundAtEveryPlaceOfAWord() {
        // Line breaks are looked for eight bytes at a time.
        for length in 0..<20 {
            let line = String(repeating: "x", count: length)
            let text = [line, "\r\n", line, "\r", line, "\n", line, "\n\n", line, "\r"].joined()
            let bytes = Array(text.utf8)
            var expected = [0]
            for (index, byte) in bytes.enumerated()
            where byte == 0x0A || (byte == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A)) {
                expected.append(index + 1)
            }
            XCTAssertEqual(Document(uri: "file:///a.pgn", version: 1, text: text).lineIndex.lineStarts, expected)
        }
    }

    /// A text of megabytes is indexed on two cores (line starts beside wide characters): the
    /// same index as a short text's, line by line.
    func testLargeTextsAreIndexedAsSmallOnes() {
        let copies = (4 << 20) / text.utf8.count + 1
        let large = Document(uri: "file:///a.pgn", version: 1, text: String(repeating: text, count: copies))
        let small = Document(uri: "file:///a.pgn", version: 1, text: text)
        XCTAssertEqual(large.lineCount, 3 * copies + 1)
        let length = text.utf8.count
        for copy in [0, 1, copies / 2, copies - 1] {
            for line in 0..<3 {
                XCTAssertEqual(
                    large.lineIndex.lineStarts[3 * copy + line], copy * length + small.lineIndex.lineStarts[line])
            }
            for offset in 0..<length {
                for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
                    let expected = small.position(of: offset, encoding: encoding)
                    let position = large.position(of: copy * length + offset, encoding: encoding)
                    XCTAssertEqual(position, LSPPosition(line: 3 * copy + expected.line, character: expected.character))
                    XCTAssertEqual(
                        large.offset(of: position, encoding: encoding),
                        copy * length + small.offset(of: expected, encoding: encoding))
                }
            }
        }
    }

    func testUTF16PositionsCountSurrogatePairsAsTwo() {
        let document = Document(uri: "file:///a.pgn", version: 1, text: text)
        let expected = [(0, 0), (1, 1), (2, 3), (3, 4), (4, 6), (5, 9), (6, 12), (8, 16), (9, 17)]
        for (character, offset) in expected {
            let position = LSPPosition(line: 0, character: character)
            XCTAssertEqual(document.offset(of: position, encoding: .utf16), offset, "\(position)")
            XCTAssertEqual(document.position(of: offset, encoding: .utf16), position, "\(offset)")
        }
        XCTAssertEqual(document.offset(of: LSPPosition(line: 1, character: 3), encoding: .utf16), 22)
        XCTAssertEqual(document.position(of: 22, encoding: .utf16), LSPPosition(line: 1, character: 3))
    }

    func testUTF8PositionsAreByteOffsetsInTheLine() {
        let document = Document(uri: "file:///a.pgn", version: 1, text: text)
        for offset in [0, 1, 3, 4, 6, 9, 12, 16, 17] {
            let position = LSPPosition(line: 0, character: offset)
            XCTAssertEqual(document.offset(of: position, encoding: .utf8), offset)
            XCTAssertEqual(document.position(of: offset, encoding: .utf8), position)
        }
        XCTAssertEqual(document.offset(of: LSPPosition(line: 2, character: 2), encoding: .utf8), 28)
    }

    func testUTF32PositionsCountScalars() {
        let document = Document(uri: "file:///a.pgn", version: 1, text: text)
        XCTAssertEqual(document.offset(of: LSPPosition(line: 0, character: 7), encoding: .utf32), 16)
        XCTAssertEqual(document.position(of: 16, encoding: .utf32), LSPPosition(line: 0, character: 7))
    }

    func testPositionsOutOfRangeAreClamped() {
        let document = Document(uri: "file:///a.pgn", version: 1, text: text)
        // Past the end of a line: the end of the line, before its terminator.
        XCTAssertEqual(document.offset(of: LSPPosition(line: 0, character: 100), encoding: .utf16), 17)
        XCTAssertEqual(document.offset(of: LSPPosition(line: 1, character: 7), encoding: .utf8), 25)
        // Past the last line: the end of the document.
        XCTAssertEqual(document.offset(of: LSPPosition(line: 9, character: 0), encoding: .utf16), 32)
        XCTAssertEqual(document.offset(of: LSPPosition(line: -1, character: 5), encoding: .utf16), 0)
        // Inside a character: its start.
        XCTAssertEqual(document.offset(of: LSPPosition(line: 0, character: 7), encoding: .utf16), 12)
        XCTAssertEqual(document.offset(of: LSPPosition(line: 0, character: 14), encoding: .utf8), 12)
        XCTAssertEqual(document.offset(of: LSPPosition(line: 0, character: 2), encoding: .utf8), 1)
        // Offsets: inside a terminator is the end of its line; past the end is the end.
        XCTAssertEqual(document.position(of: 18, encoding: .utf16), LSPPosition(line: 0, character: 9))
        XCTAssertEqual(document.position(of: 1000, encoding: .utf16), LSPPosition(line: 3, character: 0))
        XCTAssertEqual(document.position(of: 13, encoding: .utf16), LSPPosition(line: 0, character: 6))
    }

    func testIncrementalEditsInUTF16() {
        var document = Document(uri: "file:///a.pgn", version: 1, text: "aé Ж日本😀b\nline two")
        let replace = document.apply(
            TextDocumentContentChangeEvent(range: LSPRange(0, 3, 0, 4), text: "Д"), encoding: .utf16)
        XCTAssertEqual(replace, AppliedEdit(replacedRange: 4..<6, insertedLength: 2))
        let insert = document.apply(
            TextDocumentContentChangeEvent(range: LSPRange(0, 8, 0, 8), text: "♞"), encoding: .utf16)
        XCTAssertEqual(insert, AppliedEdit(replacedRange: 16..<16, insertedLength: 3))
        XCTAssertEqual(document.text, "aé Д日本😀♞b\nline two")
        let delete = document.apply(
            TextDocumentContentChangeEvent(range: LSPRange(0, 6, 0, 8), text: ""), encoding: .utf16)
        XCTAssertEqual(delete, AppliedEdit(replacedRange: 12..<16, insertedLength: 0))
        XCTAssertEqual(delete.delta, -4)
        XCTAssertEqual(document.text, "aé Д日本♞b\nline two")
        document.apply(
            TextDocumentContentChangeEvent(range: LSPRange(0, 7, 1, 4), text: "!\nnew\r\n"), encoding: .utf16)
        XCTAssertEqual(document.text, "aé Д日本♞!\nnew\r\n two")
        XCTAssertEqual(document.lineIndex, LineIndex(document.bytes))
        XCTAssertEqual(document.lineCount, 3)
    }

    func testIncrementalEditsInUTF8() {
        var document = Document(uri: "file:///a.pgn", version: 1, text: "aé Ж日本😀b\nline two")
        document.apply(TextDocumentContentChangeEvent(range: LSPRange(0, 4, 0, 6), text: "Д"), encoding: .utf8)
        document.apply(TextDocumentContentChangeEvent(range: LSPRange(0, 16, 0, 16), text: "♞"), encoding: .utf8)
        XCTAssertEqual(document.text, "aé Д日本😀♞b\nline two")
        let delete = document.apply(
            TextDocumentContentChangeEvent(range: LSPRange(0, 12, 0, 16), text: ""), encoding: .utf8)
        XCTAssertEqual(delete, AppliedEdit(replacedRange: 12..<16, insertedLength: 0))
        XCTAssertEqual(document.text, "aé Д日本♞b\nline two")
    }

    func testFullTextChangeReplacesEverything() {
        var document = Document(uri: "file:///a.pgn", version: 1, text: "old\ntext")
        let edits = document.apply([TextDocumentContentChangeEvent(text: "日本\n")], version: 2, encoding: .utf16)
        XCTAssertEqual(edits, [AppliedEdit(replacedRange: 0..<8, insertedLength: 7)])
        XCTAssertEqual(document.text, "日本\n")
        XCTAssertEqual(document.version, 2)
        XCTAssertEqual(document.lineIndex.lineStarts, [0, 7])
    }

    func testChangesOfOneNotificationApplyInOrder() {
        var document = Document(uri: "file:///a.pgn", version: 1, text: "1. e4 e5")
        let edits = document.apply(
            [
                TextDocumentContentChangeEvent(range: LSPRange(0, 8, 0, 8), text: " 2. Nf3"),
                TextDocumentContentChangeEvent(range: LSPRange(0, 15, 0, 15), text: " Nc6"),
                TextDocumentContentChangeEvent(range: LSPRange(0, 0, 0, 0), text: "[Event \"?\"]\n\n"),
            ], version: 4, encoding: .utf16)
        XCTAssertEqual(document.text, "[Event \"?\"]\n\n1. e4 e5 2. Nf3 Nc6")
        XCTAssertEqual(edits.map(\.replacedRange), [8..<8, 15..<15, 0..<0])
        XCTAssertEqual(document.version, 4)
    }

    func testEditsJoiningOrSplittingCarriageReturnLineFeed() {
        var document = Document(uri: "file:///a.pgn", version: 1, text: "a\rb")
        // Inserting \n right after \r makes one terminator.
        document.apply(TextDocumentContentChangeEvent(range: LSPRange(1, 0, 1, 0), text: "\n"), encoding: .utf16)
        XCTAssertEqual(document.lineIndex, LineIndex(document.bytes))
        XCTAssertEqual(document.lineCount, 2)
        // Splitting \r\n in two makes two.
        let middle = Document(uri: "u", version: 1, text: "a\r\nb").offset(
            of: LSPPosition(line: 0, character: 1), encoding: .utf8)
        XCTAssertEqual(middle, 1)
        var split = Document(uri: "u", version: 1, text: "a\r\nb")
        split.apply(TextDocumentContentChangeEvent(range: LSPRange(0, 1, 0, 1), text: "x"), encoding: .utf8)
        XCTAssertEqual(split.text, "ax\r\nb")
        var broken = Document(uri: "u", version: 1, text: "a\r\nb")
        broken.apply([TextDocumentContentChangeEvent(text: "a\rx\nb")], version: 2, encoding: .utf8)
        XCTAssertEqual(broken.lineCount, 3)
    }

    /// Random edits in every encoding: the text matches an independent computation and the incrementally
    /// kept line index matches one built from scratch.
    func testRandomEditsKeepTheLineIndexExact() {
        var generator = SeededGenerator(seed: 0x5EED)
        let pieces = ["a", "é", "Ж", "日", "😀", "\n", "\r", "\r\n", " ", "e4"]
        func randomText(_ maximum: Int) -> String { self.randomText(of: pieces, upTo: maximum, using: &generator) }
        for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
            var text = randomText(30)
            var document = Document(uri: "u", version: 0, text: text)
            for step in 1...400 {
                let (start, end) = randomPlaces(document, lines: 1, characters: 12, &generator)
                checkEdit(&document, &text, start, end, inserted: randomText(6), encoding, "\(encoding) step \(step)")
            }
        }
    }

    /// The same in a document of several pieces (`DocumentText`), with edits that cross pieces
    /// and insertions that make a piece too large.
    func testRandomEditsOfALargeDocumentKeepItsTextAndLineIndexExact() {
        var generator = SeededGenerator(seed: 0xB16)
        let pieces = ["a", "é", "Ж", "日", "😀", "\n", "\r\n", " ", "e4 e5 Nf3"]
        func randomText(_ count: Int) -> String {
            (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
        var text = randomText(60_000)
        var document = Document(uri: "u", version: 0, text: text)
        for step in 1...60 {
            let (start, end) = randomPlaces(document, lines: step % 5 == 0 ? 20_000 : 0, characters: 6, &generator)
            checkEdit(
                &document, &text, start, end, inserted: randomText(step % 4 == 0 ? 25_000 : 3), .utf16, "step \(step)")
        }
    }

    /// A random place in `document`, and one up to `lines` lines after it.
    private func randomPlaces(
        _ document: Document, lines: Int, characters: Int, _ generator: inout SeededGenerator
    ) -> (LSPPosition, LSPPosition) {
        let start = LSPPosition(
            line: Int.random(in: 0...document.lineCount, using: &generator),
            character: Int.random(in: 0...characters, using: &generator))
        let end = LSPPosition(
            line: start.line + Int.random(in: 0...lines, using: &generator),
            character: Int.random(in: 0...characters, using: &generator))
        return (start, end)
    }

    /// Replaces `start..<end` of `document` and of `text` (computed apart, scalar by scalar) with
    /// `inserted`, and checks that the document has the same text and a line index as exact as
    /// one made from scratch.
    private func checkEdit(
        _ document: inout Document, _ text: inout String, _ start: LSPPosition, _ end: LSPPosition,
        inserted: String, _ encoding: PositionEncoding, _ step: String
    ) {
        let low = referenceOffset(text, start, encoding)
        let high = max(low, referenceOffset(text, end, encoding))
        var bytes = Array(text.utf8)
        bytes.replaceSubrange(low..<high, with: Array(inserted.utf8))
        text = String(decoding: bytes, as: UTF8.self)
        let edit = document.apply(
            TextDocumentContentChangeEvent(range: LSPRange(start: start, end: max(start, end)), text: inserted),
            encoding: encoding)
        XCTAssertEqual(edit, AppliedEdit(replacedRange: low..<high, insertedLength: inserted.utf8.count), step)
        XCTAssertEqual(document.bytes, bytes, step)
        XCTAssertEqual(document.lineIndex, LineIndex(bytes), step)
    }

    func testEveryOffsetAndColumnAgreeWithAWalkAlongTheLine() {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        let pieces = ["a", "é", "Ж", "日", "😀", "\n", "\r\n", " ", "e4", "\u{0}"]
        for round in 0..<40 {
            let text = randomText(of: pieces, upTo: 60, using: &generator)
            var document = Document(uri: "u", version: 0, text: "x")
            document.apply([TextDocumentContentChangeEvent(range: nil, text: "")], version: 1, encoding: .utf16)
            document.apply(
                [TextDocumentContentChangeEvent(range: LSPRange(0, 0, 0, 0), text: text)], version: 2, encoding: .utf16)
            XCTAssertEqual(document.lineIndex, LineIndex(document.bytes))
            for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
                for line in 0..<document.lineCount {
                    for character in 0...14 {
                        let position = LSPPosition(line: line, character: character)
                        let offset = document.offset(of: position, encoding: encoding)
                        XCTAssertEqual(offset, referenceOffset(text, position, encoding), "round \(round) \(position)")
                        let back = document.position(of: offset, encoding: encoding)
                        XCTAssertEqual(referenceOffset(text, back, encoding), offset, "round \(round) \(position)")
                        XCTAssertLessThanOrEqual(back, position)
                    }
                }
            }
        }
    }

    func testEveryByteOffsetHasThePositionOfItsCharacter() {
        var generator = SeededGenerator(seed: 0xFACADE)
        let pieces = ["a", "é", "Ж", "日", "😀", "\n", "\r\n", "\r", " ", "e4"]
        for round in 0..<40 {
            let text = randomText(of: pieces, upTo: 60, using: &generator)
            let document = Document(uri: "u", version: 0, text: text)
            for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
                // Each byte's position, scalar by scalar: a byte inside a character is at its
                // start, a byte of a line's terminator at the line's end.
                var expected: [LSPPosition] = []
                var (line, column) = (0, 0)
                var scalars = Array(text.unicodeScalars)[...]
                while let scalar = scalars.popFirst() {
                    let here = LSPPosition(line: line, character: column)
                    if scalar == "\r" && scalars.first == "\n" {
                        scalars.removeFirst()
                        expected += [here, here]
                    } else {
                        expected += Array(repeating: here, count: scalar.utf8.count)
                    }
                    if scalar == "\n" || scalar == "\r" {
                        (line, column) = (line + 1, 0)
                    } else {
                        column += encoding == .utf8 ? scalar.utf8.count : encoding == .utf16 ? scalar.utf16.count : 1
                    }
                }
                expected.append(LSPPosition(line: line, character: column))
                var from = 0
                for (offset, position) in expected.enumerated() {
                    XCTAssertEqual(
                        document.position(of: offset, encoding: encoding), position, "round \(round) \(offset)")
                    XCTAssertEqual(
                        document.position(of: offset, encoding: encoding, fromLine: &from), position,
                        "round \(round) \(offset)")
                }
            }
        }
    }

    func testOnlyLineBreaksAreToldByTheLineStarts() {
        var generator = SeededGenerator(seed: 0xB1A4C)
        let pieces = ["\n", "\r\n", "\r", "\n\n", " ", "{", "e4", "é"]
        for round in 0..<60 {
            let text = randomText(of: pieces, upTo: 30, using: &generator)
            let document = Document(uri: "u", version: 0, text: text)
            let bytes = Array(text.utf8)
            // A byte ends a line when it is `\n`, or `\r` not followed by `\n`.
            func endsLine(_ k: Int) -> Bool {
                bytes[k] == 0x0A || (bytes[k] == 0x0D && (k + 1 == bytes.count || bytes[k + 1] != 0x0A))
            }
            for low in 0...bytes.count {
                for high in low...min(bytes.count, low + 4) {
                    let expected = (low..<high).allSatisfy(endsLine)
                    for hint in [0, document.position(of: low, encoding: .utf8).line] {
                        var line = hint
                        XCTAssertEqual(
                            document.holdsOnlyLineBreaks(low..<high, fromLine: &line), expected,
                            "round \(round) \(low)..<\(high) from line \(hint)")
                        if expected && high > low {
                            XCTAssertEqual(line, document.position(of: high, encoding: .utf8).line)
                        }
                    }
                }
            }
        }
    }

    func testBytesOfShortRangesInOrderAreFoundInAnEditedText() {
        var generator = SeededGenerator(seed: 0x5EED)
        // Over 64 KB, edited: the text is in pieces, and ranges cross from one to the next.
        var bytes = Array(repeating: UInt8(ascii: "a"), count: 200_000)
        for _ in 0..<300 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8(ascii: "{") }
        var text = DocumentText(bytes)
        text.replace(100..<101, with: [UInt8(ascii: "b")])
        bytes[100] = UInt8(ascii: "b")
        var piece = 0
        var offset = 0
        while offset < bytes.count {
            let range = offset..<min(bytes.count, offset + Int.random(in: 0...700, using: &generator))
            XCTAssertEqual(
                text.contains(in: range, piece: &piece, where: { $0 == UInt8(ascii: "{") }),
                bytes[range].contains(UInt8(ascii: "{")), "\(range)")
            offset = range.upperBound + Int.random(in: 0...90_000, using: &generator)
        }
    }

    /// Up to `count` of `pieces` one after another, drawn at random.
    func randomText(of pieces: [String], upTo count: Int, using generator: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...count, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            .joined()
    }

    /// Positions to offsets computed scalar by scalar, independently of `LineIndex`.
    func referenceOffset(_ text: String, _ position: LSPPosition, _ encoding: PositionEncoding) -> Int {
        let scalars = Array(text.unicodeScalars)
        var line = 0
        var column = 0
        var byte = 0
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if line == position.line {
                if scalar == "\n" || scalar == "\r" { return byte }
                let width: Int
                switch encoding {
                case .utf8: width = scalar.utf8.count
                case .utf16: width = scalar.utf16.count
                case .utf32: width = 1
                }
                if column + width > position.character { return byte }
                column += width
            }
            byte += scalar.utf8.count
            index += 1
            if scalar == "\r", index < scalars.count, scalars[index] == "\n" {
                byte += 1
                index += 1
            }
            if scalar == "\n" || scalar == "\r" {
                line += 1
                column = 0
            }
        }
        return byte
    }

    func testStoreOpensChangesAndCloses() throws {
        var store = DocumentStore()
        let opened = store.open(TextDocumentItem(uri: "file:///a.pgn", languageId: "pgn", version: 1, text: "1. e4"))
        let document = try store.change(
            DidChangeTextDocumentParams(
                textDocument: VersionedTextDocumentIdentifier(uri: "file:///a.pgn", version: 2),
                contentChanges: [TextDocumentContentChangeEvent(range: LSPRange(0, 5, 0, 5), text: " e5")]),
            encoding: .utf16)
        XCTAssertEqual(document.text, "1. e4 e5")
        XCTAssertEqual(
            document.history.edits(since: opened.history.stamp), [AppliedEdit(replacedRange: 5..<5, insertedLength: 3)])
        XCTAssertEqual(store["file:///a.pgn"]?.version, 2)
        XCTAssertEqual(try store.close("file:///a.pgn").text, "1. e4 e5")
        XCTAssertNil(store["file:///a.pgn"])
        XCTAssertThrowsError(try store.close("file:///a.pgn"))
    }
}

/// A small deterministic generator (SplitMix64), so that random tests are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Positions asked in increasing order from the previous answer's line are those asked alone,
    /// also when an offset goes back.
    func testPositionsFromThePreviousLineAreThePositions() {
        let text = String(repeating: "aé Ж日本😀b\r\nsecond\rthird\n\n", count: 50)
        let document = Document(uri: "file:///a.pgn", version: 1, text: text)
        for encoding in [PositionEncoding.utf8, .utf16, .utf32] {
            var line = 0
            for offset in Array(stride(from: 0, through: document.bytes.count + 2, by: 3)) + [40, 7, 0, 900] {
                let alone = document.position(of: offset, encoding: encoding)
                XCTAssertEqual(document.position(of: offset, encoding: encoding, fromLine: &line), alone, "\(offset)")
                XCTAssertEqual(line, alone.line)
            }
        }
    }
}
