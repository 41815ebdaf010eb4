import ArgumentParser
import ChessCore
import Foundation

struct Perft: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count the leaf nodes of the legal move tree (move generator check and benchmark).")

    @Option(help: "The position, as FEN, X-FEN or Shredder-FEN.")
    var fen: String = ChessCore.FEN.startingPosition

    @Option(help: "Depth in plies.")
    var depth: Int

    @Flag(help: "Also print the count under each root move (UCI).")
    var divide = false

    @Flag(help: "Write castling as king takes rook in --divide output.")
    var chess960 = false

    func run() throws {
        let position: Position
        do {
            position = try Position(fen: fen)
        } catch {
            throw ValidationError(error.description)
        }
        guard (0...20).contains(depth) else { throw ValidationError("depth must be between 0 and 20") }
        let start = ContinuousClock.now
        let nodes: UInt64
        if divide && depth > 0 {
            var total: UInt64 = 0
            for (move, count) in position.perftDivide(depth) {
                print("\(move.uci(chess960: chess960 || position.isChess960)): \(count)")
                total += count
            }
            print("")
            nodes = total
        } else {
            nodes = position.perft(depth)
        }
        let elapsed = ContinuousClock.now - start
        print(nodes)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(nodes) / seconds : 0
        writeToStandardError(
            "\(nodes) nodes in \(String(format: "%.3f", seconds)) s: \(String(format: "%.0f", rate)) nodes/s\n")
    }
}
