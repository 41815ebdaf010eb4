import Foundation

/// The project's shared test material lives in `../shared` beside the package root.
enum SharedData {
    static let root: URL = {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }
}

/// One position of a perft suite with its known counts by depth.
struct PerftCase {
    var id: String
    var fen: String
    var counts: [(depth: Int, nodes: UInt64)]

    /// Reads the `id` / `epd` / `perft D N` format of `../shared/perft/*.perft`.
    static func load(_ relativePath: String) throws -> [PerftCase] {
        var cases: [PerftCase] = []
        for rawLine in try SharedData.text(relativePath).split(separator: "\n") {
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
