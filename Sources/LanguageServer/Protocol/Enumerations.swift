/// The integer enumerations of LSP 3.17, by name. A value goes into JSON as its number
/// (`JSONValue(kind)`, `JSONText.integer(kind.rawValue)`).

public enum DiagnosticSeverity: Int, Codable, Sendable {
    case error = 1, warning, information, hint
}

public enum SymbolKind: Int, Codable, Sendable {
    case file = 1, module, namespace, package, `class`, method, property, field, constructor, `enum`
    case interface, function, variable, constant, string, number, boolean, array, object, key
    case null, enumMember, `struct`, event, `operator`, typeParameter
}

public enum CompletionItemKind: Int, Codable, Sendable {
    case text = 1, method, function, constructor, field, variable, `class`, interface, module, property
    case unit, value, `enum`, keyword, snippet, color, file, reference, folder, enumMember
    case constant, `struct`, event, `operator`, typeParameter
}

public enum InlayHintKind: Int, Codable, Sendable {
    case type = 1, parameter
}

public enum DocumentHighlightKind: Int, Codable, Sendable {
    case text = 1, read, write
}

extension JSONValue {
    /// An LSP enumeration's number.
    public init<Kind: RawRepresentable>(_ kind: Kind) where Kind.RawValue == Int {
        self = .integer(kind.rawValue)
    }
}
