import Foundation
import LanguageServer
import XCTest

public enum TestFailure: Error, CustomStringConvertible {
    case timedOut(String)
    case connectionClosed
    case unexpected(String)

    public var description: String {
        switch self {
        case .timedOut(let what): return "timed out waiting for \(what)"
        case .connectionClosed: return "the server closed the connection"
        case .unexpected(let what): return what
        }
    }
}

/// Messages from the server, taken by tests in any order they like.
public actor Inbox {
    private struct Waiter {
        var predicate: @Sendable (Message) -> Bool
        var continuation: CheckedContinuation<Message, any Error>
    }

    private var messages: [Message] = []
    private var waiters: [UUID: Waiter] = [:]
    private var finished = false

    func add(_ message: Message) {
        if let (key, waiter) = waiters.first(where: { $0.value.predicate(message) }) {
            waiters[key] = nil
            waiter.continuation.resume(returning: message)
        } else {
            messages.append(message)
        }
    }

    func finish() {
        finished = true
        for waiter in waiters.values { waiter.continuation.resume(throwing: TestFailure.connectionClosed) }
        waiters = [:]
    }

    /// Removes and returns the first message matching `predicate`, waiting for it if needed. The timeout
    /// only keeps a broken server from hanging the suite.
    public func take(
        _ what: String, timeout: Duration = .seconds(20), where predicate: @escaping @Sendable (Message) -> Bool
    ) async throws -> Message {
        if let index = messages.firstIndex(where: predicate) { return messages.remove(at: index) }
        if finished { throw TestFailure.connectionClosed }
        let key = UUID()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.expire(key, what)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            waiters[key] = Waiter(predicate: predicate, continuation: continuation)
        }
    }

    private func expire(_ key: UUID, _ what: String) {
        waiters.removeValue(forKey: key)?.continuation.resume(throwing: TestFailure.timedOut(what))
    }

    /// The messages not taken yet.
    public var remaining: [Message] { messages }

    public var isFinished: Bool { finished }
}

/// A client that drives a `Server` in memory, through an `InMemoryConnection`.
public final class TestClient: Sendable {
    public let connection = InMemoryConnection()
    public let server: Server
    public let inbox = Inbox()
    public let exitStatus: Task<Int32, Never>
    private let ids = IDCounter()

    public init(configure: (Server) -> Void = { _ in }) {
        server = Server(connection: connection)
        configure(server)
        let server = self.server
        exitStatus = Task { await server.run() }
        let connection = self.connection
        let inbox = self.inbox
        Task {
            for await message in connection.outgoing { await inbox.add(message) }
            await inbox.finish()
        }
    }

    public func send(_ message: Message) {
        connection.deliver(message)
    }

    public func notify(_ method: String, _ params: JSONValue? = nil) {
        send(.notification(method: method, params: params))
    }

    /// Sends a request and returns its id without waiting.
    public func startRequest(_ method: String, _ params: JSONValue? = nil) -> RequestID {
        let id = RequestID.integer(ids.next())
        send(.request(id: id, method: method, params: params))
        return id
    }

    public func response(to id: RequestID) async throws -> Result<JSONValue, ResponseError> {
        let message = try await inbox.take("response to \(id)") { message in
            if case .response(id, _) = message { return true }
            return false
        }
        guard case .response(_, let result) = message else { throw TestFailure.unexpected("\(message)") }
        return result
    }

    public func request(_ method: String, _ params: JSONValue? = nil) async throws -> Result<JSONValue, ResponseError> {
        try await response(to: startRequest(method, params))
    }

    /// The result of a request that must succeed.
    public func result(_ method: String, _ params: JSONValue? = nil) async throws -> JSONValue {
        switch try await request(method, params) {
        case .success(let value): return value
        case .failure(let error): throw TestFailure.unexpected("\(method) failed: \(error)")
        }
    }

    /// The error of a request that must fail.
    public func error(_ method: String, _ params: JSONValue? = nil) async throws -> ResponseError {
        switch try await request(method, params) {
        case .success(let value): throw TestFailure.unexpected("\(method) succeeded with \(value)")
        case .failure(let error): return error
        }
    }

