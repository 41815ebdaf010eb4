import LanguageServer
import TestSupport
import XCTest

final class LifecycleTests: XCTestCase {
    func testRequestsBeforeInitializeAreServerNotInitialized() async throws {
        let client = TestClient()
        for method in ["textDocument/hover", "shutdown", "unknown/method"] {
            let error = try await client.error(method, [:])
            XCTAssertEqual(error.code, .serverNotInitialized, method)
            XCTAssertEqual(error.code.rawValue, -32002)
        }
        try await client.initialize()
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }

    func testNotificationsBeforeInitializeAreDropped() async throws {
        let client = TestClient(configure: registerDocumentText)
        client.open("file:///early.pgn", "1. e4")
        try await client.initialize()
        let error = try await client.error("test/documentText", ["textDocument": ["uri": "file:///early.pgn"]])
        XCTAssertEqual(error.code, .invalidParams)
        let stray = await client.unclaimedResponses()
        XCTAssertEqual(stray, [])
    }

    func testInitializeAnswersServerInfoAndCapabilities() async throws {
        let client = TestClient()
        let result = try await client.initialize()
        XCTAssertEqual(result["serverInfo"]?["name"], "pgn-lsp")
        let capabilities = try XCTUnwrap(result["capabilities"])
        XCTAssertEqual(capabilities["positionEncoding"], "utf-16")
        XCTAssertEqual(capabilities["textDocumentSync"]?["openClose"], true)
        XCTAssertEqual(capabilities["textDocumentSync"]?["change"], .integer(TextDocumentSyncKind.incremental.rawValue))
        XCTAssertEqual(capabilities["textDocumentSync"]?["save"], ["includeText": false])
        XCTAssertEqual(client.server.lifecycleState, .running)
        XCTAssertEqual(client.server.session?.initializeParams.clientInfo?.name, "tests")
    }

    func testInitializeAnswersTheServerInfoSetAtRegistration() async throws {
        let client = TestClient { server in server.serverInfo = ServerInfo(name: "chess-server", version: "2.5.1") }
        let result = try await client.initialize()
        XCTAssertEqual(result["serverInfo"], ["name": "chess-server", "version": "2.5.1"])
        let unversioned = try await TestClient().initialize()
        XCTAssertEqual(unversioned["serverInfo"], ["name": "pgn-lsp"])
    }

    func testPositionEncodingIsUTF8WhenTheClientOffersIt() async throws {
        let offers: [([String]?, String)] = [
            (["utf-16", "utf-8"], "utf-8"), (["utf-8"], "utf-8"), (["utf-32", "utf-16"], "utf-16"), ([], "utf-16"),
            (nil, "utf-16"),
        ]
        for (offer, expected) in offers {
            let client = TestClient()
            let result = try await client.initialize(positionEncodings: offer)
            XCTAssertEqual(
                result["capabilities"]?["positionEncoding"], .string(expected), "\(String(describing: offer))")
            XCTAssertEqual(client.server.session?.positionEncoding.rawValue, expected)
        }
    }

    func testInitializeTwiceIsInvalidRequest() async throws {
        let client = TestClient()
        try await client.initialize()
        let error = try await client.error("initialize", ["capabilities": [:]])
        XCTAssertEqual(error.code, .invalidRequest)
    }

    func testInitializeWithParamsOfTheWrongTypeIsInvalidParams() async throws {
        let client = TestClient()
        for params: JSONValue in [5, ["processId": "one"], ["capabilities": 3], ["clientInfo": ["name": 1]]] {
            let error = try await client.error("initialize", params)
            XCTAssertEqual(error.code, .invalidParams, "\(params)")
            XCTAssertEqual(error.code.rawValue, -32602)
        }
        // The server is still waiting for a good initialize.
        XCTAssertEqual(client.server.lifecycleState, .uninitialized)
        try await client.initialize()
        XCTAssertEqual(client.server.lifecycleState, .running)
    }

    func testRequestsAfterShutdownAreInvalidRequest() async throws {
        let client = TestClient(configure: registerDocumentText)
        try await client.initialize()
        let shutdown = try await client.result("shutdown")
        XCTAssertEqual(shutdown, .null)
        for method in ["test/documentText", "shutdown", "initialize", "unknown/method"] {
            let error = try await client.error(method, [:])
            XCTAssertEqual(error.code, .invalidRequest, method)
            XCTAssertEqual(error.code.rawValue, -32600)
        }
        XCTAssertEqual(client.server.lifecycleState, .shuttingDown)
    }

    func testExitAfterShutdownIsStatusZero() async throws {
        let client = TestClient()
        try await client.initialize()
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(client.server.lifecycleState, .exited)
    }

    func testExitWithoutShutdownIsStatusOne() async throws {
        let client = TestClient()
        try await client.initialize()
        client.notify("exit")
        let status = await client.exitStatus.value
        XCTAssertEqual(status, 1)
    }

    func testExitBeforeInitializeIsStatusOne() async {
        let client = TestClient()
        client.notify("exit")
        let status = await client.exitStatus.value
        XCTAssertEqual(status, 1)
    }

    func testEndOfInputEndsTheServer() async throws {
        let client = TestClient()
        try await client.initialize()
        client.connection.endInput()
        let status = await client.exitStatus.value
        XCTAssertEqual(status, 1)

        let shutDown = TestClient()
        try await shutDown.initialize()
        _ = try await shutDown.result("shutdown")
        shutDown.connection.endInput()
        let shutDownStatus = await shutDown.exitStatus.value
        XCTAssertEqual(shutDownStatus, 0)
    }

    func testMessagesAfterExitAreIgnored() async throws {
        let client = TestClient()
        try await client.initialize()
        client.notify("exit")
        _ = await client.exitStatus.value
        client.send(.request(id: .integer(99), method: "shutdown", params: nil))
        do {
            let answer = try await client.response(to: .integer(99))
            XCTFail("answered after exit: \(answer)")
        } catch {
            XCTAssertEqual("\(error)", "\(TestFailure.connectionClosed)")
        }
    }

    func testFeatureCapabilitiesAndInitializeHooksAreAnnounced() async throws {
        let client = TestClient { server in
            server.capabilities.features["hoverProvider"] = true
            server.onInitialize { params, capabilities in
                let snippets = params.capabilities.value(
                    at: "textDocument", "completion", "completionItem", "snippetSupport")
                capabilities.features["completionProvider"] = ["resolveProvider": snippets ?? false]
                capabilities.positionEncoding = .utf32
            }
        }
        let result = try await client.initialize(
            positionEncodings: ["utf-8"],
            capabilities: ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]])
        XCTAssertEqual(result["capabilities"]?["hoverProvider"], true)
        XCTAssertEqual(result["capabilities"]?["completionProvider"], ["resolveProvider": true])
        // Hooks cannot override the negotiated encoding.
        XCTAssertEqual(result["capabilities"]?["positionEncoding"], "utf-8")
    }

    func testInitializeIsLoggedToTheClient() async throws {
        let client = TestClient()
        try await client.initialize()
        let log = try await client.notification("window/logMessage")
        XCTAssertEqual(log?["type"], .integer(MessageType.info.rawValue))
        XCTAssertEqual(log?["message"]?.stringValue?.contains("utf-16"), true)
    }
}
