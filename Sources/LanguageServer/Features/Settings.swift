import Foundation
import PGN

/// The server's settings (`schemas/settings.schema.json`), with their defaults.
struct Settings: Sendable, Hashable {
    var inlayNAGs = true
    var inlayClocks = true
    var inlayEvaluations = true
    var missingTags = true
    var nonCanonicalNotation = true
    var lineLength = 80

    /// Reads the `pgn` section; returns the settings and the keys it did not know.
    static func read(_ json: JSONValue, over base: Settings = Settings()) -> (Settings, unknown: [String]) {
        var settings = base
        var unknown: [String] = []
        guard let members = json.objectValue else { return (settings, json.isNull ? [] : ["(not an object)"]) }
        func bool(_ value: JSONValue, _ path: String, _ apply: (Bool) -> Void) {
            if let flag = value.boolValue { apply(flag) } else { unknown.append("\(path) (expected true or false)") }
        }
        for (section, value) in members {
            guard let inner = value.objectValue else {
                unknown.append(section)
                continue
            }
            for (key, value) in inner {
                let path = "\(section).\(key)"
                switch path {
                case "inlayHints.nags": bool(value, path) { settings.inlayNAGs = $0 }
                case "inlayHints.clocks": bool(value, path) { settings.inlayClocks = $0 }
                case "inlayHints.evaluations": bool(value, path) { settings.inlayEvaluations = $0 }
                case "diagnostics.missingTags": bool(value, path) { settings.missingTags = $0 }
                case "diagnostics.nonCanonicalNotation": bool(value, path) { settings.nonCanonicalNotation = $0 }
                case "format.lineLength":
                    if let n = value.intValue, (40...255).contains(n) {
                        settings.lineLength = n
                    } else {
                        unknown.append("\(path) (expected an integer from 40 to 255)")
                    }
                case "server.path":
                    // The editor's business (which executable to start): accepted, not used here.
                    if value.stringValue == nil { unknown.append("\(path) (expected a string)") }
                default: unknown.append(path)
                }
            }
        }
        return (settings, unknown)
    }

    /// Whether a diagnostic is wanted under these settings.
    func wants(_ diagnostic: Diagnostic) -> Bool {
        switch diagnostic.code {
        case .missingTag where diagnostic.severity == .information: return missingTags
        case .nonCanonicalSAN: return nonCanonicalNotation
        default: return true
        }
    }
}

extension PGNLanguageServer {
    var currentSettings: Settings { settings.withLock { $0 } }

    func registerSettings() {
        server.onInitialize { [self] params, _ in
            if let options = params.initializationOptions {
                // The client hears of unknown keys once `initialized` arrives: nothing but the
                // answer may reach it during `initialize`.
                let unknown = apply(options["pgn"] ?? options, source: "initializationOptions", log: false)
                pendingWarnings.withLock { $0 += unknown }
            }
        }
        server.registerNotification("workspace/didChangeConfiguration") { [self] params, context in
            if let pgn = params["settings"]?["pgn"] {
                apply(pgn, source: "workspace/didChangeConfiguration")
                republishAll(context)
            } else if context.session.clientCapabilities.supportsConfiguration {
                Task { await pullConfiguration(context) }
            }
        }
        server.registerNotification("initialized") { [self] _, context in
            let warnings = pendingWarnings.withLock { warnings in
                defer { warnings = [] }
                return warnings
            }
            for warning in warnings { server.log(.warning, warning) }
            if context.session.clientCapabilities.supportsConfiguration {
                Task { await pullConfiguration(context) }
            }
        }
    }

    /// Applies settings; returns the warning about unknown keys (logged unless `log` is false).
    @discardableResult
    func apply(_ json: JSONValue, source: String, log: Bool = true) -> [String] {
        let unknown = settings.withLock { current in
            let result = Settings.read(json, over: current)
            current = result.0
            return result.unknown
        }
        guard !unknown.isEmpty else { return [] }
        let warning = "pgn-lsp: unknown or invalid settings in \(source): \(unknown.sorted().joined(separator: ", "))"
        if log { server.log(.warning, warning) }
        return [warning]
    }

    func pullConfiguration(_ context: NotificationContext) async {
        guard
            let answer = try? await server.sendRequest(
                "workspace/configuration", params: ["items": [["section": "pgn"]]]),
            let first = answer.arrayValue?.first, !first.isNull
        else { return }
        apply(first, source: "workspace/configuration")
        republishAll(context)
    }
}
