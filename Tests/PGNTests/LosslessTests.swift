import ChessCore
import PGN
import TestSupport
import XCTest

final class LosslessTests: XCTestCase {
    /// Concatenating the tokens gives back the text byte for byte.
    func assertLossless(_ bytes: [UInt8], _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        var rebuilt: [UInt8] = []
        rebuilt.reserveCapacity(bytes.count)
        var previousEnd = 0
        bytes.withUnsafeBufferPointer { buffer in
            var lexer = Lexer(buffer)
            while let token = lexer.next() {
                XCTAssertEqual(
                    token.start, previousEnd, "\(name): gap or overlap at \(token.start)", file: file, line: line)
                XCTAssertLessThan(token.start, token.end, "\(name): empty token", file: file, line: line)
                rebuilt.append(contentsOf: buffer[token.start..<token.end])
                previousEnd = token.end
            }
        }
        XCTAssertEqual(rebuilt, bytes, "\(name) does not round-trip", file: file, line: line)
    }

    func testEveryCorpusFileRoundTripsAndChecksWithoutCrashing() throws {
        let files = SharedMaterial.files(under: "corpus", suffix: ".pgn")
        XCTAssertGreaterThan(files.count, SharedMaterial.sharedIsPresent ? 90 : 40)
        var games = 0
        for path in files {
            let bytes = try SharedMaterial.bytes(path)
            assertLossless(bytes, path)
            let report = Checker.check(SourceText(bytes))
            games += report.games
            for diagnostic in report.diagnostics {
                XCTAssertFalse(diagnostic.message.isEmpty)
                XCTAssertLessThanOrEqual(diagnostic.range.upperBound, bytes.count, path)
            }
        }
        XCTAssertGreaterThan(games, SharedMaterial.sharedIsPresent ? 4_000 : 500)
    }

    func testRandomBytesRoundTripAndNeverTrap() {
        var rng = SplitMix64(seed: 1)
        let alphabet =
            Array("[]{}()\";%$!?.*-/0123456789 \n\r\tNBRQKOabcdefgh12345678x=+#\\½…".utf8) + [0xFF, 0xC3, 0xE2, 0x80]
        for round in 0..<2_000 {
            let length = Int(rng.next() % 300)
            let bytes = (0..<length).map { _ -> UInt8 in
                rng.next() % 4 == 0
                    ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            assertLossless(bytes, "random input \(round)")
            _ = Checker.check(SourceText(bytes))
        }
    }
}
