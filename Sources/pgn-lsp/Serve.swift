import ArgumentParser
import LanguageServer
import PGNServer

/// The language server over standard input and output: what an editor starts.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the language server over standard input and output (the default).")

    @Flag(help: "Accepted for editors that pass it; standard input and output is the only transport.")
    var stdio = false

    func run() throws {
        runStdioServer { server in PGNLanguageServer(server: server).register() }
    }
}
