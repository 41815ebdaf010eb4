/// Runs an action once things have been quiet for a while: scheduling again under the same key (a
/// document URI, say) before the delay is over replaces the earlier action. Used to publish diagnostics
/// once typing pauses rather than on every keystroke.
public final class Debouncer<Key: Hashable & Sendable>: Sendable {
    public typealias Sleep = @Sendable (Duration) async throws -> Void

    private struct Scheduled {
        var generation: Int
        var task: Task<Void, Never>
    }

    private struct State {
        var generation = 0
        var scheduled: [Key: Scheduled] = [:]
    }

    public let delay: Duration
    private let sleep: Sleep
    private let state = Locked(State())

    /// `sleep` waits out the delay; tests pass one they control.
    public init(delay: Duration = .milliseconds(50), sleep: @escaping Sleep = { try await Task.sleep(for: $0) }) {
        self.delay = delay
        self.sleep = sleep
    }

    /// Schedules `action` after the delay, replacing whatever was scheduled under `key`. The returned task
    /// ends when the action has run or was replaced.
    @discardableResult
    public func schedule(_ key: Key, action: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { state in
            state.generation += 1
            let generation = state.generation
            state.scheduled[key]?.task.cancel()
            let task = Task { [self] in
                do {
                    try await sleep(delay)
                } catch {
                    return
                }
                let isCurrent = self.state.withLock { state -> Bool in
                    guard state.scheduled[key]?.generation == generation else { return false }
                    state.scheduled[key] = nil
                    return true
                }
                if isCurrent { await action() }
            }
            state.scheduled[key] = Scheduled(generation: generation, task: task)
            return task
        }
    }

    /// Drops what is scheduled under `key`.
    public func cancel(_ key: Key) {
        state.withLock { $0.scheduled.removeValue(forKey: key) }?.task.cancel()
    }

    public func cancelAll() {
        let tasks = state.withLock { state in
            defer { state.scheduled = [:] }
            return state.scheduled.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }
}
