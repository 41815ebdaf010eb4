import ChessCore
import Dispatch
import Foundation
import Synchronization

/// A few engine processes of one configuration, started when first needed, restarted after a
/// crash, with the results they found cached by position.
///
/// Each process runs one search at a time; callers wait for a free one. A missing engine is
/// reported once, as an error that every later call repeats at once without trying again.
public final class EnginePool: Sendable {
    public let configuration: EngineConfiguration
    public let size: Int

    private struct CacheKey: Hashable {
        var hash: UInt64
        var chess960: Bool
        var multiPV: Int
    }

    private struct State {
        /// Free slots: a running engine, or nil for one to start.
        var free: [UCIEngine?]
        var waiters: [(id: Int, continuation: CheckedContinuation<Slot?, Never>)] = []
        var nextWaiterID = 0
        var failure: EngineError?
        var cache: [CacheKey: PositionAnalysis] = [:]
        var restarts = 0
        var searches = 0
        var started = false
        var closed = false
    }

    private struct Slot: @unchecked Sendable {
        var engine: UCIEngine?
    }

    private let state: Mutex<State>

    /// The engines a pool of `size` processes started so far, for tests and logs.
    public var restarts: Int { state.withLock { $0.restarts } }
    /// How many searches reached an engine (cache hits excluded).
    public var searches: Int { state.withLock { $0.searches } }
    /// Whether an engine of the pool has started (answered the UCI handshake).
    public var hasStarted: Bool { state.withLock { $0.started } }
    /// Why no engine can run, once that is known.
    public var failure: EngineError? { state.withLock { $0.failure } }

    public init(configuration: EngineConfiguration, size: Int = 1) {
        self.configuration = configuration
        self.size = max(1, size)
        state = Mutex(State(free: Array(repeating: nil, count: max(1, size))))
    }

    deinit {
        shutdown()
    }

    /// Ends every engine; later calls fail.
    public func shutdown() {
        let engines = state.withLock { state -> [UCIEngine] in
            state.closed = true
            defer { state.free = [] }
            return state.free.compactMap { $0 }
        }
        for engine in engines { engine.quit() }
    }

    /// A cached analysis of `position` at least `depth` deep, if any.
    public func cached(_ position: Position, depth: Int = 0) -> PositionAnalysis? {
        let key = cacheKey(position)
        return state.withLock { $0.cache[key] }.flatMap { $0.depth >= depth ? $0 : nil }
    }

    private func cacheKey(_ position: Position) -> CacheKey {
        CacheKey(hash: position.hash, chess960: position.isChess960, multiPV: configuration.multiPV)
    }

    /// Analyses `position`, from the cache when a deep enough result is there. `waitingAtMost`
    /// bounds the wait for a free engine (nil: wait as long as it takes); when it passes, the
    /// answer is nil. A crash restarts the engine and tries once more; a hang ends the engine
    /// and fails (the next search starts a new one), so that it costs one search's deadline.
    public func analyse(
        _ position: Position, limit: SearchLimit, newGame: Bool = false, waitingAtMost wait: Duration? = nil
    ) async throws -> PositionAnalysis? {
        if let hit = cached(position, depth: limit.depth ?? 1) { return hit }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        try Task.checkCancellation()
        guard var slot = await checkout(before: wait.map { ContinuousClock.now + $0 }) else { return nil }
        defer { checkin(slot) }
        // The search that held the engine may have been of this position.
        if let hit = cached(position, depth: limit.depth ?? 1) { return hit }
        var attempt = 0
        while true {
            do {
                let engine: UCIEngine
                if let running = slot.engine, !running.process.hasExited {
                    engine = running
                } else {
                    engine = try await start()
                    slot.engine = engine
                    state.withLock { $0.started = true }
                }
                state.withLock { $0.searches += 1 }
                let result = try await engine.analyse(position, limit: limit, newGame: newGame)
                // A stopped search is not what a later caller with time to wait asked for.
                if result.complete, result.depth > 0 {
                    let key = cacheKey(position)
                    state.withLock { state in
                        if (state.cache[key]?.depth ?? -1) < result.depth { state.cache[key] = result }
                    }
                }
                return result
            } catch let error as EngineError {
                switch error {
                case .crashed, .timedOut:
                    slot.engine?.quit()
                    slot.engine = nil
                    attempt += 1
                    state.withLock { $0.restarts += 1 }
                    if case .timedOut = error { throw error }
                    if attempt > 1 || Task.isCancelled { throw error }
                case .notFound, .cannotStart, .notUCI:
                    state.withLock { $0.failure = error }
                    throw error
                }
            }
        }
    }

    /// Starts the engines that are not running, without a search, so that the next searches
    /// find them ready; an engine that cannot start is reported as `analyse` reports it.
    public func warmUp() async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<size {
                group.addTask { [self] in
                    guard state.withLock({ $0.failure == nil }), var slot = await checkout(before: nil) else { return }
                    defer { checkin(slot) }
                    if let running = slot.engine, !running.process.hasExited { return }
                    do {
                        slot.engine = try await start()
                        state.withLock { $0.started = true }
                    } catch let error as EngineError {
                        state.withLock { $0.failure = $0.failure ?? error }
                    } catch {}
                }
            }
        }
    }

    private func start() async throws -> UCIEngine {
        switch configuration.resolveExecutable() {
        case .failure(let error): throw error
        case .success(let path): return try await UCIEngine.start(path, configuration: configuration)
        }
    }

    private func checkout(before deadline: ContinuousClock.Instant?) async -> Slot? {
        let immediate = state.withLock { state -> Slot?? in
            if state.closed { return .some(nil) }
            if let slot = state.free.popLast() { return .some(Slot(engine: slot)) }
            return nil
        }
        if let immediate { return immediate }
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state -> Int? in
                if let slot = state.free.popLast() {
                    continuation.resume(returning: Slot(engine: slot))
                    return nil
                }
                state.nextWaiterID += 1
                state.waiters.append((state.nextWaiterID, continuation))
                return state.nextWaiterID
            }
            guard let id, let deadline else { return }
            let delay = ContinuousClock.now.duration(to: deadline)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(max(0, delay.milliseconds)))) {
                [self] in
                let waiter = state.withLock { state -> CheckedContinuation<Slot?, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                waiter?.resume(returning: nil)
            }
        }
    }

    private func checkin(_ slot: Slot) {
        let handoff = state.withLock { state -> CheckedContinuation<Slot?, Never>? in
            if state.closed {
                return nil
            }
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.free.append(slot.engine)
            return nil
        }
        if let handoff {
            handoff.resume(returning: slot)
        } else if state.withLock({ $0.closed }) {
            slot.engine?.quit()
        }
    }
}
