extension Server {
    /// Logs to the client as `window/logMessage` when `type` is at least as severe as
    /// `clientLogLevel`, and to standard error when it is an error, or a warning the client
    /// cannot be sent (before `initialize`, after `exit`): editors show standard error as
    /// errors (Neovim's log at ERROR level), so information goes to the client only. Never to
    /// standard output, which carries only protocol messages.
    public func log(_ type: MessageType, _ message: String) {
        let (toClient, open) = state.withLock {
            ($0.clientLogLevel >= type, $0.lifecycle != .exited && $0.lifecycle != .uninitialized)
        }
        if type == .error || (type == .warning && !open) {
            standardErrorWrite("pgn-lsp [\(type)] \(message)\n")
        }
        if toClient, open {
            sendNotification(
                "window/logMessage", params: ["type": JSONValue(type), "message": .string(message)])
        }
    }

    /// Shows `message` to the user (`window/showMessage`).
    public func showMessage(_ type: MessageType, _ message: String) {
        sendNotification("window/showMessage", params: ["type": JSONValue(type), "message": .string(message)])
    }
}
