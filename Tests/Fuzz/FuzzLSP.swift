import Foundation
import LanguageServer
import PGNServer

/// A PGN server in memory with a client that answers the server's own requests, driven one
/// exchange at a time. A request the server leaves unanswered for `patience` is a finding.
final class FuzzSession: @unchecked Sendable {
    let connection = InMemoryConnection()
    let server: Server
    private let lock = NSLock()
    private var waiting: [RequestID: DispatchSemaphore] = [:]
    private var answers: [RequestID: Result<JSONValue, ResponseError>] = [:]
    private var nextID = 0
    private let exited = DispatchSemaphore(value: 0)
    static let patience: DispatchTimeInterval = .seconds(20)
    /// Where commands that save games may write.
    static let folder: String = {
        let path = NSTemporaryDirectory() + "pgn-lsp-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
    /// Settings that keep every input on this machine's own files: no engine is started, and
    /// games are saved in a folder of the fuzzer's.
    static let safeSettings: JSONValue = [
        "engine": ["path": "/nonexistent/pgn-lsp-fuzz-engine"],
        "database": ["path": .string(folder + "/games.db3")],
    ]

    init(encodings: [String], options: JSONValue = ["pgn": safeSettings]) {
        server = Server(connection: connection)
        PGNLanguageServer(server: server, diagnosticsDelay: .zero).register()
        let exited = self.exited
        server.start { _ in exited.signal() }
        let connection = self.connection
        Task { [self] in
            for await message in connection.outgoing { receive(message) }
        }
        _ = request(
            "initialize",
            [
                // Named as VS Code, with markdown hovers: a move's hover draws its board picture
                // from the marks of the input's comments.
                "processId": .null, "initializationOptions": options, "clientInfo": ["name": "Visual Studio Code"],
                "capabilities": [
                    "general": ["positionEncodings": .array(encodings.map { .string($0) })],
                    "textDocument": ["hover": ["contentFormat": ["markdown", "plaintext"]]],
                    "workspace": ["applyEdit": true, "configuration": false],
                    "window": ["workDoneProgress": true],
                ],
            ])
        notify("initialized", [:])
    }

    private func receive(_ message: Message) {
        switch message {
        case .request(let id, let method, _):
            // The client's side of the server's requests.
            let result: JSONValue = method == "workspace/applyEdit" ? ["applied": true] : .null
            connection.deliver(.response(id: id, result: .success(result)))
        case .response(let id?, let result):
            lock.lock()
            answers[id] = result
            let semaphore = waiting.removeValue(forKey: id)
            lock.unlock()
            semaphore?.signal()
        default:
            break
        }
    }

    func notify(_ method: String, _ params: JSONValue) {
        connection.deliver(.notification(method: method, params: params))
    }

    /// Sends a request and waits for its answer.
    @discardableResult
    func request(_ method: String, _ params: JSONValue) -> Result<JSONValue, ResponseError> {
        let semaphore = DispatchSemaphore(value: 0)
        lock.lock()
        nextID += 1
        let id = RequestID.integer(nextID)
        waiting[id] = semaphore
        lock.unlock()
        connection.deliver(.request(id: id, method: method, params: params))
        guard semaphore.wait(timeout: .now() + Self.patience) == .success else {
            preconditionFailure("\(method) was not answered in time")
        }
        lock.lock()
        defer { lock.unlock() }
        return answers.removeValue(forKey: id)!
    }

    /// Shuts the server down; it must exit.
    func finish() {
        request("shutdown", .null)
        notify("exit", .null)
        precondition(exited.wait(timeout: .now() + Self.patience) == .success, "the server did not exit")
    }
}

/// What the fuzzer's bytes become: a document, and params for one method.
struct FuzzInput {
    var selector: Int
    var encoding: String
    var text: String
    var params: [UInt8]

    /// `[method][encoding][document text] 0xFF [params]`: 0xFF is no UTF-8 byte, so it never
    /// stands in a document.
    init(_ bytes: [UInt8]) {
        selector = Int(bytes.first ?? 0)
        encoding = ["utf-8", "utf-16", "utf-32"][Int(bytes.dropFirst().first ?? 1) % 3]
        let rest = bytes.dropFirst(2)
        let cut = rest.firstIndex(of: 0xFF) ?? rest.endIndex
        text = String(decoding: rest[..<cut], as: UTF8.self)
        params = Array(rest[cut...].dropFirst())
    }

    /// Numbers for positions: small and near the document, or extreme.
    func number(_ k: Int) -> JSONValue {
        guard k < params.count else { return .integer(k) }
        let byte = params[k]
        switch byte {
        case 0xF0: return .integer(.max)
        case 0xF1: return .integer(.min)
        case 0xF2: return .integer(-1)
        case 0xF3: return .double(1e300)
        case 0xF4: return .string("1")
        case 0xF5: return .null
        default: return .integer(Int(byte))
        }
    }

