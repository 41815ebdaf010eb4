import ChessCore
import Engine
import Foundation
import PGN
import Synchronization
import XCTest

/// The repository root and the fake engine beside the tests.
enum TestFiles {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fakeEngine = root.appendingPathComponent("Tests/Fixtures/fake-engine").path
    static let stockfish = "/usr/games/stockfish"

    /// An executable script that runs the fake engine in `mode`, logging to `log` if given.
    static func fakeEngine(_ mode: String, log: String? = nil, state: String? = nil) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-lsp-engine-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = "FAKE_ENGINE_MODE=\(mode)"
        if let log { environment += " FAKE_ENGINE_LOG=\(log)" }
        if let state { environment += " FAKE_ENGINE_STATE=\(state)" }
        let script = directory.appendingPathComponent("engine")
        try "#!/bin/sh\n\(environment) exec python3 \(fakeEngine)\n".write(
            to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script.path
    }

    static func mainline(_ pgn: String) throws -> Mainline {
        let bytes = Array(pgn.utf8)
        let parser = bytes.withUnsafeBufferPointer { Parser($0) }
        let replay = GameReplay(source: SourceText(bytes), syntax: try XCTUnwrap(parser.games.first), index: 0)
        return try XCTUnwrap(Mainline(replay))
    }

    static let blunderGame = """
        [Event "Casual game"]
        [White "White"]
        [Black "Black"]
        [Result "0-1"]

        1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1
        """
}

final class UCIMessageTests: XCTestCase {
    func testInfoLines() throws {
        let info = try XCTUnwrap(
            UCIInfo(
                line:
                    "info depth 18 seldepth 25 multipv 2 score cp -35 upperbound wdl 40 900 60 nodes 123456 nps 999000 hashfull 12 tbhits 0 time 124 pv e7e5 g1f3 b8c6"
            ))
        XCTAssertEqual(info.depth, 18)
        XCTAssertEqual(info.selectiveDepth, 25)
        XCTAssertEqual(info.multiPV, 2)
        XCTAssertEqual(info.score, .centipawns(-35))
        XCTAssertEqual(info.bound, .upperBound)
        XCTAssertEqual(info.wdl, WDL(win: 40, draw: 900, loss: 60))
        XCTAssertEqual(info.nodes, 123456)
        XCTAssertEqual(info.nodesPerSecond, 999000)
        XCTAssertEqual(info.timeMilliseconds, 124)
        XCTAssertEqual(info.pv, ["e7e5", "g1f3", "b8c6"])

        let mate = try XCTUnwrap(UCIInfo(line: "info depth 5 score mate -3 lowerbound pv a1a2"))
        XCTAssertEqual(mate.score, .mate(-3))
        XCTAssertEqual(mate.bound, .lowerBound)
        XCTAssertEqual(mate.multiPV, 1)

        let text = try XCTUnwrap(UCIInfo(line: "info string NNUE evaluation using nn.nnue depth 3 score cp 7"))
        XCTAssertNil(text.depth, "free text after `string` is not read as fields")
        XCTAssertNil(text.score)
    }

    func testGarbageIsNotTrusted() {
        XCTAssertNil(UCIInfo(line: "bestmove e2e4"))
        XCTAssertNil(UCIInfo(line: "informal"))
        let broken = UCIInfo(line: "info depth x score cp y wdl 1 2 pv")
        XCTAssertNil(broken?.depth)
        XCTAssertNil(broken?.score)
        XCTAssertNil(broken?.wdl)
        XCTAssertEqual(broken?.pv, [])
        XCTAssertNil(UCIInfo(line: "info score mate")?.score)
    }

    func testBestMoveAndOptions() throws {
        XCTAssertEqual(UCIBestMove(line: "bestmove e2e4 ponder e7e5")?.move, "e2e4")
        XCTAssertEqual(UCIBestMove(line: "bestmove e2e4 ponder e7e5")?.ponder, "e7e5")
        XCTAssertNotNil(UCIBestMove(line: "bestmove (none)"))
        XCTAssertNil(UCIBestMove(line: "bestmove (none)")?.move)
        XCTAssertNil(UCIBestMove(line: "bestmove 0000")?.move)
        XCTAssertNil(UCIBestMove(line: "bestmoves e2e4"))
        let option = try XCTUnwrap(UCIOption(line: "option name Skill Level type spin default 20 min 0 max 20"))
        XCTAssertEqual(option.name, "Skill Level")
        XCTAssertEqual(option.type, "spin")
        XCTAssertNil(UCIOption(line: "option name"))
    }

    func testScoreTexts() {
        XCTAssertEqual(Score.centipawns(17).pgnText, "0.17")
        XCTAssertEqual(Score.centipawns(-120).pgnText, "-1.20")
        XCTAssertEqual(Score.centipawns(5).pgnText, "0.05")
        XCTAssertEqual(Score.mate(-3).pgnText, "#-3")
        XCTAssertEqual(Score.centipawns(35).displayText, "+0.35")
        XCTAssertEqual(Score.centipawns(-210).displayText, "-2.10")
        XCTAssertEqual(Score.centipawns(0).displayText, "0.00")
        XCTAssertEqual(Score.mate(-3).displayText, "#-3")
    }

