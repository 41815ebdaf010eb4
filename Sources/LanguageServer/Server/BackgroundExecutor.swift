import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs tasks on threads of its own, one per core, at nice 5: the answers about the whole of a
/// large document that the editor shows beside the text (its outline, folds, code lenses) take
/// what the cores leave after the requests of the same keystroke that the user waits for (the
/// tokens' delta, the diagnostics, the visible lines' hints), instead of an equal share. On
/// Linux the kernel shares the cores between runnable threads by their nice value: Dispatch runs
/// the default priority's work at 0, `utility`'s at 2 and `background`'s at 10 (weights 1024,
/// 655, 110); at 5 (weight 335) these answers still get a quarter of a core beside a busy
/// process, where at 10 they would wait for it.
public final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = BackgroundExecutor(
        threads: max(ProcessInfo.processInfo.activeProcessorCount, 1), nice: 5)

    /// The jobs waiting for a thread, first in first out.
    private let jobs = Locked<[UnownedJob]>([])
    private let waiting = DispatchSemaphore(value: 0)

    init(threads: Int, nice: Int32) {
        for index in 0..<threads {
            let thread = Thread { [self] in
                Self.lowerPriority(by: nice)
                let executor = asUnownedTaskExecutor()
                while true {
                    waiting.wait()
                    let job = jobs.withLock { $0.removeFirst() }
                    job.runSynchronously(on: executor)
                }
            }
            thread.name = "pgn-lsp background \(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        waiting.signal()
    }

    /// The calling thread's nice value raised by `nice` (a thread may always lower its own
    /// priority). On Linux the nice value is the thread's, and "the process 0" is the caller.
    private static func lowerPriority(by nice: Int32) {
        #if os(Linux)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, currentNice + nice)
        #endif
    }

    /// The calling thread's nice value (0 where threads have none of their own).
    public static var currentNice: Int32 {
        #if os(Linux)
            return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
            return 0
        #endif
    }
}
