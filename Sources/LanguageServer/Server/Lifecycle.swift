import Foundation

/// Where the server is in the life the protocol prescribes: `initialize` → `initialized` → … →
/// `shutdown` → `exit`.
public enum LifecycleState: Sendable, Hashable {
    /// Only `initialize` (and `exit`) are accepted; other requests get `ServerNotInitialized`.
    case uninitialized
    case running
    /// After `shutdown`: requests get `InvalidRequest`, only `exit` is awaited.
    case shuttingDown
    case exited
}

extension Server {
    /// How long requests still running may take to answer when the input ends.
    static let endOfInputGrace = DispatchTimeInterval.seconds(2)

    func initialize(id: RequestID, params: JSONValue?) {
        let initializeParams: InitializeParams
        do {
            initializeParams = try InitializeParams(json: params ?? .null)
        } catch {
            let error = error as? ResponseError ?? ResponseError(.invalidParams, "\(error)")
            connection.send(.response(id: id, result: .failure(error)))
            return
        }
        // UTF-8 when the client offers it: the documents are kept as UTF-8, so positions convert
        // directly. A client that counts columns in bytes without saying so (Vim's ALE) names
        // the encoding in `initializationOptions.positionEncoding`.
        let named = initializeParams.initializationOptions?["positionEncoding"]?.stringValue
        let encoding: PositionEncoding =
            named.flatMap(PositionEncoding.init(rawValue:))
            ?? (initializeParams.capabilities.positionEncodings.contains(.utf8) ? .utf8 : .utf16)
        let (capabilities, hooks) = state.withLock { state in
            var capabilities = state.capabilities
            capabilities.positionEncoding = encoding
            return (capabilities, state.registry.initializeHooks)
        }
        var announced = capabilities
        for hook in hooks { hook(initializeParams, &announced) }
        // The encoding is the server core's choice; hooks do not change it.
        announced.positionEncoding = encoding
        state.withLock { state in
            state.session = Session(initializeParams: initializeParams, positionEncoding: encoding)
            state.lifecycle = .running
        }
        let result = InitializeResult(capabilities: announced, serverInfo: serverInfo)
        connection.send(.response(id: id, result: .success(result.json)))
    }

    /// `initialized`: the first moment the server may send the client anything but answers.
    func handleInitialized() {
        guard let session = state.withLock({ $0.session }) else { return }
        let clientInfo = session.initializeParams.clientInfo
        let client = clientInfo.map { " by \($0.name)\($0.version.map { " \($0)" } ?? "")" } ?? ""
        log(.info, "initialized\(client); positions in \(session.positionEncoding.rawValue)")
    }

    /// `exit`: status 0 after `shutdown`, 1 otherwise.
    func handleExit() {
        finish(status: lifecycleState == .shuttingDown ? 0 : 1)
    }

    /// The client closed its side: requests still running get a moment to answer, then the server ends
    /// (status 0 only if it had been shut down).
    func endOfInput() {
        failOutgoingRequests()
        _ = inFlight.wait(timeout: .now() + Self.endOfInputGrace)
        finish(status: lifecycleState == .shuttingDown ? 0 : 1)
    }

    private func failOutgoingRequests() {
        let outgoing = state.withLock { state in
            defer { state.outgoing = [:] }
            return Array(state.outgoing.values)
        }
        for continuation in outgoing {
            continuation.resume(throwing: ResponseError(.requestFailed, "the connection to the client ended"))
        }
    }

    private func finish(status: Int32) {
        let onExit = state.withLock { state -> (@Sendable (Int32) -> Void)? in
            guard state.lifecycle != .exited else { return nil }
            state.lifecycle = .exited
            return state.onExit
        }
        guard let onExit else { return }
        cancelPending(where: { _ in true }, reason: .serverExit)
        failOutgoingRequests()
        log(.log, "exit with status \(status)")
        connection.close()
        onExit(status)
    }
}
