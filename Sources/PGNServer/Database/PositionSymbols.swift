import ChessCore
import Foundation
import GameStore
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// The FEN of a `workspace/symbol` query `fen:…` (a FEN or its first fields), nil for
    /// another query.
    static func fenQuery(_ query: String) -> String? {
        let trimmed = query.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("fen:") else { return nil }
        return String(trimmed.dropFirst(4)).trimmingCharacters(in: .whitespaces)
    }

    /// `workspace/symbol` with `fen:…`: the games of the workspace and of the databases that
    /// reach the position, at the same places as `textDocument/references` gives them. A query
    /// that names no position (it is typed a character at a time) gives no symbols, and the
    /// reason in the client's log.
    func positionSymbols(_ fen: String, _ context: RequestContext) async throws -> JSONValue {
        let position: Position
        do {
            position = try PositionIndex.position(query: fen)
        } catch {
            server.log(.info, "pgn-lsp: fen: \(fen.isEmpty ? "(empty)" : fen) is not a position: \(error)")
            return .array([])
        }
        let uri = context.documents.uris.first ?? ""
        let found = try await games(reaching: position, uri: uri, context)
        reportLimits(found)
        return .array(
            found.locations.map {
                [
                    "name": .string($0.name), "kind": JSONValue(SymbolKind.class),
                    "containerName": .string($0.container),
                    "location": ["uri": .string($0.uri), "range": $0.range],
                ]
            })
    }
}
