import LanguageServer
import TestSupport
import XCTest

/// A sleep that ends only when the test says so.
final class ManualSleep: Sendable {
    private let gate = Gate()

    var sleep: Debouncer<String>.Sleep {
        { [gate] _ in
            await gate.wait()
            try Task.checkCancellation()
        }
    }

    func wake() {
        gate.open()
    }
}

final class DebouncerTests: XCTestCase {
    func testOnlyTheLastActionOfABurstRuns() async {
        let clock = ManualSleep()
        let debouncer = Debouncer<String>(delay: .milliseconds(50), sleep: clock.sleep)
        let ran = EventLog()
        var tasks: [Task<Void, Never>] = []
        for n in 1...5 {
            tasks.append(debouncer.schedule("file:///a.pgn") { ran.append("a\(n)") })
        }
        tasks.append(debouncer.schedule("file:///b.pgn") { ran.append("b") })
        clock.wake()
        for task in tasks { await task.value }
        XCTAssertEqual(ran.all.sorted(), ["a5", "b"])
    }

    func testCancelledActionsDoNotRun() async {
        let clock = ManualSleep()
        let debouncer = Debouncer<String>(sleep: clock.sleep)
        let ran = EventLog()
        let first = debouncer.schedule("a") { ran.append("a") }
        let second = debouncer.schedule("b") { ran.append("b") }
        debouncer.cancel("a")
        let third = debouncer.schedule("c") { ran.append("c") }
        debouncer.cancelAll()
        let fourth = debouncer.schedule("d") { ran.append("d") }
        clock.wake()
        for task in [first, second, third, fourth] { await task.value }
        XCTAssertEqual(ran.all, ["d"])
        XCTAssertEqual(debouncer.delay, .milliseconds(50))
    }

    func testActionRunsAgainAfterTheDelayHasPassed() async {
        let debouncer = Debouncer<Int>(delay: .milliseconds(1))
        let ran = EventLog()
        await debouncer.schedule(1) { ran.append("first") }.value
        await debouncer.schedule(1) { ran.append("second") }.value
        XCTAssertEqual(ran.all, ["first", "second"])
    }
}
