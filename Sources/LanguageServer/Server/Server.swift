import Foundation

/// The language server core: reads messages from a connection, keeps the lifecycle and the open
/// documents, and dispatches requests and notifications to registered handlers.
///
/// Messages are taken one at a time on the connection's thread. Notifications — document changes
/// above all — are applied there, in arrival order, before the next message is read; each request is
/// then handed a copy of the documents and runs in a task of its own, concurrently with other requests.
public final class Server: Sendable {
    let connection: any MessageConnection
    let state: Locked<State>
    /// Requests whose handler is running, waited for (briefly) when the input ends.
    let inFlight = DispatchGroup()

    struct PendingRequest {
        var method: String
        var token: CancellationToken
        var documentURI: DocumentURI?
        var staleOnEdit: Bool
    }

    struct State {
        var lifecycle = LifecycleState.uninitialized
        var session: Session?
        var documents = DocumentStore()
        var registry = Registry()
        var capabilities = ServerCapabilities()
        var incoming: [RequestID: PendingRequest] = [:]
        var outgoing: [RequestID: CheckedContinuation<JSONValue, any Error>] = [:]
        var nextOutgoingID = 1
        var onExit: (@Sendable (Int32) -> Void)?
        var clientLogLevel = MessageType.log
        var serverInfo: ServerInfo
    }

    public init(connection: any MessageConnection, serverInfo: ServerInfo = ServerInfo(name: "pgn-lsp")) {
        self.connection = connection
        self.state = Locked(State(serverInfo: serverInfo))
    }

    /// The name and version answered at `initialize`; the language on the framework sets it when it
    /// registers its features.
    public var serverInfo: ServerInfo {
        get { state.withLock { $0.serverInfo } }
        set { state.withLock { $0.serverInfo = newValue } }
    }

    /// The capabilities announced at `initialize`, before the position encoding and the hooks of
    /// `onInitialize` are applied. Features set their entries here when they register.
    public var capabilities: ServerCapabilities {
        get { state.withLock { $0.capabilities } }
        set { state.withLock { $0.capabilities = newValue } }
    }

    /// The least severe kind of log message also sent to the client as `window/logMessage`; everything
    /// goes to standard error.
    public var clientLogLevel: MessageType {
        get { state.withLock { $0.clientLogLevel } }
        set { state.withLock { $0.clientLogLevel = newValue } }
    }

    public var lifecycleState: LifecycleState { state.withLock { $0.lifecycle } }

    /// The agreement made at `initialize`; nil before it.
    public var session: Session? { state.withLock { $0.session } }

    /// The open documents as they are now.
    public var documents: DocumentStore { state.withLock { $0.documents } }

    /// Holds an open document's text in `text`, the same bytes held in other arrays, if no
    /// change came since the text of `stamp` (`DocumentStore.hold`).
    @discardableResult
    public func hold(_ uri: DocumentURI, at stamp: UInt64, in text: DocumentText) -> Bool {
        state.withLock { $0.documents.hold(uri, at: stamp, in: text) }
    }

