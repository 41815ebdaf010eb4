/// Tells a request handler that its answer is no longer wanted. Handlers poll `isCancelled` (or call
/// `RequestContext.checkCancellation()`); the handler's task is cancelled too, so `Task.isCancelled` and
/// cancellable awaits notice as well.
public final class CancellationToken: Sendable {
    public enum Reason: Sendable, Hashable {
        /// The client sent `$/cancelRequest`.
        case cancelledByClient
        /// The document the request is about changed or closed.
        case contentModified
        /// The server is exiting.
        case serverExit
    }

    private struct State {
        var reason: Reason?
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    public init() {}

    public var isCancelled: Bool { state.withLock { $0.reason != nil } }

    public var reason: Reason? { state.withLock { $0.reason } }

    /// Cancels with a reason; the first reason stays.
    public func cancel(_ reason: Reason) {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.reason == nil else { return [] }
            state.reason = reason
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` when the token is cancelled, or at once if it already is.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.reason != nil { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// The error that answers a request cancelled for `reason`.
    public static func error(for reason: Reason) -> ResponseError {
        switch reason {
        case .cancelledByClient: return ResponseError(.requestCancelled, "the request was cancelled")
        case .contentModified: return ResponseError(.contentModified, "the document changed")
        case .serverExit: return ResponseError(.serverCancelled, "the server is exiting")
        }
    }
}
