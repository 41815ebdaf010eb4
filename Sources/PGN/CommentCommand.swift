import ChessCore

/// An engine evaluation as PGN comments write it: pawns from White's view, or mate in n
/// (positive: White mates).
public enum Evaluation: Sendable, Hashable {
    case pawns(Double)
    case mate(Int)

    /// The largest evaluation a comment is read with, in pawns: beyond it the value is no
    /// evaluation (engines report mates as `#n`, and a queen is worth nine pawns).
    public static let maximumPawns = 100_000.0

    /// The longest mate a comment is read with, in moves.
    public static let maximumMate = 100_000

    /// `+0.35`, `-1.20`, `#3`, `#-2`. Values beyond the limits above are written at the limit.
    public var text: String {
        switch self {
        case .pawns(let value):
            let bounded = value.isNaN ? 0 : min(max(value, -Self.maximumPawns), Self.maximumPawns)
            let hundredths = Int((abs(bounded) * 100).rounded())
            let sign = bounded < 0 && hundredths > 0 ? "-" : "+"
            let fraction = hundredths % 100
            return "\(sign)\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
        case .mate(let moves):
            return "#\(min(max(moves, -Self.maximumMate), Self.maximumMate))"
        }
    }
}

/// A command inside a comment: `[%clk 0:05:00]`, `[%eval 0.17,23]`, `[%csl Ga1]`, …
public enum CommentCommand: Sendable, Hashable {
    /// `%clk`: the mover's remaining time, in seconds.
    case clock(Double)
    /// `%emt`: time spent on the move, in seconds.
    case elapsedMoveTime(Double)
    /// `%egt`: elapsed game time, in seconds.
    case elapsedGameTime(Double)
    /// `%eval`, with the search depth when given.
    case evaluation(Evaluation, depth: Int?)
    /// `%csl`: coloured squares (colour letter, square).
    case squares([ColoredSquare])
    /// `%cal`: coloured arrows.
    case arrows([ColoredArrow])
    /// Any other command, or one whose value could not be read: name and raw value.
    case other(name: String, value: String)

    public struct ColoredSquare: Sendable, Hashable {
        public var color: Character
        public var square: Square

        public init(color: Character, square: Square) {
            self.color = color
            self.square = square
        }
    }

    public struct ColoredArrow: Sendable, Hashable {
        public var color: Character
        public var from: Square
        public var to: Square

        public init(color: Character, from: Square, to: Square) {
            self.color = color
            self.from = from
            self.to = to
        }
    }

    /// Every command in a comment's text, with its byte range relative to the text's start.
    public static func parse(_ text: String) -> [(command: CommentCommand, range: Range<Int>)] {
        let bytes = Array(text.utf8)
        var result: [(CommentCommand, Range<Int>)] = []
        var i = 0
        while i + 1 < bytes.count {
            guard bytes[i] == 0x5B && bytes[i + 1] == 0x25 else {  // [%
                i += 1
                continue
            }
            guard let close = bytes[(i + 2)...].firstIndex(of: 0x5D) else { break }
            let body = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
            let parts = body.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if let name = parts.first {
                let value = parts.count > 1 ? String(parts[1]).trimmed : ""
                result.append((command(name: String(name), value: value), i..<(close + 1)))
            }
            i = close + 1
        }
        return result
    }

    static func command(name: String, value: String) -> CommentCommand {
        switch name {
        case "clk": return duration(value).map(CommentCommand.clock) ?? .other(name: name, value: value)
        case "emt": return duration(value).map(CommentCommand.elapsedMoveTime) ?? .other(name: name, value: value)
        case "egt": return duration(value).map(CommentCommand.elapsedGameTime) ?? .other(name: name, value: value)
        case "eval":
            let pieces = value.split(separator: ",")
            guard let first = pieces.first else { return .other(name: name, value: value) }
            let depth = pieces.count > 1 ? Int(pieces[1].trimmed) : nil
            let score = first.trimmed
            if score.hasPrefix("#") {
                guard let moves = Int(score.dropFirst().replacingPlus),
                    moves.magnitude <= Evaluation.maximumMate.magnitude
                else {
                    return .other(name: name, value: value)
                }
                return .evaluation(.mate(moves), depth: depth)
            }
            guard let pawns = Double(score.replacingPlus), abs(pawns) <= Evaluation.maximumPawns else {
                return .other(name: name, value: value)
            }
            return .evaluation(.pawns(pawns), depth: depth)
        case "csl":
            var squares: [ColoredSquare] = []
            for item in value.split(separator: ",") {
                let item = item.trimmed
                guard item.count == 3, let color = item.first, let square = Square(item.dropFirst()) else {
                    return .other(name: name, value: value)
                }
                squares.append(ColoredSquare(color: color, square: square))
            }
            return .squares(squares)
        case "cal":
            var arrows: [ColoredArrow] = []
            for item in value.split(separator: ",") {
                let item = Array(item.trimmed)
                guard item.count == 5, let from = Square(String(item[1...2])), let to = Square(String(item[3...4]))
                else {
                    return .other(name: name, value: value)
                }
                arrows.append(ColoredArrow(color: item[0], from: from, to: to))
            }
            return .arrows(arrows)
        default:
            return .other(name: name, value: value)
        }
    }

    /// The longest time a clock command is read with: ten years, in seconds. A longer one is
    /// no time a game was played with.
    public static let maximumSeconds = 315_360_000.0

    /// `1:55:21`, `0:09:58.1`, `5:00`, `42.5` → seconds; nil for anything else, and for a time
    /// beyond `maximumSeconds`.
    static func duration(_ text: String) -> Double? {
        var total = 0.0
        for part in text.split(separator: ":", omittingEmptySubsequences: false) {
            guard let value = Double(part), value >= 0, value <= maximumSeconds else { return nil }
            total = total * 60 + value
            guard total <= maximumSeconds else { return nil }
        }
        return text.isEmpty ? nil : total
    }

    /// `1:05:09` from seconds (tenths kept when present); a negative time is written as zero and a
    /// time beyond `maximumSeconds` as that.
    public static func clockText(_ seconds: Double) -> String {
        let bounded = seconds.isNaN ? 0 : min(max(seconds, 0), maximumSeconds)
        let tenths = Int((bounded * 10).rounded())
        let whole = tenths / 10
        let text = "\(whole / 3600):\(pad(whole / 60 % 60)):\(pad(whole % 60))"
        return tenths % 10 == 0 ? text : text + ".\(tenths % 10)"
    }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

extension StringProtocol {
    var trimmed: String {
        var s = Substring(self)
        while let first = s.first, first.isWhitespace { s = s.dropFirst() }
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return String(s)
    }

    var replacingPlus: String { hasPrefix("+") ? String(dropFirst()) : String(self) }
}
