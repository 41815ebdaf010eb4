import Foundation
import LanguageServer
import XCTest

final class JSONTests: XCTestCase {
    func testParsesEveryKindOfValue() throws {
        let value = try JSONValue(
            parsing: #" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": {"c": "d"}, "e": "" } "#)
        XCTAssertEqual(
            value,
            ["a": [1, -2, 3.5, .double(1000), true, false, nil], "b": ["c": "d"], "e": ""])
    }

    func testIntegersStayExact() throws {
        XCTAssertEqual(try JSONValue(parsing: "9007199254740993"), .integer(9_007_199_254_740_993))
        XCTAssertEqual(try JSONValue(parsing: "-0"), .integer(0))
        XCTAssertEqual(try JSONValue(parsing: "2.0").intValue, 2)
        XCTAssertNil(try JSONValue(parsing: "2.5").intValue)
        XCTAssertEqual(try JSONValue(parsing: "99999999999999999999"), .double(1e20))
    }

    func testStringEscapesAndUnicode() throws {
        XCTAssertEqual(
            try JSONValue(parsing: #""a\"b\\c\/d\b\f\n\r\t\u00e9\u0416\u65e5\ud83d\ude00""#),
            .string("a\"b\\c/d\u{8}\u{c}\n\r\té\u{416}日😀"))
        XCTAssertEqual(try JSONValue(parsing: #""é Ж 日本 😀""#), .string("é Ж 日本 😀"))
        // A lone surrogate cannot be text: it becomes the replacement character.
        XCTAssertEqual(try JSONValue(parsing: #""x\ud800y""#), .string("x\u{FFFD}y"))
        XCTAssertEqual(try JSONValue(parsing: #""\ud800\u0041""#), .string("\u{FFFD}A"))
    }

    func testLongStringsWithEscapesAtEveryPlaceOfAWordReadTheSame() throws {
        // Strings are read eight bytes at a time: each special byte at each place of a word.
        for special in ["\\n", "\\\"", "\\\\", "é", "\\u00e9"] {
            for length in 0..<20 {
                let plain = String(repeating: "a", count: length)
                let json = "\"" + plain + special + plain + "b" + special + "\""
                let expected = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
                XCTAssertEqual(try JSONValue(parsing: json), .string(expected as! String), json)
            }
        }
        for control in [0x01, 0x0A, 0x1F] {
            for length in 0..<20 {
                let bytes = [0x22] + Array(repeating: UInt8(0x61), count: length) + [UInt8(control), 0x22]
                XCTAssertThrowsError(try JSONValue(parsing: bytes), "\(length) \(control)")
            }
        }
    }

    func testMalformedInputIsRejected() {
        for text in [
            "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "tru", "nul", "\"abc", "\"a\u{1}b\"",
            "\"\\x\"", "[1] 2", "{1:2}", "'a'", "\"\\u12\"",
        ] {
            XCTAssertThrowsError(try JSONValue(parsing: text), text)
        }
    }

    func testNestingDeeperThanTheLimitIsRejected() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        XCTAssertThrowsError(try JSONValue(parsing: deep))
        let shallow = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertNoThrow(try JSONValue(parsing: shallow))
    }

    func testSerializationRoundTripsAndEscapes() throws {
        let value: JSONValue = [
            "text": "line\nnext \"quoted\" \\ \u{1} é 😀", "n": 42, "x": 0.5, "list": [nil, true], "empty": [:],
        ]
        let text = String(decoding: value.serialized(), as: UTF8.self)
        XCTAssertEqual(
            text,
            #"{"empty":{},"list":[null,true],"n":42,"text":"line\nnext \"quoted\" \\ \u0001 é 😀","x":0.5}"#)
        XCTAssertEqual(try JSONValue(parsing: value.serialized()), value)
    }

    func testNonFiniteNumbersAreWrittenAsNull() {
        XCTAssertEqual(JSONValue.double(.infinity).description, "null")
        XCTAssertEqual(JSONValue.double(.nan).description, "null")
    }

    func testCodableBridging() throws {
        let range = LSPRange(1, 2, 3, 4)
        let json = try JSONValue(encoding: range)
        XCTAssertEqual(json, ["start": ["line": 1, "character": 2], "end": ["line": 3, "character": 4]])
        XCTAssertEqual(try json.decode(LSPRange.self), range)
        // Members a type does not declare are ignored.
        let extended: JSONValue = ["line": 7, "character": 0, "extra": ["anything": true]]
        XCTAssertEqual(try extended.decode(LSPPosition.self), LSPPosition(line: 7, character: 0))
        let wrongType: JSONValue = ["line": "7", "character": 0]
        XCTAssertThrowsError(try wrongType.decode(LSPPosition.self))
        // JSONValue itself goes through Codable unchanged.
        let nested: JSONValue = ["a": [1, 2.5, "x", nil, false]]
        XCTAssertEqual(try JSONValue(encoding: nested), nested)
    }

    func testIntegersAreWrittenExactly() throws {
        for value in [0, 7, 10, -1, -10, 99, 1_000_000, Int.max, Int.min] {
            XCTAssertEqual(String(decoding: JSONValue.integer(value).serialized(), as: UTF8.self), String(value))
        }
        let compact = JSONValue.integers([0, 12, -3, Int32.max, Int32.min])
        XCTAssertEqual(compact.description, "[0,12,-3,2147483647,-2147483648]")
        XCTAssertEqual(compact, [0, 12, -3, 2_147_483_647, -2_147_483_648], "the same array as .array")
        XCTAssertEqual(try JSONValue(parsing: compact.serialized()), compact)
    }

    func testTextWrittenAheadReadsAsTheValueItWrites() throws {
        let range = LSPRange(1, 2, 3, 4)
        var text = JSONText()
        text.array([range, range]) { text, range in
            text.raw("{\"name\":")
            text.string("Carlsen, M. \"Magnus\"")
            text.raw(",\"range\":")
            text.range(range)
            text.raw("}")
        }
        let built: JSONValue = .array(
            Array(repeating: ["name": "Carlsen, M. \"Magnus\"", "range": try JSONValue(encoding: range)], count: 2))
        // The same bytes as the value built as dictionaries, and equal to it.
        XCTAssertEqual(text.bytes, built.serialized())
        XCTAssertEqual(text.json, built)
        XCTAssertEqual(text.json.arrayValue?.first?["range"]?["end"]?["line"], 3)
        XCTAssertEqual(Set([text.json, built]).count, 1, "equal values hash alike")
    }

    func testTextWrittenInPiecesIsTheTextWrittenWhole() throws {
        let names = (0..<40_000).map { "Player \($0), \"Élise\"" }
        var pieces = JSONText()
        var whole = JSONText()
        pieces.array(names) { text, name in
            text.string(name)
            text.endPieceIfFull()
        }
        whole.array(names) { text, name in text.string(name) }
        guard case .stream(let stream) = pieces.json else { return XCTFail("one piece for \(names.count) names") }
        XCTAssertLessThan(pieces.bytes.count, JSONText.pieceSize * 2)
        var emitted: [[UInt8]] = []
        XCTAssertTrue(
            stream.produce {
                emitted.append($0)
                return true
            })
        XCTAssertGreaterThan(emitted.count, 1)
        XCTAssertEqual(emitted.joined().count, stream.length)
        XCTAssertEqual(Array(emitted.joined()), whole.bytes)
        XCTAssertEqual(pieces.json, whole.json)
    }

    /// A long string read into its own storage: escapes of every kind at both ends and inside,
    /// and the errors a short one gets.
    func testLongStringsWithEscapesReadTheSame() throws {
        let line = "[White \\\"Carlsen, Magnus\\\"]\\n1. e4 {\\u00e9\\ud834\\udd1e\\t} e5\\r\\n"
        for extra in ["", "\\ud834", "\\/", "é"] {
            let json = "\"" + extra + String(repeating: line, count: 5_000) + extra + "\""
            let read = try JSONValue(parsing: json).stringValue
            if extra == "\\ud834" {
                // Half a surrogate pair, which Foundation refuses: U+FFFD at both ends.
                XCTAssertEqual(read?.hasPrefix("\u{FFFD}[White"), true)
                XCTAssertEqual(read?.hasSuffix("\r\n\u{FFFD}"), true)
            } else {
                let expected = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
                XCTAssertEqual(read, expected as? String, extra)
            }
        }
        let long = String(repeating: "\\n", count: 40_000)
        XCTAssertThrowsError(try JSONValue(parsing: "\"" + long + "\\x\""), "an invalid escape")
        XCTAssertThrowsError(try JSONValue(parsing: "\"" + long), "unterminated")
        XCTAssertThrowsError(try JSONValue(parsing: Array(("\"" + long).utf8) + [0x01, 0x22]), "a control character")
    }

    /// A long string is kept as its UTF-8 bytes (no `String` made of a document's text); it
    /// reads, compares, hashes and is written as the string it is. Text that is not UTF-8
    /// becomes U+FFFD as `String` would make it.
    func testLongStringsAreKeptAsTheirBytes() throws {
        let text = String(repeating: "[Event \"Café\"]\n1. e4 e5 \\ 😀\t", count: 4_000)
        let json = JSONValue.string(text).serialized()
        let message = Array(#"{"uri": "file:///a.pgn", "text": "#.utf8) + json + Array("}".utf8)
        let read = try JSONValue(parsing: message)
        guard case .utf8(let bytes, _)? = read["text"] else { return XCTFail("not kept as bytes: \(read)") }
        XCTAssertEqual(bytes, Array(text.utf8))
        XCTAssertEqual(read["text"]?.stringValue, text)
        XCTAssertEqual(read["text"]?.utf8Value, Array(text.utf8))
        XCTAssertEqual(read["text"], .string(text))
        XCTAssertEqual(Set([read["text"]!, .string(text)]).count, 1)
        XCTAssertEqual(try JSONValue(parsing: read.serialized()), read)
        // A short string of a long message stays a `String`.
        guard case .string("file:///a.pgn")? = read["uri"] else { return XCTFail("\(String(describing: read["uri"]))") }
        // Bytes that are not UTF-8 (a lone continuation byte, a truncated sequence).
        let invalid = [0x22] + Array(repeating: UInt8(ascii: "a"), count: 70_000) + [0x80, 0x62, 0xE2, 0x82, 0x22]
        let repaired = try JSONValue(parsing: invalid)
        XCTAssertEqual(
            repaired.stringValue, String(repeating: "a", count: 70_000) + "\u{FFFD}b\u{FFFD}")
        XCTAssertEqual(repaired.utf8Value.map { ByteScanCheck.isValid($0) }, true)
    }

    /// Pieces written one after the other are the serialized text, a long text value being one
    /// and a stream another, made as it is written.
    func testPiecesAreTheSerializedText() throws {
        let numbers = (0..<40_000).map(String.init).joined(separator: ",")
        let tokens = JSONValue.text(Array(("[" + numbers + "]").utf8))
        let streamed = JSONValue.stream(
            JSONStream(length: numbers.utf8.count + 2) { emit in
                emit(Array("[".utf8)) && emit(Array(numbers.utf8.prefix(1000)))
                    && emit(Array(numbers.utf8.dropFirst(1000)))
                    && emit(Array("]".utf8))
            })
        let value: JSONValue = [
            "id": 3, "result": ["data": tokens, "resultId": "7"], "list": [1, "two", .null], "more": streamed,
        ]
        let pieces = value.serializedPieces()
        func text(_ piece: JSONPiece) -> [UInt8] {
            switch piece {
            case .bytes(let bytes): bytes
            case .stream(let stream): stream.bytes
            }
        }
        XCTAssertEqual(pieces.flatMap(text), value.serialized())
        XCTAssertEqual(pieces.map(\.count), pieces.map { text($0).count })
        XCTAssertEqual(pieces.count, 5, "before the stream, the stream, between, the long text, after it")
        XCTAssertEqual(try JSONValue(parsing: pieces.flatMap(text)), value)
        XCTAssertEqual(streamed, tokens)
        XCTAssertEqual(streamed.arrayValue?.count, 40_000)
        XCTAssertEqual(JSONValue.integers([1, 2]).serializedPieces().flatMap(text), Array("[1,2]".utf8))
    }
}

/// UTF-8 checked the way `String` checks it.
private enum ByteScanCheck {
    static func isValid(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }
}
