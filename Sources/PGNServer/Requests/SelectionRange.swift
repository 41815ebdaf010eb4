import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// How many enclosing variations a selection range grows through, the innermost.
    static let selectionVariationLevels = 32

    /// Selection ranges grow from a token to its move with annotations, its variation (up to
    /// `selectionVariationLevels` of them), its game's movetext or tag, the game, and the document.
    func registerSelectionRanges() {
        server.capabilities.features["selectionRangeProvider"] = true
        server.registerRequest("textDocument/selectionRange") { [self] params, context in
            let (document, analysis) = try await analysis(params, context)
            let encoding = context.positionEncoding
            var results: [JSONValue] = []
            for position in params["positions"]?.arrayValue ?? [] {
                guard let line = position["line"]?.intValue, let character = position["character"]?.intValue else {
                    throw ResponseError(.invalidParams, "positions must be positions")
                }
                let offset = document.offset(of: LSPPosition(line: line, character: character), encoding: encoding)
                var ranges: [Range<Int>] = [0..<document.length]
                if let game = analysis.game(at: offset) {
                    let a = game.analysis
                    let local = offset - game.start
                    let shift = { (r: Range<Int>) in r.shifted(by: game.start) }
                    ranges.append(game.range)
                    if let tag = a.tags.first(where: { $0.range.contains(local) || $0.range.upperBound == local }
                    ) {
                        ranges.append(shift(tag.range))
                        if let value = tag.valueRange, value.contains(local) { ranges.append(shift(value)) }
                        if tag.nameRange.contains(local) { ranges.append(shift(tag.nameRange)) }
                    } else if case let nodes = a.syntax.nodes,
                        let index = nodes.index(holding: local, by: \.range)
                    {
                        if let first = nodes.first, let last = nodes.last {
                            ranges.append(shift(first.range.lowerBound..<last.range.upperBound))
                        }
                        // Enclosing variations, outermost first.
                        var stack: [Int] = []
                        var enclosing: [Range<Int>] = []
                        for (i, node) in nodes.enumerated() {
                            if node.kind == .variationStart { stack.append(i) }
                            if node.kind == .variationEnd, let start = stack.popLast(), start < index, i >= index {
                                enclosing.append(nodes[start].range.lowerBound..<node.range.upperBound)
                            }
                        }
                        // A person widens a selection a few times, and a client reads the chain as
                        // nested JSON: the innermost variations only, however deep the nesting.
                        ranges += enclosing.sorted { $0.count > $1.count }.suffix(Self.selectionVariationLevels)
                            .map(shift)
                        ranges.append(shift(nodes[index].range))
                    }
                }
                // Innermost first, each with its parent.
                var parent: JSONValue = .null
                for r in ranges {
                    var object: [String: JSONValue] = ["range": range(r, document, encoding)]
                    if !parent.isNull { object["parent"] = parent }
                    parent = .object(object)
                }
                results.append(parent)
            }
            return .array(results)
        }
    }
}
