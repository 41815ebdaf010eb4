/// Pieces counted by role, for one side.
public struct MaterialCount: Sendable, Hashable {
    public var pawns = 0
    public var knights = 0
    public var bishops = 0
    public var rooks = 0
    public var queens = 0

    public init() {}

    public subscript(role: Role) -> Int {
        get {
            switch role {
            case .pawn: return pawns
            case .knight: return knights
            case .bishop: return bishops
            case .rook: return rooks
            case .queen: return queens
            case .king: return 1
            }
        }
        set {
            switch role {
            case .pawn: pawns = newValue
            case .knight: knights = newValue
            case .bishop: bishops = newValue
            case .rook: rooks = newValue
            case .queen: queens = newValue
            case .king: break
            }
        }
    }

    /// Conventional value in pawns (1, 3, 3, 5, 9).
    public var value: Int { pawns + 3 * knights + 3 * bishops + 5 * rooks + 9 * queens }
}

extension Position {
    /// The pieces `color` has on the board, by role.
    public func material(_ color: Color) -> MaterialCount {
        var count = MaterialCount()
        for role in [Role.pawn, .knight, .bishop, .rook, .queen] { count[role] = pieces(color, role).count }
        return count
    }

    /// The pieces of `color` missing from the starting set, strongest first: what the opponent
    /// has captured. Promotions can make a count negative; those are reported as zero.
    public func captured(_ color: Color) -> [Role] {
        let start: [Role: Int] = [.queen: 1, .rook: 2, .bishop: 2, .knight: 2, .pawn: 8]
        let now = material(color)
        var result: [Role] = []
        for role in [Role.queen, .rook, .bishop, .knight, .pawn] {
            result += Array(repeating: role, count: max(0, start[role]! - now[role]))
        }
        return result
    }

    /// White's material minus Black's, in pawns.
    public var materialBalance: Int { material(.white).value - material(.black).value }

    /// The board as text: eight lines of Unicode pieces (`·` for an empty square), with rank
    /// and file labels, seen from `side` (White: rank 8 at the top).
    public func diagram(from side: Color = .white) -> String {
        let ranks = side == .white ? Array((0..<8).reversed()) : Array(0..<8)
        let files = side == .white ? Array(0..<8) : Array((0..<8).reversed())
        var lines: [String] = []
        for rank in ranks {
            var line = "\(rank + 1) "
            for file in files {
                let square = Square(rank * 8 + file)
                line.append(piece(at: square)?.symbol ?? "·")
                if file != files.last { line.append(" ") }
            }
            lines.append(line)
        }
        lines.append("  " + files.map { String(Square.fileLetter($0)) }.joined(separator: " "))
        return lines.joined(separator: "\n")
    }
}
