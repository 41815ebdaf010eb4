import ChessCore
import Foundation
import LanguageServer
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The long strings of a large body read while it arrives (`LongStringReader`): whatever the
/// pieces it comes in, the message is the one the parser reads from the whole body.
final class LongStringReaderTests: XCTestCase {
    /// A line of text with every kind of escape and character a document has, and some it
    /// rarely has: a surrogate pair, a lone surrogate, characters of two to four bytes.
    static let line =
        #"1. e4 {\"Best\" by test\\ é 日本 😀 \t\u00e9\u65e5\ud83d\ude00 \ud800 x} e5 2. Nf3 \/ Nc6\n"#

    /// A `didOpen` body: short strings before and after, a long text, and a second long string.
    static func body(lines: Int, extra: String = "") -> [UInt8] {
        let text = String(repeating: line, count: lines) + extra
        let second = String(repeating: #"\"note\" \n"#, count: 9_000)
        return Array(
            (#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.pgn","#
                + #""languageId":"pgn","version":1,"text":""# + text + #"","note":""# + second
                + #"","short":"a\nb"}}}"#).utf8)
    }

    /// Reads `body` in pieces cut by `random`, as the connection reads it, then whole.
    static func read(_ body: [UInt8], _ random: inout SplitMix64) -> [Int: LongStringReader.LongString] {
        var reader = LongStringReader(length: body.count)
        var received = 0
        body.withUnsafeBufferPointer { buffer in
            while received < body.count {
                received = min(body.count, received + Int.random(in: 1...40_000, using: &random))
                reader.read(UnsafeBufferPointer(rebasing: buffer[..<received]))
            }
        }
        return reader.strings
    }

    func testTheMessageIsTheOneOfTheWholeBodyWhateverItsPieces() throws {
        var random = SplitMix64(seed: 7)
        for (lines, extra) in [(2_000, ""), (1_000, "é"), (3_000, #"\u00e9"#), (1_500, "\u{1F600}")] {
            let body = Self.body(lines: lines, extra: extra)
            let whole = try JSONValue(parsing: body)
            for _ in 0..<4 {
                let strings = Self.read(body, &random)
                XCTAssertEqual(strings.count, 2, "the text and the note are long; the other strings are not")
                XCTAssertEqual(try JSONValue(parsing: body, longStrings: strings), whole)
            }
            XCTAssertEqual(whole["params"]?["textDocument"]?["text"]?.stringValue?.hasPrefix("1. e4 {\"Best\""), true)
        }
    }

    /// The index of a text's lines that the reader makes as it decodes is the one made from the
    /// decoded bytes, whatever the line breaks (`\n`, `\r\n`, a lone `\r`, written as escapes or
    /// as `\u000a`), the characters (raw or escaped, of two to four bytes) and the pieces.
    func testTheLineIndexMadeWhileDecodingIsTheTextsOwn() throws {
        var random = SplitMix64(seed: 10)
        let parts = [
            "1. e4 e5 ", #"\n"#, #"\r\n"#, #"\r"#, #"\r\r\n"#, #"\u000a"#, #"\u000D\u000A"#, "é", "日本", "😀",
            #"\u00e9"#, #"\ud83d\ude00"#, #"\ud800"#, #"\""#, #"\\"#, #"\t"#,
        ]
        for round in 0..<6 {
            var text = ""
            while text.utf8.count < 150_000 { text += parts[Int.random(in: 0..<parts.count, using: &random)] }
            // Ending with a line break, or with a lone carriage return, in some rounds.
            if round % 3 == 1 { text += #"\n"# } else if round % 3 == 2 { text += #"\r"# }
            let body = Array((#"{"uri":"file:///a.pgn","version":1,"text":""# + text + #""}"#).utf8)
            let strings = Self.read(body, &random)
            let read = try XCTUnwrap(strings.values.first, "round \(round)")
            XCTAssertEqual(read.lineIndex, LineIndex(read.bytes), "round \(round)")
            let document = try Document(didOpen: ["textDocument": try JSONValue(parsing: body, longStrings: strings)])
            XCTAssertEqual(document.lineIndex, LineIndex(read.bytes))
            XCTAssertEqual(document.bytes, try JSONValue(parsing: body)["text"]?.utf8Value)
        }
    }

    func testTextThatIsNotUTF8IsLeftToTheParser() throws {
        var random = SplitMix64(seed: 8)
        var body = Self.body(lines: 2_000)
        // A byte that is never UTF-8, inside the text.
        let at = body.firstIndex(of: "é".utf8.first!)!
        body[at] = 0xFF
        let strings = Self.read(body, &random)
        XCTAssertEqual(strings.count, 1, "only the note")
        XCTAssertEqual(try JSONValue(parsing: body, longStrings: strings), try JSONValue(parsing: body))
    }

    func testABodyThatIsNotJSONGetsTheParsersError() throws {
        var random = SplitMix64(seed: 9)
        var body = Self.body(lines: 2_000)
        body[body.count / 2] = 0x01  // a control character inside the text
        let strings = Self.read(body, &random)
        var read: JSONParseError?
        var plain: JSONParseError?
        do { _ = try JSONValue(parsing: body, longStrings: strings) } catch { read = error }
        do { _ = try JSONValue(parsing: body) } catch { plain = error }
        XCTAssertNotNil(plain)
        XCTAssertEqual(read, plain)
    }

    /// Through a pipe, as an editor sends it: the large frame and a small one behind it in the
    /// same write, the pipe read in pieces while the reader decodes on its own thread.
    func testAConnectionReadsALargeFrameWhileItArrives() throws {
        var pipes: [Int32] = [0, 0]
        precondition(pipe(&pipes) == 0)
        let (input, output) = (pipes[0], pipes[1])
        let body = Self.body(lines: 30_000)
        let small = Array(#"{"jsonrpc":"2.0","method":"exit"}"#.utf8)
        let received = Received()
        let connection = FileDescriptorConnection(input: input, output: -1)
        connection.start { received.add($0) }
        let frames = encodeFrame(body) + encodeFrame(small)
        let writer = Thread {
            var random = SplitMix64(seed: 10)
            var sent = 0
            while sent < frames.count {
                let end = min(frames.count, sent + Int.random(in: 1...300_000, using: &random))
                sent += frames[sent..<end].withUnsafeBytes { max(0, write(output, $0.baseAddress, $0.count)) }
            }
            close(output)
        }
        writer.start()
        XCTAssertEqual(received.ended.wait(timeout: .now() + 60), .success)
        let events = received.events
        XCTAssertEqual(events.count, 3)
        XCTAssertEqual(events.first, .message(try Message(json: JSONValue(parsing: body))))
        XCTAssertEqual(events.dropFirst().first, .message(try Message(json: JSONValue(parsing: small))))
        close(input)
    }

    /// The input ends in the middle of a large frame, its text being read: the end is said, with
    /// what was missing, and nothing else comes.
    func testALargeFrameCutByTheEndOfInputEndsTheInput() {
        var pipes: [Int32] = [0, 0]
        precondition(pipe(&pipes) == 0)
        let (input, output) = (pipes[0], pipes[1])
        let body = Self.body(lines: 30_000)
        let received = Received()
        FileDescriptorConnection(input: input, output: -1).start { received.add($0) }
        let half = Array(encodeFrame(body).prefix(body.count / 2))
        let writer = Thread {
            var sent = 0
            while sent < half.count {
                sent += half[sent...].withUnsafeBytes { max(0, write(output, $0.baseAddress, min($0.count, 70_000))) }
            }
            close(output)
        }
        writer.start()
        XCTAssertEqual(received.ended.wait(timeout: .now() + 60), .success)
        let header = frameHeader(length: body.count).count
        XCTAssertEqual(
            received.events, [.end(.truncatedFrame(expected: body.count, received: half.count - header))])
        close(input)
    }

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [IncomingEvent] = []
        let ended = DispatchSemaphore(value: 0)

        func add(_ event: IncomingEvent) {
            lock.lock()
            stored.append(event)
            lock.unlock()
            if case .end = event { ended.signal() }
        }

        var events: [IncomingEvent] {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }
}
