import ArgumentParser
import ChessCore
import Foundation
import GameStore
import PGN

struct Index: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build the position index of a database (for search, explore and the editor's explorer).",
        discussion: """
            The index lives in tables of its own in the same file (En Croissant and ocgdb still \
            open it and see the same games). `import` and the editor's save actions keep it up \
            to date; this command builds it for files made by other programs, or again after \
            another program changed the games or the index, or after an import that stopped \
            before its end. With --check, only says whether it is up to date, and if not, why and \
            what to do (exit status 1 when it is not).
            """)

    @Option(help: "The database file.")
    var db: String

    @Flag(help: "Only report whether the index is there and up to date.")
    var check = false

    @Flag(help: "Remove the index instead.")
    var remove = false

    @Option(help: "Seconds to wait for another program's lock on the database.")
    var busyTimeout: Double = 5

    func run() throws {
        if check {
            let status: PositionIndexStatus
            do {
                status = try GameDatabase.openForReading(path: db, busyTimeout: busyTimeout).positionIndexStatus()
            } catch {
                throw ValidationError("\(error)")
            }
            print("\(db): \(status)" + (status.remedy(path: db).map { "; \($0)" } ?? ""))
            if status != .current { throw ExitCode(1) }
            return
        }
        let database: GameDatabase
        do {
            // A file that is not there is an error (a mistyped path), not a new empty database.
            _ = try GameDatabase.openForReading(path: db, busyTimeout: busyTimeout)
            var options = GameDatabase.Options(busyTimeout: busyTimeout)
            options.positionIndexOnly = true
            database = try GameDatabase(path: db, options: options)
        } catch {
            throw ValidationError("\(error)")
        }
        if !remove {
            let status: PositionIndexStatus
            do {
                status = try database.positionIndexStatus()
            } catch {
                throw ValidationError("\(error)")
            }
            if status == .updating {
                // Built now, it would be made again at the import's end.
                writeToStandardError("\(db): \(status); \(status.remedy(path: db)!)\n")
                throw ExitCode(1)
            }
        }
        let start = ContinuousClock.now
        let bar = ProgressBar(enabled: isatty(2) == 1)
        do {
            if remove {
                try database.removePositionIndex()
                print("\(db): position index removed")
                return
            }
            let count = try database.buildPositionIndex { done, total in
                bar.show(label: "indexing", done: done, total: total)
            }
            bar.clear()
            print("\(db): \(grouped(count)) games indexed in \(String(format: "%.2f", seconds(since: start))) s")
        } catch {
            bar.clear()
            throw ValidationError("\(error)")
        }
    }
}

enum PositionOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, pgn
}

enum ExplorerOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the games of a database that reach a position, at any ply of their mainline.",
        discussion: """
            The position is a FEN or its first fields: without a side to move White moves; \
            without castling rights, those the kings and rooks on their starting squares allow. \
            Other move orders count (transpositions); castling rights and the en-passant square \
            are part of the position, as in FEN. Needs the database's position index (see \
            `pgn-lsp index`). Exits with status 0 when games were found, 1 when none.
            """)

    @Option(help: "The database file.")
    var db: String

    @Option(help: "The position: a FEN, or its first fields.")
    var fen: String

    @Option(help: "List at most this many games (the count is of all).")
    var limit: Int = 50

    @Option(help: "text, json, or pgn (the games themselves).")
    var format: PositionOutputFormat = .text

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let position: Position
        do {
            position = try PositionIndex.position(query: fen)
        } catch {
            throw ValidationError("--fen: \(error)")
        }
        let database = try openIndexed(db)
        let start = ContinuousClock.now
        let total: Int
        let shown: [PositionMatch]
        let summaries: [Int64: GameSummary]
        do {
            (total, shown) = try database.search(position, limit: limit)
            summaries = format == .pgn ? [:] : try database.summaries(ids: shown.map(\.gameID))
        } catch {
            throw ValidationError("\(error)")
        }
        let elapsed = seconds(since: start)
        let key = PositionKeyText(position)
        switch format {
        case .text:
            var output = "\(grouped(total)) game\(total == 1 ? "" : "s") reach \(key.fen)"
            output += String(format: " (%.3f s)", elapsed)
            if shown.isEmpty {
                output += "\n"
            } else {
                output += shown.count < total ? ", the first \(shown.count):\n" : ":\n"
            }
            for match in shown {
                let label = summaries[match.gameID]?.label ?? "?"
                output += "  #\(match.gameID)  ply \(match.ply)  \(label)\n"
            }
            try writeStandardOutput(output)
        case .json:
            let games: [[String: Any]] = shown.map { match in
                var object = summaries[match.gameID].map(summaryObject) ?? ["id": match.gameID]
                object["ply"] = match.ply
                return object
            }
            let object: [String: Any] = [
                "fen": key.fen, "total": total, "games": games, "seconds": elapsed,
            ]
            try writeStandardOutput(jsonText(object) + "\n")
        case .pgn:
            let file = OutputFile()
            if !shown.isEmpty {
                do {
                    _ = try database.exportPGN(ids: shown.map(\.gameID)) { text in try file.write(text.utf8) }
                } catch {
                    throw ValidationError("\(error)")
                }
            }
            try file.commit()
            writeToStandardError("\(grouped(total)) game\(total == 1 ? "" : "s") reach \(key.fen)\n")
        }
        if total == 0 { throw ExitCode(1) }
    }
}

