import ChessCore

/// Whether a score is exact or only a bound of the true value.
public enum ScoreBound: Sendable, Hashable {
    case exact
    case lowerBound
    case upperBound
}

/// Win, draw and loss chances in permille, as `UCI_ShowWDL` reports them.
public struct WDL: Sendable, Hashable {
    public var win: Int
    public var draw: Int
    public var loss: Int

    public init(win: Int, draw: Int, loss: Int) {
        self.win = win
        self.draw = draw
        self.loss = loss
    }

    /// The same chances seen from the other side.
    public var flipped: WDL { WDL(win: loss, draw: draw, loss: win) }
}

/// One `info` line of an engine, as sent (scores from the side to move, moves in UCI).
public struct UCIInfo: Sendable, Hashable {
    public var depth: Int?
    public var selectiveDepth: Int?
    public var multiPV = 1
    public var score: Score?
    public var bound = ScoreBound.exact
    public var wdl: WDL?
    public var nodes: Int?
    public var nodesPerSecond: Int?
    public var timeMilliseconds: Int?
    public var pv: [String] = []

    public init() {}

    /// Reads an `info` line; nil for any other line. Unknown fields are skipped; a field whose
    /// value is not a number, or not a possible one (a count below 0, a WDL outside 0…1000), is
    /// ignored rather than trusted, and a score is clamped (`Score.clamped`).
    public init?(line: some StringProtocol) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.first == "info" else { return nil }
        var index = 1
        func int() -> Int? {
            guard index + 1 < words.count else { return nil }
            index += 1
            return Int(words[index]).flatMap { $0 >= 0 ? $0 : nil }
        }
        func permille(_ word: some StringProtocol) -> Int? { Int(word).flatMap { (0...1000).contains($0) ? $0 : nil } }
        while index < words.count {
            switch words[index] {
            case "depth": depth = int()
            case "seldepth": selectiveDepth = int()
            case "multipv": multiPV = int() ?? 1
            case "nodes": nodes = int()
            case "nps": nodesPerSecond = int()
            case "time": timeMilliseconds = int()
            case "score":
                guard index + 2 < words.count, let value = Int(words[index + 2]) else { break }
                switch words[index + 1] {
                case "cp": score = Score.centipawns(value).clamped
                case "mate": score = Score.mate(value).clamped
                default: break
                }
                index += 2
            case "lowerbound": bound = .lowerBound
            case "upperbound": bound = .upperBound
            case "wdl":
                if index + 3 < words.count, let w = permille(words[index + 1]), let d = permille(words[index + 2]),
                    let l = permille(words[index + 3])
                {
                    wdl = WDL(win: w, draw: d, loss: l)
                    index += 3
                }
            case "pv":
                pv = words[(index + 1)...].map { String($0) }
                index = words.count
            case "string":
                index = words.count  // free text to the end of the line
            default:
                break
            }
            index += 1
        }
    }
}

/// A `bestmove` line: the move (nil for `(none)` or `0000`) and the move to ponder.
public struct UCIBestMove: Sendable, Hashable {
    public var move: String?
    public var ponder: String?

    public init?(line: some StringProtocol) {
        let words = line.split(separator: " ")
        guard words.first == "bestmove" else { return nil }
        if words.count > 1, words[1] != "(none)", words[1] != "0000" { move = String(words[1]) }
        if words.count > 3, words[2] == "ponder" { ponder = String(words[3]) }
    }
}

/// An `option` line of the `uci` handshake: the option's name and type.
public struct UCIOption: Sendable, Hashable {
    public var name: String
    public var type: String

    public init?(line: some StringProtocol) {
        let words = line.split(separator: " ")
        guard words.count >= 5, words[0] == "option", words[1] == "name",
            let typeIndex = words[3...].firstIndex(of: "type"), typeIndex + 1 < words.count
        else { return nil }
        name = words[2..<typeIndex].joined(separator: " ")
        type = String(words[typeIndex + 1])
    }
}
