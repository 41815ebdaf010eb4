import Foundation

/// A connection without bytes: the client side hands events to `deliver` and reads what the server sends
/// from `outgoing`. Events are delivered to the server one at a time in order, as from a real stream.
public final class InMemoryConnection: MessageConnection, @unchecked Sendable {
    private let inbound = DispatchQueue(label: "pgn-lsp.in-memory.inbound")
    private let state = Locked(State())
    private let outgoingContinuation: AsyncStream<Message>.Continuation

    /// Every message the server sends, in order; finishes when the server closes the connection.
    public let outgoing: AsyncStream<Message>

    private struct State {
        var receive: (@Sendable (IncomingEvent) -> Void)?
        var closed = false
    }

    public init() {
        (outgoing, outgoingContinuation) = AsyncStream.makeStream(of: Message.self)
        // Events delivered before the server starts wait for it.
        inbound.suspend()
    }

    deinit {
        // libdispatch must not release a suspended queue.
        if state.withLock({ $0.receive == nil }) { inbound.resume() }
    }

    public func start(receive: @escaping @Sendable (IncomingEvent) -> Void) {
        let first = state.withLock { state in
            defer { state.receive = receive }
            return state.receive == nil
        }
        precondition(first, "a connection is started once")
        inbound.resume()
    }

    /// Hands an event to the server (client side).
    public func deliver(_ event: IncomingEvent) {
        inbound.async { [state] in
            state.withLock { $0.receive }?(event)
        }
    }

    /// Hands a message to the server (client side).
    public func deliver(_ message: Message) {
        deliver(.message(message))
    }

    /// Hands raw frame bodies to the server as the stdio connection would after cutting frames.
    public func deliver(frame body: [UInt8]) {
        switch Message.decode(frame: body) {
        case .success(let message): deliver(.message(message))
        case .failure(let invalid): deliver(.invalid(invalid))
        }
    }

    /// Ends the input (client side), as when standard input is closed.
    public func endInput() {
        deliver(.end(nil))
    }

    public func send(_ message: Message) {
        guard !state.withLock({ $0.closed }) else { return }
        outgoingContinuation.yield(message)
    }

    public func close() {
        state.withLock { $0.closed = true }
        outgoingContinuation.finish()
    }
}
