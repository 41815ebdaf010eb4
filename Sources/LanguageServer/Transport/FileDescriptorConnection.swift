import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection speaking the base protocol over two file descriptors: standard input and output for an
/// editor, or pipes. A dedicated thread reads and cuts frames; one serial queue writes whole frames.
public final class FileDescriptorConnection: MessageConnection, @unchecked Sendable {
    private let input: Int32
    private let output: Int32
    private let maximumFrameLength: Int
    private let writer = DispatchQueue(label: "pgn-lsp.output")
    private let state = Locked(State())

    private struct State {
        var started = false
        var closed = false
        var outputBroken = false
    }

    public init(input: Int32, output: Int32, maximumFrameLength: Int = FrameDecoder.largestFrame) {
        self.input = input
        self.output = output
        self.maximumFrameLength = maximumFrameLength
    }

    /// Standard input and output, made safe for the protocol: the protocol keeps private copies of both
    /// descriptors, then descriptor 1 is pointed at standard error and descriptor 0 at /dev/null, so that
    /// a stray `print` can never corrupt the output stream nor anything else consume the input.
    public static func standardIO() -> FileDescriptorConnection {
        let input = dup(STDIN_FILENO)
        let output = dup(STDOUT_FILENO)
        fflush(nil)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        let null = open("/dev/null", O_RDONLY)
        if null >= 0 {
            dup2(null, STDIN_FILENO)
            closeDescriptor(null)
        }
        return FileDescriptorConnection(
            input: input >= 0 ? input : STDIN_FILENO, output: output >= 0 ? output : STDOUT_FILENO)
    }

    public func start(receive: @escaping @Sendable (IncomingEvent) -> Void) {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        precondition(!alreadyStarted, "a connection is started once")
        // A client that goes away must not kill the server through SIGPIPE; the write fails instead.
        signal(SIGPIPE, SIG_IGN)
        let thread = Thread { [input, maximumFrameLength] in
            Self.readLoop(input: input, maximumFrameLength: maximumFrameLength, receive: receive)
        }
        thread.name = "pgn-lsp input"
        thread.stackSize = 8 << 20
        thread.start()
    }

    private static func readLoop(
        input: Int32, maximumFrameLength: Int, receive: @Sendable (IncomingEvent) -> Void
    ) {
        var decoder = FrameDecoder(maximumFrameLength: maximumFrameLength)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        // A large body's long strings (a document's text) are read while it arrives, on a
        // thread of their own.
        var reader: LongStringReader.Background?
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            decoder.append(chunk[0..<count])
            if let received = decoder.receivedBody { reader?.received(received.count) }
            while let event = decoder.next() {
                switch event {
                case .frame(let body):
                    var longStrings: [Int: LongStringReader.LongString] = [:]
                    if let done = reader {
                        // `body` holds the bytes the reader reads until it is done.
                        longStrings = withExtendedLifetime(body) { done.finish() }
                        reader = nil
                    }
                    switch Message.decode(frame: body, longStrings: longStrings) {
                    case .success(let message): receive(.message(message))
                    case .failure(let invalid): receive(.invalid(invalid))
                    }
                case .error(let error):
                    _ = reader?.finish()
                    reader = nil
                    receive(.invalid(InvalidMessage(id: nil, error: ResponseError(.parseError, error.description))))
                }
            }
            if reader == nil, let length = decoder.receivingLength, let received = decoder.receivedBody {
                reader = LongStringReader.Background(body: received.start, length: length)
                reader?.received(received.count)
            }
        }
        // The reader reads the decoder's buffer: done before the buffer goes.
        _ = reader?.finish()
        receive(.end(decoder.finish()))
    }

    public func send(_ message: Message) {
        guard !state.withLock({ $0.closed }) else { return }
        // Header and body's pieces are written one after the other: a body of 100 MB is not
        // copied into a frame, nor its long texts into the body.
        let pieces = message.json.serializedPieces()
        let header = frameHeader(length: pieces.reduce(0) { $0 + $1.count })
        writer.async { [self] in
            guard !state.withLock({ $0.closed || $0.outputBroken }) else { return }
            if !(writeAll(header) && pieces.allSatisfy { writePiece($0) }) {
                state.withLock { $0.outputBroken = true }
                standardErrorWrite(
                    "pgn-lsp: cannot write to the client (\(String(cString: strerror(errno)))); output stops\n")
            }
        }
    }

    public func close() {
        // Frames queued before this call are written first: the queue is first in, first out.
        writer.sync { state.withLock { $0.closed = true } }
    }

    /// Writes a piece of a message: its bytes, or those of a stream as it makes them (exactly
    /// the length the header announced: what is missing is made up by spaces, which JSON
    /// reads as nothing, and what is too many is cut, the rest of the stream unmade).
    private func writePiece(_ piece: JSONPiece) -> Bool {
        switch piece {
        case .bytes(let bytes): return writeAll(bytes)
        case .stream(let stream):
            var left = stream.length
            let written = stream.produce { bytes in
                guard left > 0 else { return bytes.isEmpty }
                let part = bytes.count <= left ? bytes : Array(bytes[..<left])
                left -= part.count
                return writeAll(part)
            }
            guard written || left == 0 else { return false }
            if left > 0 {
                standardErrorWrite("pgn-lsp: a response was \(left) bytes short of its length; spaces stand for them\n")
                return writeAll([UInt8](repeating: 0x20, count: left))
            }
            return true
        }
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(output, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}

/// Writes straight to descriptor 2, never through buffered standard output.
func standardErrorWrite(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
