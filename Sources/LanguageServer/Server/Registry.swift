import Foundation

/// Where a request's handler runs.
public enum RequestLane: Sendable {
    /// On the concurrency pool, at the default priority: the requests about one place (hover,
    /// completion, the visible lines' hints) and the diagnostics.
    case place
    /// Off the pool (`OffPoolExecutor`), at `utility`: a request about the whole of a large
    /// document that works long without waiting, which would hold a thread of the pool that the
    /// requests about one place wait for (the semantic tokens and their delta).
    case wholeDocument
    /// On threads of a lower CPU priority (`BackgroundExecutor`): a request about the whole
    /// document that the editor shows beside the text (the outline, folds, code lenses), which
    /// leaves the cores to the requests the user waits for as they type.
    case background
}

/// The handlers a server dispatches to, by method name. Each feature registers its own in a file of its own.
struct Registry {
    struct RequestEntry {
        var handler: RequestHandler
        var staleOnEdit: Bool
        var lane: RequestLane
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
    /// `lane`: where the handler runs (`RequestLane`).
    public func registerRequest(
        _ method: String, staleOnEdit: Bool = true, lane: RequestLane = .place, handler: @escaping RequestHandler
    ) {
        state.withLock {
            $0.registry.requests[method] = Registry.RequestEntry(
                handler: handler, staleOnEdit: staleOnEdit, lane: lane)
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
