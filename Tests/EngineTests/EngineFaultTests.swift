import ChessCore
import Engine
import Foundation
import XCTest

/// A fake engine that crashes, hangs, prints garbage or is missing: the client recovers or
/// fails with a message, and never waits forever.
final class EngineFaultTests: XCTestCase {
    private func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pgn-lsp-\(name)-\(UUID())").path
    }

    private func configuration(_ path: String, searchTimeout: Duration = .seconds(20)) -> EngineConfiguration {
        var configuration = EngineConfiguration(path: path)
        configuration.searchTimeout = searchTimeout
        configuration.handshakeTimeout = .seconds(2)
        return configuration
    }

    func testACrashMidReviewRestartsTheEngineAndTheReviewFinishes() async throws {
        let log = temporaryFile("log")
        let engine = try TestFiles.fakeEngine("crash:5", log: log, state: temporaryFile("state"))
        let mainline = try TestFiles.mainline(TestFiles.blunderGame)
        let pool = EnginePool(configuration: configuration(engine), size: 1)
        defer { pool.shutdown() }
        let review = try await GameReviewer.review(
            from: mainline.start, moves: mainline.moves.map(\.move), pool: pool, limit: .depth(1))
        XCTAssertEqual(review.moves.count, 14)
        XCTAssertEqual(pool.restarts, 1)
        let processes = Set(
            try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ")[0] })
        XCTAssertEqual(processes.count, 2, "a second process took over")
    }

    func testAnEngineThatAlwaysCrashesFailsWithAMessage() async throws {
        let engine = try TestFiles.fakeEngine("crash-always")
        let pool = EnginePool(configuration: configuration(engine))
        defer { pool.shutdown() }
        do {
            _ = try await pool.analyse(.startingPosition, limit: .depth(1))
            XCTFail("a crashing engine cannot answer")
        } catch let error as EngineError {
            XCTAssertEqual(error, .crashed(engine))
            XCTAssertTrue(error.description.contains("stopped unexpectedly"))
        }
        XCTAssertEqual(pool.restarts, 2, "one restart, then the error")
    }

    func testAHangingEngineTimesOut() async throws {
        let engine = try TestFiles.fakeEngine("hang")
        let pool = EnginePool(configuration: configuration(engine, searchTimeout: .milliseconds(300)))
        defer { pool.shutdown() }
        let start = ContinuousClock.now
        do {
            _ = try await pool.analyse(.startingPosition, limit: .depth(20))
            XCTFail("a hanging engine cannot answer")
        } catch let error as EngineError {
            XCTAssertEqual(error, .timedOut(engine))
        }
        // 0.3 s, plus 2 s for `stop`: once, not again after a restart.
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(10))
    }

    func testAnEngineThatHangsOnceIsRestartedForTheNextSearch() async throws {
        let engine = try TestFiles.fakeEngine("hang-once", state: temporaryFile("state"))
        let pool = EnginePool(configuration: configuration(engine, searchTimeout: .milliseconds(300)))
        defer { pool.shutdown() }
        do {
            _ = try await pool.analyse(.startingPosition, limit: .depth(1))
            XCTFail("the first search hangs")
        } catch let error as EngineError {
            XCTAssertEqual(error, .timedOut(engine))
        }
        let analysis = try await pool.analyse(.startingPosition, limit: .depth(1))
        XCTAssertEqual(analysis?.depth, 1)
        XCTAssertEqual(pool.restarts, 1)
    }

    func testGarbageIsIgnored() async throws {
        let engine = try TestFiles.fakeEngine("garbage")
        let mainline = try TestFiles.mainline(TestFiles.blunderGame)
        let pool = EnginePool(configuration: configuration(engine), size: 2)
        defer { pool.shutdown() }
        let review = try await GameReviewer.review(
            from: mainline.start, moves: mainline.moves.map(\.move), pool: pool, limit: .depth(1))
        XCTAssertEqual(review.moves.count, 14)
        for move in review.moves {
            // The fake engine's best move is the first legal move, its score the material.
            XCTAssertEqual(move.depth, 1)
            XCTAssertNotNil(move.bestMove)
            XCTAssertTrue(move.before.legalMoves.contains(move.bestMove!))
        }
        XCTAssertEqual(pool.restarts, 0)
    }

    func testAMissingEngineIsReportedOnceAndAtOnce() async throws {
        let pool = EnginePool(configuration: configuration("/nonexistent/stockfish"))
        defer { pool.shutdown() }
        for _ in 0..<3 {
            do {
                _ = try await pool.analyse(.startingPosition, limit: .depth(1))
                XCTFail("there is no engine")
            } catch let error as EngineError {
                XCTAssertEqual(error, .notFound("/nonexistent/stockfish"))
            }
        }
        XCTAssertEqual(pool.failure, .notFound("/nonexistent/stockfish"))
        XCTAssertEqual(pool.searches, 0)
    }

    func testAProgramThatIsNotAnEngine() async throws {
        let silent = try TestFiles.fakeEngine("silent")
        let pool = EnginePool(configuration: configuration(silent))
        defer { pool.shutdown() }
        do {
            _ = try await pool.analyse(.startingPosition, limit: .depth(1))
            XCTFail("no handshake")
        } catch let error as EngineError {
            XCTAssertEqual(error, .notUCI(silent))
            XCTAssertTrue(error.description.contains("UCI"))
        }
    }

    func testAProgramThatFloodsItsOutputIsNotAnEngineAndUsesLittleMemory() async throws {
        // `yes` prints "y" lines as fast as it can and never says `uciok`.
        let pool = EnginePool(configuration: configuration("/usr/bin/yes"))
        defer { pool.shutdown() }
        // The peak of this test alone: earlier tests of the process may have used more.
        let before = try resetPeakMemory()
        do {
            _ = try await pool.analyse(.startingPosition, limit: .depth(1))
            XCTFail("yes is not an engine")
        } catch let error as EngineError {
            XCTAssertEqual(error, .notUCI("/usr/bin/yes"))
        }
        XCTAssertLessThan(try peakMemory() - before, 256 << 20, "the flood raised peak memory by under 256 MB")
    }

    /// Sets the process's peak resident memory to what it holds now (Linux's `clear_refs`)
    /// and returns that, in bytes.
    private func resetPeakMemory() throws -> Int {
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        return try peakMemory()
    }

    /// The peak resident memory of the process (`VmHWM`), in bytes.
    private func peakMemory() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try XCTUnwrap(Int(line.split(separator: " ").dropFirst().first ?? "")) << 10
    }

    func testCancellationStopsTheSearch() async throws {
        let pool = EnginePool(configuration: configuration(TestFiles.stockfish))
        defer { pool.shutdown() }
        let task = Task { try await pool.analyse(.startingPosition, limit: .depth(60)) }
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        task.cancel()
        let result = try await task.value
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
        XCTAssertEqual(result?.complete, false)
        // The engine is free again and answers the next search.
        let next = try await pool.analyse(try Position(fen: "8/8/8/8/8/5k2/8/5K1R w - - 0 1"), limit: .depth(6))
        XCTAssertEqual(next?.complete, true)
    }

    func testAWaitForAFreeEngineIsBounded() async throws {
        let pool = EnginePool(configuration: configuration(TestFiles.stockfish), size: 1)
        defer { pool.shutdown() }
        let long = Task { try await pool.analyse(.startingPosition, limit: .movetime(.seconds(2))) }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        let other = try await pool.analyse(
            try Position(fen: "8/8/8/8/8/5k2/8/5K1R w - - 0 1"), limit: .depth(5), waitingAtMost: .milliseconds(100))
        XCTAssertNil(other, "no engine was free within 100 ms")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(1))
        _ = try await long.value
    }
}
