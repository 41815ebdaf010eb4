import ArgumentParser
import Dispatch
import Foundation
import PGN

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check PGN files: syntax, every move of every game and variation, results and tags.",
        discussion: """
            Prints one line per problem, `path:line:column: severity: message [code]` (lines and \
            columns from 1, columns in characters), then `N games, E errors, W warnings`. \
            Exits with status 1 when there is an error. Use - to read standard input.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Flag(help: "Also print information and hints (text format; json always has every diagnostic).")
    var all = false

    @Argument(help: "PGN files, or - for standard input.")
    var files: [String]

    func run() throws {
        var games = 0
        var errors = 0
        var warnings = 0
        let output = OutputBuffer()
        if format == .json { output.write("[") }
        for (k, path) in files.enumerated() {
            let display = path == "-" ? "<stdin>" : path
            guard let input = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
                throw ValidationError("cannot open \(path)")
            }
            if format == .json {
                output.write(k == 0 ? "\n" : ",\n")
                output.write("{\"path\":\(jsonString(display)),\"diagnostics\":[")
            }
            var first = true
            let fileGames = try CheckRun.stream(input) { batch in
                for (diagnostic, start, end) in batch.located {
                    switch diagnostic.severity {
                    case .error: errors += 1
                    case .warning: warnings += 1
                    default: break
                    }
                    switch format {
                    case .text:
                        guard all || diagnostic.severity <= .warning else { continue }
                        output.write(
                            "\(display):\(start.line + 1):\(start.column + 1): \(diagnostic.severity.name): \(diagnostic.message) [\(diagnostic.code.rawValue)]\n"
                        )
                    case .json:
                        output.write(first ? "\n" : ",\n")
                        first = false
                        var object = "{\"line\":\(start.line + 1),\"column\":\(start.column + 1),"
                        object += "\"endLine\":\(end.line + 1),\"endColumn\":\(end.column + 1),"
                        object +=
                            "\"severity\":\"\(diagnostic.severity.name)\",\"code\":\"\(diagnostic.code.rawValue)\","
                        object += "\"message\":\(jsonString(diagnostic.message))"
                        if let game = diagnostic.game { object += ",\"game\":\(game + 1)" }
                        output.write(object + "}")
                    }
                }
            }
            games += fileGames
            if format == .json { output.write("],\"games\":\(fileGames)}") }
        }
        switch format {
        case .text: output.write("\(games) games, \(errors) errors, \(warnings) warnings\n")
        case .json: output.write("\n]\n")
        }
        output.flush()
        if errors > 0 { throw ExitCode(1) }
    }
}

/// Buffered standard output.
final class OutputBuffer {
    private var buffer: [UInt8] = []

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count > 1 << 16 { flush() }
    }

    func flush() {
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(1, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// Reads a file in pieces that hold whole games, checks the pieces on every core, and hands
/// back the diagnostics in file order with their line and column. Memory stays bounded by a
/// few pieces, whatever the size of the file.
enum CheckRun {
    struct Batch {
        var bytes: [UInt8]
        var base: Int
        var report = Checker.Report(games: 0, diagnostics: [])
        var source: SourceText?
        /// Diagnostics with their start and end in the file (0-based line, column in characters).
        var located: [(Diagnostic, LineColumn, LineColumn)] = []
    }

    static let pieceSize = 4 << 20

    /// Streams `input`; calls `emit` for each piece in order; returns the number of games.
    static func stream(_ input: FileHandle, emit: (Batch) -> Void) throws -> Int {
        // Twice as many pieces as cores, so that a slow piece does not leave a core idle.
        let width = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var pending: [UInt8] = []
        var base = 0
        var line = 0
        var games = 0
        var atEnd = false
        while !atEnd {
            // Gather up to `width` pieces, then check them side by side.
            var batches: [Batch] = []
            while batches.count < width && !atEnd {
                let data = input.readData(ofLength: pieceSize)
                if data.isEmpty {
                    atEnd = true
                } else {
                    pending.append(contentsOf: data)
                }
                let cut: Int? =
                    atEnd ? pending.count : pending.withUnsafeBufferPointer { Checker.lastGameBoundary($0) }
                guard let cut, cut > 0 else { continue }
                batches.append(Batch(bytes: Array(pending[..<cut]), base: base))
                base += cut
                pending.removeFirst(cut)
            }
            nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Batch>.allocate(capacity: batches.count)
            _ = results.initialize(from: batches)
            DispatchQueue.concurrentPerform(iterations: batches.count) { i in
                let source = SourceText(results[i].bytes)
                results[i].report = Checker.check(source, base: results[i].base)
                results[i].source = source
            }
            for i in 0..<batches.count {
                var batch = results[i]
                let source = batch.source!
                batch.located = batch.report.diagnostics.map { diagnostic in
                    var start = source.position(of: diagnostic.range.lowerBound - batch.base, in: .utf32)
                    var end = source.position(of: diagnostic.range.upperBound - batch.base, in: .utf32)
                    start.line += line
                    end.line += line
                    var renumbered = diagnostic
                    renumbered.game = diagnostic.game.map { $0 + games }
                    return (renumbered, start, end)
                }
                emit(batch)
                games += batch.report.games
                line += source.lineStarts.count - 1
            }
            results.deinitialize()
            results.deallocate()
        }
        return games
    }
}
