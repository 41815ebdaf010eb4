import GRDB
import GRDBSQLite
import XCTest

@testable import GameStore

/// The texts the writer binds without a copy: each is the text it was given, nil stays NULL
/// and an empty text stays empty, from one game to the next in the same buffer.
final class BorrowedTextsTests: XCTestCase {
    func testTextsBindAsGivenNilAsNullAndTheBufferServesGameAfterGame() throws {
        let queue = try DatabaseQueue()
        try queue.read { db in
            let select = try PreparedStatement(db, "SELECT ?1, ?1 IS NULL, ?2, ?2 IS NULL, ?3, ?4")
            var texts = BorrowedTexts()
            let games: [[String?]] = [
                ["2024.01.15", nil, "", "Café Rubinstein — Ronde 3 (Ελλάδα)"],
                [nil, "12:00:00", "1.2", String(repeating: "long name ", count: 200)],
                ["", "", nil, "x"],
            ]
            for values in games {
                texts.removeAll()
                for (slot, value) in values.enumerated() { texts.set(slot, value) }
                let row: [String?] = try texts.withBinder { binder in
                    for slot in 0..<4 { binder.bind(select, Int32(slot + 1), slot: slot) }
                    defer { select.reset() }
                    XCTAssertTrue(try select.step())
                    return (0..<6).map { column in
                        sqlite3_column_type(select.handle, Int32(column)) == SQLITE_NULL
                            ? nil : String(cString: sqlite3_column_text(select.handle, Int32(column)))
                    }
                }
                XCTAssertEqual(row[0], values[0])
                XCTAssertEqual(row[1], values[0] == nil ? "1" : "0")
                XCTAssertEqual(row[2], values[1])
                XCTAssertEqual(row[3], values[1] == nil ? "1" : "0")
                XCTAssertEqual(row[4], values[2])
                XCTAssertEqual(row[5], values[3])
            }
        }
    }
}
