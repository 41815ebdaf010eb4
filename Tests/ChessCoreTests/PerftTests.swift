import ChessCore
import XCTest

final class PerftTests: XCTestCase {
    /// Every depth whose count is at most five million; deeper ones are benchmarks.
    func checkSuite(_ path: String, limit: UInt64 = 5_000_000) throws {
        let cases = try PerftCase.load(path)
        XCTAssertFalse(cases.isEmpty)
        var checked = 0
        for suite in cases {
            let position = try Position(fen: suite.fen)
            for (depth, expected) in suite.counts where expected <= limit {
                XCTAssertEqual(position.perft(depth), expected, "\(suite.id) depth \(depth): \(suite.fen)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, cases.count)
    }

    func testStandardSuite() throws { try checkSuite("perft/standard.perft") }

    /// python-chess's suite (GPL-3): with the shared folder only.
    func testTrickySuite() throws { try checkSuite("perft/tricky.perft") }

    /// python-chess's 960 Chess960 positions (GPL-3): with the shared folder only.
    func testAllChess960PositionsToDepthThree() throws {
        let cases = try PerftCase.load("perft/chess960.perft")
        XCTAssertEqual(cases.count, 960)
        for suite in cases {
            let position = try Position(fen: suite.fen)
            // Shredder-FEN in, X-FEN out: the castling rights survive the round trip.
            let reparsed = try Position(fen: position.fen)
            XCTAssertEqual(reparsed.castlingRights, position.castlingRights, suite.id)
            for (depth, expected) in suite.counts where depth <= 3 {
                XCTAssertEqual(position.perft(depth), expected, "960 #\(suite.id) depth \(depth): \(suite.fen)")
            }
        }
    }

    func testDivideSumsToPerft() throws {
        let kiwipete = try Position(fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        let divided = kiwipete.perftDivide(3)
        XCTAssertEqual(divided.count, 48)
        XCTAssertEqual(divided.reduce(0) { $0 + $1.nodes }, 97_862)
        XCTAssertTrue(divided.contains { $0.move.uci(chess960: false) == "e1g1" })
    }
}
