import LanguageServer
import TestSupport
import XCTest

/// Records what handlers saw, for tests to await.
actor Observations {
    private var values: [String] = []
    private var waiters: [(String, CheckedContinuation<Void, Never>)] = []

    func record(_ value: String) {
        values.append(value)
        let ready = waiters.filter { $0.0 == value }
        waiters.removeAll { $0.0 == value }
        for (_, waiter) in ready { waiter.resume() }
    }

    func wait(for value: String) async {
        if values.contains(value) { return }
        await withCheckedContinuation { waiters.append((value, $0)) }
    }

    var all: [String] { values }
}

/// Waits until the request's token is cancelled, then records the reason.
func waitForCancellation(_ context: RequestContext, _ observations: Observations) async throws -> JSONValue {
    await observations.record("started \(context.id)")
    while !context.isCancelled {
        try? await Task.sleep(for: .milliseconds(1))
    }
    await observations.record("cancelled \(context.id): \(String(describing: context.cancellation.reason!))")
    await observations.record("task cancelled \(context.id): \(Task.isCancelled)")
    try context.checkCancellation()
    return "not cancelled"
}

final class DispatchTests: XCTestCase {
    /// Requests about the whole document that work long without waiting (reading a large file)
    /// run off the concurrency pool: however many there are, a request about one place is
    /// answered while they work.
    func testWholeDocumentRequestsLeaveThePoolToTheOthers() async throws {
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let client = TestClient { server in
            server.registerRequest("test/whole", lane: .wholeDocument) { _, _ in
                started.signal()
                _ = release.wait(timeout: .now() + 30)
                return "whole"
            }
            server.registerRequest("test/place") { _, _ in "place" }
        }
        try await client.initialize()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let whole = (0...cores).map { _ in client.startRequest("test/whole", [:]) }
        for _ in whole { XCTAssertEqual(started.wait(timeout: .now() + 30), .success, "every one started") }
        let place = try await client.result("test/place", [:])
        XCTAssertEqual(place, "place")
        for _ in whole { release.signal() }
        for id in whole {
            let answer = try await client.response(to: id)
            XCTAssertEqual(answer, .success("whole"))
        }
    }

    /// The outline, folds and code lenses of a large document run at a lower CPU priority than
    /// the requests the user waits for as they type, which the kernel then serves first.
    func testBackgroundRequestsRunAtALowerCPUPriority() async throws {
        let client = TestClient { server in
            for (method, lane) in [
                ("test/place", RequestLane.place), ("test/whole", .wholeDocument), ("test/background", .background),
            ] {
                server.registerRequest(method, lane: lane) { _, _ in .integer(Int(BackgroundExecutor.currentNice)) }
            }
        }
        try await client.initialize()
        let place = try await client.result("test/place", [:]).intValue
        let whole = try await client.result("test/whole", [:]).intValue
        let background = try await client.result("test/background", [:]).intValue
        #if os(Linux)
            XCTAssertGreaterThanOrEqual(whole ?? 0, place ?? 0)
            XCTAssertGreaterThan(background ?? 0, whole ?? 0, "place \(place ?? 0), whole document \(whole ?? 0)")
        #endif
        // Each of several at once is answered.
        let ids = (0..<6).map { _ in client.startRequest("test/background", [:]) }
        for id in ids {
            let answer = try await client.response(to: id)
            XCTAssertEqual(answer, .success(.integer(background ?? 0)))
        }
    }

    func testCancelRequestAnswersRequestCancelledAndCancelsTheHandler() async throws {
        let observations = Observations()
        let client = TestClient { server in
            server.registerRequest("test/slow") { _, context in try await waitForCancellation(context, observations) }
        }
        try await client.initialize()
        let id = client.startRequest("test/slow", [:])
        await observations.wait(for: "started \(id)")
        client.notify("$/cancelRequest", ["id": id.json])
        let answer = try await client.response(to: id)
        XCTAssertEqual(answer, .failure(ResponseError(.requestCancelled, "the request was cancelled")))
        XCTAssertEqual(ErrorCode.requestCancelled.rawValue, -32800)
        await observations.wait(for: "cancelled \(id): cancelledByClient")
        await observations.wait(for: "task cancelled \(id): true")
        // The handler's own (late) answer is not sent.
        let stray = await client.unclaimedResponses()
        XCTAssertEqual(stray, [])
    }

