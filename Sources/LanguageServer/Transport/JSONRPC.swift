/// The id of a request: an integer or a string, chosen by the side that sends the request.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case integer(Int)
    case string(String)

    public var json: JSONValue {
        switch self {
        case .integer(let value): return .integer(value)
        case .string(let value): return .string(value)
        }
    }

    public init?(json: JSONValue) {
        switch json {
        case .integer(let value): self = .integer(value)
        case .string(let value): self = .string(value)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .string(let value): return "\"\(value)\""
        }
    }
}

/// A JSON-RPC error code. The constants here are JSON-RPC's own; LSP adds its codes in `ErrorCodes.swift`.
public struct ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let parseError = ErrorCode(rawValue: -32700)
    public static let invalidRequest = ErrorCode(rawValue: -32600)
    public static let methodNotFound = ErrorCode(rawValue: -32601)
    public static let invalidParams = ErrorCode(rawValue: -32602)
    public static let internalError = ErrorCode(rawValue: -32603)

    public var description: String { String(rawValue) }
}

/// The error member of a response. Handlers throw it to answer a request with an error.
public struct ResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var data: JSONValue?

    public init(_ code: ErrorCode, _ message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["code": .integer(code.rawValue), "message": .string(message)]
        if let data { members["data"] = data }
        return .object(members)
    }

    public init?(json: JSONValue) {
        guard let code = json["code"]?.intValue, let message = json["message"]?.stringValue else { return nil }
        self.init(ErrorCode(rawValue: code), message, data: json["data"])
    }

    public var description: String { "\(message) (\(code.rawValue))" }
}

/// A JSON-RPC 2.0 message.
public enum Message: Sendable, Equatable {
    case request(id: RequestID, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    /// A response; `id` is nil only for an error about a message whose id could not be read.
    case response(id: RequestID?, result: Result<JSONValue, ResponseError>)

    public var json: JSONValue {
        var members: [String: JSONValue] = ["jsonrpc": "2.0"]
        switch self {
        case .request(let id, let method, let params):
            members["id"] = id.json
            members["method"] = .string(method)
            if let params { members["params"] = params }
        case .notification(let method, let params):
            members["method"] = .string(method)
            if let params { members["params"] = params }
        case .response(let id, let result):
            members["id"] = id?.json ?? .null
            switch result {
            case .success(let value): members["result"] = value
            case .failure(let error): members["error"] = error.json
            }
        }
        return .object(members)
    }

    /// The message as one frame of the base protocol.
    public func encodedFrame() -> [UInt8] {
        encodeFrame(json.serialized())
    }
}

/// A message the server cannot take, with the error it answers and the id to answer to (when readable).
public struct InvalidMessage: Error, Sendable, Equatable {
    public var id: RequestID?
    public var error: ResponseError
    /// The message has `result` or `error` and no `method`: a response, which is never answered.
    public var isResponse: Bool

    public init(id: RequestID?, error: ResponseError, isResponse: Bool = false) {
        self.id = id
        self.error = error
        self.isResponse = isResponse
    }
}

extension Message {
    /// Reads a message from its JSON form. Members that JSON-RPC does not define are ignored; a missing
    /// `jsonrpc` member is tolerated.
    public init(json: JSONValue) throws(InvalidMessage) {
        guard case .object(let members) = json else {
            throw InvalidMessage(id: nil, error: ResponseError(.invalidRequest, "a message must be a JSON object"))
        }
        let rawID = members["id"]
        let id = rawID.flatMap(RequestID.init(json:))
        let isResponse = members["method"] == nil && (members["result"] != nil || members["error"] != nil)
        if let version = members["jsonrpc"], version != "2.0" {
            throw InvalidMessage(
                id: id, error: ResponseError(.invalidRequest, "jsonrpc must be \"2.0\""), isResponse: isResponse)
        }
        if let method = members["method"] {
            guard case .string(let name) = method else {
                throw InvalidMessage(id: id, error: ResponseError(.invalidRequest, "method must be a string"))
            }
            let params = members["params"]
            guard rawID != nil else {
                self = .notification(method: name, params: params)
                return
            }
            guard let id else {
                throw InvalidMessage(
                    id: nil, error: ResponseError(.invalidRequest, "id must be an integer or a string"))
            }
            self = .request(id: id, method: name, params: params)
            return
        }
        if let error = members["error"] {
            guard let responseError = ResponseError(json: error) else {
                throw InvalidMessage(
                    id: id, error: ResponseError(.invalidRequest, "error must have an integer code and a message"),
                    isResponse: true)
            }
            self = .response(id: id, result: .failure(responseError))
            return
        }
        if let result = members["result"] {
            guard let id else {
                throw InvalidMessage(
                    id: nil, error: ResponseError(.invalidRequest, "a response needs an id"), isResponse: true)
            }
            self = .response(id: id, result: .success(result))
            return
        }
        throw InvalidMessage(id: id, error: ResponseError(.invalidRequest, "a message needs a method"))
    }

    /// Reads a message from a frame body: malformed JSON is a parse error with no id.
    public static func decode(
        frame body: [UInt8], longStrings: [Int: LongStringReader.LongString] = [:]
    ) -> Result<Message, InvalidMessage> {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body, longStrings: longStrings)
        } catch {
            return .failure(InvalidMessage(id: nil, error: ResponseError(.parseError, error.description)))
        }
        do {
            return .success(try Message(json: json))
        } catch {
            return .failure(error)
        }
    }
}
