import LanguageServer

extension PGNLanguageServer {
    /// The program's version, the one place it is written: `pgn-lsp --version` prints it, the server
    /// answers it at `initialize`, and `scripts/package` names the release tarball after it.
    public static let version = "0.1.0"

    /// What the server says of itself in its answer to `initialize`.
    public static let serverInfo = ServerInfo(name: "pgn-lsp", version: version)
}
