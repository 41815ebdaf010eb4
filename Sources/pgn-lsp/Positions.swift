import ArgumentParser
import ChessCore
import Foundation

/// Describes positions for other programs: one FEN per input line, one JSON object per
/// output line with the legal moves (UCI and SAN), check, mate, stalemate and the FEN as
/// this program writes it back. Used to compare the chess core with other implementations.
struct Positions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe positions read as FEN lines from standard input, as JSON lines.",
        shouldDisplay: false)

    @Flag(help: "Write castling as king takes rook (Chess960 UCI).")
    var chess960 = false

    func run() throws {
        var output = ""
        output.reserveCapacity(1 << 20)
        while let line = readLine() {
            let fen = line.trimmingCharacters(in: .whitespaces)
            if fen.isEmpty { continue }
            var object: [String: Any] = ["input": fen]
            do {
                var position = try Position(fen: fen)
                if chess960 { position.isChess960 = true }
                object["fen"] = position.fen
                object["moves"] = position.legalMoves.map { ["uci": position.uci($0), "san": position.san($0)] }
                object["check"] = position.isCheck
                object["checkmate"] = position.isCheckmate
                object["stalemate"] = position.isStalemate
                object["insufficientMaterial"] = position.isInsufficientMaterial
            } catch {
                object["error"] = error.description
            }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            output += String(decoding: data, as: UTF8.self)
            output += "\n"
            if output.utf8.count > 1 << 20 {
                try flush(output)
                output.removeAll(keepingCapacity: true)
            }
        }
        try flush(output)
    }

    private func flush(_ output: String) throws {
        if let failure = writeAll(STDOUT_FILENO, Array(output.utf8)) {
            throw CommandError("cannot write to standard output: \(String(cString: strerror(failure)))")
        }
    }
}
