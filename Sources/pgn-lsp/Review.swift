import ArgumentParser
import ChessCore
import Dispatch
import Engine
import Foundation
import PGN

struct Review: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Review games with a UCI engine: each player's accuracy and ACPL, and every inaccuracy, mistake and blunder.",
        discussion: """
            Every position of each game's mainline is analysed (spread over --engines processes). \
            Evaluations are from White's point of view. The engine is --engine, else `stockfish` \
            on PATH, else /usr/games/stockfish.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    enum PresetName: String, ExpressibleByArgument, CaseIterable {
        case lichess
        case chesscom
        case encroissant
    }

    @Argument(help: "A PGN file.")
    var file: String

    @Option(help: "Review only game N (from 1).")
    var game: Int?

    @Option(help: "Search depth per position.")
    var depth: Int = 12

    @Option(help: "Search time per position in milliseconds, instead of a depth.")
    var movetime: Int?

    @Option(help: "Judgement thresholds: lichess, chesscom or encroissant.")
    var preset: PresetName = .lichess

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(help: "Write the games with the review's evaluations, glyphs and lines to this file.")
    var annotate: String?

    @Option(help: "The UCI engine to run.")
    var engine: String?

    @Option(help: "Threads per engine.")
    var threads: Int = 1

    @Option(help: "Engine processes working at once.")
    var engines: Int = min(64, ProcessInfo.processInfo.activeProcessorCount)

    @Option(help: "Hash table per engine, in MB.")
    var hash: Int = 16

    /// The ranges of the server's settings of the same names.
    func validate() throws {
        func check(_ value: Int, _ name: String, _ range: ClosedRange<Int>) throws {
            guard range.contains(value) else {
                throw ValidationError("--\(name) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
            }
        }
        try check(depth, "depth", 1...60)
        if let movetime { try check(movetime, "movetime", 1...600_000) }
        try check(threads, "threads", 1...1024)
        try check(engines, "engines", 1...64)
        try check(hash, "hash", 1...65536)
    }

    func run() throws {
        guard let bytes = FileManager.default.contents(atPath: file).map(Array.init) else {
            throw ValidationError("cannot read \(file)")
        }
        // Refused before the review rather than after it.
        let annotated = try annotate.map {
            try OutputFile(path: $0, replacing: true, inputs: [(file, "the file being reviewed")])
        }
        var configuration = EngineConfiguration(path: engine)
        configuration.threads = threads
        configuration.hashMegabytes = hash
        let pool = EnginePool(configuration: configuration, size: engines)
        defer { pool.shutdown() }
        let limit = movetime.map { SearchLimit.movetime(.milliseconds($0)) } ?? .depth(depth)
        let presetValue = ReviewPreset(name: preset.rawValue)!
        let source = SourceText(bytes)
        let parser = bytes.withUnsafeBufferPointer { Parser($0) }
        let selected = parser.games.indices.filter { game == nil || $0 + 1 == game }
        if let game, selected.isEmpty {
            throw ValidationError("\(file) has \(parser.games.count) games; there is no game \(game)")
        }
        let showProgress = isatty(STDERR_FILENO) == 1
        var edits: [Diagnostic.Edit] = []
        var reports: [String] = []
        var summaries: [ReviewSummary] = []
        for index in selected {
            let replay = GameReplay(source: source, syntax: parser.games[index], index: index)
            guard let mainline = Mainline(replay) else {
                if format == .json {
                    summaries.append(
                        ReviewSummary(
                            unreviewed: replay, index: index, error: "the game cannot be played from its start"))
                } else {
                    reports.append("Game \(index + 1): cannot be reviewed (invalid FEN or unsupported variant)\n")
                }
                continue
            }
            let review = try runBlocking {
                try await GameReviewer.review(
                    from: mainline.start, moves: mainline.moves.map(\.move), pool: pool, limit: limit,
                    preset: presetValue
                ) { done, total in
                    if showProgress {
                        writeToStandardError("\rgame \(index + 1): \(done)/\(total) positions")
                    }
                }
            }
            if showProgress { writeToStandardError("\r\u{1B}[K") }
            if format == .json {
                summaries.append(ReviewSummary(review, of: replay, index: index))
            } else {
                reports.append(text(review, replay, index))
            }
            if annotate != nil {
                edits += ReviewAnnotator.edits(for: review, mainline: mainline, replay: replay)
            }
        }
        if format == .json {
            print(ReviewSummary.json(summaries))
        } else {
            print(reports.joined(separator: "\n"), terminator: "")
        }
        if let annotated {
            try annotated.write(ReviewAnnotator.apply(edits, to: bytes))
            try annotated.commit()
        }
    }

    private func title(_ replay: GameReplay, _ index: Int) -> String {
        let white = replay.tagValue("White") ?? "?"
        let black = replay.tagValue("Black") ?? "?"
        return "Game \(index + 1): \(white) – \(black), \(replay.tagValue("Result") ?? "*")"
    }

    private func text(_ review: GameReview, _ replay: GameReplay, _ index: Int) -> String {
        var lines = [title(replay, index)]
        lines.append("  White: \(review.summary(of: .white))")
        lines.append("  Black: \(review.summary(of: .black))")
        for move in review.errors { lines.append("  \(move.summary)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Runs async work from a synchronous command, on the concurrency pool, and waits for it.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        semaphore.signal()
    }
    semaphore.wait()
    return try result!.get()
}
