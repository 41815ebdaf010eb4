import Foundation
import PGN
import TestSupport
import XCTest

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

/// A corpus file (see `SharedMaterial`) as the checker reports it and the parser reads it.
func corpusReport(_ path: String) throws -> (SourceText, Checker.Report, Parser) {
    let bytes = try SharedMaterial.bytes(path)
    let source = SourceText(bytes)
    let parser = bytes.withUnsafeBufferPointer { Parser($0) }
    return (source, Checker.check(source), parser)
}

/// Game `game` of a parsed text, replayed.
func replay(_ source: SourceText, _ parser: Parser, game: Int) -> (GameReplay, ReplayedGame) {
    let replay = GameReplay(source: source, syntax: parser.games[game], index: game)
    return (replay, replay.run())
}

/// A file whose first tag follows a UTF-8 byte-order mark: the mark is trivia, nothing is an
/// error, and the first game's Event tag is `event`.
func assertByteOrderMarkIsTrivia(
    _ path: String, event: String, file: StaticString = #filePath, line: UInt = #line
) throws {
    let (source, report, parser) = try corpusReport(path)
    XCTAssertEqual(source.byteOrderMarkLength, 3, file: file, line: line)
    XCTAssertEqual(report.diagnostics.filter { $0.severity == .error }, [], file: file, line: line)
    XCTAssertEqual(replay(source, parser, game: 0).0.tagValue("Event"), event, file: file, line: line)
}

/// A collection of `games` games with one malformed tag line (`[Round "2"]f`): one error, on the
/// text after the tag, at `position` (UTF-16), whose fix removes it.
func assertOneMalformedTag(
    _ path: String, games: Int, at position: LineColumn, file: StaticString = #filePath, line: UInt = #line
) throws {
    let (source, report, _) = try corpusReport(path)
    XCTAssertEqual(report.games, games, file: file, line: line)
    let errors = report.diagnostics.filter { $0.severity == .error }
    XCTAssertEqual(errors.count, 1, file: file, line: line)
    guard let error = errors.first else { return }
    XCTAssertEqual(source.string(error.range), "f", file: file, line: line)
    XCTAssertEqual(source.position(of: error.range.lowerBound, in: .utf16), position, file: file, line: line)
    XCTAssertEqual(error.fixes.first?.edits.first?.text, "", file: file, line: line)
}
