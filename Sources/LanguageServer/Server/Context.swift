/// What the client and the server agreed on at `initialize`.
public struct Session: Sendable {
    public let initializeParams: InitializeParams
    public let positionEncoding: PositionEncoding

    public var clientCapabilities: ClientCapabilities { initializeParams.capabilities }
}

/// What a request handler gets besides its params.
public struct RequestContext: Sendable {
    public let id: RequestID
    public let method: String
    /// The documents as they were when the request arrived: every earlier change applied, no later one.
    public let documents: DocumentStore
    public let session: Session
    public let cancellation: CancellationToken
    /// For notifications, server-to-client requests and logging while handling the request.
    public let server: Server

    public var positionEncoding: PositionEncoding { session.positionEncoding }

    public var isCancelled: Bool { cancellation.isCancelled }

    /// Throws the error that answers a cancelled request (its answer has already been sent).
    public func checkCancellation() throws {
        if let reason = cancellation.reason { throw CancellationToken.error(for: reason) }
    }

    /// The open document at `uri`; a request about a document that is not open is an invalid-params error.
    public func document(_ uri: DocumentURI) throws -> Document {
        guard let document = documents[uri] else { throw ResponseError(.invalidParams, "document not open: \(uri)") }
        return document
    }
}

/// What a notification handler or a document observer gets besides the params. Notification handlers run
/// one at a time in arrival order, so `documents` is the current state.
public struct NotificationContext: Sendable {
    public let method: String
    public let documents: DocumentStore
    public let session: Session
    public let server: Server

    public var positionEncoding: PositionEncoding { session.positionEncoding }
}

/// Answers a request: returns the result, or throws a `ResponseError` (other errors become internal errors,
/// `DecodingError` an invalid-params error).
public typealias RequestHandler = @Sendable (JSONValue, RequestContext) async throws -> JSONValue

/// Handles a notification. Synchronous: it runs before the next message is read, so keep it short and move
/// slow work to a task.
public typealias NotificationHandler = @Sendable (JSONValue, NotificationContext) throws -> Void

/// Sees each change to the open documents, in order, after it is applied.
public typealias DocumentObserver = @Sendable (DocumentEvent, NotificationContext) -> Void

/// Adjusts the announced capabilities once the client's are known.
public typealias InitializeHook = @Sendable (InitializeParams, inout ServerCapabilities) -> Void