    func testCancellingARequestBeforeItRunsStillAnswersOnce() async throws {
        let observations = Observations()
        let client = TestClient { server in
            server.registerRequest("test/slow") { _, context in try await waitForCancellation(context, observations) }
        }
        try await client.initialize()
        let id = RequestID.string("early")
        client.send(.request(id: id, method: "test/slow", params: nil))
        client.notify("$/cancelRequest", ["id": "early"])
        let answer = try await client.response(to: id).errorCode
        XCTAssertEqual(answer, .requestCancelled)
        _ = try await client.result("shutdown")
        let stray = await client.unclaimedResponses()
        XCTAssertEqual(stray, [])
    }

    func testCancellingAFinishedOrUnknownRequestIsIgnored() async throws {
        let client = TestClient { server in
            server.registerRequest("test/quick") { _, _ in "quick" }
        }
        try await client.initialize()
        let before = try await client.result("test/quick")
        XCTAssertEqual(before, "quick")
        client.notify("$/cancelRequest", ["id": 1])
        client.notify("$/cancelRequest", ["id": "never sent"])
        client.notify("$/cancelRequest", ["no id": true])
        let after = try await client.result("test/quick")
        XCTAssertEqual(after, "quick")
        let stray = await client.unclaimedResponses()
        XCTAssertEqual(stray, [])
    }

    func testEditOfTheDocumentMakesARunningRequestContentModified() async throws {
        let observations = Observations()
        let client = TestClient { server in
            server.registerRequest("test/slow") { _, context in try await waitForCancellation(context, observations) }
        }
        try await client.initialize()
        client.open("file:///game.pgn", "1. e4")
        client.open("file:///other.pgn", "1. d4")
        let id = client.startRequest("test/slow", ["textDocument": ["uri": "file:///game.pgn"]])
        let other = client.startRequest("test/slow", ["textDocument": ["uri": "file:///other.pgn"]])
        await observations.wait(for: "started \(id)")
        client.change("file:///game.pgn", version: 2, [changeEvent(LSPRange(0, 5, 0, 5), " e5")])
        let answer = try await client.response(to: id)
        XCTAssertEqual(answer.errorCode, .contentModified)
        XCTAssertEqual(ErrorCode.contentModified.rawValue, -32801)
        await observations.wait(for: "cancelled \(id): contentModified")
        // A request about another document goes on.
        let otherCancelled = await observations.all.contains { $0.hasPrefix("cancelled \(other)") }
        XCTAssertFalse(otherCancelled)
        client.notify("$/cancelRequest", ["id": other.json])
        let otherAnswer = try await client.response(to: other).errorCode
        XCTAssertEqual(otherAnswer, .requestCancelled)
    }

    func testClosingTheDocumentMakesARunningRequestContentModified() async throws {
        let observations = Observations()
        let client = TestClient { server in
            server.registerRequest("test/slow") { _, context in try await waitForCancellation(context, observations) }
        }
        try await client.initialize()
        client.open("file:///game.pgn", "1. e4")
        let id = client.startRequest("test/slow", ["textDocument": ["uri": "file:///game.pgn"]])
        client.notify("textDocument/didClose", ["textDocument": ["uri": "file:///game.pgn"]])
        let answer = try await client.response(to: id).errorCode
        XCTAssertEqual(answer, .contentModified)
    }

    func testRequestsSeeTheDocumentsAsTheyWereWhenTheyArrived() async throws {
        let gate = Gate()
        let client = TestClient { server in
            registerDocumentText(server)
            server.registerRequest("test/textLater", staleOnEdit: false) { params, context in
                await gate.wait()
                return .string(try context.document(params["textDocument"]?["uri"]?.stringValue ?? "").text)
            }
        }
        try await client.initialize()
        client.open("file:///game.pgn", "1. e4")
        let early = client.startRequest("test/textLater", ["textDocument": ["uri": "file:///game.pgn"]])
        client.change("file:///game.pgn", version: 2, [changeEvent(LSPRange(0, 5, 0, 5), " e5")])
        let now = try await client.result("test/documentText", ["textDocument": ["uri": "file:///game.pgn"]])
        XCTAssertEqual(now, ["text": "1. e4 e5", "version": 2])
        gate.open()
        let earlyAnswer = try await client.response(to: early)
        XCTAssertEqual(earlyAnswer, .success("1. e4"))
    }

