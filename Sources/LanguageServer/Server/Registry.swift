import Foundation

/// The handlers a server dispatches to, by method name. Each feature registers its own in a file of its own.
struct Registry {
    struct RequestEntry {
        var handler: RequestHandler
        var staleOnEdit: Bool
        var priority: TaskPriority?
        /// A request about the whole document, run off the concurrency pool (`OffPoolExecutor`).
        var wholeDocument: Bool
    }

    var requests: [String: RequestEntry] = [:]
    var notifications: [String: [NotificationHandler]] = [:]
    var documentObservers: [DocumentObserver] = []
    var initializeHooks: [InitializeHook] = []
}

extension Server {
    /// Registers the handler of a request method, replacing any earlier one.
    ///
    /// With `staleOnEdit` (the default), a request whose params name a `textDocument` is answered
    /// `ContentModified` as soon as that document changes or closes while the request runs, and the
    /// handler's token is cancelled.
    ///
    /// A request about the whole of a large document (symbols, folds, code lenses, semantic
    /// tokens) passes `wholeDocument`: it runs at a lower priority and off the concurrency pool
    /// (`OffPoolExecutor`), so that the requests about one place (hover, completion, inlay hints
    /// of the visible lines) and the diagnostics go first.
    public func registerRequest(
        _ method: String, staleOnEdit: Bool = true, wholeDocument: Bool = false, handler: @escaping RequestHandler
    ) {
        state.withLock {
            $0.registry.requests[method] = Registry.RequestEntry(
                handler: handler, staleOnEdit: staleOnEdit, priority: wholeDocument ? .utility : nil,
                wholeDocument: wholeDocument)
        }
    }

    /// Registers a handler of a notification method; several may handle the same one, in registration order.
    public func registerNotification(_ method: String, handler: @escaping NotificationHandler) {
        state.withLock { $0.registry.notifications[method, default: []].append(handler) }
    }

    /// Registers an observer of document opens, changes, saves and closes.
    public func observeDocuments(_ observer: @escaping DocumentObserver) {
        state.withLock { $0.registry.documentObservers.append(observer) }
    }

    /// Registers a hook that adjusts the capabilities announced in the `initialize` result.
    public func onInitialize(_ hook: @escaping InitializeHook) {
        state.withLock { $0.registry.initializeHooks.append(hook) }
    }
}

/// A one-line account of a decoding error: what was wrong, and where.
func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "params" : path
    }
    switch error {
    case .typeMismatch(let type, let context): return "\(path(context)) is not of type \(type)"
    case .valueNotFound(let type, let context): return "\(path(context)) is missing a value of type \(type)"
    case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue) is missing"
    case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
    @unknown default: return String(describing: error)
    }
}