    /// The next request the server sends to the client.
    public func serverRequest(_ method: String) async throws -> (id: RequestID, params: JSONValue?) {
        let message = try await inbox.take("server request \(method)") { message in
            if case .request(_, method, _) = message { return true }
            return false
        }
        guard case .request(let id, _, let params) = message else { throw TestFailure.unexpected("\(message)") }
        return (id, params)
    }

    public func notification(_ method: String) async throws -> JSONValue? {
        let message = try await inbox.take("notification \(method)") { message in
            if case .notification(method, _) = message { return true }
            return false
        }
        guard case .notification(_, let params) = message else { throw TestFailure.unexpected("\(message)") }
        return params
    }

    /// Responses not taken by the test: a response to a notification would show up here.
    public func unclaimedResponses() async -> [Message] {
        await inbox.remaining.filter {
            if case .response = $0 { return true }
            return false
        }
    }

    @discardableResult
    public func initialize(
        positionEncodings: [String]? = nil, capabilities: JSONValue = [:], clientInfo: JSONValue = ["name": "tests"]
    ) async throws -> JSONValue {
        var capabilities = capabilities.objectValue ?? [:]
        if let positionEncodings {
            capabilities["general"] = ["positionEncodings": .array(positionEncodings.map { .string($0) })]
        }
        let result = try await self.result(
            "initialize", ["processId": .null, "capabilities": .object(capabilities), "clientInfo": clientInfo])
        notify("initialized", [:])
        return result
    }

    public func open(_ uri: String, _ text: String, version: Int = 1) {
        notify(
            "textDocument/didOpen",
            [
                "textDocument": [
                    "uri": .string(uri), "languageId": "pgn", "version": .integer(version), "text": .string(text),
                ]
            ])
    }

    public func change(_ uri: String, version: Int, _ changes: [JSONValue]) {
        notify(
            "textDocument/didChange",
            ["textDocument": ["uri": .string(uri), "version": .integer(version)], "contentChanges": .array(changes)])
    }

    /// Shuts the server down and has it exit; returns the exit status.
    public func shutdownAndExit() async throws -> Int32 {
        _ = try await result("shutdown")
        notify("exit")
        return await exitStatus.value
    }
}

final class IDCounter: Sendable {
    private let value = NSLockedInt()
    func next() -> Int { value.increment() }
}

final class NSLockedInt: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// An incremental change as JSON.
public func changeEvent(_ range: LSPRange?, _ text: String) -> JSONValue {
    var members: [String: JSONValue] = ["text": .string(text)]
    if let range {
        members["range"] = [
            "start": ["line": .integer(range.start.line), "character": .integer(range.start.character)],
            "end": ["line": .integer(range.end.line), "character": .integer(range.end.character)],
        ]
    }
    return .object(members)
}

/// Registers `test/documentText`, which answers the text and version of a document as the request sees it.
public func registerDocumentText(_ server: Server) {
    server.registerRequest("test/documentText") { params, context in
        let document = try context.document(params["textDocument"]?["uri"]?.stringValue ?? "")
        return ["text": .string(document.text), "version": .integer(document.version)]
    }
}

/// A latch that async code can wait on and any thread can open.
public final class Gate: Sendable {
    public init() {}

    private let state = GateState()

    public func open() {
        state.open()
    }

    public func wait() async {
        await withCheckedContinuation { continuation in state.wait(continuation) }
    }
}

private final class GateState: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        lock.lock()
        isOpen = true
        let waiting = waiters
        waiters = []
        lock.unlock()
        for waiter in waiting { waiter.resume() }
    }

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if isOpen {
            lock.unlock()
            continuation.resume()
            return
        }
        waiters.append(continuation)
        lock.unlock()
    }
}

extension Result where Failure == ResponseError {
    /// The error code of a failed response; nil for a result.
    public var errorCode: ErrorCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
