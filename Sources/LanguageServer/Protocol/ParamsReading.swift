/// Reading params by hand, for messages that are read on every keystroke. A missing member or a member of
/// the wrong type is an `invalidParams` error naming the member.
extension JSONValue {
    func requiredMember(_ key: String, of context: String) throws -> JSONValue {
        guard case .object(let members) = self else {
            throw ResponseError(.invalidParams, "\(context) must be an object")
        }
        guard let value = members[key] else { throw ResponseError(.invalidParams, "\(context).\(key) is missing") }
        return value
    }

    func requiredString(_ key: String, of context: String) throws -> String {
        guard let value = try requiredMember(key, of: context).stringValue else {
            throw ResponseError(.invalidParams, "\(context).\(key) must be a string")
        }
        return value
    }

    /// A string member's UTF-8 bytes (a long one without a copy: `JSONValue.utf8`), with the
    /// index of its lines when the reader made one (`JSONValue.textValue`).
    func requiredText(_ key: String, of context: String) throws -> (bytes: [UInt8], lineIndex: LineIndex?) {
        guard let value = try requiredMember(key, of: context).textValue else {
            throw ResponseError(.invalidParams, "\(context).\(key) must be a string")
        }
        return value
    }

    func requiredInt(_ key: String, of context: String) throws -> Int {
        guard let value = try requiredMember(key, of: context).intValue else {
            throw ResponseError(.invalidParams, "\(context).\(key) must be an integer")
        }
        return value
    }

    func optionalString(_ key: String, of context: String) throws -> String? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let string = value.stringValue else {
            throw ResponseError(.invalidParams, "\(context).\(key) must be a string")
        }
        return string
    }

    func optionalInt(_ key: String, of context: String) throws -> Int? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let integer = value.intValue else {
            throw ResponseError(.invalidParams, "\(context).\(key) must be an integer")
        }
        return integer
    }
}
