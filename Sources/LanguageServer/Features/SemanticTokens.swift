import Foundation
import PGN

/// Semantic tokens. Legend (also in README):
/// types `property` tag name, `string` tag value, `number` move number, `function` move,
/// `operator` NAG or suffix annotation, `comment` comment or escape line, `keyword` result,
/// `decorator` variation parenthesis; modifier `deprecated` on a move that cannot be played.
enum SemanticTokenLegend {
    static let types = ["property", "string", "number", "function", "operator", "comment", "keyword", "decorator"]
    static let modifiers = ["deprecated"]
}

extension PGNLanguageServer {
    func registerSemanticTokens() {
        server.capabilities.features["semanticTokensProvider"] = [
            "legend": [
                "tokenTypes": .array(SemanticTokenLegend.types.map { .string($0) }),
                "tokenModifiers": .array(SemanticTokenLegend.modifiers.map { .string($0) }),
            ],
            "full": true, "range": true,
        ]
        server.registerRequest("textDocument/semanticTokens/full") { [self] params, context in
            let (document, analysis) = try analysis(params, context)
            return [
                "data": .array(
                    try semanticTokens(analysis, document, 0..<document.bytes.count, context.positionEncoding))
            ]
        }
        server.registerRequest("textDocument/semanticTokens/range") { [self] params, context in
            let (document, analysis) = try analysis(params, context)
            let wanted = try byteRange(params["range"], document, context.positionEncoding)
            return ["data": .array(try semanticTokens(analysis, document, wanted, context.positionEncoding))]
        }
    }

    func semanticTokens(
        _ analysis: DocumentAnalysis, _ document: Document, _ wanted: Range<Int>, _ encoding: PositionEncoding
    ) throws -> [JSONValue] {
        // (start, end, type, modifiers) in document bytes.
        var tokens: [(Int, Int, Int, Int)] = []
        for game in analysis.games where game.range.overlaps(wanted) {
            // The request's task is cancelled with it.
            try Task.checkCancellation()
            let a = game.analysis
            let base = game.start
            for tag in a.syntax.tags {
                tokens.append((tag.nameRange.lowerBound + base, tag.nameRange.upperBound + base, 0, 0))
                if let value = tag.valueRange {
                    tokens.append((value.lowerBound + base, value.upperBound + base, 1, 0))
                }
            }
            for (index, node) in a.syntax.nodes.enumerated() {
                let type: Int
                var modifiers = 0
                switch node.kind {
                case .move:
                    type = 3
                    if !a.wasPlayed(node: index) { modifiers = 1 }
                case .moveNumber: type = 2
                case .nag: type = 4
                case .comment: type = 5
                case .result: type = 6
                case .variationStart, .variationEnd: type = 7
                }
                tokens.append((node.range.lowerBound + base, node.range.upperBound + base, type, modifiers))
            }
        }
        // Comments and escape lines between games.
        document.bytes.withUnsafeBufferPointer { bytes in
            var lexer = Lexer(bytes)
            var gameIndex = 0
            while let token = lexer.next() {
                guard
                    token.kind == .braceComment || token.kind == .lineComment || token.kind == .escapeLine
                        || token.kind == .unterminatedComment
                else { continue }
                while gameIndex < analysis.games.count && analysis.games[gameIndex].range.upperBound <= token.start {
                    gameIndex += 1
                }
                let inside = gameIndex < analysis.games.count && analysis.games[gameIndex].range.contains(token.start)
                if !inside || token.kind == .escapeLine { tokens.append((token.start, token.end, 5, 0)) }
            }
        }
        tokens.sort { $0.0 < $1.0 }
        var data: [JSONValue] = []
        var previousLine = 0
        var previousCharacter = 0
        for (start, end, type, modifiers) in tokens where start < wanted.upperBound && end > wanted.lowerBound {
            // One token per line: a comment over several lines is cut at each line break.
            var pieceStart = start
            while pieceStart < end {
                let position = document.position(of: pieceStart, encoding: encoding)
                var pieceEnd = pieceStart
                while pieceEnd < end && document.bytes[pieceEnd] != 0x0A && document.bytes[pieceEnd] != 0x0D {
                    pieceEnd += 1
                }
                let endPosition = document.position(of: pieceEnd, encoding: encoding)
                let length = endPosition.character - position.character
                if length > 0 {
                    let deltaLine = position.line - previousLine
                    let deltaStart = deltaLine == 0 ? position.character - previousCharacter : position.character
                    data += [
                        .integer(deltaLine), .integer(deltaStart), .integer(length), .integer(type),
                        .integer(modifiers),
                    ]
                    previousLine = position.line
                    previousCharacter = position.character
                }
                pieceStart = pieceEnd
                while pieceStart < end && (document.bytes[pieceStart] == 0x0A || document.bytes[pieceStart] == 0x0D) {
                    pieceStart += 1
                }
            }
        }
        return data
    }
}
