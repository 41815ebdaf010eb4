import ChessCore

/// Which of a database's games the explorer counts: a player's (as White, Black or either),
/// played between two dates, with an average rating within bounds, at a speed. Empty: all.
public struct ExplorerFilter: Sendable, Hashable {
    /// lichess's speeds, from a `TimeControl` tag's estimated duration (`speed(timeControl:)`).
    public enum Speed: String, Sendable, Hashable, CaseIterable {
        case ultraBullet, bullet, blitz, rapid, classical, correspondence
    }

    public var player: String?
    /// With a player: the side they had.
    public var color: Color?
    /// Dates as PGN writes them, `2024`, `2024.05` or `2024.05.01`, both included.
    public var since: String?
    public var until: String?
    /// The average of both players' ratings; a game without both is left out by either bound.
    public var minElo: Int?
    public var maxElo: Int?
    public var speed: Speed?

    public init(
        player: String? = nil, color: Color? = nil, since: String? = nil, until: String? = nil, minElo: Int? = nil,
        maxElo: Int? = nil, speed: Speed? = nil
    ) {
        self.player = player
        self.color = color
        self.since = since
        self.until = until
        self.minElo = minElo
        self.maxElo = maxElo
        self.speed = speed
    }

    public var isEmpty: Bool { self == ExplorerFilter() }

    /// In words, as a hover says which games it counts: `games of Carlsen as White, from 2024,
    /// average rating 2000–2200, blitz`.
    public var words: String {
        var parts: [String] = []
        if let player {
            parts.append("games of \(player)" + (color.map { " as \($0)" } ?? ""))
        }
        switch (since, until) {
        case (let since?, let until?): parts.append("\(since) to \(until)")
        case (let since?, nil): parts.append("from \(since)")
        case (nil, let until?): parts.append("until \(until)")
        default: break
        }
        switch (minElo, maxElo) {
        case (let low?, let high?): parts.append("average rating \(low)–\(high)")
        case (let low?, nil): parts.append("average rating \(low) or more")
        case (nil, let high?): parts.append("average rating \(high) or less")
        default: break
        }
        if let speed { parts.append(speed.rawValue) }
        return parts.joined(separator: ", ")
    }

    /// lichess's speed of a `TimeControl` (`300+3`): base seconds plus 40 increments, under 30
    /// s ultra-bullet, 180 bullet, 480 blitz, 1500 rapid, else classical; `-` correspondence;
    /// nil when it cannot be read.
    public static func speed(timeControl: String?) -> Speed? {
        guard let text = timeControl?.trimmingASCIISpaces, !text.isEmpty, text != "?" else { return nil }
        if text == "-" || text.contains("/") { return .correspondence }
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count <= 2, let base = Int(parts[0]), let increment = parts.count == 2 ? Int(parts[1]) : 0 else {
            return nil
        }
        let estimate = base + 40 * increment
        if estimate < 30 { return .ultraBullet }
        if estimate < 180 { return .bullet }
        if estimate < 480 { return .blitz }
        if estimate < 1500 { return .rapid }
        return .classical
    }
}
