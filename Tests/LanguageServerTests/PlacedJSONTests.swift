import LanguageServer
import XCTest

/// JSON texts about parts of a document, their lines counted from each part's first and
/// written when the parts are placed: copied from one set of parts to another, and written as
/// one array whose announced length is its length.
final class PlacedJSONTests: XCTestCase {
    private func part(_ name: String, lines: ClosedRange<Int>, firstLine: Int, into parts: inout PlacedJSON) {
        parts.raw("{\"name\":")
        parts.string(name)
        parts.raw(",\"range\":")
        parts.range(
            LSPRange(
                start: LSPPosition(line: lines.lowerBound, character: 0),
                end: LSPPosition(line: lines.upperBound, character: 12)),
            firstLine: firstLine)
        parts.raw("}")
        parts.endPart()
    }

    private func text(_ value: JSONValue) -> String { String(decoding: value.serialized(), as: UTF8.self) }

    func testPartsArePlacedAtTheirLines() throws {
        var parts = PlacedJSON()
        part("a \"quoted\" name", lines: 3...5, firstLine: 3, into: &parts)
        part("b", lines: 9...9, firstLine: 8, into: &parts)
        XCTAssertEqual(parts.partCount, 2)
        // The second part first, at line 98, then the first at line 1000.
        let array = PlacedJSON.array(parts, placed: [(1, 98), (0, 1000)])
        XCTAssertEqual(
            text(array),
            #"[{"name":"b","range":{"end":{"character":12,"line":99},"start":{"character":0,"line":99}}},"#
                + #"{"name":"a \"quoted\" name","range":{"end":{"character":12,"line":1002},"#
                + #""start":{"character":0,"line":1000}}}]"#)
        XCTAssertNoThrow(try JSONValue(parsing: array.serialized()))
        XCTAssertEqual(PlacedJSON.array(parts, placed: []).serialized(), Array("[]".utf8))
    }

    func testAPartCopiedFromOtherPartsKeepsItsLines() {
        var old = PlacedJSON()
        for k in 0..<5 { part("game \(k)", lines: (10 * k)...(10 * k + 7), firstLine: 10 * k, into: &old) }
        var new = PlacedJSON()
        part("new", lines: 0...1, firstLine: 0, into: &new)
        new.append(part: 3, of: old)
        new.append(part: 0, of: old)
        XCTAssertEqual(new.partCount, 3)
        XCTAssertEqual(
            text(PlacedJSON.array(new, placed: [(1, 30), (2, 50)])),
            text(PlacedJSON.array(old, placed: [(3, 30), (0, 50)])))
    }

    func testAPartCopiedIntoPartsWithOtherFragmentsIsTheSame() {
        var old = PlacedJSON()
        for k in 0..<3 { part("game \(k)", lines: (10 * k)...(10 * k + 7), firstLine: 10 * k, into: &old) }
        // A part ending with a line number.
        old.raw("[\"line\",")
        old.line(4)
        old.endPart()
        var new = PlacedJSON()
        new.raw("{\"other fragments first\":[")
        new.line(0)
        new.raw("]}")
        new.endPart()
        for k in [2, 3, 0] { new.append(part: k, of: old) }
        XCTAssertEqual(
            text(PlacedJSON.array(new, placed: [(1, 5), (2, 7), (3, 9)])),
            text(PlacedJSON.array(old, placed: [(2, 5), (3, 7), (0, 9)])))
        XCTAssertEqual(text(PlacedJSON.array(new, placed: [(0, 1)])), #"[{"other fragments first":[1]}]"#)
        XCTAssertLessThan(
            old.byteCount, text(PlacedJSON.array(old, placed: [(0, 0), (1, 0), (2, 0), (3, 0)])).utf8.count)
    }

    func testALongArrayIsWrittenInPiecesOfTheAnnouncedLength() throws {
        var parts = PlacedJSON()
        for k in 0..<2000 {
            part(String(repeating: "x", count: k % 300), lines: k...(k + 2), firstLine: k, into: &parts)
        }
        let placed = (0..<2000).map { (part: Int32($0), line: Int32(1_000 * $0)) }
        let array = PlacedJSON.array(parts, placed: placed)
        guard case .stream(let stream) = array else { return XCTFail("a large array is a stream") }
        var pieces = 0
        var bytes: [UInt8] = []
        XCTAssertTrue(
            stream.produce { piece in
                pieces += 1
                bytes += piece
                return true
            })
        XCTAssertGreaterThan(pieces, 1)
        XCTAssertEqual(bytes.count, stream.length)
        let parsed = try JSONValue(parsing: bytes)
        XCTAssertEqual(parsed.arrayValue?.count, 2000)
        XCTAssertEqual(parsed.arrayValue?.last?["range"]?["end"]?["line"], .integer(1_999_000 + 2))
    }
}
