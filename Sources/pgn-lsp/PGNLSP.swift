import ArgumentParser
import PGNServer

@main
struct PGNLSP: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pgn-lsp",
        abstract: "A language server and command-line toolkit for chess games in PGN.",
        version: PGNLanguageServer.version,
        subcommands: [
            Serve.self, Check.self, Review.self, Import.self, Export.self, Index.self, Search.self, Explore.self,
            RepertoireCommand.self, Perft.self, Positions.self,
            JSONBenchmark.self, BenchGames.self,
        ],
        defaultSubcommand: Serve.self
    )
}
