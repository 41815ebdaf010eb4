import ChessCore
import Engine
import Foundation
import XCTest

/// Engines that print numbers beyond any range, print without end, never answer `go`, or
/// start slowly: nothing traps, every search ends within its deadline, and a search stopped
/// for one caller never answers another.
final class HostileEngineTests: XCTestCase {
    private func configuration(_ path: String, searchTimeout: Duration = .seconds(20)) -> EngineConfiguration {
        var configuration = EngineConfiguration(path: path)
        configuration.searchTimeout = searchTimeout
        configuration.handshakeTimeout = .seconds(5)
        return configuration
    }

    func testExtremeNumbersInAnInfoLineAreBroughtIntoRangeOrIgnored() throws {
        let low = try XCTUnwrap(UCIInfo(line: "info depth 1 score cp -9223372036854775808 pv e2e4"))
        XCTAssertEqual(low.score, .centipawns(-Score.centipawnLimit))
        let high = try XCTUnwrap(UCIInfo(line: "info depth 1 score cp 9223372036854775807"))
        XCTAssertEqual(high.score, .centipawns(Score.centipawnLimit))
        let mated = try XCTUnwrap(UCIInfo(line: "info depth 1 score mate -9223372036854775808"))
        XCTAssertEqual(mated.score, .mate(-Score.mateLimit))
        XCTAssertNil(UCIInfo(line: "info score cp 99999999999999999999")?.score, "not an Int: ignored")
        let counts = try XCTUnwrap(
            UCIInfo(
                line:
                    "info depth -3 seldepth -1 multipv -2 nodes -5 nps -1 time -9 wdl 9223372036854775807 9223372036854775807 -9223372036854775808"
            ))
        XCTAssertNil(counts.depth)
        XCTAssertNil(counts.selectiveDepth)
        XCTAssertEqual(counts.multiPV, 1)
        XCTAssertNil(counts.nodes)
        XCTAssertNil(counts.nodesPerSecond)
        XCTAssertNil(counts.timeMilliseconds)
        XCTAssertNil(counts.wdl, "a WDL outside 0…1000 is ignored")
        XCTAssertEqual(UCIInfo(line: "info wdl 1000 0 0")?.wdl, WDL(win: 1000, draw: 0, loss: 0))
    }

    func testScoreArithmeticAndTextsNeverTrap() {
        XCTAssertEqual(Score.centipawns(.min).negated, .centipawns(.max))
        XCTAssertEqual(Score.mate(.min).negated, .mate(.max))
        XCTAssertEqual(Score.centipawns(.max).negated, .centipawns(-.max))
        XCTAssertEqual(Score.centipawns(.min).pgnText, "-92233720368547758.08")
        XCTAssertEqual(Score.centipawns(.min).displayText, "-92233720368547758.08")
        XCTAssertEqual(Score.mate(.min).displayText, "#-9223372036854775808")
        XCTAssertEqual(Score.mate(.min).pgnText, "#-9223372036854775808")
        XCTAssertEqual(Score.centipawns(.min).clamped, .centipawns(-Score.centipawnLimit))
        XCTAssertEqual(Score.mate(.max).clamped, .mate(Score.mateLimit))
        for score in [Score.centipawns(.min), .centipawns(.max), .mate(.min), .mate(.max), .mate(0)] {
            let win = ReviewFormulas.winPercent(score)
            XCTAssertTrue((0...100).contains(win), "\(score): \(win)")
            _ = ReviewFormulas.judge(before: score, after: score.negated)
        }
        let acpl = ReviewFormulas.averageCentipawnLoss(scoresAfterEachPly: [.centipawns(.min), .centipawns(.max)])
        XCTAssertEqual(acpl.white, 1015)
        XCTAssertEqual(acpl.black, 2000)
    }

