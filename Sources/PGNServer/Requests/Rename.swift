import LanguageServer
import PGN

/// Renaming a player, event or site everywhere: `textDocument/prepareRename` and
/// `textDocument/rename` on the value of a `White`, `Black`, `Event` or `Site` tag. The new name
/// is written in every game of the open documents and of the workspace's `.pgn` files whose
/// tag has the old name; a player is renamed as White and as Black. Names that are the same
/// name written differently (`NameKey`: spacing, case, a comma, accents) are renamed with it;
/// with a client that takes change annotations, each kind of change is a group the user
/// confirms, and names that may abbreviate it (`Carlsen, M.`) are offered too, unconfirmed.
extension PGNLanguageServer {
    /// The tag families a rename reaches, by the name of the tag it starts on.
    static func renamedTags(_ tagName: String) -> Set<String>? {
        switch tagName {
        case "White", "Black": ["White", "Black"]
        case "Event": ["Event"]
        case "Site": ["Site"]
        default: nil
        }
    }

    /// What a rename starts from: the tag under the cursor and its name.
    struct RenameTarget {
        let tags: Set<String>
        let isPlayer: Bool
        let name: String
        /// The bytes of the value between its quotes, in the document.
        let content: Range<Int>
    }

    func renameTarget(_ place: PlaceParams) -> RenameTarget? {
        let (_, analysis, offset) = place.parts
        guard let game = analysis.game(at: offset) else { return nil }
        let local = offset - game.start
        let replay = game.analysis.gameReplay
        guard
            let tag = game.analysis.syntax.tags.first(where: {
                $0.range.contains(local) || $0.range.upperBound == local
            }),
            let valueRange = tag.valueRange, let tags = Self.renamedTags(replay.text(tag.nameRange)),
            let name = replay.value(of: tag), !name.isEmpty, name != "?"
        else { return nil }
        let content = game.analysis.source.bytes.withUnsafeBufferPointer {
            PGNWriter.tagValueContent($0, valueRange)
        }
        return RenameTarget(
            tags: tags, isPlayer: tags.contains("White"), name: name, content: content.shifted(by: game.start))
    }

    /// How a tag's name relates to the name renamed.
    enum RenameMatch: String, CaseIterable {
        case same, spelling, abbreviation
    }

    func registerRename() {
        server.capabilities.features["renameProvider"] = ["prepareProvider": true]
        server.registerRequest("textDocument/prepareRename") { [self] params, context in
            let place = try placeParams(params, context)
            guard let target = renameTarget(place) else { return .null }
            return [
                "range": range(target.content, place.document, context.positionEncoding),
                "placeholder": .string(target.name),
            ]
        }
        server.registerRequest("textDocument/rename") { [self] params, context in
            let place = try placeParams(params, context)
            guard let newName = params["newName"]?.stringValue else {
                throw ResponseError(.invalidParams, "newName is missing or not a string")
            }
            guard !newName.allSatisfy(\.isWhitespace) else {
                throw ResponseError(.invalidParams, "The new name is empty")
            }
            guard let target = renameTarget(place) else {
                throw ResponseError(
                    .requestFailed, "Only the value of a White, Black, Event or Site tag can be renamed")
            }
            return try renameEdit(target, to: newName, from: place.document, context)
        }
    }

    /// The workspace edit of a rename, in the form the client takes.
    func renameEdit(
        _ target: RenameTarget, to newName: String, from origin: Document, _ context: RequestContext
    ) throws -> JSONValue {
        let capabilities = context.session.clientCapabilities
        let annotated = capabilities.supportsChangeAnnotations
        let versioned = annotated || capabilities.supportsDocumentChanges
        let key = NameKey(target.name)
        let newText = PGNWriter.quotedTagValue(newName)
        var changes: [String: JSONValue] = [:]
        var documentChanges: [JSONValue] = []
        var used: [String: (label: String, description: String, confirm: Bool)] = [:]
        for document in workspaceDocuments(context) {
            try context.checkCancellation()
            var edits: [JSONValue] = []
            for game in analyzer.analysis(of: document).games {
                let replay = game.analysis.gameReplay
                for tag in game.analysis.syntax.tags {
                    guard let valueRange = tag.valueRange, target.tags.contains(replay.text(tag.nameRange)),
                        let name = replay.value(of: tag)
                    else { continue }
                    let match: RenameMatch
                    if name == target.name {
                        match = .same
                    } else if NameKey(name) == key {
                        match = .spelling
                    } else if annotated && target.isPlayer && NameKey(name).mayAbbreviate(key) {
                        match = .abbreviation
                    } else {
                        continue
                    }
                    var edit: [String: JSONValue] = [
                        "range": range(valueRange.shifted(by: game.start), document, context.positionEncoding),
                        "newText": .string(newText),
                    ]
                    if annotated {
                        let id = match == .same && document.uri != origin.uri ? "elsewhere" : match.rawValue
                        edit["annotationId"] = .string(id)
                        used[id] = annotation(id, name: name, target: target)
                    }
                    edits.append(.object(edit))
                }
            }
            guard !edits.isEmpty else { continue }
            if versioned {
                let open = context.documents[document.uri] != nil
                documentChanges.append([
                    "textDocument": [
                        "uri": .string(document.uri), "version": open ? .integer(document.version) : .null,
                    ],
                    "edits": .array(edits),
                ])
            } else {
                changes[document.uri] = .array(edits)
            }
        }
        guard versioned else { return ["changes": .object(changes)] }
        var edit: [String: JSONValue] = ["documentChanges": .array(documentChanges)]
        if annotated {
            edit["changeAnnotations"] = .object(
                used.mapValues {
                    [
                        "label": .string($0.label), "description": .string($0.description),
                        "needsConfirmation": .bool($0.confirm),
                    ]
                })
        }
        return .object(edit)
    }

    /// The change annotation of a group of a rename's edits: every group but the tags of the
    /// document renamed from needs the user's confirmation (VS Code shows them in its preview).
    private func annotation(
        _ id: String, name: String, target: RenameTarget
    ) -> (label: String, description: String, confirm: Bool) {
        let what = target.isPlayer ? "player" : target.tags.first?.lowercased() ?? "name"
        switch id {
        case "same": return ("Rename \(what) \(target.name)", "The tags in this document", false)
        case "elsewhere":
            return ("Rename \(what) \(target.name) in other files", "Tags in other files of the workspace", true)
        case "spelling":
            return (
                "Same \(what) written differently", "Names that differ only in spacing, case, commas or accents", true
            )
        default:
            return ("Possibly the same \(what)", "Names with initials or fewer given names, such as \(name)", true)
        }
    }
}
