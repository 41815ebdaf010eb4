import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import PGN

extension GameDatabase {
    /// The optional parts of the file's schema; throws when the file lacks what every write needs.
    func checkWritable(_ db: Database) throws -> WriteLayout {
        try GameDatabase.writeLayout(try FileSchema(db), path: path)
    }

    /// The optional parts of a schema with tables; throws when it is another program's
    /// (no `Games` or no `Info`) or lacks what every write needs.
    static func writeLayout(_ schema: FileSchema, path: String) throws -> WriteLayout {
        let missingTables = ["Games", "Info"].filter { !schema.has($0) }
        if !missingTables.isEmpty {
            throw GameStoreError.otherProgramsDatabase(path: path, tables: schema.tables, missing: missingTables)
        }
        let columns = schema.gamesColumns
        let required = [
            "EventID", "SiteID", "Date", "UTCTime", "Round", "WhiteID", "WhiteElo", "BlackID", "BlackElo",
            "WhiteMaterial", "BlackMaterial", "Result", "TimeControl", "ECO", "PlyCount", "FEN", "Moves", "PawnHome",
        ]
        let missing = required.filter { !columns.contains($0) }
        if !missing.isEmpty {
            throw GameStoreError.notAGameDatabase(
                path: path, reason: "its Games table has no \(missing.joined(separator: ", ")) column")
        }
        for table in ["Players", "Events", "Sites"] where !schema.has(table) {
            throw GameStoreError.notAGameDatabase(path: path, reason: "it has no \(table) table")
        }
        return WriteLayout(
            hasMoves2: columns.contains("Moves2"), hasTags: columns.contains("Tags"),
            hasComments: schema.has("Comments"))
    }

    /// The tables of a file and the columns of its `Games` table, read from SQLite itself and
    /// never from a cache: another program may have changed them since they were last read.
    struct FileSchema {
        /// The tables, SQLite's own left out, by name.
        var tables: [String]
        var gamesColumns: Set<String>

        static let tablesSQL = """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
            ORDER BY name
            """
        static let gamesColumnsSQL = "SELECT name FROM pragma_table_info('Games')"

        init(_ db: Database) throws {
            tables = try String.fetchAll(db, sql: FileSchema.tablesSQL)
            gamesColumns = Set(try String.fetchAll(db, sql: FileSchema.gamesColumnsSQL))
        }

        /// Reads the file at `path` through a connection of its own, read-only (and
        /// `immutable`: without locks, WAL or shared memory, when nothing can be in a WAL).
        init(readOnly path: String, immutable: Bool, busyTimeout: Double) throws {
            let name = immutable ? URL(fileURLWithPath: path).absoluteString + "?immutable=1" : path
            var connection: OpaquePointer?
            defer { sqlite3_close_v2(connection) }
            func failure(_ code: Int32) -> any Error {
                let message = connection.map { String(cString: sqlite3_errmsg($0)) }
                return GameDatabase.translate(
                    DatabaseError(resultCode: ResultCode(rawValue: code), message: message), path: path,
                    busyTimeout: busyTimeout)
            }
            let opened = sqlite3_open_v2(name, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
            guard opened == SQLITE_OK, let connection else { throw failure(opened) }
            sqlite3_busy_timeout(connection, Int32(min(busyTimeout * 1000, Double(Int32.max))))
            func names(_ sql: String) throws -> [String] {
                var statement: OpaquePointer?
                defer { sqlite3_finalize(statement) }
                let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
                guard prepared == SQLITE_OK else { throw failure(prepared) }
                var names: [String] = []
                while true {
                    let step = sqlite3_step(statement)
                    if step == SQLITE_DONE { return names }
                    guard step == SQLITE_ROW else { throw failure(step) }
                    names.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
                }
            }
            tables = try names(FileSchema.tablesSQL)
            gamesColumns = Set(try names(FileSchema.gamesColumnsSQL))
        }

        /// Whether the file has the table (SQLite's names ignore case).
        func has(_ table: String) -> Bool { tables.contains { $0.lowercased() == table.lowercased() } }
    }
}
