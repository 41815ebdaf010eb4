import ChessCore
import Foundation
import Synchronization

/// Which engine to run and how. Everything here comes from the user's settings or the
/// defaults, never from a file being read.
public struct EngineConfiguration: Sendable, Hashable {
    /// The executable named by the settings; nil to look for `stockfish` on PATH, then at
    /// /usr/games/stockfish.
    public var path: String?
    public var threads = 1
    public var hashMegabytes = 16
    public var multiPV = 1
    public var showWDL = true
    /// The longest wait for the `uci` and `isready` answers.
    public var handshakeTimeout: Duration = .seconds(10)
    /// The longest search of a depth or node limit, after which it is stopped.
    public var searchTimeout: Duration = .seconds(120)

    public init(path: String? = nil) {
        self.path = path
    }

    /// The executable to start, or a sentence saying why there is none.
    public func resolveExecutable(
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> Result<String, EngineError>
    {
        let manager = FileManager.default
        if let path, !path.isEmpty {
            if path.contains("/") {
                return manager.isExecutableFile(atPath: path) ? .success(path) : .failure(.notFound(path))
            }
            return Self.search(path, environment: environment).map { .success($0) } ?? .failure(.notFound(path))
        }
        if let found = Self.search("stockfish", environment: environment) { return .success(found) }
        if manager.isExecutableFile(atPath: "/usr/games/stockfish") { return .success("/usr/games/stockfish") }
        return .failure(.notFound(nil))
    }

    private static func search(_ name: String, environment: [String: String]) -> String? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// Why an engine could not answer.
public enum EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No executable: the configured path (nil when none was configured).
    case notFound(String?)
    /// The executable could not be started.
    case cannotStart(String, reason: String)
    /// It started but did not complete the UCI handshake in time.
    case notUCI(String)
    /// It exited or crashed while working.
    case crashed(String)
    /// It did not answer in time and was ended.
    case timedOut(String)

    public var description: String {
        switch self {
        case .notFound(nil):
            return
                "No chess engine found: install Stockfish (Debian: apt install stockfish) or set pgn.engine.path. Everything else keeps working."
        case .notFound(let path?):
            return
                "The chess engine \(path) (pgn.engine.path) is not an executable file. Everything else keeps working."
        case .cannotStart(let path, let reason):
            return "The chess engine \(path) could not be started: \(reason)"
        case .notUCI(let path):
            return "\(path) did not answer the UCI handshake in time: is it a UCI chess engine?"
        case .crashed(let path):
            return "The chess engine \(path) stopped unexpectedly."
        case .timedOut(let path):
            return "The chess engine \(path) did not answer in time and was restarted."
        }
    }
}

/// How long a search may run.
public struct SearchLimit: Sendable, Hashable {
    public var depth: Int?
    public var movetime: Duration?
    public var nodes: Int?

    public init(depth: Int? = nil, movetime: Duration? = nil, nodes: Int? = nil) {
        self.depth = depth
        self.movetime = movetime
        self.nodes = nodes
    }

    public static func depth(_ depth: Int) -> SearchLimit { SearchLimit(depth: depth) }
    public static func movetime(_ time: Duration) -> SearchLimit { SearchLimit(movetime: time) }

