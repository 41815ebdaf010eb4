extension Server {
    /// Logs to standard error, and to the client as `window/logMessage` when `type` is at least as severe as
    /// `clientLogLevel`. Never to standard output, which carries only protocol messages.
    public func log(_ type: MessageType, _ message: String) {
        standardErrorWrite("pgn-lsp [\(type)] \(message)\n")
        let (toClient, open) = state.withLock { ($0.clientLogLevel >= type, $0.lifecycle != .exited) }
        if toClient, open {
            sendNotification(
                "window/logMessage", params: ["type": .integer(type.rawValue), "message": .string(message)])
        }
    }
}