struct Explore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what was played from a position in a database's games, how often and with what results.",
        discussion: """
            The position is the one after --moves (SAN, with or without move numbers) from \
            --fen or the standard start. Counts cover the games that reached it within their \
            first 40 plies. Needs the database's position index (see `pgn-lsp index`). With \
            --player (and --color), --since, --until, --min-elo, --max-elo or --speed, only the \
            games they keep are counted (all of them, whatever their number). Exits with \
            status 0 when games reached the position, 1 when none did.
            """)

    @Option(help: "Count only this player's games (any case, or the start of each word).")
    var player: String?

    @Option(help: "With --player: the side they had, white or black.")
    var color: String?

    @Option(help: "Count only games played on or after this date (2024, 2024.05 or 2024.05.01).")
    var since: String?

    @Option(help: "Count only games played on or before this date.")
    var until: String?

    @Option(help: "Count only games whose players' average rating is at least this.")
    var minElo: Int?

    @Option(help: "Count only games whose players' average rating is at most this.")
    var maxElo: Int?

    @Option(help: "Count only games of this speed: ultraBullet, bullet, blitz, rapid, classical or correspondence.")
    var speed: String?

    /// The games the options keep.
    func filter() throws -> ExplorerFilter {
        var filter = ExplorerFilter(player: player, since: since, until: until, minElo: minElo, maxElo: maxElo)
        if let color {
            guard player != nil else { throw ValidationError("--color goes with --player") }
            switch color.lowercased() {
            case "white": filter.color = .white
            case "black": filter.color = .black
            default: throw ValidationError("--color must be white or black, not \(color)")
            }
        }
        if let speed {
            guard let chosen = ExplorerFilter.Speed(rawValue: speed) else {
                let names = ExplorerFilter.Speed.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--speed must be one of \(names), not \(speed)")
            }
            filter.speed = chosen
        }
        return filter
    }

    @Option(help: "The database file.")
    var db: String

    @Option(help: "Moves from the start, e.g. \"1. e4 c5 2. Nf3\".")
    var moves: String = ""

    @Option(help: "The position to start from (a FEN, or its first fields).")
    var fen: String?

    @Option(help: "text or json.")
    var format: ExplorerOutputFormat = .text

    @Option(help: .hidden)
    var timingFile: String?

    func run() throws {
        if let timingFile { return try timeEach(timingFile) }
        var position = Position.startingPosition
        if let fen {
            do {
                position = try PositionIndex.position(query: fen)
            } catch {
                throw ValidationError("--fen: \(error)")
            }
        }
        let start = position
        var played: [Move] = []
        var line: [Position] = []
        for token in moves.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            var word = String(token)
            // Move numbers, alone (`1.`, `1...`) or glued to the move (`1.e4`).
            if let dot = word.lastIndex(of: "."), word[..<dot].allSatisfy({ $0.isNumber || $0 == "." }) {
                word = String(word[word.index(after: dot)...])
            }
            if word.isEmpty || ["1-0", "0-1", "1/2-1/2", "*"].contains(word) { continue }
            guard let move = position.move(san: word) else {
                let after = played.isEmpty ? "the start" : PGNWriter.movetext(played, from: start)
                throw ValidationError("--moves: \"\(word)\" is not a legal move after \(after)")
            }
            played.append(move)
            line.append(position)
            position.play(move)
        }
        let filter = try filter()
        let database = try openIndexed(db)
        let answer: ExplorerAnswer
        let summaries: [Int64: GameSummary]
        do {
            if filter.isEmpty {
                answer = try database.explore(position, line: line)
            } else {
                do {
                    answer = try database.filteredExplorer(filter).explore(position, line: line)
                } catch GameStoreError.noSuchPlayer(let name) {
                    let suggestions = (try? database.players(closestTo: name)) ?? []
                    writeToStandardError(
                        "pgn-lsp: no game of a player named \(name)"
                            + (suggestions.isEmpty ? "" : "; did you mean: \(suggestions.joined(separator: "; "))")
                            + "\n")
                    throw ExitCode(1)
                }
            }
            summaries = try database.summaries(
                ids: Array(Set(answer.continuations.compactMap(\.bestGame) + [answer.bestGame].compactMap { $0 })))
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw ValidationError("\(error)")
        }
        let key = PositionKeyText(position)
        switch format {
        case .text:
            try writeStandardOutput(
                ExplorerTable.text(answer, position: position, fen: key.fen, summaries: summaries))
        case .json:
            var object: [String: Any] = [
                "fen": key.fen, "games": answer.games, "whiteWins": answer.whiteWins, "draws": answer.draws,
                "blackWins": answer.blackWins, "ended": answer.ended,
            ]
            if let best = answer.bestGame, let summary = summaries[best] { object["bestGame"] = summaryObject(summary) }
            object["moves"] = answer.continuations.map { continuation -> [String: Any] in
                var entry: [String: Any] = [
                    "san": position.san(continuation.move), "uci": position.uci(continuation.move),
                    "games": continuation.games, "whiteWins": continuation.whiteWins, "draws": continuation.draws,
                    "blackWins": continuation.blackWins,
                ]
                if let best = continuation.bestGame, let summary = summaries[best] {
                    entry["bestGame"] = summaryObject(summary)
                }
                return entry
            }
            try writeStandardOutput(jsonText(object) + "\n")
        }
        if !answer.isKnown { throw ExitCode(1) }
    }
}

