import ArgumentParser
import Dispatch
import Foundation
import LanguageServer
import PGN

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check PGN files: syntax, every move of every game and variation, results and tags.",
        discussion: """
            Prints one line per problem, `path:line:column: severity: message [code]` (lines and \
            columns from 1, columns in characters), then `N games, E errors, W warnings`. After \
            100 problems in one game, one line says how many more there are. Exits with status 1 \
            when there is an error, 2 when a file cannot be read (the other files are still \
            checked). Use - to read standard input.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Flag(help: "Also print information and hints (text format; json always has every diagnostic).")
    var all = false

    @Flag(help: "Do not look for twins (a game twice in the files), which --all and json otherwise report.")
    var noTwins = false

    @Argument(help: "PGN files, or - for standard input.")
    var files: [String]

    func run() throws {
        var games = 0
        var errors = 0
        var warnings = 0
        var unreadable = false
        let output = OutputBuffer()
        if format == .json { output.write("[") }
        let paths = argumentBytes(files)
        // With twins looked for: the games of the files read before, by identity, and the
        // prefix hashes of the games' mainlines (`TwinRecord.offset`).
        var earlierGames: [Int: [EarlierGame]] = [:]
        var pool: [UInt32] = []
        func key(_ record: TwinRecord) -> TwinKey {
            TwinKey(identity: record.identity, prefixes: Array(pool[record.offset..<(record.offset + record.plies)]))
        }
        for (k, path) in files.enumerated() {
            let display = path == "-" ? "<stdin>" : path
            if format == .json {
                var header = JSONText()
                header.raw(k == 0 ? "\n{\"path\":" : ",\n{\"path\":")
                header.string(display)
                header.raw(",\"diagnostics\":[")
                output.write(header.bytes)
            }
            var first = true
            var fileGames = 0
            var twinGames: [TwinRecord?] = []
            var openings: [Opening?] = []
            var failure: String?
            /// Counts a diagnostic and prints it.
            func emit(_ diagnostic: Diagnostic, _ start: LineColumn, _ end: LineColumn, _ fixes: [LocatedFix] = []) {
                switch diagnostic.severity {
                case .error: errors += 1
                case .warning: warnings += 1
                default: break
                }
                switch format {
                case .text:
                    guard all || diagnostic.severity <= .warning else { return }
                    output.write(
                        "\(display):\(start.line + 1):\(start.column + 1): \(diagnostic.severity.name): \(diagnostic.message) [\(diagnostic.code.rawValue)]\n"
                    )
                case .json:
                    var object = JSONText(capacity: 256)
                    object.raw(first ? "\n{\"line\":" : ",\n{\"line\":")
                    first = false
                    object.integer(start.line + 1)
                    object.raw(",\"column\":")
                    object.integer(start.column + 1)
                    object.raw(",\"endLine\":")
                    object.integer(end.line + 1)
                    object.raw(",\"endColumn\":")
                    object.integer(end.column + 1)
                    object.raw(",\"severity\":")
                    object.string(diagnostic.severity.name)
                    object.raw(",\"code\":")
                    object.string(diagnostic.code.rawValue)
                    object.raw(",\"message\":")
                    object.string(diagnostic.message)
                    if let game = diagnostic.game {
                        object.raw(",\"game\":")
                        object.integer(game + 1)
                    }
                    if !fixes.isEmpty {
                        object.raw(",\"fixes\":[")
                        for (k, fix) in fixes.enumerated() {
                            object.raw(k == 0 ? "{\"title\":" : ",{\"title\":")
                            object.string(fix.title)
                            object.raw(",\"preferred\":")
                            object.raw(fix.isPreferred ? "true" : "false")
                            object.raw(",\"edits\":[")
                            for (j, edit) in fix.edits.enumerated() {
                                object.raw(j == 0 ? "{\"line\":" : ",{\"line\":")
                                object.integer(edit.start.line + 1)
                                object.raw(",\"column\":")
                                object.integer(edit.start.column + 1)
                                object.raw(",\"endLine\":")
                                object.integer(edit.end.line + 1)
                                object.raw(",\"endColumn\":")
                                object.integer(edit.end.column + 1)
                                object.raw(",\"text\":")
                                object.string(edit.text)
                                object.raw("}")
                            }
                            object.raw("]}")
                        }
                        object.raw("]")
                    }
                    object.raw("}")
                    output.write(object.bytes)
                }
            }
            let input =
                path == "-"
                ? STDIN_FILENO
                : paths[k].withUnsafeBufferPointer {
                    $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
                }
            if input < 0 {
                failure = "cannot open \(display): \(String(cString: strerror(errno)))"
            } else {
                defer { if input != STDIN_FILENO { close(input) } }
                let lookForTwins = (all || format == .json) && !noTwins
                let result = CheckRun.stream(input, twins: lookForTwins) { batch in
                    if format == .json { openings += batch.report.openings }
                    if lookForTwins {
                        let base = pool.count
                        pool += batch.twinPool
                        twinGames += batch.twins.lazy.map { $0.map { $0.moved(by: base) } }
                    }
                    for (severity, count) in batch.report.omitted {
                        if severity == .error { errors += count }
                        if severity == .warning { warnings += count }
                    }
                    for (diagnostic, start, end, fixes) in batch.located { emit(diagnostic, start, end, fixes) }
                }
                fileGames = result.games
                // Twins are known once the whole file is read: they come after its other problems.
                let pairs = Twins.find(identities: twinGames.map { $0?.identity }) { key(twinGames[$0]!) }
                for pair in pairs {
                    let (copy, kept) = (twinGames[pair.copy]!, twinGames[pair.kept]!)
                    var diagnostic = Twins.diagnostic(
                        pair, copyLabel: 0..<0, keptLabel: 0..<0, copyPlies: copy.plies, keptPlies: kept.plies)
                    diagnostic.message += " (line \(kept.start.line + 1))"
                    emit(diagnostic, copy.start, copy.end)
                }
                let copies = Set(pairs.map(\.copy))
                for (index, game) in twinGames.enumerated() where !copies.contains(index) {
                    if let game, let earlier = earlierGames[game.identity],
                        let diagnostic = Self.twinElsewhere(key(game), game: index, earlier: earlier, key: key)
                    {
                        emit(diagnostic, game.start, game.end)
                    }
                }
                if k < files.count - 1 {
                    // Kept for the files after this one.
                    for (index, game) in twinGames.enumerated() {
                        guard let game else { continue }
                        earlierGames[game.identity, default: []].append(
                            EarlierGame(path: display, game: index, record: game))
                    }
                }
                twinGames = []
                if let error = result.readError {
                    failure = "cannot read \(display): \(String(cString: strerror(error)))"
                }
            }
            games += fileGames
            if format == .json {
                var footer = JSONText()
                footer.raw("],\"games\":")
                footer.integer(fileGames)
                footer.raw(",\"openings\":")
                footer.array(openings) { text, opening in
                    guard let opening else { return text.raw("null") }
                    text.raw("{\"eco\":")
                    text.string(opening.eco)
                    text.raw(",\"name\":")
                    text.string(opening.name)
                    text.raw("}")
                }
                if let failure {
                    footer.raw(",\"error\":")
                    footer.string(failure)
                }
                footer.raw("}")
                output.write(footer.bytes)
            }
            if let failure {
                // Whatever was read is checked; the other files still are.
                unreadable = true
                output.flush()
                writeToStandardError("pgn-lsp: \(failure)\n")
            }
        }
        switch format {
        case .text: output.write("\(games) games, \(errors) errors, \(warnings) warnings\n")
        case .json: output.write("\n]\n")
        }
        output.flush()
        if let failure = output.failure {
            writeToStandardError("pgn-lsp: cannot write to standard output: \(String(cString: strerror(failure)))\n")
            throw ExitCode(2)
        }
        if unreadable { throw ExitCode(2) }
        if errors > 0 { throw ExitCode(1) }
    }
}

extension Check {
    /// A game of a file checked before, for twins across files.
    struct EarlierGame {
        let path: String
        let game: Int
        let record: TwinRecord

        var name: String { "game \(game + 1) of \(path) (line \(record.start.line + 1))" }
    }

    /// The `twin-game` diagnostic of a game (its `key`, number `game` of its file) that has a
    /// twin in a file checked before: a copy of the earlier game (equal, or its start), or a
    /// longer game of which the earlier one is the start. Nil for a game without one.
    static func twinElsewhere(
        _ key: TwinKey, game: Int, earlier: [EarlierGame], key keyOf: (TwinRecord) -> TwinKey
    ) -> Diagnostic? {
        guard earlier.count <= Twins.largestGroup else { return nil }
        if let kept = Twins.kept(by: key, among: earlier, key: { keyOf($0.record) }, equalCounts: { _ in true }) {
            let message = Twins.message(
                isShorter: kept.record.plies > key.plies, kept: kept.name, copyPlies: key.plies,
                keptPlies: kept.record.plies)
            return Diagnostic(.twinGame, .information, message, range: 0..<0, game: game)
        }
        guard let copy = earlier.first(where: { keyOf($0.record).isStart(of: key) }) else { return nil }
        let message =
            "\(copy.name.prefix(1).uppercased())\(copy.name.dropFirst()) stops after \(copy.record.plies) half-moves of this game, which has the same players, date and round and goes on to \(key.plies): an earlier copy of it"
        return Diagnostic(.twinGame, .information, message, range: 0..<0, game: game)
    }
}

/// The bytes of each argument in `arguments` as the program was given them: the strings
/// `CommandLine.arguments` holds replace bytes that are not UTF-8 (a file name with byte 0xFF),
/// so each argument is matched, in order, with the first later entry of `argv` that reads as
/// it. Each array ends with a NUL byte.
func argumentBytes(_ arguments: [String]) -> [[UInt8]] {
    var next = 1
    return arguments.map { argument in
        var k = next
        while k < Int(CommandLine.argc) {
            if let entry = CommandLine.unsafeArgv[k], String(cString: entry) == argument {
                next = k + 1
                let length = strlen(entry)
                return entry.withMemoryRebound(to: UInt8.self, capacity: length + 1) {
                    Array(UnsafeBufferPointer(start: $0, count: length + 1))
                }
            }
            k += 1
        }
        return Array(argument.utf8) + [0]
    }
}

/// Buffered standard output. A failure to write is kept (`failure`, the error number) and
/// the rest is dropped.
final class OutputBuffer {
    private var buffer: [UInt8] = []
    private(set) var failure: Int32?

    func write(_ text: String) {
        write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count > 1 << 16 { flush() }
    }

    func flush() {
        if failure == nil { failure = writeAll(STDOUT_FILENO, buffer) }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A quick fix of a diagnostic as `check --format json` gives it: its edits in lines and
/// columns of the file.
struct LocatedFix {
    var title: String
    var isPreferred: Bool
    var edits: [(start: LineColumn, end: LineColumn, text: String)]
}

/// A game's `TwinKey` as `check` keeps it: its identity, and its prefix hashes as a range of a
/// shared array; with where its first tag is.
struct TwinRecord {
    var identity: Int
    var plies: Int
    var offset: Int
    var start: LineColumn
    var end: LineColumn

    func moved(by base: Int) -> TwinRecord {
        var moved = self
        moved.offset += base
        return moved
    }
}

/// Reads a file in pieces that hold whole games, checks the pieces on every core, and hands
/// back the diagnostics in file order with their line and column. Memory stays bounded by a
/// few pieces, whatever the size of the file: text in which no game starts for
/// `longestGame` bytes is cut there, and what follows it is skipped up to the next game.
enum CheckRun {
    struct Batch {
        var bytes: [UInt8]
        var base: Int
        /// Lines of skipped text between the previous piece and this one.
        var skippedLines = 0
        /// Whether the text after this piece is skipped (it is too long to be one game).
        var cutShort = false
        var report = Checker.Report(games: 0, diagnostics: [])
        var source: SourceText?
        /// Diagnostics with their start and end in the file (0-based line, column in characters).
        var located: [(Diagnostic, LineColumn, LineColumn, [LocatedFix])] = []
        /// With twins looked for: each game's key (nil: none) and the start and end of its first
        /// tag (in the file once the piece is emitted), the keys' prefix hashes in `twinPool`.
        var twins: [TwinRecord?] = []
        var twinPool: [UInt32] = []
    }

    static let pieceSize = 4 << 20
    static let longestGame = 4 << 20
    /// While text is skipped, the bytes kept from one read to the next, so that a game start
    /// across two reads is found.
    static let skipOverlap = 1 << 16

    /// Streams the file open at `input`; calls `emit` for each piece in order; returns the
    /// number of games, and the error number when reading failed (what was read before the
    /// failure is checked).
    static func stream(_ input: Int32, twins: Bool = false, emit: (Batch) -> Void) -> (games: Int, readError: Int32?) {
        // Twice as many pieces as cores, so that a slow piece does not leave a core idle.
        let width = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var pending: [UInt8] = []
        var base = 0
        var line = 0
        var games = 0
        var atEnd = false
        var readError: Int32?
        // Skipping text after a cut: the lines skipped so far, and whether the last skipped
        // byte was a CR (a CRLF across two reads is one line break).
        var skipping = false
        var skippedLines = 0
        var afterCR = false
        while !atEnd {
            // Gather up to `width` pieces, then check them side by side.
            var batches: [Batch] = []
            while batches.count < width && !atEnd {
                let (bytes, count, error) = readChunk(input, pieceSize, after: pending)
                pending = bytes
                if count == 0 || error != nil {
                    readError = error
                    atEnd = true
                }
                if skipping {
                    let start: Int? =
                        atEnd ? pending.count : pending.withUnsafeBufferPointer { PieceCutter.firstGameBoundary($0) }
                    // Bytes that are surely skipped: up to the game start, else all but the
                    // last `skipOverlap`.
                    let skipped = start ?? max(0, pending.count - skipOverlap)
                    pending.withUnsafeBufferPointer { bytes in
                        for byte in bytes[..<skipped] {
                            if byte == 0x0A && !afterCR || byte == 0x0D { skippedLines += 1 }
                            afterCR = byte == 0x0D
                        }
                    }
                    base += skipped
                    pending.removeFirst(skipped)
                    guard start != nil else { continue }
                    skipping = false
                }
                guard
                    let (cut, forced) = pending.withUnsafeBufferPointer({
                        PieceCutter.cut($0, atEnd: atEnd, longest: longestGame)
                    })
                else { continue }
                if forced {
                    skipping = true
                    afterCR = false
                }
                let piece = PieceCutter.takePiece(&pending, upTo: cut)
                batches.append(Batch(bytes: piece, base: base, skippedLines: skippedLines))
                batches[batches.count - 1].cutShort = skipping
                skippedLines = 0
                base += cut
            }
            nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Batch>.allocate(capacity: batches.count)
            _ = results.initialize(from: batches)
            DispatchQueue.concurrentPerform(iterations: batches.count) { i in
                let source = SourceText(results[i].bytes)
                var report = Checker.check(source, base: results[i].base, twins: twins)
                if results[i].cutShort {
                    let end = results[i].base + source.bytes.count
                    report.diagnostics.append(
                        Diagnostic(
                            .syntax, .error,
                            "No game starts in \(longestGame >> 20) MB: this text is too long to be one game; what follows is not checked up to the next game",
                            range: end..<end, game: nil))
                }
                // Where each game's first tag is, found here on every core (lines counted in the piece).
                results[i].twins = report.twins.map { twin in
                    guard let twin else { return nil }
                    let range = (twin.label.lowerBound - results[i].base)..<(twin.label.upperBound - results[i].base)
                    return TwinRecord(
                        identity: twin.identity, plies: twin.prefixes.count, offset: twin.prefixes.lowerBound,
                        start: source.position(of: range.lowerBound, in: .utf32),
                        end: source.position(of: range.upperBound, in: .utf32))
                }
                results[i].twinPool = report.twinPool
                report.twins = []
                report.twinPool = []
                results[i].report = report
                results[i].source = source
            }
            for i in 0..<batches.count {
                var batch = results[i]
                let source = batch.source!
                line += batch.skippedLines
                func locate(_ range: Range<Int>) -> (LineColumn, LineColumn) {
                    var start = source.position(of: range.lowerBound - batch.base, in: .utf32)
                    var end = source.position(of: range.upperBound - batch.base, in: .utf32)
                    start.line += line
                    end.line += line
                    return (start, end)
                }
                batch.located = batch.report.diagnostics.map { diagnostic in
                    let (start, end) = locate(diagnostic.range)
                    var renumbered = diagnostic
                    renumbered.game = diagnostic.game.map { $0 + games }
                    let fixes = diagnostic.fixes.map { fix in
                        LocatedFix(
                            title: fix.title, isPreferred: fix.isPreferred,
                            edits: fix.edits.map { edit in
                                let (from, to) = locate(edit.range)
                                return (from, to, edit.text)
                            })
                    }
                    return (renumbered, start, end, fixes)
                }
                for k in batch.twins.indices {
                    batch.twins[k]?.start.line += line
                    batch.twins[k]?.end.line += line
                }
                emit(batch)
                games += batch.report.games
                line += source.lineStarts.count - 1
            }
            results.deinitialize()
            results.deallocate()
        }
        return (games, readError)
    }

    /// Reads up to `count` bytes (fewer only at the end of the input) into one buffer after
    /// `pending`'s: the buffer, the count read, and the error number when reading fails (with
    /// the bytes read before the failure).
    static func readChunk(_ input: Int32, _ count: Int, after pending: [UInt8]) -> ([UInt8], Int, Int32?) {
        var filled = 0
        var error: Int32?
        let bytes = [UInt8](unsafeUninitializedCapacity: pending.count + count) { buffer, initialized in
            let start = pending.withUnsafeBufferPointer { old in
                if let base = old.baseAddress { buffer.baseAddress!.initialize(from: base, count: old.count) }
                return old.count
            }
            while filled < count {
                let n = read(input, buffer.baseAddress! + start + filled, count - filled)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { error = errno }
                if n <= 0 { break }
                filled += n
            }
            initialized = start + filled
        }
        return (bytes, filled, error)
    }
}
