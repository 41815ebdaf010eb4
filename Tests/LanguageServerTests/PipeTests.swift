import Foundation
import LanguageServer
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server on a `FileDescriptorConnection` over pipes, in this process: real framing, no child process.
final class PipeTests: XCTestCase {
    final class Running {
        let input: Int32
        let output: Int32
        let reader: FrameReader
        let exited = DispatchSemaphore(value: 0)
        let status = ResultBox()
        private let serverOutput: Int32

        init() {
            var toServer: [Int32] = [0, 0]
            var fromServer: [Int32] = [0, 0]
            precondition(pipe(&toServer) == 0 && pipe(&fromServer) == 0)
            input = toServer[1]
            output = fromServer[0]
            serverOutput = fromServer[1]
            reader = FrameReader(descriptor: output)
            let server = Server(connection: FileDescriptorConnection(input: toServer[0], output: fromServer[1]))
            let exited = self.exited
            let status = self.status
            server.start { code in
                status.set(code)
                exited.signal()
            }
        }

        func send(_ bytes: [UInt8]) {
            writeAll(input, bytes)
        }

        /// Closes the input and returns the exit status once the server has ended.
        func finish() -> Int32 {
            close(input)
            exited.wait()
            close(serverOutput)
            return status.value
        }
    }

    final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Int32 = -1

        func set(_ value: Int32) {
            lock.lock()
            stored = value
            lock.unlock()
        }

        var value: Int32 {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }

    let initialize = frame(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#)

    func testGarbageAndBadJSONGetParseErrorsAndTheServerGoesOn() throws {
        let server = Running()
        // The first frame arrives in three pieces.
        server.send(Array(initialize[0..<7]))
        server.send(Array(initialize[7..<30]))
        server.send(Array(initialize[30...]))
        XCTAssertEqual(
            try server.reader.response(to: .integer(1)).map { $0["serverInfo"]?["name"] }, .success("pgn-lsp"))

        server.send(Array("\u{1}\u{2} garbage that is no header\r\n\r\n".utf8))
        let garbage = try server.reader.response(to: nil)
        XCTAssertEqual(garbage.errorCode, .parseError)

        server.send(Array("Content-Length: 5\r\n\r\n{bad}".utf8))
        XCTAssertEqual(try server.reader.response(to: nil).errorCode, .parseError)

        // Two frames in one write.
        server.send(
            frame(#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#)
                + frame(#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#))
        XCTAssertEqual(try server.reader.response(to: .integer(2)).errorCode, .methodNotFound)
        XCTAssertEqual(try server.reader.response(to: .integer(3)), .success(.null))

        server.send(frame(#"{"jsonrpc":"2.0","method":"exit"}"#))
        XCTAssertEqual(server.finish(), 0)
        try server.reader.drain()
        XCTAssertEqual(server.reader.problems, [])
    }

    func testTruncatedFrameAtEndOfInputEndsTheServer() throws {
        let server = Running()
        server.send(initialize)
        XCTAssertNoThrow(try server.reader.response(to: .integer(1)).get())
        let partial = #"{"jsonrpc":"2.0","id":2,"#
        server.send(Array("Content-Length: 100\r\n\r\n\(partial)".utf8))
        XCTAssertEqual(server.finish(), 1)
        try server.reader.drain()
        XCTAssertEqual(server.reader.problems, [])
        let errors = server.reader.all.compactMap { message -> String? in
            guard case .notification("window/logMessage", let params) = message, params?["type"] == 1 else {
                return nil
            }
            return params?["message"]?.stringValue
        }
        XCTAssertEqual(errors, ["input ended after \(partial.utf8.count) of 100 bytes of a message"])
    }
}

final class InMemoryConnectionTests: XCTestCase {
    func testAConnectionNeverStartedCanBeReleased() {
        var connection: InMemoryConnection? = InMemoryConnection()
        connection?.deliver(.notification(method: "exit", params: nil))
        weak let released = connection
        connection = nil
        XCTAssertNil(released)
    }
}
