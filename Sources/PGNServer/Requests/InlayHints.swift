import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Inlay hints: the glyph of each NAG (`$4` → `??`), the clock of `[%clk]` and the value of
    /// `[%eval]`, each kind switchable in the settings.
    func registerInlayHints() {
        server.capabilities.features["inlayHintProvider"] = true
        server.registerRequest("textDocument/inlayHint") { [self] params, context in
            let (document, analysis, wanted) = try rangeParams(params, context).parts
            let settings = currentSettings
            var hints: [JSONValue] = []
            func hint(_ offset: Int, _ label: String, tooltip: String) {
                let position = document.position(of: offset, encoding: context.positionEncoding)
                hints.append([
                    "position": ["line": .integer(position.line), "character": .integer(position.character)],
                    "label": .string(label), "kind": JSONValue(InlayHintKind.parameter), "paddingLeft": true,
                    "tooltip": .string(tooltip),
                ])
            }
            for game in analysis.games where game.range.overlaps(wanted) || game.range.upperBound == wanted.lowerBound {
                try context.checkCancellation()
                let a = game.analysis
                for review in reviewHints(game, in: wanted) {
                    hint(review.offset, review.label, tooltip: review.tooltip)
                }
                for node in a.syntax.nodes {
                    let end = node.range.upperBound + game.start
                    guard wanted.contains(end) || wanted.upperBound == end else { continue }
                    switch node.kind {
                    case .nag where settings.inlayNAGs && node.value >= 0:
                        // A suffix annotation already shows its glyph.
                        let written = a.source.string(node.range)
                        if written.hasPrefix("$"), let glyph = NAGMeanings.glyph(node.value) {
                            hint(end, glyph, tooltip: NAGMeanings.meaning(node.value) ?? "")
                        }
                    case .comment:
                        for (command, _) in CommentCommand.parse(a.source.string(node.range)) {
                            switch command {
                            case .clock(let seconds) where settings.inlayClocks:
                                hint(end, "⏱ \(CommentCommand.clockText(seconds))", tooltip: "Clock after the move")
                            case .evaluation(let value, let depth) where settings.inlayEvaluations:
                                hint(
                                    end, value.text,
                                    tooltip: "Evaluation from White's view" + (depth.map { ", depth \($0)" } ?? ""))
                            default: break
                            }
                        }
                    default: break
                    }
                }
            }
            return .array(hints)
        }
    }
}
