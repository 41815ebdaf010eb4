import ChessCore
import Foundation
import GameStore
import LanguageServer
import PGN

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The PGN files that hold the database games a search found, so that any client can open
/// them as it opens any file: one file per database and position, written anew at each search.
///
/// They go to a private folder: `$XDG_CACHE_HOME/pgn-lsp/positions` (else
/// `~/.cache/pgn-lsp/positions`, else `pgn-lsp-UID/positions` in the system's temporary
/// folder), made 0700 when missing. A folder there is used only when it is a folder of this
/// user's (not a link) that no one else can write to; one this user made readable by others
/// (0755, as earlier versions made it) is narrowed to 0700 first. When none is fit, a new folder
/// only this user can enter is made in the temporary folder (`mkdtemp`) for the process. Each
/// file is written 0600 under a new name that no link can stand for, then renamed over the
/// file's name; at each write the oldest files beyond the newest `kept` are removed.
enum ReferenceFiles {
    /// How many files the folder keeps: those of the latest searches.
    static let kept = 50

    /// A folder the files may go to: `base` (the user's, trusted as it is) and the folders
    /// under it that this server makes and checks.
    struct Candidate {
        let base: URL
        let own: [String]
        /// Whether `base` is made when missing (a cache folder; not the temporary folder).
        let makesBase: Bool

        var url: URL { own.reduce(base) { $0.appendingPathComponent($1) } }
    }

