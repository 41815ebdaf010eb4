import LanguageServer
import PGN

/// Renaming a player, event or site everywhere: `textDocument/prepareRename` and
/// `textDocument/rename` on the value of a `White`, `Black`, `Event` or `Site` tag; a player is
/// renamed as White and as Black.
///
/// With a client that takes change annotations, the new name is written in every game of the
/// open documents and of the workspace's `.pgn` files whose tag has the old name, or the same
/// name written differently (`NameKey`: spacing, case, a comma, accents), and names that may
/// abbreviate it (`Carlsen, M.`) are offered too: each kind of change is a group, and every
/// group but the tags of the document renamed from needs the user's confirmation.
///
/// A client without change annotations applies what it gets without asking: it gets only the
/// tags with the old name as written in the open documents, and the user is told what was left
/// out (other spellings, files that are not open).
///
/// The workspace's files are those `WorkspaceWalk` finds, inside the workspace folders; when
/// some could not be read, the user is told that the rename may be incomplete.
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
        let replay = game.analysis.tagReplay
        guard
            let tag = game.analysis.tags.first(where: {
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
            let place = try await placeParams(params, context)
            guard let target = renameTarget(place) else { return .null }
            return [
                "range": range(target.content, place.document, context.positionEncoding),
                "placeholder": .string(target.name),
            ]
        }
        server.registerRequest("textDocument/rename") { [self] params, context in
            let place = try await placeParams(params, context)
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
        var leftOut = RenameLeftOut()
        var documents = workspaceDocuments(context)
        while let workspaceDocument = try documents.next() {
            let uri = workspaceDocument.uri
            var edits: [JSONValue] = []
            var closedTags = 0
            try documents.forEachGame(of: workspaceDocument) { game in
                let replay = game.replay
                for tag in game.syntax.tags {
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
                    // What a client that cannot ask the user to confirm would apply unseen.
                    if !annotated && match != .same {
                        leftOut.spellings += 1
                        leftOut.spelling = leftOut.spelling ?? name
                        continue
                    }
                    if !annotated && !workspaceDocument.isOpen {
                        closedTags += 1
                        continue
                    }
                    var edit: [String: JSONValue] = [
                        "range": game.range(valueRange, context.positionEncoding),
                        "newText": .string(newText),
                    ]
                    if annotated {
                        let id = match == .same && uri != origin.uri ? "elsewhere" : match.rawValue
                        edit["annotationId"] = .string(id)
                        used[id] = annotation(id, name: name, target: target)
                    }
                    edits.append(.object(edit))
                }
                return true
            }
            if closedTags > 0 {
                leftOut.closedTags += closedTags
                leftOut.closedFiles += 1
            }
            guard !edits.isEmpty else { continue }
            if versioned {
                documentChanges.append([
                    "textDocument": [
                        "uri": .string(uri), "version": workspaceDocument.open.map { .integer($0.version) } ?? .null,
                    ],
                    "edits": .array(edits),
                ])
            } else {
                changes[uri] = .array(edits)
            }
        }
        reportRename(leftOut, notes: documents.notes, context)
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

    /// What a rename left out for a client that cannot ask the user to confirm changes.
    struct RenameLeftOut {
        /// The tags with the name written differently, and one of those spellings.
        var spellings = 0
        var spelling: String?
        /// The tags with the name in files that are not open, and those files.
        var closedTags = 0
        var closedFiles = 0
    }

    /// Tells the user what a rename left out: the changes a client without change annotations
    /// could not have confirmed, and the workspace's files that were not read.
    private func reportRename(_ leftOut: RenameLeftOut, notes: [String], _ context: RequestContext) {
        var parts: [String] = []
        if leftOut.closedTags > 0 {
            let files = leftOut.closedFiles == 1 ? "1 file" : "\(leftOut.closedFiles) files"
            parts.append(
                "\(leftOut.closedTags) tag\(leftOut.closedTags == 1 ? "" : "s") in \(files) that "
                    + "\(leftOut.closedFiles == 1 ? "is" : "are") not open")
        }
        if leftOut.spellings > 0, let spelling = leftOut.spelling {
            parts.append(
                "\(leftOut.spellings) tag\(leftOut.spellings == 1 ? "" : "s") with the name written differently "
                    + "(\"\(spelling)\")")
        }
        if !parts.isEmpty {
            server.showMessage(
                .info,
                "pgn-lsp: renamed where the name is written the same in the open documents; left out, "
                    + "as this editor cannot ask to confirm them: " + parts.joined(separator: ", "))
        }
        if !notes.isEmpty {
            logWorkspaceNotes(notes, of: context.method)
            let shown = notes.prefix(3).joined(separator: "; ")
            server.showMessage(
                .warning,
                "pgn-lsp: the rename may be incomplete: \(shown)\(notes.count > 3 ? "; and \(notes.count - 3) more in the log" : "")"
            )
        }
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