    func testAReviewWithScoresBeyondAnyRangeFinishes() async throws {
        let engine = try TestFiles.fakeEngine("extreme")
        let mainline = try TestFiles.mainline(TestFiles.blunderGame)
        let pool = EnginePool(configuration: configuration(engine), size: 2)
        defer { pool.shutdown() }
        let review = try await GameReviewer.review(
            from: mainline.start, moves: mainline.moves.map(\.move), pool: pool, limit: .depth(1))
        XCTAssertEqual(review.moves.count, 14)
        for move in review.moves {
            for score in [move.scoreBefore, move.scoreAfter] {
                switch score {
                case .centipawns(let cp): XCTAssertLessThanOrEqual(abs(cp), Score.centipawnLimit)
                case .mate(let n): XCTAssertLessThanOrEqual(abs(n), Score.mateLimit)
                }
            }
            XCTAssertNil(move.wdlAfter)
            XCTAssertFalse(move.summary.isEmpty)
        }
        // With Black to move the engine says it is mated in 10 000: White mates.
        XCTAssertEqual(review.moves[0].scoreAfter, .mate(Score.mateLimit))
        XCTAssertNotNil(review.whiteAccuracy)
    }

    func testAnEngineThatFloodsItsOutputIsStoppedAndEndedAtTheDeadline() async throws {
        let engine = try TestFiles.fakeEngine("flood")
        let pool = EnginePool(configuration: configuration(engine, searchTimeout: .milliseconds(300)))
        defer { pool.shutdown() }
        let start = ContinuousClock.now
        do {
            _ = try await pool.analyse(.startingPosition, limit: .depth(20))
            XCTFail("a flooding engine never says bestmove")
        } catch let error as EngineError {
            XCTAssertEqual(error, .timedOut(engine))
        }
        // 0.3 s of search, 2 s for `stop`, and the start of the engine.
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(8))
    }

    func testASearchThatNeverEndsFailsAfterItsOwnBudgetOnce() async throws {
        let engine = try TestFiles.fakeEngine("hang")
        let pool = EnginePool(configuration: configuration(engine))
        defer { pool.shutdown() }
        let start = ContinuousClock.now
        do {
            _ = try await pool.analyse(.startingPosition, limit: .movetime(.milliseconds(100)))
            XCTFail("a hanging engine cannot answer")
        } catch let error as EngineError {
            XCTAssertEqual(error, .timedOut(engine))
        }
        // The movetime and 5 s, then 2 s for `stop`; not twice that.
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(11))
        XCTAssertEqual(pool.restarts, 1, "the engine was ended; the next search starts another")
    }

    func testASearchStoppedAtItsDeadlineGivesWhatItFound() async throws {
        let engine = try TestFiles.fakeEngine("until-stop")
        let pool = EnginePool(configuration: configuration(engine, searchTimeout: .milliseconds(200)), size: 2)
        defer { pool.shutdown() }
        let mainline = try TestFiles.mainline(TestFiles.blunderGame)
        let review = try await GameReviewer.review(
            from: mainline.start, moves: mainline.moves.map(\.move), pool: pool, limit: .depth(12))
        XCTAssertEqual(review.moves.count, 14)
        XCTAssertEqual(review.moves[0].depth, 1)
        XCTAssertEqual(pool.restarts, 0)
    }

    func testASearchCancelledWhileTheEngineStartsDoesNotAnswerTheNextCaller() async throws {
        let engine = try TestFiles.fakeEngine("slow-start:1.5")
        let pool = EnginePool(configuration: configuration(engine), size: 1)
        defer { pool.shutdown() }
        // A hover gives up while the engine is still starting: its search is stopped at once.
        let hover = Task { try await pool.analyse(.startingPosition, limit: .movetime(.milliseconds(300))) }
        try await Task.sleep(for: .milliseconds(300))
        hover.cancel()
        let stopped = try await hover.value
        XCTAssertEqual(stopped?.complete, false)
        // A review of the same position wants a finished search.
        let e4 = try XCTUnwrap(Position.startingPosition.move(uci: "e2e4"))
        let review = try await GameReviewer.review(
            from: .startingPosition, moves: [e4], pool: pool, limit: .depth(1))
        XCTAssertEqual(review.moves.count, 1)
        XCTAssertEqual(pool.cached(.startingPosition)?.complete, true)
    }
}
