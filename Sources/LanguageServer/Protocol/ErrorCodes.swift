/// The error codes LSP adds to JSON-RPC's.
extension ErrorCode {
    /// A request other than `initialize` arrived before it.
    public static let serverNotInitialized = ErrorCode(rawValue: -32002)
    public static let unknownErrorCode = ErrorCode(rawValue: -32001)
    /// The request was valid but the server could not carry it out.
    public static let requestFailed = ErrorCode(rawValue: -32803)
    /// The server gave up on the request itself.
    public static let serverCancelled = ErrorCode(rawValue: -32802)
    /// The document changed while the request was running, so its result would be stale.
    public static let contentModified = ErrorCode(rawValue: -32801)
    /// The client cancelled the request with `$/cancelRequest`.
    public static let requestCancelled = ErrorCode(rawValue: -32800)
}
