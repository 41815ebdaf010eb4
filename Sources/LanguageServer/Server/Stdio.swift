import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves LSP over standard input and output until `exit` or the end of input, then exits the process
/// (status 0 after `shutdown`, 1 otherwise). `configure` registers the features before the first message.
public func runStdioServer(
    serverInfo: ServerInfo = ServerInfo(name: "pgn-lsp"), configure: (Server) -> Void = { _ in }
) -> Never {
    let connection = FileDescriptorConnection.standardIO()
    let server = Server(connection: connection, serverInfo: serverInfo)
    configure(server)
    server.start { status in
        fflush(nil)
        exit(status)
    }
    dispatchMain()
}