    /// The params: the JSON object the bytes spell, else one built from them.
    func params(uri: String) -> JSONValue {
        if case .object(var object)? = try? JSONValue(parsing: params) {
            if selector & 0x80 == 0 { object["textDocument"] = ["uri": .string(uri)] }
            return .object(object)
        }
        let start: JSONValue = ["line": number(0), "character": number(1)]
        let end: JSONValue = ["line": number(2), "character": number(3)]
        return [
            "textDocument": ["uri": .string(uri)], "position": start, "positions": [start, end],
            "range": ["start": start, "end": end], "query": .string(text.prefix(12).description),
            "context": ["diagnostics": [], "only": ["quickfix", "source.fixAll"], "triggerKind": 1],
            "options": ["tabSize": number(4), "insertSpaces": true],
        ]
    }
}

let fuzzRequests = [
    "textDocument/hover", "textDocument/completion", "textDocument/inlayHint", "textDocument/documentSymbol",
    "workspace/symbol", "textDocument/foldingRange", "textDocument/selectionRange",
    "textDocument/semanticTokens/full", "textDocument/semanticTokens/range", "textDocument/documentHighlight",
    "textDocument/codeAction", "textDocument/formatting", "textDocument/rangeFormatting",
    "textDocument/diagnostic", "textDocument/codeLens", "textDocument/references",
]
let fuzzCommands = [
    "pgn.fixAll", "pgn.reviewGame", "pgn.reviewFile", "pgn.annotateGame", "pgn.saveGame", "pgn.saveAllGames",
]
let fuzzNotifications = ["textDocument/didChange", "textDocument/didSave", "workspace/didChangeConfiguration"]

/// LSP params per method, on a document the input also writes: every request and command the
/// server answers, and the notifications that change what it holds.
func fuzzLSP(_ bytes: [UInt8]) {
    let input = FuzzInput(bytes)
    let session = FuzzSession(encodings: [input.encoding])
    let uri = "file:///fuzz/game.pgn"
    session.notify(
        "textDocument/didOpen",
        ["textDocument": ["uri": .string(uri), "languageId": "pgn", "version": 1, "text": .string(input.text)]])
    let params = input.params(uri: uri)
    let choice = (input.selector & 0x7F) % (fuzzRequests.count + fuzzCommands.count + fuzzNotifications.count)
    if choice < fuzzRequests.count {
        session.request(fuzzRequests[choice], params)
    } else if choice < fuzzRequests.count + fuzzCommands.count {
        let command = fuzzCommands[choice - fuzzRequests.count]
        var arguments: JSONValue = [.string(uri), ["line": input.number(0), "character": input.number(1)]]
        if let given = params["arguments"], input.selector & 0x80 != 0 { arguments = given }
        session.request("workspace/executeCommand", ["command": .string(command), "arguments": arguments])
    } else {
        let method = fuzzNotifications[choice - fuzzRequests.count - fuzzCommands.count]
        var notification = params
        if method == "textDocument/didChange", params["contentChanges"] == nil {
            notification = [
                "textDocument": ["uri": .string(uri), "version": 2],
                "contentChanges": [["range": params["range"] ?? .null, "text": .string(input.text)]],
            ]
        }
        if method == "workspace/didChangeConfiguration" {
            notification = ["settings": ["pgn": params]]
        }
        session.notify(method, notification)
        if method == "workspace/didChangeConfiguration" {
            session.notify("workspace/didChangeConfiguration", ["settings": ["pgn": FuzzSession.safeSettings]])
        }
    }
    // The server still answers after the input, about the same document.
    for method in ["textDocument/documentSymbol", "textDocument/diagnostic"] {
        session.request(method, ["textDocument": ["uri": .string(uri)]])
    }
    session.notify("textDocument/didClose", ["textDocument": ["uri": .string(uri)]])
    session.finish()
}

/// Settings as clients send them, at `initialize` and later, whatever their shape.
func fuzzSettings(_ bytes: [UInt8]) {
    guard let settings = try? JSONValue(parsing: bytes) else { return }
    let session = FuzzSession(encodings: ["utf-16"], options: settings)
    session.notify("workspace/didChangeConfiguration", ["settings": settings])
    session.notify("workspace/didChangeConfiguration", ["settings": ["pgn": settings]])
    // Whatever was read, no engine is started and no file outside the fuzzer's folder written.
    session.notify("workspace/didChangeConfiguration", ["settings": ["pgn": FuzzSession.safeSettings]])
    let uri = "file:///fuzz/settings.pgn"
    let text = "[Event \"x\"]\n\n1. e4 $14 { [%clk 0:05:00] [%eval 0.3] } e5 2. Nf3 *\n"
    session.notify(
        "textDocument/didOpen",
        ["textDocument": ["uri": .string(uri), "languageId": "pgn", "version": 1, "text": .string(text)]])
    let document: JSONValue = ["uri": .string(uri)]
    session.request(
        "textDocument/inlayHint",
        [
            "textDocument": document,
            "range": ["start": ["line": 0, "character": 0], "end": ["line": 9, "character": 0]],
        ])
    session.request("textDocument/diagnostic", ["textDocument": document])
    session.request(
        "textDocument/formatting", ["textDocument": document, "options": ["tabSize": 4, "insertSpaces": true]])
    session.request("textDocument/hover", ["textDocument": document, "position": ["line": 2, "character": 4]])
    session.finish()
}

/// Frames and messages as they come from a client: header bytes, then JSON-RPC.
func fuzzJSONRPC(_ bytes: [UInt8]) {
    var decoder = FrameDecoder(maximumFrameLength: 1 << 16, maximumHeaderLength: 1 << 12)
    decoder.append(bytes)
    while let event = decoder.next() {
        if case .frame(let body) = event { _ = Message.decode(frame: body) }
    }
    _ = decoder.finish()
    if case .success(let message) = Message.decode(frame: bytes) {
        // What is read is written, and reads back as what was written (a number beyond a
        // double's range is read as infinite and written as null: compare the writings).
        let written = message.json.serialized()
        guard case .success(let again) = Message.decode(frame: written) else {
            preconditionFailure("a message the server writes does not read back")
        }
        precondition(again.json.serialized() == written)
    }
}