    var goCommand: String {
        var words = ["go"]
        if let depth { words += ["depth", String(depth)] }
        if let nodes { words += ["nodes", String(nodes)] }
        if let movetime { words += ["movetime", String(max(1, movetime.milliseconds))] }
        if words.count == 1 { words += ["depth", "12"] }
        return words.joined(separator: " ")
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

/// One principal variation of an analysis, in White's view and as legal moves.
public struct EngineLine: Sendable, Hashable {
    public var multiPV: Int
    public var depth: Int
    public var selectiveDepth: Int?
    /// From White's point of view, as PGN writes evaluations.
    public var score: Score
    public var bound: ScoreBound
    /// From White's point of view.
    public var wdl: WDL?
    /// The line, cut at the first move that is not legal.
    public var moves: [Move]
}

/// What an engine says about a position.
public struct PositionAnalysis: Sendable, Hashable {
    /// The deepest completed depth.
    public var depth: Int
    /// The best lines, first the best.
    public var lines: [EngineLine]
    public var bestMove: Move?
    public var nodes: Int
    public var nodesPerSecond: Int
    /// False when the search was stopped before its limit.
    public var complete: Bool

    public var best: EngineLine? { lines.first }
}

/// One engine process, used by one search at a time (`EnginePool` sees to that).
final class UCIEngine: Sendable {
    let configuration: EngineConfiguration
    let process: EngineProcess
    private let options: Set<String>
    private let chess960 = Mutex(false)

    /// Starts the engine and completes the handshake with the configured options.
    static func start(_ executable: String, configuration: EngineConfiguration) async throws -> UCIEngine {
        let process: EngineProcess
        do {
            process = try EngineProcess(executable: executable)
        } catch {
            throw EngineError.cannotStart(executable, reason: "\(error.localizedDescription)")
        }
        let deadline = ContinuousClock.now + configuration.handshakeTimeout
        var options = Set<String>()
        guard process.send("uci") else { throw EngineError.crashed(executable) }
        handshake: while true {
            switch await process.nextLine(before: deadline) {
            case .line(let line):
                if line == "uciok" { break handshake }
                if let option = UCIOption(line: line) { options.insert(option.name.lowercased()) }
            case .exited:
                throw EngineError.crashed(executable)
            case .timedOut:
                process.terminate()
                throw EngineError.notUCI(executable)
            }
        }
        let engine = UCIEngine(configuration: configuration, process: process, options: options)
        engine.setOption("Threads", String(configuration.threads))
        engine.setOption("Hash", String(configuration.hashMegabytes))
        engine.setOption("MultiPV", String(configuration.multiPV))
        engine.setOption("UCI_ShowWDL", configuration.showWDL ? "true" : "false")
        try await engine.synchronize(timeout: configuration.handshakeTimeout, notUCI: true)
        return engine
    }

    private init(configuration: EngineConfiguration, process: EngineProcess, options: Set<String>) {
        self.configuration = configuration
        self.process = process
        self.options = options
    }

    var executable: String { process.executable }

    /// Sets an option the engine announced; others are not sent.
    func setOption(_ name: String, _ value: String) {
        guard options.contains(name.lowercased()) else { return }
        process.send("setoption name \(name) value \(value)")
    }

    /// `isready` and its `readyok`, skipping anything else.
    func synchronize(timeout: Duration, notUCI: Bool = false) async throws {
        guard process.send("isready") else { throw EngineError.crashed(executable) }
        let deadline = ContinuousClock.now + timeout
        while true {
            switch await process.nextLine(before: deadline) {
            case .line("readyok"): return
            case .line: continue
            case .exited: throw EngineError.crashed(executable)
            case .timedOut:
                process.terminate()
                throw notUCI ? EngineError.notUCI(executable) : EngineError.timedOut(executable)
            }
        }
    }

    /// Searches `position` within `limit`. Cancelling the task sends `stop` and returns what
    /// the engine found so far (marked incomplete); a search that outlives its limit by far
    /// is stopped, and an engine that does not answer `stop` is ended.
    func analyse(_ position: Position, limit: SearchLimit, newGame: Bool = false) async throws -> PositionAnalysis {
        if chess960.withLock({ mode in
            defer { mode = position.isChess960 }
            return mode != position.isChess960
        }) {
            setOption("UCI_Chess960", position.isChess960 ? "true" : "false")
        }
        if newGame {
            process.send("ucinewgame")
            try await synchronize(timeout: configuration.handshakeTimeout)
        }
        guard process.send("position fen \(position.fen)"), process.send(limit.goCommand) else {
            throw EngineError.crashed(executable)
        }
        let budget = limit.movetime.map { $0 + .seconds(5) } ?? configuration.searchTimeout
        var deadline = ContinuousClock.now + budget
        var stopped = false
        var latest: [Int: UCIInfo] = [:]
        var nodes = 0
        var nps = 0
        let stop: @Sendable () -> Void = { [process] in process.send("stop") }
        return try await withTaskCancellationHandler {
            while true {
                switch await process.nextLine(before: deadline) {
                case .line(let line):
                    if let info = UCIInfo(line: line) {
                        nodes = info.nodes ?? nodes
                        nps = info.nodesPerSecond ?? nps
                        // A line whose first move is not legal here is garbage, whatever else it says.
                        if let first = info.pv.first, position.move(uci: first) == nil { continue }
                        if info.score != nil, info.depth != nil, !info.pv.isEmpty || latest[info.multiPV] == nil {
                            // A bound replaces an exact score only at a greater depth.
                            if let previous = latest[info.multiPV], previous.bound == .exact, info.bound != .exact,
                                previous.depth == info.depth
                            {
                                continue
                            }
                            latest[info.multiPV] = info
                        }
                    } else if let best = UCIBestMove(line: line) {
                        return finish(
                            position, latest, best, nodes: nodes, nps: nps,
                            complete: !stopped && !Task.isCancelled)
                    }
                case .exited:
                    throw EngineError.crashed(executable)
                case .timedOut:
                    if stopped {
                        process.terminate()
                        throw EngineError.timedOut(executable)
                    }
                    stopped = true
                    stop()
                    deadline = ContinuousClock.now + .seconds(2)
                }
            }
        } onCancel: {
            stop()
        }
    }

    private func finish(
        _ position: Position, _ infos: [Int: UCIInfo], _ best: UCIBestMove, nodes: Int, nps: Int, complete: Bool
    ) -> PositionAnalysis {
        let flip = position.turn == .black
        var lines: [EngineLine] = []
        for (multiPV, info) in infos.sorted(by: { $0.key < $1.key }) {
            guard let score = info.score, let depth = info.depth else { continue }
            var moves: [Move] = []
            var walker = position
            for text in info.pv.prefix(64) {
                guard let move = walker.move(uci: text), !move.isNull else { break }
                moves.append(move)
                walker.play(move)
            }
            var bound = info.bound
            if flip { bound = bound == .lowerBound ? .upperBound : bound == .upperBound ? .lowerBound : .exact }
            lines.append(
                EngineLine(
                    multiPV: multiPV, depth: depth, selectiveDepth: info.selectiveDepth,
                    score: flip ? score.negated : score, bound: bound, wdl: flip ? info.wdl?.flipped : info.wdl,
                    moves: moves))
        }
        let bestMove = best.move.flatMap { position.move(uci: $0) }.flatMap { $0.isNull ? nil : $0 }
        return PositionAnalysis(
            depth: lines.first?.depth ?? 0, lines: lines, bestMove: bestMove ?? lines.first?.moves.first,
            nodes: nodes, nodesPerSecond: nps, complete: complete)
    }

    func quit() {
        process.send("quit")
        process.terminate()
    }
}
