import Foundation
import PGN
import TestSupport
import XCTest

/// A parse can start at any game start of a parse of the whole text and stop at any later one:
/// what an editor needs to read only the games an edit touched.
final class ParserResumeTests: XCTestCase {
    func same(_ a: GameSyntax, _ b: GameSyntax) -> Bool {
        a.range == b.range && a.tags == b.tags && a.nodes == b.nodes && a.resultIndex == b.resultIndex
    }

    /// Checks resuming at, and stopping at, every game start of `bytes` (at most `limit` of them).
    func checkResuming(_ bytes: [UInt8], _ name: String, limit: Int = 40) {
        bytes.withUnsafeBufferPointer { buffer in
            let whole = Parser(buffer)
            let ranges = whole.games.map(\.range)
            func outside(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
                diagnostics.filter { d in !ranges.contains { $0.contains(d.range.lowerBound) } }
            }
            let step = max(1, whole.games.count / limit)
            for k in stride(from: 0, to: whole.games.count, by: step) {
                let start = ranges[k].lowerBound
                let resumed = Parser(buffer, start: start, firstGameIndex: k) { _ in false }
                XCTAssertNil(resumed.stoppedAt)
                XCTAssertEqual(resumed.games.count, whole.games.count - k, "\(name): resumed at game \(k)")
                for (a, b) in zip(resumed.games, whole.games[k...]) where !same(a, b) {
                    XCTFail("\(name): resumed at game \(k), game at \(b.range) read as \(a.range)")
                    return
                }
                XCTAssertEqual(
                    outside(resumed.diagnostics), outside(whole.diagnostics).filter { $0.range.lowerBound >= start },
                    "\(name): resumed at game \(k)")
                XCTAssertEqual(resumed.longComments, whole.longComments.filter { $0.start >= start })

                let stopped = Parser(buffer, start: 0, firstGameIndex: 0) { $0 == start }
                XCTAssertEqual(stopped.stoppedAt, start)
                XCTAssertEqual(stopped.games.count, k, "\(name): stopped at game \(k)")
                for (a, b) in zip(stopped.games, whole.games) where !same(a, b) {
                    XCTFail("\(name): stopped at game \(k), game at \(b.range) read as \(a.range)")
                    return
                }
                XCTAssertEqual(
                    stopped.diagnostics, whole.diagnostics.filter { $0.range.lowerBound < start },
                    "\(name): stopped at game \(k)")
                XCTAssertEqual(
                    stopped.longComments.filter { $0.start < start }, whole.longComments.filter { $0.start < start })
            }
        }
    }

    func testResumingAtGameStartsOfEveryCorpusFile() throws {
        for path in SharedMaterial.files(under: "corpus", suffix: ".pgn") {
            checkResuming(try SharedMaterial.bytes(path), path)
        }
    }

    func testResumingAtGameStartsOfDamagedText() throws {
        var state: UInt64 = 11
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let pieces = [
            "{", "}", "(", ")", "[", "]", "\"", ";", "\n", "\r\n", "1-0", "*", "[Event \"x\"]\n", "[Site ",
            "{ a { b }", "%", "1. ", "...", "$", "½-½",
        ].map { Array($0.utf8) }
        let sources = SharedMaterial.available([
            "corpus/chess-library/multiple.pgn", "corpus/pgn-extract/test-C.pgn", "corpus/scid/res_gameUTF8.pgn",
            "corpus/pgn-lsp/variations-nags.pgn",
        ])
        for path in sources {
            let original = try SharedMaterial.bytes(path)
            for round in 0..<60 {
                var bytes = original
                for _ in 0..<(1 + next(8)) {
                    let at = next(bytes.count + 1)
                    let end = min(bytes.count, at + next(4))
                    bytes.replaceSubrange(at..<end, with: next(3) == 0 ? [] : pieces[next(pieces.count)])
                }
                checkResuming(bytes, "\(path), round \(round)", limit: 10)
            }
        }
    }
}