    /// Starts reading from the connection. `onExit` is called once, with the process exit status, after
    /// `exit` or the end of input, when all output has been written.
    public func start(onExit: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.onExit = onExit }
        connection.start { [self] event in receive(event) }
    }

    /// Serves until `exit` or the end of input and returns the exit status: 0 after `shutdown`, 1 otherwise.
    public func run() async -> Int32 {
        await withCheckedContinuation { continuation in
            start { status in continuation.resume(returning: status) }
        }
    }

    // MARK: Dispatch

    /// Handles one event from the connection, on the connection's thread.
    func receive(_ event: IncomingEvent) {
        guard lifecycleState != .exited else { return }
        switch event {
        case .message(.request(let id, let method, let params)):
            handleRequest(id: id, method: method, params: params)
        case .message(.notification(let method, let params)):
            handleNotification(method: method, params: params)
        case .message(.response(let id, let result)):
            handleResponse(id: id, result: result)
        case .invalid(let invalid) where invalid.isResponse:
            // A malformed response is never answered; a request of ours waiting for it fails.
            log(.error, "invalid response from the client: \(invalid.error.message)")
            if let id = invalid.id {
                let continuation = state.withLock { $0.outgoing.removeValue(forKey: id) }
                continuation?.resume(throwing: invalid.error)
            }
        case .invalid(let invalid):
            log(.error, "invalid message: \(invalid.error.message)")
            connection.send(.response(id: invalid.id, result: .failure(invalid.error)))
        case .end(let error):
            if let error { log(.error, "\(error)") }
            endOfInput()
        }
    }

    private enum RequestRoute {
        case answer(Result<JSONValue, ResponseError>)
        case initialize
        case run(Registry.RequestEntry, RequestContext)
    }

    private func handleRequest(id: RequestID, method: String, params: JSONValue?) {
        let route = state.withLock { state -> RequestRoute in
            switch state.lifecycle {
            case .exited, .shuttingDown:
                return .answer(
                    .failure(ResponseError(.invalidRequest, "the server is shutting down; only exit is accepted")))
            case .uninitialized:
                if method == "initialize" { return .initialize }
                return .answer(.failure(ResponseError(.serverNotInitialized, "the server is not initialized")))
            case .running:
                break
            }
            switch method {
            case "initialize":
                return .answer(.failure(ResponseError(.invalidRequest, "initialize may be sent only once")))
            case "shutdown":
                state.lifecycle = .shuttingDown
                return .answer(.success(.null))
            default:
                break
            }
            guard let entry = state.registry.requests[method] else {
                return .answer(.failure(ResponseError(.methodNotFound, "unknown method \(method)")))
            }
            guard state.incoming[id] == nil else {
                return .answer(.failure(ResponseError(.invalidRequest, "request id \(id) is already in use")))
            }
            let token = CancellationToken()
            state.incoming[id] = PendingRequest(
                method: method, token: token, documentURI: params?["textDocument"]?["uri"]?.stringValue,
                staleOnEdit: entry.staleOnEdit)
            let context = RequestContext(
                id: id, method: method, documents: state.documents, session: state.session!, cancellation: token,
                server: self)
            return .run(entry, context)
        }
        switch route {
        case .answer(let result):
            connection.send(.response(id: id, result: result))
        case .initialize:
            initialize(id: id, params: params)
        case .run(let entry, let context):
            run(entry.handler, params: params ?? .null, context: context, lane: entry.lane)
        }
    }

    private func run(_ handler: @escaping RequestHandler, params: JSONValue, context: RequestContext, lane: RequestLane)
    {
        inFlight.enter()
        let executor: (any TaskExecutor)? =
            switch lane {
            case .place: nil
            case .wholeDocument: OffPoolExecutor.shared
            case .background: BackgroundExecutor.shared
            }
        let task = Task(executorPreference: executor, priority: lane == .place ? nil : .utility) { [self] in
            defer { inFlight.leave() }
            let result: Result<JSONValue, ResponseError>
            do {
                result = .success(try await handler(params, context))
            } catch {
                result = .failure(Self.responseError(for: error, token: context.cancellation))
            }
            answer(context.id, with: result)
        }
        context.cancellation.onCancel { task.cancel() }
    }

    /// Sends the answer of a running request, unless it was already answered (cancelled or stale).
    func answer(_ id: RequestID, with result: Result<JSONValue, ResponseError>) {
        let pending = state.withLock { $0.incoming.removeValue(forKey: id) }
        guard pending != nil else { return }
        connection.send(.response(id: id, result: result))
    }

    /// Answers pending requests at once with the error of `reason` and cancels their handlers.
    func cancelPending(where shouldCancel: (PendingRequest) -> Bool, reason: CancellationToken.Reason) {
        let cancelled = state.withLock { state -> [(RequestID, PendingRequest)] in
            let matching = state.incoming.filter { shouldCancel($0.value) }
            for id in matching.keys { state.incoming[id] = nil }
            return Array(matching)
        }
        for (id, pending) in cancelled {
            if reason != .serverExit {
                connection.send(.response(id: id, result: .failure(CancellationToken.error(for: reason))))
            }
            pending.token.cancel(reason)
        }
    }

    private static func responseError(for error: any Error, token: CancellationToken) -> ResponseError {
        switch error {
        case let error as ResponseError:
            return error
        case is CancellationError:
            return CancellationToken.error(for: token.reason ?? .cancelledByClient)
        case let error as DecodingError:
            return ResponseError(.invalidParams, "invalid params: \(describe(error))")
        default:
            return ResponseError(.internalError, "\(error)")
        }
    }

    private func handleNotification(method: String, params: JSONValue?) {
        if method == "exit" {
            handleExit()
            return
        }
        let lifecycle = lifecycleState
        guard lifecycle == .running else {
            // Before initialize and after shutdown, notifications are dropped.
            if lifecycle == .uninitialized, !method.hasPrefix("$/") {
                log(.log, "dropped \(method) received before initialize")
            }
            return
        }
        let params = params ?? .null
        switch method {
        case "initialized":
            handleInitialized()
        case "$/cancelRequest":
            guard let id = params["id"].flatMap(RequestID.init(json:)) else {
                log(.error, "$/cancelRequest without a valid id")
                return
            }
            cancelRequest(id)
            return
        case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave":
            do {
                try synchronizeDocuments(method: method, params: params)
            } catch {
                log(.error, "\(method): \(error)")
            }
            return
        default:
            break
        }
        let (handlers, context) = state.withLock { state in
            (
                state.registry.notifications[method] ?? [],
                NotificationContext(method: method, documents: state.documents, session: state.session!, server: self)
            )
        }
        if handlers.isEmpty {
            if !method.hasPrefix("$/"), method != "initialized" { log(.log, "ignored notification \(method)") }
            return
        }
        for handler in handlers {
            do {
                try handler(params, context)
            } catch {
                log(.error, "\(method): \(error)")
            }
        }
    }

    /// `$/cancelRequest`: a request still running is answered `RequestCancelled` now; others are ignored.
    private func cancelRequest(_ id: RequestID) {
        let pending = state.withLock { $0.incoming.removeValue(forKey: id) }
        guard let pending else { return }
        connection.send(.response(id: id, result: .failure(CancellationToken.error(for: .cancelledByClient))))
        pending.token.cancel(.cancelledByClient)
    }

    private func handleResponse(id: RequestID?, result: Result<JSONValue, ResponseError>) {
        guard let id else {
            if case .failure(let error) = result { log(.error, "the client reported an error: \(error)") }
            return
        }
        let continuation = state.withLock { $0.outgoing.removeValue(forKey: id) }
        guard let continuation else {
            log(.warning, "response to unknown request \(id)")
            return
        }
        continuation.resume(with: result.mapError { $0 as any Error })
    }
}
