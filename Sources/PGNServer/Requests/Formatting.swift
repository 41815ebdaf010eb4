import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Formatting to the PGN export format (`ExportFormat`): the whole document, or the games a
    /// range touches. Never changes a move; games with syntax errors are left as they are.
    func registerFormatting() {
        server.capabilities.features["documentFormattingProvider"] = true
        server.capabilities.features["documentRangeFormattingProvider"] = true
        server.registerRequest("textDocument/formatting") { [self] params, context in
            let (document, _) = try await analysis(params, context)
            let bytes = document.bytes
            let formatted = ExportFormat.format(SourceText(bytes), lineLength: currentSettings.lineLength)
            guard Array(formatted.utf8) != bytes else { return [] }
            return [
                [
                    "range": range(0..<document.length, document, context.positionEncoding),
                    "newText": .string(formatted),
                ]
            ]
        }
        server.registerRequest("textDocument/rangeFormatting") { [self] params, context in
            let (document, analysis, wanted) = try await rangeParams(params, context).parts
            var edits: [JSONValue] = []
            for game in analysis.games where game.range.overlaps(wanted) || game.range.contains(wanted.lowerBound) {
                let a = game.analysis
                var formatted = ExportFormat.format(a.gameReplay, lineLength: currentSettings.lineLength)
                // The game's own text ends at its last token: leave the line break after it alone.
                if formatted.hasSuffix("\n") { formatted.removeLast() }
                guard Array(formatted.utf8) != a.source.bytes else { continue }
                edits.append([
                    "range": range(game.range, document, context.positionEncoding), "newText": .string(formatted),
                ])
            }
            return .array(edits)
        }
    }
}
