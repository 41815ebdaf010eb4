/// A command the server runs for `workspace/executeCommand`: its name, whether it reports
/// `$/progress`, a line that describes it, and its handler, which gets the command's
/// `arguments`. A server lists its commands once (`Server.registerCommands`): the table is
/// what `executeCommandProvider` announces and what the request dispatches to.
public struct ServerCommand: Sendable {
    public typealias Handler = @Sendable (_ arguments: [JSONValue], RequestContext) async throws -> JSONValue

    public let name: String
    public let reportsProgress: Bool
    /// What the command does and the arguments it takes, for the documentation.
    public let summary: String
    public let handler: Handler

    public init(_ name: String, reportsProgress: Bool = false, summary: String, handler: @escaping Handler) {
        self.name = name
        self.reportsProgress = reportsProgress
        self.summary = summary
        self.handler = handler
    }
}

extension Server {
    /// Announces `commands` in `executeCommandProvider` and answers `workspace/executeCommand`
    /// with them; a name not in the table is an invalid-params error.
    public func registerCommands(_ commands: [ServerCommand]) {
        let table = Dictionary(commands.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        capabilities.features["executeCommandProvider"] = ["commands": .array(commands.map { .string($0.name) })]
        registerRequest("workspace/executeCommand", staleOnEdit: false) { params, context in
            let name = params["command"]?.stringValue
            guard let name, let command = table[name] else {
                throw ResponseError(.invalidParams, "unknown command \(name ?? "(none)")")
            }
            return try await command.handler(params["arguments"]?.arrayValue ?? [], context)
        }
    }
}
