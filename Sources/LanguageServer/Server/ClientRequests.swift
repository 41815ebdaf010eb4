extension Server {
    /// Sends a notification to the client.
    public func sendNotification(_ method: String, params: JSONValue? = nil) {
        connection.send(.notification(method: method, params: params))
    }

    /// Sends a request to the client (`workspace/configuration`, `window/workDoneProgress/create`, …) and
    /// waits for its answer. An error answer is thrown as `ResponseError`. Cancelling the calling task sends
    /// `$/cancelRequest` and throws `CancellationError`.
    public func sendRequest(_ method: String, params: JSONValue? = nil) async throws -> JSONValue {
        let id = state.withLock { state in
            defer { state.nextOutgoingID += 1 }
            return RequestID.integer(state.nextOutgoingID)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let accepted = state.withLock { state in
                    guard state.lifecycle != .exited else { return false }
                    state.outgoing[id] = continuation
                    return true
                }
                guard accepted else {
                    continuation.resume(throwing: ResponseError(.requestFailed, "the server has exited"))
                    return
                }
                connection.send(.request(id: id, method: method, params: params))
                if Task.isCancelled { abandonOutgoingRequest(id) }
            }
        } onCancel: {
            abandonOutgoingRequest(id)
        }
    }

    /// `sendRequest` with typed params and result.
    public func sendRequest<Params: Encodable, Result: Decodable>(
        _ method: String, params: Params, result: Result.Type
    ) async throws -> Result {
        try await sendRequest(method, params: try JSONValue(encoding: params)).decode(Result.self)
    }

    private func abandonOutgoingRequest(_ id: RequestID) {
        guard let continuation = state.withLock({ $0.outgoing.removeValue(forKey: id) }) else { return }
        connection.send(.notification(method: "$/cancelRequest", params: ["id": id.json]))
        continuation.resume(throwing: CancellationError())
    }
}
