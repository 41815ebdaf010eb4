/// The params of `initialize`. The whole JSON is kept in `json` for anything not read here.
public struct InitializeParams: Sendable, Hashable {
    public struct ClientInfo: Sendable, Hashable {
        public var name: String
        public var version: String?

        /// The editors that show a markdown image written as a `data:` URI in a hover: VS Code
        /// (`Visual Studio Code`, its Insiders build, `Code - OSS`) and the editors built on it
        /// (`VSCodium`, `Cursor`, `Windsurf`), named as their `vscode.env.appName` names them.
        public static let showingMarkdownImages = [
            "visual studio code", "code - oss", "vscodium", "cursor", "windsurf",
        ]

        /// Whether the client is VS Code or an editor built on it, whose hovers show markdown
        /// images from `data:` URIs (an inline `<svg>` they refuse): the name starts with one
        /// of `showingMarkdownImages`, in any case.
        public var showsMarkdownImages: Bool {
            let lowered = name.lowercased()
            return Self.showingMarkdownImages.contains { lowered.hasPrefix($0) }
        }
    }

    public struct WorkspaceFolder: Codable, Sendable, Hashable {
        public var uri: DocumentURI
        public var name: String
    }

    public var processId: Int?
    public var clientInfo: ClientInfo?
    public var locale: String?
    public var rootURI: DocumentURI?
    public var capabilities: ClientCapabilities
    public var initializationOptions: JSONValue?
    public var trace: String?
    public var workspaceFolders: [WorkspaceFolder]?
    public var json: JSONValue

    public init(json: JSONValue) throws {
        guard case .object = json else { throw ResponseError(.invalidParams, "initialize params must be an object") }
        self.json = json
        processId = try json.optionalInt("processId", of: "params")
        if let info = json["clientInfo"], !info.isNull {
            clientInfo = ClientInfo(
                name: try info.requiredString("name", of: "clientInfo"),
                version: try info.optionalString("version", of: "clientInfo"))
        }
        locale = try json.optionalString("locale", of: "params")
        rootURI = try json.optionalString("rootUri", of: "params")
        let capabilities = json["capabilities"] ?? .object([:])
        guard case .object = capabilities else {
            throw ResponseError(.invalidParams, "params.capabilities must be an object")
        }
        self.capabilities = ClientCapabilities(json: capabilities)
        initializationOptions = json["initializationOptions"]
        trace = try json.optionalString("trace", of: "params")
        if let folders = json["workspaceFolders"], !folders.isNull {
            guard let list = folders.arrayValue else {
                throw ResponseError(.invalidParams, "params.workspaceFolders must be an array")
            }
            workspaceFolders = try list.map {
                WorkspaceFolder(
                    uri: try $0.requiredString("uri", of: "workspaceFolder"),
                    name: try $0.requiredString("name", of: "workspaceFolder"))
            }
        }
    }
}

public struct ServerInfo: Sendable, Hashable {
    public var name: String
    public var version: String?

    public init(name: String, version: String? = nil) {
        self.name = name
        self.version = version
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name)]
        if let version { members["version"] = .string(version) }
        return .object(members)
    }
}

public struct InitializeResult: Sendable, Hashable {
    public var capabilities: ServerCapabilities
    public var serverInfo: ServerInfo

    public var json: JSONValue {
        ["capabilities": capabilities.json, "serverInfo": serverInfo.json]
    }
}

/// The kind of a `window/logMessage` or `window/showMessage`.
public enum MessageType: Int, Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    case error = 1
    case warning = 2
    case info = 3
    case log = 4
    /// Added in LSP 3.18; clients that do not know it show it as `log`.
    case debug = 5

    public static func < (lhs: MessageType, rhs: MessageType) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .error: return "error"
        case .warning: return "warning"
        case .info: return "info"
        case .log: return "log"
        case .debug: return "debug"
        }
    }
}
