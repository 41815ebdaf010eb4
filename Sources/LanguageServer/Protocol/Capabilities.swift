/// What the client said it can do, kept as the JSON it sent; accessors cover what the server asks about.
public struct ClientCapabilities: Sendable, Hashable {
    public var json: JSONValue

    public init(json: JSONValue = .object([:])) {
        self.json = json
    }

    /// The value at a path of member names, e.g. `value(at: "textDocument", "hover", "contentFormat")`.
    public func value(at path: String...) -> JSONValue? {
        var current: JSONValue? = json
        for key in path { current = current?[key] }
        return current
    }

    /// `general.positionEncodings`, in the client's order of preference; encodings unknown here are left out.
    public var positionEncodings: [PositionEncoding] {
        (value(at: "general", "positionEncodings")?.arrayValue ?? []).compactMap {
            $0.stringValue.flatMap(PositionEncoding.init(rawValue:))
        }
    }

    /// `window.workDoneProgress`: the server may create progress with `window/workDoneProgress/create`.
    public var supportsWorkDoneProgress: Bool { value(at: "window", "workDoneProgress")?.boolValue ?? false }

    /// `workspace.configuration`: the server may ask for settings with `workspace/configuration`.
    public var supportsConfiguration: Bool { value(at: "workspace", "configuration")?.boolValue ?? false }

    /// `textDocument.diagnostic` and `workspace.diagnostics.refreshSupport`: the client pulls
    /// diagnostics (`textDocument/diagnostic`) and can be asked to pull again when they change
    /// without an edit (a review, new settings). A client that pulls but cannot be asked
    /// (Neovim 0.10 and 0.11) would keep stale diagnostics: it is pushed to instead.
    public var supportsPullDiagnostics: Bool {
        value(at: "textDocument", "diagnostic")?.objectValue != nil && supportsDiagnosticRefresh
    }

    /// `workspace.diagnostics.refreshSupport`: the server may ask a pulling client to pull again.
    public var supportsDiagnosticRefresh: Bool {
        value(at: "workspace", "diagnostics", "refreshSupport")?.boolValue ?? false
    }

    /// `textDocument.hover.contentFormat` holds `markdown`; a client that says nothing takes
    /// plain text only.
    public var acceptsMarkdownHover: Bool {
        value(at: "textDocument", "hover", "contentFormat")?.arrayValue?.contains("markdown") ?? false
    }

    /// `textDocument.documentSymbol.hierarchicalDocumentSymbolSupport`: `DocumentSymbol[]`,
    /// else `SymbolInformation[]`.
    public var supportsHierarchicalSymbols: Bool {
        value(at: "textDocument", "documentSymbol", "hierarchicalDocumentSymbolSupport")?.boolValue ?? false
    }

    /// `textDocument.codeAction.codeActionLiteralSupport`: `CodeAction` literals, else `Command`s.
    public var supportsCodeActionLiterals: Bool {
        value(at: "textDocument", "codeAction", "codeActionLiteralSupport")?.objectValue != nil
    }

    /// `textDocument.foldingRange.rangeLimit`: how many folding ranges the client keeps of a
    /// document (VS Code: 5,000, its `editor.foldingMaximumRegions`); nil when it sets none.
    public var foldingRangeLimit: Int? {
        value(at: "textDocument", "foldingRange", "rangeLimit")?.intValue.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// `workspace.workspaceEdit.documentChanges`: edits may name the document version they
    /// apply to (`TextDocumentEdit`), instead of a plain `changes` map.
    public var supportsDocumentChanges: Bool {
        value(at: "workspace", "workspaceEdit", "documentChanges")?.boolValue ?? false
    }

    /// `workspace.workspaceEdit.changeAnnotationSupport`: edits may carry change annotations,
    /// which the user confirms (VS Code shows them in its refactoring preview).
    public var supportsChangeAnnotations: Bool {
        value(at: "workspace", "workspaceEdit", "changeAnnotationSupport")?.objectValue != nil
    }

    /// `textDocument.semanticTokens.requests.range`: the client asks for the tokens of the lines
    /// it shows (VS Code), not only for the whole document's (Neovim up to 0.11).
    public var supportsSemanticTokenRanges: Bool {
        let range = value(at: "textDocument", "semanticTokens", "requests", "range")
        return range?.boolValue ?? (range?.objectValue != nil)
    }

    /// `workspace.applyEdit`: the server may send `workspace/applyEdit`.
    public var supportsApplyEdit: Bool { value(at: "workspace", "applyEdit")?.boolValue ?? false }
}

public enum TextDocumentSyncKind: Int, Sendable, Hashable {
    case none = 0
    case full = 1
    case incremental = 2
}

public struct TextDocumentSyncOptions: Sendable, Hashable {
    public var openClose = true
    public var change = TextDocumentSyncKind.incremental
    /// Whether `didSave` is wanted.
    public var save = true
    /// Whether `didSave` should carry the saved text.
    public var saveIncludesText = false

    public init() {}

    public var json: JSONValue {
        var members: [String: JSONValue] = ["openClose": .bool(openClose), "change": .integer(change.rawValue)]
        if save { members["save"] = ["includeText": .bool(saveIncludesText)] }
        return .object(members)
    }
}

/// What the server announces in its `initialize` result. Document synchronisation belongs to the server
/// core; each feature adds its own entry (`hoverProvider`, `inlayHintProvider`, …) to `features`.
public struct ServerCapabilities: Sendable, Hashable {
    public var positionEncoding = PositionEncoding.utf16
    public var textDocumentSync = TextDocumentSyncOptions()
    public var features: [String: JSONValue] = [:]

    public init() {}

    public var json: JSONValue {
        var members = features
        members["positionEncoding"] = .string(positionEncoding.rawValue)
        members["textDocumentSync"] = textDocumentSync.json
        return .object(members)
    }
}
