import Dispatch

/// Runs tasks on Dispatch's threads instead of the concurrency pool, which has one thread per
/// core: a request about the whole of a large document (its tokens, folds, outline) or its
/// whole reading works for a second without waiting, and on the pool it would hold a thread
/// that the requests about what the editor shows (hover, the screen's tokens) are waiting for.
public final class OffPoolExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = OffPoolExecutor()

    /// At `utility`: on Linux each priority has its own threads, and a whole reading fills
    /// its priority's on every core (`DispatchQueue.concurrentPerform`); the requests about
    /// one place keep the default priority's threads, and a hover does not wait for it.
    private let queue = DispatchQueue(label: "pgn-lsp.off-pool", qos: .utility, attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// `body`'s value, worked out on Dispatch's threads.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            shared.queue.async { continuation.resume(returning: body()) }
        }
    }
}
