import LanguageServer
import XCTest

final class FramingTests: XCTestCase {
    let first = Array(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"text":"é Ж 日本 😀"}}"#.utf8)
    let second = Array(#"{"jsonrpc":"2.0","method":"exit"}"#.utf8)

    /// Feeds `pieces` in order and collects every event, then the end-of-input problem.
    func decode(_ pieces: [[UInt8]], decoder: FrameDecoder = FrameDecoder()) -> ([FrameEvent], FramingError?) {
        var decoder = decoder
        var events: [FrameEvent] = []
        for piece in pieces {
            decoder.append(piece)
            while let event = decoder.next() { events.append(event) }
        }
        return (events, decoder.finish())
    }

    func testTwoCoalescedFramesSplitAtEveryByteOffset() {
        let stream = encodeFrame(first) + encodeFrame(second)
        for split in 0...stream.count {
            let (events, end) = decode([Array(stream[..<split]), Array(stream[split...])])
            XCTAssertEqual(events, [.frame(first), .frame(second)], "split at \(split)")
            XCTAssertNil(end, "split at \(split)")
        }
    }

    func testFramesFedOneByteAtATime() {
        let stream = encodeFrame(first) + encodeFrame(second) + encodeFrame(first)
        let (events, end) = decode(stream.map { [$0] })
        XCTAssertEqual(events, [.frame(first), .frame(second), .frame(first)])
        XCTAssertNil(end)
    }

    func testHeaderNamesAreCaseInsensitiveAndOtherHeadersIgnored() {
        let stream =
            Array(
                "content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:  \(second.count) \r\n\r\n"
                    .utf8)
            + second + Array("Content-Length: \(first.count)\r\nX-Other: 1\r\n\r\n".utf8) + first
        let (events, end) = decode([stream])
        XCTAssertEqual(events, [.frame(second), .frame(first)])
        XCTAssertNil(end)
    }

    func testBareLineFeedsAndBlankLinesBetweenFramesAreTolerated() {
        let stream =
            Array("Content-Length: \(second.count)\n\n".utf8) + second + Array("\r\n\r\n".utf8) + encodeFrame(first)
        let (events, end) = decode([stream])
        XCTAssertEqual(events, [.frame(second), .frame(first)])
        XCTAssertNil(end)
    }

    func testTruncatedFrameAtEndOfInputIsReported() {
        let stream = encodeFrame(second) + Array(encodeFrame(first).dropLast(10))
        let (events, end) = decode([stream])
        XCTAssertEqual(events, [.frame(second)])
        XCTAssertEqual(end, .truncatedFrame(expected: first.count, received: first.count - 10))
    }

    func testTruncatedHeaderAtEndOfInputIsReported() {
        let (events, end) = decode([encodeFrame(second) + Array("Content-Len".utf8)])
        XCTAssertEqual(events, [.frame(second)])
        XCTAssertEqual(end, .truncatedHeader)
    }

    func testMissingContentLengthIsReportedAndTheNextFrameRead() {
        let stream = Array("Content-Type: text/plain\r\n\r\n".utf8) + second + encodeFrame(first)
        let (events, end) = decode([stream])
        XCTAssertEqual(events, [.error(.missingContentLength), .frame(first)])
        XCTAssertNil(end)
    }

    func testInvalidContentLengthIsReportedAndTheNextFrameRead() {
        for value in ["abc", "-5", "12x", "", "99999999999999999999999"] {
            let stream = Array("Content-Length: \(value)\r\n\r\n".utf8) + second + encodeFrame(first)
            let (events, end) = decode([stream])
            XCTAssertEqual(events, [.error(.invalidContentLength(value)), .frame(first)], value)
            XCTAssertNil(end)
        }
    }

    func testGarbageIsReportedOnceEvenWhenSplitOverReads() {
        let garbage = Array("this is { not a header at all }\r\nmore garbage\r\n\r\n".utf8)
        let stream = garbage + encodeFrame(first)
        for split in 0...stream.count {
            let (events, end) = decode([Array(stream[..<split]), Array(stream[split...])])
            XCTAssertEqual(events.count, 2, "split at \(split)")
            guard case .error(.invalidHeaderLine) = events.first else {
                XCTFail("split at \(split): \(events)")
                continue
            }
            XCTAssertEqual(events.last, .frame(first), "split at \(split)")
            XCTAssertNil(end)
        }
    }

    func testGarbageGluedToAHeaderIsSkipped() {
        let (events, _) = decode([Array("xyz".utf8) + encodeFrame(second)])
        XCTAssertEqual(events, [.error(.missingContentLength), .frame(second)])
    }

    func testHugeFrameArrivingInChunks() {
        var body = Array(#"{"jsonrpc":"2.0","method":"big","params":""#.utf8)
        body += [UInt8](repeating: UInt8(ascii: "x"), count: 16 << 20)
        body += Array(#""}"#.utf8)
        let stream = encodeFrame(body) + encodeFrame(second)
        var decoder = FrameDecoder()
        var events: [FrameEvent] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + 65536, stream.count)
            decoder.append(stream[offset..<end])
            while let event = decoder.next() { events.append(event) }
            offset = end
        }
        XCTAssertEqual(events.count, 2)
        XCTAssertEqual(events.first, .frame(body))
        XCTAssertEqual(events.last, .frame(second))
    }

    func testFrameOverTheLimitIsSkippedAndReported() {
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        let stream = encodeFrame(big) + encodeFrame(second)
        for split in [0, 10, 30, 500, stream.count - second.count - 3, stream.count] {
            let (events, end) = decode(
                [Array(stream[..<split]), Array(stream[split...])], decoder: FrameDecoder(maximumFrameLength: 100))
            XCTAssertEqual(
                events, [.error(.frameTooLarge(length: 1000, limit: 100)), .frame(second)], "split at \(split)")
            XCTAssertNil(end)
        }
    }

    func testEndOfInputInsideASkippedFrameIsTruncated() {
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        let (events, end) = decode(
            [Array(encodeFrame(big).prefix(300))], decoder: FrameDecoder(maximumFrameLength: 100))
        XCTAssertEqual(events, [.error(.frameTooLarge(length: 1000, limit: 100))])
        XCTAssertEqual(end, .truncatedFrame(expected: 1000, received: 300 - "Content-Length: 1000\r\n\r\n".utf8.count))
    }

    func testEncodedFrameHasContentLengthInBytes() {
        XCTAssertEqual(encodeFrame(Array("é".utf8)), Array("Content-Length: 2\r\n\r\né".utf8))
    }

    func testEmptyBodyIsAFrame() {
        let (events, end) = decode([Array("Content-Length: 0\r\n\r\n".utf8)])
        XCTAssertEqual(events, [.frame([])])
        XCTAssertNil(end)
    }

    /// A body of a megabyte or more is handed over as the buffer it was read into: with a
    /// header before it, the next frame's bytes after it, and any split, it is the same body.
    func testLargeBodiesAreTheBytesSentWhateverTheSplits() {
        let large = Array(("{\"text\":\"" + String(repeating: "é1. e4 e5 ", count: 120_000) + "\"}").utf8)
        let stream = encodeFrame(first) + encodeFrame(large) + encodeFrame(second)
        for split in [0, 10, encodeFrame(first).count + 5, stream.count / 2, stream.count - second.count - 3] {
            let (events, end) = decode([Array(stream[..<split]), Array(stream[split...])])
            XCTAssertEqual(events, [.frame(first), .frame(large), .frame(second)], "split at \(split)")
            XCTAssertNil(end)
        }
        let (events, end) = decode(
            stride(from: 0, to: stream.count, by: 65_536).map {
                Array(stream[$0..<min($0 + 65_536, stream.count)])
            })
        XCTAssertEqual(events, [.frame(first), .frame(large), .frame(second)], "read 64 KB at a time")
        XCTAssertNil(end)
    }
}
