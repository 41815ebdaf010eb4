import Foundation
import GRDB

/// Why a database could not be opened, written or read, in words a user can act on.
public enum GameStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another connection kept the database locked for longer than the busy timeout.
    case locked(path: String, seconds: Double)
    /// The file, or the folder it is in, cannot be written.
    case readOnly(path: String)
    /// The folder the database should be in does not exist.
    case missingFolder(path: String)
    /// The file is not a game database this program can write (or not SQLite at all).
    case notAGameDatabase(path: String, reason: String)
    /// The file is another program's SQLite database (it has tables, and not `Games` and
    /// `Info`): it is left as it is.
    case otherProgramsDatabase(path: String, tables: [String], missing: [String])
    /// The path cannot name a database file (it holds a NUL character, say).
    case invalidPath(path: String, reason: String)
    /// Any other SQLite failure.
    case sqlite(path: String, message: String)
    case noSuchGame(id: Int64)
    /// A stored game whose moves cannot be decoded.
    case unreadableGame(id: Int64, reason: String)
    /// A position search on a file whose position index is missing or out of date.
    case positionIndex(path: String, status: PositionIndexStatus)
    /// The scratch files that building the position index needs could not be written (the
    /// disk is full, say).
    case scratchFile(folder: String, reason: String)
    /// A player's name to look for that too many players' names start with.
    case tooManyPlayers(query: String, count: Int)
    /// An explorer filter's player that no name of the database may mean.
    case noSuchPlayer(String)

    /// Whether it is about an explorer filter (its player) rather than the file.
    public var isAboutTheFilter: Bool {
        switch self {
        case .noSuchPlayer: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .locked(let path, let seconds):
            let wait = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
            return
                "database is locked by another program (\(path)): it was still busy after \(wait) s; close the program that has it open (a chess GUI, another import) and try again"
        case .readOnly(let path):
            return "cannot write \(path): the file or its folder is read-only"
        case .missingFolder(let path):
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            return "cannot create \(path): the folder \(folder) does not exist"
        case .notAGameDatabase(let path, let reason):
            return "\(path) is not a game database this program can write: \(reason)"
        case .otherProgramsDatabase(let path, let tables, let missing):
            let shown =
                tables.count > 8 ? tables.prefix(8).joined(separator: ", ") + ", …" : tables.joined(separator: ", ")
            return
                "\(path) is a SQLite database of another program, left unchanged: it has the table\(tables.count == 1 ? "" : "s") \(shown) and no \(missing.joined(separator: " or ")) table; choose another file"
        case .invalidPath(let path, let reason):
            let visible = path.replacingOccurrences(of: "\u{0}", with: "\\0")
            return "\(visible) cannot be a database file: \(reason)"
        case .sqlite(let path, let message):
            return "\(path): \(message)"
        case .noSuchGame(let id):
            return "there is no game with ID \(id)"
        case .unreadableGame(let id, let reason):
            return "game \(id) cannot be read: \(reason)"
        case .positionIndex(let path, let status):
            return "\(path): \(status); build it with: pgn-lsp index --db \(path)"
        case .scratchFile(let folder, let reason):
            return
                "cannot write the scratch files that building the position index needs in \(folder): \(reason); make room there and build it with: pgn-lsp index --db FILE"
        case .tooManyPlayers(let query, let count):
            return "\(count) players' names start with \"\(query)\": give more of the name"
        case .noSuchPlayer(let query):
            return "no player of the database is named \(query)"
        }
    }
}
