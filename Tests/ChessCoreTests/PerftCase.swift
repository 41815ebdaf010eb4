import Foundation
import TestSupport

/// One position of a perft suite with its known counts by depth.
struct PerftCase {
    var id: String
    var fen: String
    var counts: [(depth: Int, nodes: UInt64)]

    /// Reads the `id` / `epd` / `perft D N` format of the perft suites (`perft/*.perft`), skipping the
    /// test when the suite is not there (see `SharedMaterial`).
    static func load(_ relativePath: String) throws -> [PerftCase] {
        var cases: [PerftCase] = []
        for rawLine in try SharedMaterial.text(relativePath).split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("id ") {
                cases.append(PerftCase(id: String(line.dropFirst(3)), fen: "", counts: []))
            } else if line.hasPrefix("epd ") {
                cases[cases.count - 1].fen = String(line.dropFirst(4))
            } else if line.hasPrefix("perft ") {
                let parts = line.split(separator: " ")
                cases[cases.count - 1].counts.append((Int(parts[1])!, UInt64(parts[2])!))
            }
        }
        return cases
    }
}
