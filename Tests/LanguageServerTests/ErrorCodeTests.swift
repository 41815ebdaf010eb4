import LanguageServer
import TestSupport
import XCTest

struct AddParams: Codable, Sendable {
    var a: Int
    var b: Int
}

struct Sum: Codable, Sendable {
    var sum: Int
}

final class ErrorCodeTests: XCTestCase {
    func initializedClient() async throws -> TestClient {
        let client = TestClient { server in
            // Params decoded from JSON: a decoding error is an invalid-params error.
            server.registerRequest("test/add") { json, _ in
                let params = try json.decode(AddParams.self)
                return try JSONValue(encoding: Sum(sum: params.a + params.b))
            }
            server.registerRequest("test/nonZeroSum") { json, _ in
                let params = try json.decode(AddParams.self)
                return try JSONValue(encoding: params.a + params.b == 0 ? nil : Sum(sum: params.a + params.b))
            }
            server.registerRequest("test/fail") { params, _ in
                if params["code"] != nil {
                    throw ResponseError(ErrorCode(rawValue: params["code"]?.intValue ?? 0), "failed on purpose")
                }
                struct Broken: Error {}
                throw Broken()
            }
        }
        try await client.initialize()
        return client
    }

    /// Sends a raw frame body and returns the response with `id`, or the one with no id.
    func answer(to body: String, id: RequestID?, client: TestClient) async throws -> ResponseError {
        client.connection.deliver(frame: Array(body.utf8))
        let message = try await client.inbox.take("answer to \(body)") { message in
            if case .response(id, .failure) = message { return true }
            return false
        }
        guard case .response(_, .failure(let error)) = message else { throw TestFailure.unexpected("\(message)") }
        return error
    }

    func testMalformedJSONIsParseErrorWithNullID() async throws {
        let client = try await initializedClient()
        for body in [#"{"jsonrpc":"2.0","id":1,"method":"#, "not json", #"{"id":1,}"#, ""] {
            let error = try await answer(to: body, id: nil, client: client)
            XCTAssertEqual(error.code, .parseError, body)
            XCTAssertEqual(error.code.rawValue, -32700)
        }
    }

    func testParseErrorIsSentWithIDNull() {
        let json = Message.response(id: nil, result: .failure(ResponseError(.parseError, "x"))).json
        XCTAssertEqual(json["id"], .null)
        XCTAssertEqual(json["error"]?["code"], -32700)
    }

