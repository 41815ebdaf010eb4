import Foundation
import LanguageServer
import TestSupport
import XCTest

/// The built `pgn-lsp` binary, spoken to over pipes as an editor would.
final class ProcessTests: XCTestCase {
    /// `pgn-lsp` sits next to the test bundle in the build directory.
    static func serverBinary() throws -> URL {
        var directories = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for directory in directories {
            let candidate = directory.appendingPathComponent("pgn-lsp")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestFailure.unexpected("pgn-lsp not found next to the tests in \(directories.map(\.path))")
    }

    final class Session {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        let reader: FrameReader

        init(arguments: [String] = []) throws {
            process.executableURL = try ProcessTests.serverBinary()
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            reader = FrameReader(descriptor: output.fileHandleForReading.fileDescriptor)
            try process.run()
        }

        func send(_ bytes: [UInt8]) {
            writeAll(input.fileHandleForWriting.fileDescriptor, bytes)
        }

        func send(_ message: Message) {
            send(message.encodedFrame())
        }

        /// Waits for the process to end (closing its input first if `closeInput`) and returns its status after
        /// reading all of its output.
        func finish(closeInput: Bool = true) throws -> Int32 {
            if closeInput { try input.fileHandleForWriting.close() }
            try reader.drain()
            process.waitUntilExit()
            return process.terminationStatus
        }

        var standardError: String {
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    let initialize = Message.request(
        id: .integer(1), method: "initialize",
        params: ["processId": .null, "capabilities": ["general": ["positionEncodings": ["utf-8", "utf-16"]]]])

    func testInitializeShutdownExitGivesStatusZero() throws {
        let session = try Session()
        session.send(initialize)
        let result = try session.reader.response(to: .integer(1)).get()
        XCTAssertEqual(result["serverInfo"]?["name"], "pgn-lsp")
        XCTAssertEqual(result["capabilities"]?["positionEncoding"], "utf-8")
        session.send(.notification(method: "initialized", params: [:]))
        session.send(.request(id: .integer(2), method: "shutdown", params: nil))
        XCTAssertEqual(try session.reader.response(to: .integer(2)), .success(.null))
        session.send(.notification(method: "exit", params: nil))
        XCTAssertEqual(try session.finish(closeInput: false), 0)
        XCTAssertEqual(session.reader.problems, [])
        // Said to the client, not on standard error.
        let logged = session.reader.all.compactMap { message -> String? in
            guard case .notification("window/logMessage", let params) = message else { return nil }
            return params?["message"]?.stringValue
        }
        XCTAssertTrue(logged.contains { $0.hasPrefix("initialized") }, "\(logged)")
        XCTAssertEqual(session.standardError, "")
    }

    func testExitWithoutShutdownGivesStatusOne() throws {
        let session = try Session(arguments: ["serve"])
        session.send(initialize)
        XCTAssertNoThrow(try session.reader.response(to: .integer(1)).get())
        session.send(.notification(method: "exit", params: nil))
        XCTAssertEqual(try session.finish(closeInput: false), 1)
        XCTAssertEqual(session.reader.problems, [])
    }

    func testEndOfInputEndsTheServer() throws {
        let untouched = try Session(arguments: ["--stdio"])
        XCTAssertEqual(try untouched.finish(), 1)
        XCTAssertEqual(untouched.reader.all, [])

        let initialized = try Session()
        initialized.send(initialize)
        XCTAssertNoThrow(try initialized.reader.response(to: .integer(1)).get())
        XCTAssertEqual(try initialized.finish(), 1)

        let shutDown = try Session()
        shutDown.send(initialize)
        shutDown.send(.request(id: .integer(2), method: "shutdown", params: nil))
        XCTAssertEqual(try shutDown.reader.response(to: .integer(2)), .success(.null))
        XCTAssertEqual(try shutDown.finish(), 0)
    }

    func testGarbageAndBadFramesGetErrorsAndTheServerKeepsServing() throws {
        let session = try Session()
        session.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        XCTAssertEqual(try session.reader.response(to: nil).errorCode, .parseError)
        session.send(Array("Content-Length: 12\r\n\r\n{not json!!}".utf8))
        XCTAssertEqual(try session.reader.response(to: nil).errorCode, .parseError)
        session.send(Array("Content-Length: nine\r\n\r\n".utf8))
        XCTAssertEqual(try session.reader.response(to: nil).errorCode, .parseError)
        // Before initialize, requests are refused, then initialize works.
        session.send(.request(id: .integer(5), method: "textDocument/hover", params: [:]))
        XCTAssertEqual(try session.reader.response(to: .integer(5)).errorCode, .serverNotInitialized)
        session.send(initialize)
        XCTAssertNoThrow(try session.reader.response(to: .integer(1)).get())
        session.send(Array(#"{"jsonrpc":"2.0","id":6,"method":"shutdown"}"#.utf8))
        XCTAssertEqual(try session.reader.response(to: nil).errorCode, .parseError)
        session.send(.request(id: .integer(7), method: "shutdown", params: nil))
        XCTAssertEqual(try session.reader.response(to: .integer(7)), .success(.null))
        // A truncated frame at the end: reported, and the server ends (it had been shut down).
        session.send(Array("Content-Length: 50\r\n\r\n{\"jsonrpc\"".utf8))
        XCTAssertEqual(try session.finish(), 0)
        XCTAssertEqual(session.reader.problems, [])
        XCTAssertTrue(session.standardError.contains("input ended after 10 of 50 bytes"))
    }

    func testStandardOutputCarriesOnlyFramedJSON() throws {
        let session = try Session()
        session.send(initialize)
        session.send(.notification(method: "initialized", params: [:]))
        session.send(
            .notification(
                method: "textDocument/didOpen",
                params: [
                    "textDocument": ["uri": "file:///a.pgn", "languageId": "pgn", "version": 1, "text": "1. e4 é"]
                ]))
        session.send(.notification(method: "unknown/notification", params: nil))
        session.send(.request(id: .integer(2), method: "shutdown", params: nil))
        session.send(.notification(method: "exit", params: nil))
        XCTAssertEqual(try session.finish(closeInput: false), 0)
        XCTAssertEqual(session.reader.problems, [])
        XCTAssertTrue(session.reader.reachedEnd)
        let kinds = session.reader.all.map { message -> String in
            switch message {
            case .request(_, let method, _): return "request \(method)"
            case .notification(let method, _): return method
            case .response(let id, _): return "response \(id.map(\.description) ?? "null")"
            }
        }
        XCTAssertEqual(kinds.filter { $0.hasPrefix("response") }, ["response 1", "response 2"])
        XCTAssertEqual(Set(kinds.filter { !$0.hasPrefix("response") }), ["window/logMessage"])
        // Information (`initialized by …`, an ignored notification) went to the client only:
        // an editor shows standard error as errors.
        XCTAssertEqual(session.standardError, "")
    }
}
