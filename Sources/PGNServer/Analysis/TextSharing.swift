import LanguageServer

extension PGNLanguageServer {
    /// After a large document is read whole, its text shares the bytes its games' analyses
    /// copied (`DocumentText.sharing`), and the array it arrived in is freed: the text is held
    /// once, not twice. Done beside the requests, at a low priority; skipped when the document
    /// changed meanwhile (an edit's reading copies only the games it touched).
    func registerTextSharing() {
        analyzer.onGamesRead { [server] document, games in
            Task.detached(priority: .utility) {
                let parts = games.map { (offset: $0.start, bytes: $0.analysis.text.bytes) }
                guard let text = document.content.sharing(parts) else {
                    server.log(.warning, "the games of \(document.uri) differ from its text; its text is kept as it is")
                    return
                }
                server.hold(document.uri, at: document.history.stamp, in: text)
            }
        }
    }
}