    func testMessagesThatAreNotRequestsAreInvalidRequest() async throws {
        let client = try await initializedClient()
        let cases: [(String, RequestID?)] = [
            ("[1, 2]", nil), ("42", nil), (#""text""#, nil), (#"{"jsonrpc":"2.0","id":7}"#, .integer(7)),
            (#"{"jsonrpc":"2.0","id":"s","params":{}}"#, .string("s")),
            (#"{"jsonrpc":"2.0","id":8,"method":5}"#, .integer(8)),
            (#"{"jsonrpc":"2.0","id":{"x":1},"method":"test/add"}"#, nil),
            (#"{"jsonrpc":"1.0","id":9,"method":"test/add"}"#, .integer(9)),
        ]
        for (body, id) in cases {
            let error = try await answer(to: body, id: id, client: client)
            XCTAssertEqual(error.code, .invalidRequest, body)
            XCTAssertEqual(error.code.rawValue, -32600)
        }
    }

    func testMalformedResponsesAreNeverAnswered() async throws {
        let client = try await initializedClient()
        for body in [
            #"{"jsonrpc":"2.0","id":7,"error":"boom"}"#, #"{"jsonrpc":"2.0","error":{"code":1}}"#,
            #"{"jsonrpc":"2.0","result":null}"#, #"{"jsonrpc":"1.0","id":3,"result":1}"#,
            #"{"jsonrpc":"2.0","id":{"x":1},"result":1}"#,
        ] {
            guard case .failure(let invalid) = Message.decode(frame: Array(body.utf8)) else {
                return XCTFail("\(body) is read as a message")
            }
            XCTAssertTrue(invalid.isResponse, body)
            client.connection.deliver(frame: Array(body.utf8))
        }
        let sum = try await client.result("test/add", ["a": 1, "b": 1])
        XCTAssertEqual(sum, ["sum": 2])
        let stray = await client.unclaimedResponses()
        XCTAssertEqual(stray, [])
    }

    func testUnknownRequestIsMethodNotFound() async throws {
        let client = try await initializedClient()
        let error = try await client.error("textDocument/unknownThing", [:])
        XCTAssertEqual(error.code, .methodNotFound)
        XCTAssertEqual(error.code.rawValue, -32601)
    }

    func testParamsOfTheWrongTypeAreInvalidParams() async throws {
        let client = try await initializedClient()
        let sum = try await client.result("test/add", ["a": 2, "b": 3, "ignored": "extra"])
        XCTAssertEqual(sum, ["sum": 5])
        for params: JSONValue? in [["a": "two", "b": 3], ["a": 2], [1, 2], nil, "text"] {
            let error = try await client.error("test/add", params)
            XCTAssertEqual(error.code, .invalidParams, "\(String(describing: params))")
            XCTAssertEqual(error.code.rawValue, -32602)
        }
    }

    func testNilEncodesAsNull() async throws {
        let client = try await initializedClient()
        let none = try await client.result("test/nonZeroSum", ["a": 1, "b": -1])
        XCTAssertEqual(none, .null)
        let some = try await client.result("test/nonZeroSum", ["a": 1, "b": 1])
        XCTAssertEqual(some, ["sum": 2])
    }

    func testHandlerErrorsAreAnswered() async throws {
        let client = try await initializedClient()
        let internalError = try await client.error("test/fail", [:]).code
        XCTAssertEqual(internalError, .internalError)
        let requestFailed = try await client.error("test/fail", ["code": -32803]).code
        XCTAssertEqual(requestFailed, .requestFailed)
    }

    func testNotificationsAreNeverAnswered() async throws {
        let client = try await initializedClient()
        client.notify("custom/unknownNotification", ["x": 1])
        client.notify("$/setTrace", ["value": "off"])
        client.notify("$/unknown")
        client.notify("test/add", ["a": 1, "b": 2])
        client.notify("textDocument/didOpen", ["bad": true])
        client.notify("initialized", 5)
        let sum = try await client.result("test/add", ["a": 1, "b": 1])
        XCTAssertEqual(sum, ["sum": 2])
        let stray = await client.unclaimedResponses()
        XCTAssertEqual(stray, [])
    }

    func testUnknownNotificationsAreLoggedButDollarPrefixedOnesSilently() async throws {
        let client = try await initializedClient()
        client.notify("$/unknown")
        client.notify("custom/unknownNotification")
        let log = try await client.inbox.take("log of the unknown notification") { message in
            if case .notification("window/logMessage", let params) = message {
                return params?["message"]?.stringValue?.contains("unknown") == true
            }
            return false
        }
        guard case .notification(_, let params) = log else { return XCTFail("\(log)") }
        XCTAssertEqual(params?["message"], "ignored notification custom/unknownNotification")
    }

    func testDuplicateIDOfARunningRequestIsInvalidRequest() async throws {
        let gate = Gate()
        let client = TestClient { server in
            server.registerRequest("test/wait") { _, _ in
                await gate.wait()
                return "done"
            }
        }
        try await client.initialize()
        client.send(.request(id: .string("same"), method: "test/wait", params: nil))
        client.send(.request(id: .string("same"), method: "test/wait", params: nil))
        let first = try await client.response(to: .string("same"))
        XCTAssertEqual(first, .failure(ResponseError(.invalidRequest, "request id \"same\" is already in use")))
        gate.open()
        let second = try await client.response(to: .string("same"))
        XCTAssertEqual(second, .success("done"))
    }
}
