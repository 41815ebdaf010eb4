import ArgumentParser
import Foundation
import LanguageServer

/// Times the server's JSON reader and writer against Foundation's (BENCHMARKS.md): reading the
/// `didOpen` message of a file, and writing an array of integers. Hidden: a measurement, not a tool.
struct JSONBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json-benchmark", abstract: "Time JSON reading and writing, own and Foundation's.",
        shouldDisplay: false)

    @Argument(help: "The PGN file whose didOpen message is read.")
    var file: String

    @Option(help: "How many integers the written array holds.")
    var integers = 50_000_000

    @Option(help: "Runs of each; the median is printed.")
    var runs = 3

    func run() throws {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var message = JSONText(capacity: text.utf8.count + 200)
        message.raw(
            "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"languageId\":\"pgn\",\"text\":"
        )
        message.string(text)
        message.raw(",\"uri\":\"file:///bench.pgn\",\"version\":1}}}")
        let body = message.bytes
        let data = Data(body)
        say("didOpen message: \(body.count) bytes")
        report("read, own parser (Message.decode)") {
            guard case .success(.notification(_, let params)) = Message.decode(frame: body),
                params?["textDocument"]?["text"]?.stringValue?.utf8.count == text.utf8.count
            else { fatalError("the message was not read back") }
        }
        report("read, long strings as they arrive (LongStringReader, in 1 MB steps)") {
            var reader = LongStringReader(length: body.count)
            body.withUnsafeBufferPointer { buffer in
                for end in stride(from: 1 << 20, to: buffer.count + (1 << 20), by: 1 << 20) {
                    reader.read(UnsafeBufferPointer(rebasing: buffer[..<min(end, buffer.count)]))
                }
            }
            guard reader.strings.values.first?.bytes.count == text.utf8.count else {
                fatalError("the text was not read back")
            }
        }
        report("read, JSONSerialization") {
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let params = object?["params"] as? [String: Any]
            let document = params?["textDocument"] as? [String: Any]
            guard let read = document?["text"] as? String, read.utf8.count == text.utf8.count else {
                fatalError("the message was not read back")
            }
        }

        let values = (0..<integers).map { Int32(truncatingIfNeeded: $0 &* 7919 % 100_000) }
        say("array of \(integers) integers")
        report("write, own writer (JSONValue.integers)") {
            let bytes = JSONValue.integers(values).serialized()
            precondition(bytes.count > integers)
        }
        report("write, JSONSerialization") {
            let bytes = try? JSONSerialization.data(withJSONObject: values.map { Int($0) })
            precondition((bytes?.count ?? 0) > integers)
        }
        report("write, JSONEncoder") {
            let bytes = try? JSONEncoder().encode(values)
            precondition((bytes?.count ?? 0) > integers)
        }
    }

    private func report(_ label: String, _ body: () -> Void) {
        var seconds: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            body()
            let elapsed = ContinuousClock.now - start
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        let median = seconds.sorted()[seconds.count / 2]
        say(
            "\(label): median \(String(format: "%.3f", median)) s of \(seconds.map { String(format: "%.3f", $0) })")
    }

    /// A line on standard output at once, so that a long run shows each figure as it comes.
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
