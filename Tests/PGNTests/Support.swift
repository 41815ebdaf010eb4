import Foundation
import PGN

/// The project's shared test material lives in `../shared` beside the package root.
enum Corpus {
    static let shared: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared")

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: shared.appendingPathComponent(relativePath)))
    }

    /// Every PGN file under `../shared/corpus`, as paths relative to `../shared`.
    static func allFiles() -> [String] {
        let root = shared.appendingPathComponent("corpus")
        let walker = FileManager.default.enumerator(atPath: root.path)
        var files: [String] = []
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".pgn") { files.append("corpus/" + path) }
        }
        return files.sorted()
    }
}

/// Checks a PGN text given as a string.
func check(_ text: String) -> Checker.Report { Checker.check(SourceText(text)) }

/// The diagnostics of a text, as `code@text-of-range` strings, for compact expectations.
func codes(_ text: String, minimum: Diagnostic.Severity = .hint) -> [String] {
    let source = SourceText(text)
    return Checker.check(source).diagnostics.filter { $0.severity <= minimum }.map {
        "\($0.code.rawValue)@\(source.string($0.range))"
    }
}

/// Parses a text.
func parse(_ text: String) -> Parser {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { Parser($0) }
}