extension Explore {
    /// For benchmarks: the explorer's answer (with its best games' names, as a hover shows
    /// them) for the position after each line of a file (UCI moves from the start), one JSON
    /// line each with the microseconds it took.
    func timeEach(_ path: String) throws {
        let database = try openIndexed(db)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        var output = ""
        // With a filter: its explorer made once (that time on a line of its own), then read.
        let filter = try filter()
        var filtered: FilteredExplorer?
        if !filter.isEmpty {
            let start = ContinuousClock.now
            filtered = try database.filteredExplorer(filter)
            let micros = Int(seconds(since: start) * 1e6)
            output += try jsonText(["built": filtered!.games, "micros": micros]) + "\n"
        }
        for text in lines.dropLast(lines.last == "" ? 1 : 0) {
            var position = Position.startingPosition
            var line: [Position] = []
            for word in text.split(separator: " ") {
                guard let move = position.move(uci: word) else { throw ValidationError("\(word): not a legal move") }
                line.append(position)
                position.play(move)
            }
            let start = ContinuousClock.now
            let answer = try filtered?.explore(position, line: line) ?? database.explore(position, line: line)
            let best = answer.continuations.prefix(5).compactMap(\.bestGame) + [answer.bestGame].compactMap { $0 }
            _ = try database.summaries(ids: best)
            let micros = Int(seconds(since: start) * 1e6)
            output += try jsonText(["moves": String(text), "games": answer.games, "micros": micros]) + "\n"
        }
        try writeStandardOutput(output)
    }
}

