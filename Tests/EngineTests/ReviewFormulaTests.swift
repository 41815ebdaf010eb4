import Engine
import XCTest

/// Every reference value of `../shared/docs/game-review.md`.
final class ReviewFormulaTests: XCTestCase {
    func testWinPercentReferenceValues() {
        let expected: [(Int, Double)] = [
            (0, 50.00), (15, 51.38), (50, 54.59), (100, 59.10), (200, 67.62), (300, 75.11), (500, 86.31), (1000, 97.54),
        ]
        for (cp, win) in expected {
            XCTAssertEqual(ReviewFormulas.winPercent(.centipawns(cp)), win, accuracy: 0.005, "\(cp) cp")
            XCTAssertEqual(ReviewFormulas.winPercent(.centipawns(-cp)), 100 - win, accuracy: 0.005, "-\(cp) cp")
        }
        // Clamped at ±1000, and a mate counts as ±1000.
        XCTAssertEqual(ReviewFormulas.winPercent(.centipawns(5000)), 97.54, accuracy: 0.005)
        XCTAssertEqual(ReviewFormulas.winPercent(.mate(3)), 97.54, accuracy: 0.005)
        XCTAssertEqual(ReviewFormulas.winPercent(.mate(-1)), 2.46, accuracy: 0.005)
        XCTAssertEqual(ReviewFormulas.winningChances(centipawns: 1e9), 1)
    }

    func testMoveAccuracyReferenceValues() {
        for (drop, accuracy) in [(1.0, 96.6), (5, 80.8), (10, 64.6), (20, 41.0), (40, 15.9)] {
            XCTAssertEqual(
                ReviewFormulas.moveAccuracy(winBefore: 60, winAfter: 60 - drop), accuracy, accuracy: 0.05, "\(drop)")
        }
        XCTAssertEqual(ReviewFormulas.moveAccuracy(winBefore: 50, winAfter: 55), 100)
        XCTAssertEqual(ReviewFormulas.moveAccuracy(winBefore: 100, winAfter: 0), 0)
    }

    func testLichessJudgementThresholds() {
        // Drops in winning chances of 0.1, 0.2, 0.3 from an equal position.
        func cp(forChances chances: Double) -> Int { Int((log((1 + chances) / (1 - chances)) / 0.00368208).rounded()) }
        XCTAssertNil(ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-cp(forChances: 0.09))))
        XCTAssertEqual(
            ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-cp(forChances: 0.11))), .inaccuracy)
        XCTAssertEqual(
            ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-cp(forChances: 0.21))), .mistake)
        XCTAssertEqual(
            ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-cp(forChances: 0.31))), .blunder)
        XCTAssertEqual(ReviewFormulas.judge(before: .centipawns(40), after: .centipawns(-210)), .blunder)
        XCTAssertEqual(Judgement.blunder.glyph, "??")
        XCTAssertEqual(Judgement.mistake.nag, 2)
        XCTAssertEqual(Judgement.inaccuracy.nag, 6)
    }

    func testMateRules() {
        // From a score to being mated.
        XCTAssertEqual(ReviewFormulas.judge(before: .centipawns(-1200), after: .mate(-3)), .inaccuracy)
        XCTAssertEqual(ReviewFormulas.judge(before: .centipawns(-800), after: .mate(-3)), .mistake)
        XCTAssertEqual(ReviewFormulas.judge(before: .centipawns(50), after: .mate(-3)), .blunder)
        // Losing a forced mate.
        XCTAssertEqual(ReviewFormulas.judge(before: .mate(4), after: .centipawns(1200)), .inaccuracy)
        XCTAssertEqual(ReviewFormulas.judge(before: .mate(4), after: .centipawns(800)), .mistake)
        XCTAssertEqual(ReviewFormulas.judge(before: .mate(4), after: .centipawns(300)), .blunder)
        XCTAssertEqual(ReviewFormulas.judge(before: .mate(4), after: .mate(-2)), .blunder)
        // A mate that is only delayed is not an error; nor is anything once mated.
        XCTAssertNil(ReviewFormulas.judge(before: .mate(6), after: .mate(7)))
        XCTAssertNil(ReviewFormulas.judge(before: .mate(-5), after: .mate(-2)))
        XCTAssertNil(ReviewFormulas.judge(before: .mate(-5), after: .centipawns(-900)))
    }

    func testOtherPresets() {
        // chess.com: expected points 0.05 / 0.10 / 0.20.
        XCTAssertEqual(
            ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-60), preset: .chesscom), .inaccuracy)
        XCTAssertEqual(
            ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-120), preset: .chesscom), .mistake)
        XCTAssertEqual(
            ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-250), preset: .chesscom), .blunder)
        // En Croissant: Win% drops above 5 / 10 / 20.
        XCTAssertNil(ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-50), preset: .encroissant))
        XCTAssertEqual(
            ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-60), preset: .encroissant), .inaccuracy)
        // Custom thresholds in Win% points.
        let strict = ReviewPreset.custom(inaccuracy: 2, mistake: 4, blunder: 6)
        XCTAssertEqual(ReviewFormulas.judge(before: .centipawns(0), after: .centipawns(-70), preset: strict), .blunder)
    }

    func testGameAccuracyVectors() throws {
        func accuracy(_ cps: [Int]) -> (Double?, Double?) {
            ReviewFormulas.gameAccuracy(scoresAfterEachPly: cps.map { .centipawns($0) })
        }
        let even = accuracy([15, 15])
        XCTAssertEqual(try XCTUnwrap(even.0), 100, accuracy: 1)
        XCTAssertEqual(try XCTUnwrap(even.1), 100, accuracy: 1)
        let blunder = accuracy([-900, -900])
        XCTAssertEqual(try XCTUnwrap(blunder.0), 10, accuracy: 2)
        XCTAssertEqual(try XCTUnwrap(blunder.1), 100, accuracy: 1)
        let late = accuracy(Array(repeating: 15, count: 20) + [-900])
        XCTAssertEqual(try XCTUnwrap(late.0), 50, accuracy: 4)  // 46.9 by the formulas above
        for (loss, expected) in [(-50, 76.0), (-135, 54.0), (-435, 20.0)] {
            let swings = accuracy(Array(repeating: [loss, 15], count: 50).flatMap { $0 })
            XCTAssertEqual(try XCTUnwrap(swings.0), expected, accuracy: 2, "\(loss) white")
            XCTAssertEqual(try XCTUnwrap(swings.1), expected, accuracy: 2, "\(loss) black")
        }
        XCTAssertTrue(accuracy([]).0 == nil)
    }

    func testAverageCentipawnLoss() throws {
        let acpl = ReviewFormulas.averageCentipawnLoss(
            scoresAfterEachPly: [.centipawns(15), .centipawns(115), .mate(3), .centipawns(-2000)])
        // White: 15→15 (0), then 115→1000 is a gain (0). Black: 15→115 (100), 1000→-1000 (0).
        XCTAssertEqual(try XCTUnwrap(acpl.white), 0)
        XCTAssertEqual(try XCTUnwrap(acpl.black), 50)
        XCTAssertEqual(Score.mate(2).negated, .mate(-2))
    }
}
