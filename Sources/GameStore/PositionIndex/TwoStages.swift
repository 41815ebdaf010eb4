import Dispatch
import Foundation

/// Work in two stages, one on the calling thread and one on a thread of its own, over two
/// reusable items: while the second stage uses one item, the first fills the other. Work that
/// must stay on the calling thread (a database connection's) goes in the stage that runs there.
enum TwoStages {
    /// Runs `fill` and `use` until `fill` returns false (its item is then not used); `fill` runs
    /// on the other thread when `fillAside`, else `use` does. The first error stops both and is
    /// thrown.
    static func run<Item: AnyObject>(
        _ items: (Item, Item), fillAside: Bool, fill: (Item) throws -> Bool, use: (Item) throws -> Void
    ) throws {
        let state = State(items)
        withoutActuallyEscaping(fill) { fill in
            withoutActuallyEscaping(use) { use in
                // The other thread's work, let go of before the closures' scope ends (the
                // thread object may outlive it).
                let aside = Aside()
                aside.work = fillAside ? { state.fill(fill) } : { state.use(use) }
                let finished = DispatchSemaphore(value: 0)
                let thread = Thread {
                    aside.work?()
                    aside.work = nil
                    finished.signal()
                }
                thread.stackSize = 1 << 20
                thread.start()
                if fillAside { state.use(use) } else { state.fill(fill) }
                finished.wait()
            }
        }
        if let failure = state.failure { throw failure }
    }

    private final class Aside: @unchecked Sendable {
        var work: (() -> Void)?
    }

    private final class State<Item: AnyObject>: @unchecked Sendable {
        let items: [Item]
        /// Whether each item holds work (false: the end).
        var holds = [false, false]
        let filled = DispatchSemaphore(value: 0)
        /// Made at 0 and signalled twice: a semaphore freed below the value it was made with
        /// stops the process.
        let emptied = DispatchSemaphore(value: 0)
        let lock = NSLock()
        private var firstFailure: (any Error)?
        private var stopped = false

        init(_ items: (Item, Item)) {
            self.items = [items.0, items.1]
            emptied.signal()
            emptied.signal()
        }

        var failure: (any Error)? { lock.withLock { firstFailure } }

        private func stop(_ error: any Error) {
            lock.withLock {
                if firstFailure == nil { firstFailure = error }
                stopped = true
            }
        }

        private var isStopped: Bool { lock.withLock { stopped } }

        func fill(_ body: (Item) throws -> Bool) {
            var index = 0
            while true {
                emptied.wait()
                if isStopped { return }
                let more: Bool
                do { more = try body(items[index]) } catch {
                    stop(error)
                    more = false
                }
                holds[index] = more
                filled.signal()
                if !more { return }
                index ^= 1
            }
        }

        func use(_ body: (Item) throws -> Void) {
            var index = 0
            while true {
                filled.wait()
                if !holds[index] { return }
                do { try body(items[index]) } catch {
                    stop(error)
                    emptied.signal()
                    return
                }
                emptied.signal()
                index ^= 1
            }
        }
    }
}