/// The explorer's table as text: one line per move, most played first.
enum ExplorerTable {
    static func text(
        _ answer: ExplorerAnswer, position: Position, fen: String, summaries: [Int64: GameSummary]
    ) -> String {
        var output = "\(fen)\n"
        guard answer.isKnown else { return output + "no game of the database reaches this position\n" }
        output +=
            "\(grouped(answer.games)) game\(answer.games == 1 ? "" : "s"): \(shares(answer.whiteWins, answer.draws, answer.blackWins))\n"
        if answer.ended > 0 { output += "\(grouped(answer.ended)) ended here\n" }
        if let best = answer.bestGame, let summary = summaries[best] { output += "best rated: \(summary.label)\n" }
        let rows = answer.continuations.map { continuation -> [String] in
            let percent = Int((Double(continuation.games) * 100 / Double(max(1, answer.games))).rounded())
            let score = continuation.whiteScore.map { String(format: "%.0f%%", $0 * 100) } ?? "-"
            let best = continuation.bestGame.flatMap { summaries[$0]?.label } ?? ""
            return [
                position.san(continuation.move), grouped(continuation.games), "\(percent)%",
                shares(continuation.whiteWins, continuation.draws, continuation.blackWins), score, best,
            ]
        }
        let header = ["move", "games", "share", "white / draw / black", "white score", "best rated game"]
        var widths = header.map(\.count)
        for row in rows { for (k, cell) in row.enumerated() { widths[k] = max(widths[k], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { k, cell in
                let pad = String(repeating: " ", count: widths[k] - cell.count)
                return k == 1 || k == 2 || k == 4 ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        output += line(header)
        for row in rows { output += line(row) }
        return output
    }

    /// `38% / 30% / 32%` of the games with a known result.
    static func shares(_ white: Int, _ draws: Int, _ black: Int) -> String {
        let known = white + draws + black
        guard known > 0 else { return "no results" }
        func percent(_ count: Int) -> String { "\(Int((Double(count) * 100 / Double(known)).rounded()))%" }
        return "\(percent(white)) / \(percent(draws)) / \(percent(black))"
    }
}

/// A position as searches name it: the first four fields of its FEN.
struct PositionKeyText {
    let fen: String

    init(_ position: Position) {
        fen = position.fen.split(separator: " ").prefix(4).joined(separator: " ")
    }
}

/// Opens a database for a search, and builds its position index first when it is missing or
/// out of date and the file can be written (else says how to build it). While an import adds
/// games, says that the answer covers the games stored so far.
func openIndexed(_ path: String) throws -> GameDatabase {
    do {
        let reader = try GameDatabase.openForReading(path: path)
        let status = try reader.positionIndexStatus()
        if status == .updating { writeToStandardError("\(status): the answer covers the games stored so far\n") }
        if status.isUsable { return reader }
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw GameStoreError.positionIndex(path: path, status: status)
        }
        var options = GameDatabase.Options()
        options.positionIndexOnly = true
        let writer = try GameDatabase(path: path, options: options)
        writeToStandardError("\(status): building it\n")
        let count = try writer.buildPositionIndex()
        writeToStandardError("\(grouped(count)) games indexed\n")
        return writer
    } catch {
        throw ValidationError("\(error)")
    }
}

func summaryObject(_ summary: GameSummary) -> [String: Any] {
    var object: [String: Any] = ["id": summary.id]
    let fields: [(String, Any?)] = [
        ("white", summary.white), ("black", summary.black), ("whiteElo", summary.whiteElo),
        ("blackElo", summary.blackElo), ("event", summary.event), ("site", summary.site), ("date", summary.date),
        ("round", summary.round), ("result", summary.result),
    ]
    for (name, value) in fields { if let value { object[name] = value } }
    return object
}

func jsonText(_ object: Any) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
}

func writeStandardOutput(_ text: String) throws {
    if let failure = writeAll(STDOUT_FILENO, Array(text.utf8)) {
        throw CommandError("cannot write to standard output: \(String(cString: strerror(failure)))")
    }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}
