import Foundation
import LanguageServer

extension PGNLanguageServer {
    /// While a large document is read whole (when it is opened, or after a change that replaced
    /// most of its text), a client that shows work-done progress shows how much is read and how
    /// many games were found; the progress ends when the reading is made, just before its
    /// diagnostics are sent. Not cancellable: every request about the document needs it.
    func registerReadingProgress() {
        analyzer.onWholeReading { [self] reading in
            guard server.session?.clientCapabilities.supportsWorkDoneProgress == true else { return }
            Task { await follow(reading) }
        }
    }

    private func follow(_ reading: WholeReading) async {
        let name = URL(string: reading.uri)?.lastPathComponent ?? reading.uri
        let progress = await Progress.begin(
            server, token: "pgn-lsp-reading-\(UUID().uuidString)", title: "Reading \(name)", cancellable: false)
        for await event in reading.events {
            switch event {
            case .read(let bytes, let games):
                progress.report(percent: bytes * 100 / max(reading.length, 1), Self.gamesFound(games))
            case .finished(let games):
                progress.end(Self.gamesFound(games))
            }
        }
    }

    static func gamesFound(_ games: Int) -> String { games == 1 ? "1 game" : "\(games) games" }
}
