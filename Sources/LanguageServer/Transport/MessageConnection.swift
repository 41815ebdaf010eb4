/// What a connection hands to the server, one event at a time and in the order the input arrived.
public enum IncomingEvent: Sendable, Equatable {
    case message(Message)
    /// Input that is not a message; the server answers with the error (and `id: null` when none is known).
    case invalid(InvalidMessage)
    /// The input ended, with the problem of an unfinished frame if there was one.
    case end(FramingError?)
}

/// A two-way channel of JSON-RPC messages. The server reads from it through `start` and writes with `send`;
/// a stdio connection speaks the base protocol on file descriptors, an in-memory one serves tests.
public protocol MessageConnection: AnyObject, Sendable {
    /// Begins delivering input to `receive`. Calls are serial and in order; the next event is not delivered
    /// before `receive` returns, which is what lets the server apply document changes in arrival order.
    func start(receive: @escaping @Sendable (IncomingEvent) -> Void)

    /// Queues a message for the other side. Safe from any thread; messages are never interleaved.
    func send(_ message: Message)

    /// Writes out everything queued, then stops sending; later messages are dropped.
    func close()
}
