import Foundation
import LanguageServer
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads framed messages from a file descriptor (the server's output) for pipe and process tests, strictly:
/// anything on the stream that is not a well-formed frame of JSON-RPC is recorded as a problem.
final class FrameReader {
    let descriptor: Int32
    private var decoder = FrameDecoder()
    private var pending: [Message] = []
    private(set) var problems: [String] = []
    private(set) var all: [Message] = []
    private(set) var reachedEnd = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next message, or nil at the end of the stream. Waits at most `timeout` seconds for bytes, so that a
    /// broken server fails the test instead of hanging it.
    func next(timeout: Int32 = 20) throws -> Message? {
        while pending.isEmpty {
            if reachedEnd { return nil }
            try fill(timeout: timeout)
        }
        return pending.removeFirst()
    }

    /// Reads until `predicate` matches, returning that message; the others are kept in `all`.
    func next(timeout: Int32 = 20, where predicate: (Message) -> Bool) throws -> Message {
        while let message = try next(timeout: timeout) {
            if predicate(message) { return message }
        }
        throw TestFailure.connectionClosed
    }

    func response(to id: RequestID?) throws -> Result<JSONValue, ResponseError> {
        let message = try next { message in
            if case .response(id, _) = message { return true }
            return false
        }
        guard case .response(_, let result) = message else { throw TestFailure.unexpected("\(message)") }
        return result
    }

    /// Reads everything up to the end of the stream.
    func drain(timeout: Int32 = 20) throws {
        while try next(timeout: timeout) != nil {}
    }

    private func fill(timeout: Int32) throws {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeout * 1000)
        if ready == 0 { throw TestFailure.timedOut("output of the server") }
        if ready < 0 {
            if errno == EINTR { return }
            throw TestFailure.unexpected("poll failed: \(errno)")
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count <= 0 {
            reachedEnd = true
            if let error = decoder.finish() { problems.append("\(error)") }
            return
        }
        decoder.append(chunk[0..<count])
        while let event = decoder.next() {
            switch event {
            case .frame(let body):
                switch Message.decode(frame: body) {
                case .success(let message):
                    pending.append(message)
                    all.append(message)
                case .failure(let invalid): problems.append("not a message: \(invalid.error)")
                }
            case .error(let error):
                problems.append("\(error)")
            }
        }
    }
}

/// Writes all of `bytes` to a descriptor.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// A message as one frame.
func frame(_ message: Message) -> [UInt8] {
    message.encodedFrame()
}

func frame(_ json: String) -> [UInt8] {
    Array("Content-Length: \(json.utf8.count)\r\n\r\n\(json)".utf8)
}
