import ArgumentParser
import ChessCore
import Foundation

/// Writes made-up but plausible games for the benchmarks of large databases: every game is
/// distinct, and their openings share a tree as real games do. In each position the legal
/// moves have a fixed order (captures of the most valuable piece first, the rest in an order
/// drawn from the position's hash, so that every game standing there sees the same "book"),
/// and the move played is drawn from that order with Zipf weights: steep in the first 20
/// plies (most games follow the main lines, and leave them one by one), flatter after.
/// Player, event and site names come from Zipf-spread pools, as in a real database.
struct BenchGames: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-games",
        abstract: "Write distinct, plausible made-up games as PGN (for benchmarks).",
        shouldDisplay: false)

    @Option(help: "How many games.")
    var count: Int = 1000

    @Option(help: "The seed of the random choices.")
    var seed: UInt64 = 20_261_126

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, not \(count).") }
    }

    /// The most games the tables of names are sized for: more games draw from tables this
    /// large (a few MB), so that any count starts writing at once.
    static let namedGames = 1 << 22

    func run() throws {
        var random = SplitMix(seed: seed)
        let named = min(count, Self.namedGames)
        let players = Zipf(size: max(100, named * 6 / 10), exponent: 1.0, offset: 100)
        let events = Zipf(size: max(10, named / 10), exponent: 1.1, offset: 10)
        let sites = Zipf(size: max(5, named / 200), exponent: 1.2, offset: 5)
        let opening = Zipf(size: 64, exponent: 2.0, offset: 0.6)
        let middle = Zipf(size: 64, exponent: 1.2, offset: 0.6)
        var output: [UInt8] = []
        output.reserveCapacity(1 << 20)
        for number in 0..<count {
            let white = players.draw(&random)
            var black = players.draw(&random)
            if black == white { black = (black + 1) % players.size }
            let whiteElo = 1200 + Int(random.next() % 1600)
            let blackElo = max(1000, min(2900, whiteElo + Int(random.next() % 401) - 200))
            let length = 40 + Int(random.next() % 101)
            var position = Position.startingPosition
            var moves: [String] = []
            var result = "*"
            for ply in 0..<length {
                let legal = position.legalMoves
                if legal.isEmpty {
                    result = position.isCheck ? (position.turn == .white ? "0-1" : "1-0") : "1/2-1/2"
                    break
                }
                if position.halfmoveClock >= 100 {
                    result = "1/2-1/2"
                    break
                }
                let ordered = BenchGames.order(Array(legal), in: position)
                let pick = (ply < 20 ? opening : middle).draw(&random) % ordered.count
                let move = ordered[pick]
                moves.append(position.san(move))
                position.play(move)
            }
            if result == "*" {
                if position.legalMoves.isEmpty {
                    result = position.isCheck ? (position.turn == .white ? "0-1" : "1-0") : "1/2-1/2"
                } else {
                    // Decided by the ratings, about as often as in real games.
                    let edge = Double(whiteElo - blackElo) / 800
                    let draw = random.unit()
                    if draw < 0.30 {
                        result = "1/2-1/2"
                    } else {
                        result = random.unit() < 0.54 + edge ? "1-0" : "0-1"
                    }
                }
            }
            let year = 1990 + Int(random.next() % 36)
            let month = 1 + Int(random.next() % 12)
            let day = 1 + Int(random.next() % 28)
            var text = ""
            text += "[Event \"\(BenchGames.name(events.draw(&random), words: BenchGames.eventWords))\"]\n"
            text += "[Site \"\(BenchGames.name(sites.draw(&random), words: ["ville", "burg", "port", "field"]))\"]\n"
            text += "[Date \"\(year).\(month < 10 ? "0" : "")\(month).\(day < 10 ? "0" : "")\(day)\"]\n"
            text += "[Round \"\(number % 11 + 1)\"]\n"
            text += "[White \"\(BenchGames.player(white))\"]\n"
            text += "[Black \"\(BenchGames.player(black))\"]\n"
            text += "[Result \"\(result)\"]\n"
            text += "[WhiteElo \"\(whiteElo)\"]\n"
            text += "[BlackElo \"\(blackElo)\"]\n\n"
            var line = ""
            for (k, san) in moves.enumerated() {
                let word = k % 2 == 0 ? "\(k / 2 + 1). \(san)" : san
                if line.count + word.count + 1 > 79 {
                    text += line + "\n"
                    line = word
                } else {
                    line += line.isEmpty ? word : " " + word
                }
            }
            if line.count + result.count + 1 > 79 {
                text += line + "\n" + result + "\n\n"
            } else {
                text += (line.isEmpty ? result : line + " " + result) + "\n\n"
            }
            output.append(contentsOf: text.utf8)
            if output.count >= 1 << 20 {
                try flush(&output)
            }
        }
        try flush(&output)
    }

    func flush(_ output: inout [UInt8]) throws {
        if let failure = writeAll(STDOUT_FILENO, output) {
            throw CommandError("cannot write to standard output: \(String(cString: strerror(failure)))")
        }
        output.removeAll(keepingCapacity: true)
    }

    static let eventWords = ["Open", "Cup", "Memorial", "Championship", "Festival", "Classic", "Masters", "League"]
    static let syllables = [
        "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "za", "be", "di", "fo", "gu", "ha", "ji", "ko",
        "la", "mo", "nu", "pe", "qi", "ro", "su", "ta", "ul", "ve", "wo", "xi", "ya", "zo", "an", "el",
    ]

    static func player(_ rank: Int) -> String {
        let a = syllables[rank % 32].capitalized
        return
            "\(a)\(syllables[(rank / 32) % 32])\(syllables[(rank / 1024) % 32]), \(syllables[(rank * 7) % 32].capitalized) \(rank)"
    }

    static func name(_ rank: Int, words: [String]) -> String {
        "\(syllables[rank % 32].capitalized)\(syllables[(rank / 32) % 32]) \(words[rank % words.count]) \(rank)"
    }

    /// The legal moves in the position's fixed order.
    static func order(_ moves: [Move], in position: Position) -> [Move] {
        func value(_ role: Role?) -> Int {
            switch role {
            case .pawn: return 1
            case .knight, .bishop: return 3
            case .rook: return 5
            case .queen: return 9
            default: return 0
            }
        }
        return moves.map { move -> (UInt64, Move) in
            let captured = value(position.role(at: move.to))
            var mix = position.hash ^ (UInt64(move.from.rawValue) << 8 | UInt64(move.to.rawValue))
            mix = (mix ^ (mix >> 31)) &* 0x7FB5_D329_728E_A185
            mix = (mix ^ (mix >> 27)) &* 0x81DA_DEF4_BC2D_D44D
            // Captures of the most valuable pieces first, then the position's own order.
            return (UInt64(9 - captured) << 60 | mix >> 4, move)
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

/// A small, fast generator of random numbers with a seed.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Ranks drawn with Zipf–Mandelbrot weights 1 / (rank + offset) ^ exponent.
struct Zipf {
    let size: Int
    let cumulative: [Double]

    init(size: Int, exponent: Double, offset: Double) {
        self.size = size
        var total = 0.0
        var cumulative: [Double] = []
        cumulative.reserveCapacity(size)
        for rank in 0..<size {
            total += 1 / pow(Double(rank) + 1 + offset, exponent)
            cumulative.append(total)
        }
        self.cumulative = cumulative.map { $0 / total }
    }

    func draw(_ random: inout SplitMix) -> Int {
        let target = random.unit()
        var low = 0
        var high = size - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
