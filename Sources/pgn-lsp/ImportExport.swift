import ArgumentParser
import Foundation
import GameStore

extension MovesContent: ExpressibleByArgument {}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store the games of PGN files in an OCGDB database (for En Croissant and ocgdb).",
        discussion: """
            Creates the database if it does not exist. Every game is stored, tags as written: \
            what the move columns cannot hold (a null move, a move that cannot be played and \
            what follows it in its line, a note such as e.p. among the moves) is kept as a \
            comment at its place, which export writes back as it was, and the game is listed \
            with what was changed; a game whose mainline stops early for an illegal, ambiguous \
            or unreadable move is also marked with an Incomplete tag and counted apart. Games \
            already in the database (same players, event, site, date, time, round, result, \
            start position and moves) are not stored again. Only a game that cannot be stored at all (unsupported \
            variant, bad FEN) is refused, listed and left out. Each batch of games is one \
            transaction: an interrupted import leaves whole games only. Exits with status 1 \
            when a game was refused.
            """)

    @Option(help: "The database file (created if missing).")
    var db: String

    @Option(
        help:
            "What the Moves column holds: full (comments, NAGs and variations) or mainline (the mainline's moves only: variations, NAGs and comments left out, the mainline's comments going to the Comments table alone)."
    )
    var moves: MovesContent = .full

    @Flag(
        help:
            "Leave the Comments table (read by ocgdb) empty; with --moves mainline, the mainline's comments and the movetext kept as comments are then not stored at all."
    )
    var noCommentRows = false

    @Flag(help: "Refuse every game that cannot be stored as written instead of storing it with its changes listed.")
    var strict = false

    @Flag(help: "Do not build or update the position index (search, explore, the editor's explorer).")
    var noPositionIndex = false

    @Option(help: "Seconds to wait for another program's lock on the database.")
    var busyTimeout: Double = 5

    @Argument(help: "PGN files.")
    var files: [String]

    func run() throws {
        let options = GameDatabase.Options(
            busyTimeout: busyTimeout, moves: moves, commentRows: !noCommentRows, positionIndex: !noPositionIndex,
            strict: strict)
        let database: GameDatabase
        do {
            database = try GameDatabase(path: db, options: options)
        } catch {
            throw ValidationError("\(error)")
        }
        let start = ContinuousClock.now
        let bar = ProgressBar(enabled: isatty(2) == 1)
        var total = StoreReport()
        var refused: [(String, RefusedGame)] = []
        var changed: [(String, ChangedGame)] = []
        // The search indexes of a new file and the opening tree are built once, after the last
        // file, from all the games (standard input's size is not known).
        var totalBytes: Int? = 0
        for path in files {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            if attributes?[.type] as? FileAttributeType == .typeRegular, let size = attributes?[.size] as? Int {
                totalBytes? += size
            } else {
                totalBytes = nil
            }
        }
        do {
            try database.withIndexesBuiltAtTheEnd(totalBytes: totalBytes) {
                for path in files {
                    let report: StoreReport
                    do {
                        report = try database.importPGN(path: path) { progress in
                            bar.show(path: path, progress)
                        }
                    } catch {
                        bar.clear()
                        throw ValidationError("\(path): \(error)")
                    }
                    bar.clear()
                    refused += report.refused.map { (path, $0) }
                    changed += report.changed.map { (path, $0) }
                    total.add(report)
                }
            }
        } catch {
            // A database this import made and could not store a game in is not left behind.
            if database.removeIfMadeAndEmpty() {
                FileHandle.standardError.write(Data("\(db) was not kept: it holds no game\n".utf8))
            }
            throw error
        }
        var output = ""
        if !noPositionIndex {
            // A file made by another program, or whose games another program changed: its
            // index is built once, from all its games.
            do {
                let status = try database.positionIndexStatus()
                if !status.isUsable {
                    try database.buildPositionIndex { done, total in
                        bar.show(label: "indexing positions", done: done, total: total)
                    }
                    bar.clear()
                    output += "position index built (\(status))\n"
                }
            } catch {
                bar.clear()
                throw ValidationError("\(db): \(error)")
            }
        }
        let seconds = seconds(since: start)
        if !changed.isEmpty {
            output += "Stored with changes:\n"
            for (path, game) in changed { output += "  \(path): \(game)\n" }
        }
        if !refused.isEmpty {
            output += "Refused:\n"
            for (path, game) in refused { output += "  \(path): \(game)\n" }
        }
        let rate = seconds > 0 ? Int((Double(total.total) / seconds).rounded()) : 0
        output += "\(grouped(total.total)) games in \(String(format: "%.2f", seconds)) s (\(grouped(rate)) games/s): "
        output += "\(grouped(total.stored)) stored"
        if !total.changed.isEmpty {
            output += " (\(grouped(total.changed.count)) with changes"
            if total.incomplete > 0 { output += ", \(grouped(total.incomplete)) of them incomplete" }
            output += ")"
        }
        output += ", \(grouped(total.duplicates)) duplicates, \(grouped(total.refused.count)) refused\n"
        if let failure = writeAll(STDOUT_FILENO, Array(output.utf8)) {
            throw CommandError("cannot write to standard output: \(String(cString: strerror(failure)))")
        }
        if !total.refused.isEmpty { throw ExitCode(1) }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the games of an OCGDB database (En Croissant, ocgdb) as PGN.",
        discussion: """
            Reads En Croissant's Moves (with comments, NAGs and variations), ocgdb's Moves2, \
            text Moves and two-byte Moves layouts. Writes to standard output unless --output is \
            given; the count and any game that could not be read go to standard error, and \
            such a game makes the exit status 1. The output file is written whole or not at \
            all: it replaces an existing file only with --force (a symbolic link is followed), \
            and never the database itself.
            """)

    @Option(help: "The database file.")
    var db: String

    @Option(
        help: """
            Only the games of this player, as White or Black: the name in any case and accents, \
            or the start of its words in any order (Carlsen, "carlsen m", "Magnus Carlsen"). \
            When no player has that name, the closest names are suggested.
            """)
    var player: String?

    @Option(name: .customLong("id"), help: "Only the game with this ID (repeatable).")
    var ids: [Int64] = []

    @Option(help: "Write to this file instead of standard output (- for standard output).")
    var output: String?

    @Flag(help: "Replace the --output file if it exists.")
    var force = false

    func run() throws {
        let database: GameDatabase
        do {
            database = try GameDatabase.openForReading(path: db)
        } catch {
            throw ValidationError("\(error)")
        }
        let file: OutputFile
        if let output, output != "-" {
            let inputs = ["", "-wal", "-shm", "-journal"].map { (db + $0, "the database") }
            file = try OutputFile(path: output, replacing: force, inputs: inputs)
        } else {
            file = OutputFile()
        }
        let report: ExportReport
        do {
            report = try database.exportPGN(player: player, ids: ids.isEmpty ? nil : ids) { text in
                try file.write(text.utf8)
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw ValidationError("\(error)")
        }
        try file.commit()
        var summary = ""
        for failure in report.failed { summary += "skipped: \(failure)\n" }
        let layouts = report.layouts.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue) \($0.value)"
        }
        summary += "\(grouped(report.exported)) game\(report.exported == 1 ? "" : "s") exported"
        if !layouts.isEmpty { summary += " (moves read as: \(layouts.joined(separator: ", ")))" }
        summary += "\n"
        writeToStandardError(summary)
        if let player, report.exported == 0, report.failed.isEmpty {
            // Nothing to write is not what was asked: say why, and what may have been meant.
            let suggestions = (try? database.players(closestTo: player)) ?? []
            writeToStandardError(
                "no game of a player named \(player)"
                    + (suggestions.isEmpty ? "" : "; did you mean: \(suggestions.joined(separator: "; "))") + "\n")
            throw ExitCode(1)
        }
        if !ids.isEmpty && report.exported + report.failed.count < Set(ids).count {
            throw ValidationError("some of the requested IDs are not in the database")
        }
        // As `import` does for refused games: the output is short of what was asked.
        if !report.failed.isEmpty { throw ExitCode(1) }
    }
}

/// `12,345`.
func grouped(_ number: Int) -> String { Figures.grouped(number) }

/// A one-line progress bar on standard error, redrawn in place.
final class ProgressBar: @unchecked Sendable {
    let enabled: Bool
    private var shown = false
    private let lock = NSLock()

    init(enabled: Bool) { self.enabled = enabled }

    func show(path: String, _ progress: ImportProgress) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        var line = "\r"
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(1, Double(progress.bytesDone) / Double(total))
            let filled = Int(fraction * 30)
            line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "] "
            line += "\(Int(fraction * 100))% "
        }
        line += "\(grouped(progress.games)) games  \(URL(fileURLWithPath: path).lastPathComponent)"
        writeToStandardError(line)
        shown = true
    }

    /// `[#####.....] 50% 1,234 of 2,468 games indexing`.
    func show(label: String, done: Int, total: Int) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int(fraction * 30)
        var line = "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "] "
        line += "\(Int(fraction * 100))% \(grouped(done)) of \(grouped(total)) games \(label)"
        writeToStandardError(line)
        shown = true
    }

    func clear() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if shown { writeToStandardError("\r\u{1B}[K") }
        shown = false
    }
}