    /// Where the files may go, in order of preference.
    static func candidates() -> [Candidate] {
        var candidates: [Candidate] = []
        if let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            candidates.append(
                Candidate(base: URL(fileURLWithPath: cache), own: ["pgn-lsp", "positions"], makesBase: true))
        }
        candidates.append(
            Candidate(
                base: FileSystem.home.appendingPathComponent(".cache"), own: ["pgn-lsp", "positions"], makesBase: true))
        candidates.append(
            Candidate(
                base: URL(fileURLWithPath: NSTemporaryDirectory()), own: ["pgn-lsp-\(geteuid())", "positions"],
                makesBase: false))
        return candidates
    }

    /// The folder made for this process when no candidate is fit.
    private static let madeFolder = Locked<URL?>(nil)

    /// Every folder the files may be in (for the walk of the workspace, which leaves them out).
    static func folders() -> [URL] {
        candidates().map(\.url) + (madeFolder.withLock { $0 }.map { [$0] } ?? [])
    }

    /// The folder of the files, open (`O_DIRECTORY | O_NOFOLLOW`) and checked; nil when none
    /// can be had. The caller closes the descriptor.
    static func folder() -> (url: URL, descriptor: Int32)? {
        for candidate in candidates() {
            if let found = privateFolder(candidate) { return found }
        }
        // A folder of the process's own, made when first needed.
        if let made = madeFolder.withLock({ $0 }), let descriptor = openPrivate(made, narrowing: false) {
            return (made, descriptor)
        }
        let template =
            Array(
                URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pgn-lsp-\(geteuid())-XXXXXX").path
                    .utf8) + [0]
        var name = template.map { CChar(bitPattern: $0) }
        guard mkdtemp(&name) != nil else { return nil }
        let made = URL(
            fileURLWithPath: String(decoding: name.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
        madeFolder.withLock { $0 = made }
        return openPrivate(made, narrowing: false).map { (made, $0) }
    }

    /// The candidate's folder, made when missing, when it is fit.
    private static func privateFolder(_ candidate: Candidate) -> (url: URL, descriptor: Int32)? {
        if candidate.makesBase {
            try? FileManager.default.createDirectory(
                at: candidate.base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        guard FileSystem.followedStatus(Array(candidate.base.path.utf8))?.kind == .directory else { return nil }
        var folder = candidate.base
        for (k, name) in candidate.own.enumerated() {
            folder.appendPathComponent(name)
            let path = Array(folder.path.utf8)
            _ = FileSystem.withCPath(path) { mkdir($0, 0o700) }
            // Each folder of ours: a folder (not a link) of this user's that no one else can
            // write to, so that nothing in it is another's.
            guard let status = FileSystem.status(path), status.kind == .directory, status.owner == geteuid(),
                status.permissions & 0o022 == 0
            else { return nil }
            if k == candidate.own.count - 1 {
                return openPrivate(folder, narrowing: true).map { (folder, $0) }
            }
        }
        return nil
    }

    /// The folder opened without following a link, when it is this user's and only this user
    /// can enter it; with `narrowing`, one that others can only read or enter is made so.
    private static func openPrivate(_ folder: URL, narrowing: Bool) -> Int32? {
        let descriptor = FileSystem.withCPath(Array(folder.path.utf8)) {
            open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard descriptor >= 0 else { return nil }
        var s = stat()
        if fstat(descriptor, &s) == 0 {
            let status = FileSystem.Status(s)
            if status.kind == .directory, status.owner == geteuid() {
                if status.permissions & 0o077 == 0 { return descriptor }
                if narrowing, status.permissions & 0o022 == 0, fchmod(descriptor, 0o700) == 0 { return descriptor }
            }
        }
        close(descriptor)
        return nil
    }

    /// `masters-1a2b3c4d-00ff…12.pgn`: the database's name, a digest of its path, the position's hash.
    static func fileName(database path: String, position: UInt64) -> String {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let safe = String(stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(40))
        return "\(safe)-\(String(UInt32(truncatingIfNeeded: digest), radix: 16))-\(String(position, radix: 16)).pgn"
    }

    /// Why a file could not be written.
    struct WriteFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `bytes` as the file `name` of the folder, 0600, under a new name first (created,
    /// never opened through a link), then renamed over `name`; removes the oldest files beyond
    /// `kept`. Returns the file's URL.
    static func store(_ bytes: [UInt8], name: String) throws -> URL {
        guard let (folder, directory) = folder() else {
            throw WriteFailure(
                description: "no folder for the games' file (tried $XDG_CACHE_HOME, ~/.cache and the temporary folder)")
        }
        defer { close(directory) }
        let temporary = ".\(name).\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let descriptor = temporary.withCString {
            openat(directory, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { throw WriteFailure(description: String(cString: strerror(errno))) }
        var written = 0
        var failure: String?
        if fchmod(descriptor, 0o600) != 0 { failure = String(cString: strerror(errno)) }
        bytes.withUnsafeBytes { raw in
            while failure == nil && written < raw.count {
                let n = FileSystem.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = String(cString: strerror(errno))
                    break
                }
                written += n
            }
        }
        if close(descriptor) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, renameat(directory, temporary, directory, name) != 0 {
            failure = String(cString: strerror(errno))
        }
        if let failure {
            _ = unlinkat(directory, temporary, 0)
            throw WriteFailure(description: failure)
        }
        removeOldest(in: directory, keeping: name)
        return folder.appendingPathComponent(name)
    }

    /// Removes the files of the folder beyond the newest `kept` (`name`, just written, among
    /// them), and the unfinished writes (a name starting with `.`) older than a minute.
    static func removeOldest(in directory: Int32, keeping name: String) {
        let listing = dup(directory)
        guard listing >= 0, let stream = fdopendir(listing) else { return }
        defer { closedir(stream) }
        var files: [(name: String, modified: Int64)] = []
        let written = name
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var s = stat()
            guard fstatat(directory, name, &s, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let status = FileSystem.Status(s)
            guard status.kind == .file, status.owner == geteuid() else { continue }
            if name.hasPrefix(".") {
                if now - status.modified > 60_000_000_000 { _ = unlinkat(directory, name, 0) }
            } else if name.hasSuffix(".pgn") {
                files.append((name, name == written ? .max : status.modified))
            }
        }
        guard files.count > kept else { return }
        files.sort { $0.modified > $1.modified }
        for file in files[kept...] { _ = unlinkat(directory, file.name, 0) }
    }

    /// The database games that reach `position`, written to the files, as locations of the
    /// move that reaches it.
    static func locations(
        reaching position: Position, in sources: [ExplorerSource], explorer: ExplorerCenter, limit: Int,
        encoding: PositionEncoding
    ) -> PositionGames {
        var result = PositionGames()
        let (found, notes) = explorer.games(reaching: position, in: sources, limit: limit)
        result.notes = notes
        for matches in found {
            result.databaseTotal += matches.total
            guard !matches.matches.isEmpty, let database = explorer.openDatabase(matches.source) else { continue }
            do {
                let games = try write(matches, of: database, position: position, encoding: encoding)
                result.locations += games
                result.databaseShown += games.count
            } catch {
                result.notes.append("the games of \(matches.source.name) could not be written: \(error)")
            }
        }
        return result
    }

    /// Writes the games of `matches` to their file; returns where each reaches the position.
    ///
    /// A location has no label of its own: clients list it by the line it points at. So the move
    /// that reaches the position starts a line, after the game as lichess's explorer lists it,
    /// in braces: `{Anand (2800) – Botvinnik (2700), 1-0, Linares, 1992} 2... Nc6 3. Bb5 a6`, and
    /// the location is that move (the entry itself for a game that starts there).
    static func write(
        _ matches: DatabaseMatches, of database: GameDatabase, position: Position, encoding: PositionEncoding
    ) throws -> [GameLocation] {
        let ids = matches.matches.map(\.gameID)
        let plies = Dictionary(matches.matches.map { ($0.gameID, $0.ply) }, uniquingKeysWith: { first, _ in first })
        let summaries = try database.summaries(ids: ids)
        var text = "% pgn-lsp: the games of \(matches.source.path) that reach\n% \(position.fen)\n"
        if matches.matches.count < matches.total {
            text += "% (the first \(matches.matches.count) of \(Figures.grouped(matches.total)))\n"
        }
        text += "\n"
        let report = try database.exportPGN(ids: ids) { text += $0 }
        text += "\n"
        let failed = Set(
            report.failed.compactMap { error -> Int64? in
                if case .unreadableGame(let id, _) = error { return id }
                return nil
            })
        let exported = ids.filter { !failed.contains($0) }
        let exportedBytes = Array(text.utf8)
        let games = exportedBytes.withUnsafeBufferPointer { Parser($0).games }
        var marked = MarkedText(exportedBytes)
        let targets = zip(exported, games).map { id, game in
            let entry = summaries[id]?.listEntry ?? "Game \(id)"
            return marked.mark(game, ply: plies[id] ?? 0, entry: entry)
        }
        let bytes = marked.finish()
        let source = SourceText(bytes)
        let file = try store(bytes, name: fileName(database: matches.source.path, position: position.hash))
        return zip(exported, targets).map { id, target in
            let start = source.position(of: target.lowerBound, in: encoding)
            let end = source.position(of: target.upperBound, in: encoding)
            return GameLocation(
                uri: file.absoluteString,
                range: [
                    "start": ["line": .integer(start.line), "character": .integer(start.column)],
                    "end": ["line": .integer(end.line), "character": .integer(end.column)],
                ],
                name: summaries[id]?.listEntry ?? "Game \(id)", container: matches.source.name)
        }
    }

    /// An exported text being copied with each game's entry put before the move that reaches
    /// the position, at the start of a line.
    struct MarkedText {
        let original: [UInt8]
        private(set) var bytes: [UInt8] = []
        /// How much of `original` is copied.
        private var copied = 0

        init(_ original: [UInt8]) {
            self.original = original
            bytes.reserveCapacity(original.count + original.count / 8)
        }

        /// Marks `game` (of `original`, after the games marked before): the range, in the new
        /// text, of the move at `ply` of its mainline (of the entry, for ply 0 or a move not
        /// found).
        mutating func mark(_ game: GameSyntax, ply: Int, entry: String) -> Range<Int> {
            var number: Int?
            var depth = 0
            var seen = 0
            var found: (move: Int, numbered: Bool)?
            for (i, node) in game.nodes.enumerated() where ply > 0 {
                switch node.kind {
                case .variationStart: depth += 1
                case .variationEnd: depth -= 1
                case .moveNumber where depth == 0: number = node.value
                case .move where depth == 0:
                    seen += 1
                    if seen == ply { found = (i, i > 0 && game.nodes[i - 1].kind == .moveNumber) }
                default: break
                }
                if found != nil { break }
            }
            let safe = entry.map { $0 == "{" ? "(" : $0 == "}" ? ")" : $0.isNewline ? " " : $0 }
            let comment = Array("{\(String(safe))}".utf8)
            guard let (index, numbered) = found else {
                // The entry opens the movetext (or stands after the tags of a game without moves).
                let at = game.nodes.first?.range.lowerBound ?? game.range.upperBound
                let start = insert(at: at, comment + [0x20])
                return start..<(start + comment.count)
            }
            let move = game.nodes[index].range
            var inserted = comment + [0x20]
            if !numbered, let number {
                // A Black move written without its number gets it.
                inserted += Array("\(number)... ".utf8)
            }
            let at = numbered ? game.nodes[index - 1].range.lowerBound : move.lowerBound
            let start = insert(at: at, inserted)
            let shift = start + inserted.count - at
            return (move.lowerBound + shift)..<(move.upperBound + shift)
        }

        /// Copies `original` up to `offset` (without the spaces before it), starts a line and
        /// writes `inserted`; returns where `inserted` starts.
        private mutating func insert(at offset: Int, _ inserted: [UInt8]) -> Int {
            bytes += original[copied..<offset]
            copied = offset
            while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
            if let last = bytes.last, last != 0x0A { bytes.append(0x0A) }
            let start = bytes.count
            bytes += inserted
            return start
        }

        /// The whole new text.
        mutating func finish() -> [UInt8] {
            bytes += original[copied...]
            copied = original.count
            return bytes
        }
    }
}
