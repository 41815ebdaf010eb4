import XCTest

@testable import GameStore

/// The cache of names looked up during imports: bounded, keeping the keys that come back.
final class RecentCacheTests: XCTestCase {
    func testKeysUsedOftenStayWhileKeysSeenOnceGoBy() {
        var cache = RecentCache<String, Int>(limit: 4)
        cache.insert(0, for: "often")
        for k in 1...1000 {
            XCTAssertEqual(cache.value(for: "often"), 0, "lookup \(k)")
            cache.insert(k, for: "once \(k)")
            XCTAssertLessThanOrEqual(cache.count, 8)
        }
        XCTAssertEqual(cache.value(for: "once 1000"), 1000)
        XCTAssertNil(cache.value(for: "once 1"), "forgotten")
    }

    func testTheLatestValueWinsAndRemoveAllForgets() {
        var cache = RecentCache<Int64, Int>(limit: 2)
        cache.insert(1500, for: 7)
        cache.insert(1, for: 1)
        cache.insert(2, for: 2)  // 7 is now in the older half
        cache.insert(1600, for: 7)
        XCTAssertEqual(cache.value(for: 7), 1600)
        cache.insert(3, for: 3)
        cache.insert(4, for: 4)
        XCTAssertNil(cache.value(for: 1))
        cache.removeAll()
        XCTAssertEqual(cache.count, 0)
        XCTAssertNil(cache.value(for: 4))
    }
}
