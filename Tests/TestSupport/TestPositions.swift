import Foundation

/// Positions for tests that need many varied ones: every position of the perft suites there are
/// (`perft/standard.perft` is in the project; `perft/tricky.perft` and `perft/chess960.perft` come
/// with the shared folder), and without the Chess960 suite the 960 starting positions of Chess960,
/// made here.
public enum TestPositions {
    public static let perftSuites = ["perft/standard.perft", "perft/tricky.perft", "perft/chess960.perft"]

    /// The FENs of the perft suites there are, then the Chess960 starting positions when
    /// `perft/chess960.perft` is not there.
    public static func fens() -> [String] {
        var fens: [String] = []
        for suite in SharedMaterial.available(perftSuites) {
            guard let text = try? SharedMaterial.text(suite) else { continue }
            for line in text.split(separator: "\n") {
                let line = line.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("epd ") { fens.append(String(line.dropFirst(4))) }
            }
        }
        if SharedMaterial.find("perft/chess960.perft") == nil { fens += (0..<960).map(chess960StartingFEN) }
        return fens
    }

    /// Chess960 starting position `number` (0–959, 518 is the standard one) in Shredder-FEN, by
    /// Scharnagl's numbering: the light-squared bishop, the dark-squared bishop, the queen, the
    /// two knights, then rook, king and rook on the squares left.
    public static func chess960StartingFEN(_ number: Int) -> String {
        var rank = [Character?](repeating: nil, count: 8)
        var n = number
        rank[2 * (n % 4) + 1] = "B"
        n /= 4
        rank[2 * (n % 4)] = "B"
        n /= 4
        func empty() -> [Int] { rank.indices.filter { rank[$0] == nil } }
        rank[empty()[n % 6]] = "Q"
        n /= 6
        let knights = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)][n]
        let free = empty()
        rank[free[knights.0]] = "N"
        rank[free[knights.1]] = "N"
        let rest = empty()
        for (square, piece) in zip(rest, "RKR") { rank[square] = piece }
        let white = String(rank.map { $0! })
        let files = Array("ABCDEFGH")
        let castling = String(files[rest[2]]) + String(files[rest[0]])
        return "\(white.lowercased())/pppppppp/8/8/8/8/PPPPPPPP/\(white) w \(castling)\(castling.lowercased()) - 0 1"
    }
}