    func testRequestsRunConcurrently() async throws {
        // The first request can only finish after the second has started: run one at a time, they would hang.
        let secondStarted = Gate()
        let client = TestClient { server in
            server.registerRequest("test/first") { _, _ in
                await secondStarted.wait()
                return "first"
            }
            server.registerRequest("test/second") { _, _ in
                secondStarted.open()
                return "second"
            }
        }
        try await client.initialize()
        client.open("file:///a.pgn", "")
        client.open("file:///b.pgn", "")
        let first = client.startRequest("test/first", ["textDocument": ["uri": "file:///a.pgn"]])
        let second = client.startRequest("test/second", ["textDocument": ["uri": "file:///b.pgn"]])
        let secondAnswer = try await client.response(to: second)
        XCTAssertEqual(secondAnswer, .success("second"))
        let firstAnswer = try await client.response(to: first)
        XCTAssertEqual(firstAnswer, .success("first"))
    }

    func testServerToClientRequestsAreMatchedWithTheirResponses() async throws {
        let client = TestClient { server in
            server.registerRequest("test/askClient") { params, context in
                let method = params["method"]?.stringValue ?? ""
                return try await context.server.sendRequest(method, params: ["items": [["section": "pgn"]]])
            }
        }
        try await client.initialize()
        let configuration = client.startRequest("test/askClient", ["method": "workspace/configuration"])
        let progress = client.startRequest("test/askClient", ["method": "window/workDoneProgress/create"])
        let progressRequest = try await client.serverRequest("window/workDoneProgress/create")
        let configurationRequest = try await client.serverRequest("workspace/configuration")
        XCTAssertEqual(configurationRequest.params, ["items": [["section": "pgn"]]])
        XCTAssertNotEqual(progressRequest.id, configurationRequest.id)
        // Answered in the other order than asked.
        client.send(.response(id: progressRequest.id, result: .failure(ResponseError(.requestFailed, "no progress"))))
        client.send(.response(id: configurationRequest.id, result: .success([["engine": "stockfish"]])))
        let configurationAnswer = try await client.response(to: configuration)
        XCTAssertEqual(configurationAnswer, .success([["engine": "stockfish"]]))
        let progressAnswer = try await client.response(to: progress)
        XCTAssertEqual(progressAnswer, .failure(ResponseError(.requestFailed, "no progress")))
    }

    func testServerToClientRequestFailsWhenTheInputEnds() async throws {
        let observations = Observations()
        let client = TestClient { server in
            server.registerRequest("test/askClient") { _, context in
                do {
                    _ = try await context.server.sendRequest("workspace/configuration", params: ["items": []])
                    await observations.record("answered")
                } catch {
                    await observations.record("failed")
                }
                return nil
            }
        }
        try await client.initialize()
        _ = client.startRequest("test/askClient")
        _ = try await client.serverRequest("workspace/configuration")
        client.connection.endInput()
        await observations.wait(for: "failed")
        let status = await client.exitStatus.value
        XCTAssertEqual(status, 1)
    }

    func testNotificationHandlersRunInOrderWithDocumentChanges() async throws {
        let client = TestClient { server in
            server.registerNotification("test/note") { params, context in
                let text = context.documents["file:///a.pgn"]?.text ?? "-"
                context.server.sendNotification("test/seen", params: ["n": params["n"] ?? nil, "text": .string(text)])
            }
        }
        try await client.initialize()
        client.notify("test/note", ["n": 1])
        client.open("file:///a.pgn", "x")
        client.notify("test/note", ["n": 2])
        client.change("file:///a.pgn", version: 2, [changeEvent(nil, "y")])
        client.notify("test/note", ["n": 3])
        var seen: [JSONValue] = []
        for _ in 1...3 { seen.append(try await client.notification("test/seen") ?? nil) }
        XCTAssertEqual(seen, [["n": 1, "text": "-"], ["n": 2, "text": "x"], ["n": 3, "text": "y"]])
    }
}
