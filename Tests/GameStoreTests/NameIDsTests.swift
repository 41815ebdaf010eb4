import XCTest

@testable import GameStore

/// The cache of names looked up during imports: bounded, keeping the names that come back.
final class NameIDsTests: XCTestCase {
    func testNamesUsedOftenStayWhileNamesSeenOnceGoBy() {
        var cache = NameIDs(limit: 4)
        cache.insert(NameIDs.Entry(id: 0), for: "often")
        for k in 1...1000 {
            XCTAssertEqual(cache.entry(for: "often")?.id, 0, "lookup \(k)")
            cache.insert(NameIDs.Entry(id: Int64(k)), for: "once \(k)")
            XCTAssertLessThanOrEqual(cache.count, 10)
        }
        XCTAssertEqual(cache.entry(for: "once 1000")?.id, 1000)
        XCTAssertNil(cache.entry(for: "once 1"), "forgotten")
    }

    func testTheLatestEntryWinsAndRemoveAllForgets() {
        var cache = NameIDs(limit: 2)
        cache.insert(NameIDs.Entry(id: 7, elo: 1500), for: "seven")
        cache.insert(NameIDs.Entry(id: 1), for: "one")
        cache.insert(NameIDs.Entry(id: 2), for: "two")  // "seven" is now in the older half
        cache.insert(NameIDs.Entry(id: 7, elo: 1600), for: "seven")
        XCTAssertEqual(cache.entry(for: "seven"), NameIDs.Entry(id: 7, elo: 1600))
        cache.insert(NameIDs.Entry(id: 3), for: "three")
        cache.insert(NameIDs.Entry(id: 4), for: "four")
        XCTAssertNil(cache.entry(for: "one"))
        cache.removeAll()
        XCTAssertEqual(cache.count, 0)
        XCTAssertNil(cache.entry(for: "four"))
    }

    func testRaisingKeepsTheHighestRating() {
        var cache = NameIDs(limit: 8)
        cache.insert(NameIDs.Entry(id: 5), for: "Carlsen, Magnus")
        cache.raise("Carlsen, Magnus", to: 2800)
        cache.raise("Carlsen, Magnus", to: 2700)
        XCTAssertEqual(cache.entry(for: "Carlsen, Magnus"), NameIDs.Entry(id: 5, elo: 2800))
        cache.raise("Nobody", to: 1000)
        XCTAssertNil(cache.entry(for: "Nobody"), "raising a name not held adds nothing")
    }

    /// Names that differ only in bytes beyond the first eight, in their last byte, in their
    /// length or in their Unicode form stay apart, however many slots the names take.
    func testNamesAreToldApartByAllTheirBytes() {
        var cache = NameIDs(limit: 100_000)
        var names = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefghj", "abcdefgh\u{0}", "Ré", "Re\u{301}"]
        names += (0..<5000).map { "Player \($0) of a long tail, from somewhere" }
        names += (0..<5000).map { "P\($0)" }
        for (k, name) in names.enumerated() { cache.insert(NameIDs.Entry(id: Int64(k)), for: name) }
        for (k, name) in names.enumerated() {
            XCTAssertEqual(cache.entry(for: name)?.id, Int64(k), name)
        }
        XCTAssertNil(cache.entry(for: "abcdefghk"))
        XCTAssertNotEqual(NameIDs.hash("abcdefghi"), NameIDs.hash("abcdefghj"))
        XCTAssertNotEqual(NameIDs.hash(""), 0)
    }
}
