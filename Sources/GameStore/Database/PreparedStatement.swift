import Foundation
import GRDB
import GRDBSQLite

/// A prepared GRDB statement bound and stepped through SQLite's C interface: the hot loops
/// of an import run it hundreds of thousands of times and must not build argument arrays.
struct PreparedStatement {
    let statement: Statement
    var handle: OpaquePointer { statement.sqliteStatement }

    init(_ db: Database, _ sql: String) throws {
        statement = try db.makeStatement(sql: sql)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    /// Binding a null pointer would store NULL: an empty text points here instead.
    nonisolated(unsafe) private static let emptyText: UnsafePointer<CChar> = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        pointer.pointee = 0
        return UnsafePointer(pointer)
    }()

    @inline(__always) func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    @inline(__always) func bind(_ index: Int32, _ value: Int?) { bind(index, value.map(Int64.init)) }

    @inline(__always) func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { text in
            _ = text.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(
                    handle, index, $0.baseAddress ?? PreparedStatement.emptyText, Int32(text.count),
                    PreparedStatement.transient)
            }
        }
    }

    /// Binds bytes as a blob (a zero-length blob for no bytes, never NULL).
    @inline(__always) func bindBlob(_ index: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { raw in
            if raw.isEmpty {
                sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), PreparedStatement.transient)
            }
        }
    }

    /// Binds UTF-8 bytes as text without copying them: they must stay where they are until
    /// the statement has run.
    @inline(__always) func bindText(_ index: Int32, borrowing bytes: UnsafeBufferPointer<UInt8>) {
        let pointer =
            bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            ?? PreparedStatement.emptyText
        sqlite3_bind_text(handle, index, pointer, Int32(bytes.count), nil)
    }

    /// Binds bytes as a blob without copying them: they must stay where they are until the
    /// statement has run (call inside `withUnsafeBytes`, around `step`).
    @inline(__always) func bindBlob(_ index: Int32, borrowing raw: UnsafeRawBufferPointer) {
        if raw.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
        } else {
            sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), nil)
        }
    }

    /// Runs the statement to its first row; true when there is one. Resets it first.
    @discardableResult
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let connection = sqlite3_db_handle(handle)
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(code)"
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    @inline(__always) func reset() { sqlite3_reset(handle) }

    @inline(__always) func int64(column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column's integer, nil when it is NULL.
    @inline(__always) func integer(column: Int32) -> Int? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(handle, column))
    }

    /// The column's text, nil when it is NULL.
    @inline(__always) func text(column: Int32) -> String? {
        sqlite3_column_text(handle, column).map { String(cString: $0) }
    }
}

/// Texts bound without a copy each (SQLite would allocate one per text per statement): the
/// UTF-8 bytes of up to eight texts, gathered in one buffer kept from one game to the next.
struct BorrowedTexts {
    private var bytes: [UInt8] = []
    /// Each text's start in `bytes`, -1 for none (bound as NULL), and its end.
    private var starts = InlineArray<8, Int>(repeating: -1)
    private var ends = InlineArray<8, Int>(repeating: 0)

    init() { bytes.reserveCapacity(1024) }

    /// Forgets every text, keeping the buffer.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        for slot in 0..<8 { starts[slot] = -1 }
    }

    /// Keeps `value` as text number `slot` (0 to 7).
    mutating func set(_ slot: Int, _ value: String?) {
        guard var value else {
            starts[slot] = -1
            return
        }
        starts[slot] = bytes.count
        value.withUTF8 { bytes.append(contentsOf: $0) }
        ends[slot] = bytes.count
    }

    /// Calls `body` with a binder of these texts, which it may use until it returns: the
    /// statements must have run by then.
    func withBinder<T>(_ body: (Binder) throws -> T) rethrows -> T {
        try bytes.withUnsafeBufferPointer { try body(Binder(buffer: $0, starts: starts, ends: ends)) }
    }

    struct Binder {
        let buffer: UnsafeBufferPointer<UInt8>
        let starts: InlineArray<8, Int>
        let ends: InlineArray<8, Int>

        /// Binds text number `slot` (NULL when it has none) as `statement`'s parameter `index`.
        @inline(__always)
        func bind(_ statement: PreparedStatement, _ index: Int32, slot: Int) {
            let start = starts[slot]
            if start < 0 {
                statement.bind(index, nil as String?)
            } else {
                statement.bindText(index, borrowing: UnsafeBufferPointer(rebasing: buffer[start..<ends[slot]]))
            }
        }
    }
}
