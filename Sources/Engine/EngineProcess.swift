import Dispatch
import Foundation
import Synchronization

/// What waiting for an engine's next line gave.
enum LineEvent: Sendable, Equatable {
    case line(String)
    /// The engine closed its output: it exited or crashed.
    case exited
    /// The deadline passed first.
    case timedOut
}

/// A child process that speaks in lines: lines are written to its standard input, and its
/// standard output is read by a thread of its own into a queue that `nextLine` waits on
/// without blocking a thread. Its standard error is discarded.
/// The lines an engine printed and not yet read, and the one reader waiting for more.
final class LineQueue: Sendable {
    private struct State {
        var lines: [String] = []
        var head = 0
        var exited = false
        var waiter: (id: Int, continuation: CheckedContinuation<LineEvent, Never>)?
        var nextWaiterID = 0
    }

    private let state = Mutex(State())
    static let maximumPendingLines = 10_000

    var hasExited: Bool { state.withLock { $0.exited } }

    /// The next line, waiting at most until `deadline`. Once the deadline has passed the answer
    /// is `timedOut`, even with lines waiting: a program that prints without end cannot hold
    /// its reader past it.
    func next(before deadline: ContinuousClock.Instant) async -> LineEvent {
        guard ContinuousClock.now < deadline else { return .timedOut }
        if let ready = state.withLock({ state -> LineEvent? in Self.take(&state) }) { return ready }
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state -> Int? in
                if let ready = Self.take(&state) {
                    continuation.resume(returning: ready)
                    return nil
                }
                state.nextWaiterID += 1
                state.waiter = (state.nextWaiterID, continuation)
                return state.nextWaiterID
            }
            guard let id else { return }
            let delay = max(0, ContinuousClock.now.duration(to: deadline).milliseconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(delay))) { [self] in
                let waiter = state.withLock { state -> CheckedContinuation<LineEvent, Never>? in
                    guard let waiter = state.waiter, waiter.id == id else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                waiter?.resume(returning: .timedOut)
            }
        }
    }

    private static func take(_ state: inout State) -> LineEvent? {
        if state.head < state.lines.count {
            let line = state.lines[state.head]
            state.head += 1
            if state.head > 1024 && state.head * 2 > state.lines.count {
                state.lines.removeFirst(state.head)
                state.head = 0
            }
            return .line(line)
        }
        return state.exited ? .exited : nil
    }

    /// Reads `descriptor` to its end, line by line (a line longer than a megabyte is garbage:
    /// its start is kept).
    func read(_ descriptor: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            var lines: [String] = []
            for byte in buffer[..<count] {
                if byte == UInt8(ascii: "\n") {
                    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                    lines.append(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
                } else if pending.count < 1 << 20 {
                    pending.append(byte)
                }
            }
            if !lines.isEmpty { deliver(lines, exited: false) }
        }
        deliver(pending.isEmpty ? [] : [String(decoding: pending, as: UTF8.self)], exited: true)
    }

    private func deliver(_ lines: [String], exited: Bool) {
        let resume = state.withLock { state -> (CheckedContinuation<LineEvent, Never>, LineEvent)? in
            // A program that floods its output faster than it is read (not an engine, or a
            // broken one) loses what is beyond the bound rather than filling the memory.
            if state.lines.count - state.head < Self.maximumPendingLines {
                state.lines += lines.prefix(Self.maximumPendingLines - (state.lines.count - state.head))
            }
            if exited { state.exited = true }
            guard let waiter = state.waiter, let event = Self.take(&state) else { return nil }
            state.waiter = nil
            return (waiter.continuation, event)
        }
        if let (continuation, event) = resume { continuation.resume(returning: event) }
    }
}

/// A child process that speaks in lines: lines are written to its standard input, and its
/// standard output is read by a thread of its own into a `LineQueue` that readers wait on
/// without blocking a thread. Its standard error is discarded.
final class EngineProcess: Sendable {
    let executable: String
    private let process: Process
    private let input: FileHandle
    private let output = LineQueue()
    private let writeLock = Mutex(())

    /// Starts `executable` with no arguments in the current directory.
    init(executable: String) throws {
        _ = ignoreBrokenPipes
        self.executable = executable
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = []
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let reading = stdout.fileHandleForReading
        let thread = Thread { [output] in output.read(reading.fileDescriptor) }
        thread.name = "engine output"
        thread.start()
    }

    deinit {
        terminate()
    }

    var hasExited: Bool { output.hasExited }

    /// Writes one line; false when the engine is gone.
    @discardableResult
    func send(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        return writeLock.withLock { _ in
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { buffer in
                    write(input.fileDescriptor, buffer.baseAddress! + written, buffer.count - written)
                }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                written += n
            }
            return true
        }
    }

    /// The next line of output, waiting at most until `deadline`.
    func nextLine(before deadline: ContinuousClock.Instant) async -> LineEvent {
        await output.next(before: deadline)
    }

    /// Ends the process at once.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        writeLock.withLock { _ in try? input.close() }
    }
}

/// Writing to an engine that died must fail with EPIPE, not end the server.
private let ignoreBrokenPipes: Void = {
    signal(SIGPIPE, SIG_IGN)
}()