    func testExecutableComesFromTheConfigurationOrTheDefaults() throws {
        let fake = try TestFiles.fakeEngine("normal")
        XCTAssertEqual(try EngineConfiguration(path: fake).resolveExecutable().get(), fake)
        XCTAssertEqual(
            EngineConfiguration(path: "/nonexistent/engine").resolveExecutable(),
            .failure(.notFound("/nonexistent/engine")))
        // By name: searched on PATH only.
        let directory = URL(fileURLWithPath: fake).deletingLastPathComponent().path
        XCTAssertEqual(
            try EngineConfiguration(path: "engine").resolveExecutable(environment: ["PATH": directory]).get(), fake)
        // No setting: stockfish on PATH, else /usr/games/stockfish, else a clear message.
        let none = EngineConfiguration().resolveExecutable(environment: ["PATH": directory])
        if FileManager.default.isExecutableFile(atPath: TestFiles.stockfish) {
            XCTAssertEqual(try none.get(), TestFiles.stockfish)
        } else {
            XCTAssertEqual(none, .failure(.notFound(nil)))
        }
        XCTAssertTrue(EngineError.notFound(nil).description.contains("install Stockfish"))
    }
}

/// The real Stockfish, as CI installs it (Debian's `stockfish`).
final class StockfishTests: XCTestCase {
    func testAnalysisOfThePositionAndTheCache() async throws {
        let pool = EnginePool(configuration: EngineConfiguration(path: TestFiles.stockfish))
        defer { pool.shutdown() }
        let analysis = try await XCTUnwrapAsync(await pool.analyse(.startingPosition, limit: .depth(10)))
        XCTAssertGreaterThanOrEqual(analysis.depth, 10)
        XCTAssertTrue(analysis.complete)
        let best = try XCTUnwrap(analysis.best)
        XCTAssertLessThan(abs(best.score.clampedCentipawns), 100, "the start is about equal")
        XCTAssertNotNil(best.wdl, "UCI_ShowWDL is on by default")
        XCTAssertFalse(best.moves.isEmpty)
        XCTAssertNotNil(analysis.bestMove)
        XCTAssertEqual(pool.searches, 1)
        // Asked again, from the cache: no search.
        let again = try await pool.analyse(.startingPosition, limit: .depth(8))
        XCTAssertEqual(again, analysis)
        XCTAssertEqual(pool.searches, 1)
        // Black to move: scores stay in White's view.
        let afterBlunder = try Position(fen: "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2")
        let mate = try await XCTUnwrapAsync(await pool.analyse(afterBlunder, limit: .depth(5)))
        XCTAssertEqual(mate.best?.score, .mate(-1), "Black mates: White is mated in one")
        XCTAssertEqual(mate.bestMove.map { afterBlunder.san($0) }, "Qh4#")
    }

    func testWarmingUpStartsTheEnginesWithoutASearch() async throws {
        let pool = EnginePool(configuration: EngineConfiguration(path: TestFiles.stockfish), size: 2)
        defer { pool.shutdown() }
        XCTAssertFalse(pool.hasStarted)
        await pool.warmUp()
        XCTAssertTrue(pool.hasStarted)
        XCTAssertEqual(pool.searches, 0)
        XCTAssertEqual(pool.restarts, 0)
        // Once more: the engines run already, nothing is started.
        await pool.warmUp()
        _ = try await pool.analyse(.startingPosition, limit: .depth(4))
        XCTAssertEqual(pool.searches, 1)
    }

    func testWarmingUpAMissingEngineRemembersWhy() async throws {
        let pool = EnginePool(configuration: EngineConfiguration(path: "/nonexistent/stockfish"))
        await pool.warmUp()
        XCTAssertFalse(pool.hasStarted)
        XCTAssertNotNil(pool.failure)
    }

    func testReviewFindsTheBlunder() async throws {
        let mainline = try TestFiles.mainline(TestFiles.blunderGame)
        let pool = EnginePool(configuration: EngineConfiguration(path: TestFiles.stockfish), size: 2)
        defer { pool.shutdown() }
        let progress = ProgressLog()
        let review = try await GameReviewer.review(
            from: mainline.start, moves: mainline.moves.map(\.move), pool: pool, limit: .depth(12)
        ) { done, total in progress.add(done, total) }
        XCTAssertEqual(review.moves.count, 14)
        let nxf7 = review.moves[8]
        XCTAssertEqual(nxf7.numberedSAN, "5. Nxf7")
        XCTAssertEqual(nxf7.judgement, .blunder, nxf7.summary)
        XCTAssertLessThan(nxf7.scoreAfter.clampedCentipawns, -200, nxf7.summary)
        XCTAssertNotNil(nxf7.bestSAN)
        XCTAssertTrue(nxf7.summary.hasPrefix("5. Nxf7 blunder ("), nxf7.summary)
        XCTAssertTrue(review.moves[13].mates)
        // White blundered, Black did not.
        XCTAssertLessThan(try XCTUnwrap(review.whiteAccuracy), try XCTUnwrap(review.blackAccuracy))
        XCTAssertGreaterThan(try XCTUnwrap(review.whiteACPL), try XCTUnwrap(review.blackACPL))
        XCTAssertEqual(review.count(.blunder, by: .black), 0)
        XCTAssertEqual(progress.last, 15)
        XCTAssertEqual(progress.totals, [15])
    }
}

/// A thread-safe record of progress reports.
final class ProgressLog: Sendable {
    private let state = Mutex<(last: Int, totals: Set<Int>)>((0, []))
    func add(_ done: Int, _ total: Int) {
        state.withLock { state in
            state.last = max(state.last, done)
            state.totals.insert(total)
        }
    }
    var last: Int { state.withLock { $0.last } }
    var totals: Set<Int> { state.withLock { $0.totals } }
}

func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}
