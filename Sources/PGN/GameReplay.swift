import ChessCore

/// A move of a game that was played, tied to its node in the movetext.
public struct ReplayedMove: Sendable {
    /// Index of the move's node in `GameSyntax.nodes`.
    public var node: Int
    public var move: Move
    public var before: Position
    public var after: Position
    public var ply: Int
    /// 0 in the mainline, 1 in a variation, …
    public var depth: Int
    public var leniency: SANLeniency
}

/// A game replayed: where it starts, every move that could be played, and every problem.
public struct ReplayedGame: Sendable {
    public var start: GameStart
    public var moves: [ReplayedMove] = []
    public var diagnostics: [Diagnostic] = []
    /// The position at the end of the mainline, when the whole mainline could be played.
    public var finalPosition: Position?
    /// The indices in `GameSyntax.nodes` of the moves that were played, in order (kept even
    /// when `moves` is not).
    public var playedNodes: [Int] = []
    /// The game's opening: that of the last position of the mainline with a name
    /// (`OpeningBook`), with the node of the move where the mainline last reached a new one
    /// (nil when that is the position the game starts from): a later named position with the
    /// same code and name (a transposition back into the line) does not move it.
    public var opening: (opening: Opening, node: Int?)?
}

/// Replays a parsed game and reports what a chess player would want to know about it.
public struct GameReplay {
    public let source: SourceText
    public let syntax: GameSyntax
    /// The game's number in its file (0-based), for diagnostics.
    public let index: Int
    /// Offset of `source`'s first byte in the file: ranges are file-absolute.
    public let base: Int

    public init(source: SourceText, syntax: GameSyntax, index: Int, base: Int = 0) {
        self.source = source
        self.syntax = syntax
        self.index = index
        self.base = base
    }

    /// The text of a file-absolute byte range.
    public func text(_ range: Range<Int>) -> String {
        source.string((range.lowerBound - base)..<(range.upperBound - base))
    }

    /// The decoded value of a tag: quotes removed, `\"` and `\\` resolved.
    public func value(of tag: TagPair) -> String? {
        guard let range = tag.valueRange else { return nil }
        let local = (range.lowerBound - base)..<(range.upperBound - base)
        return source.bytes.withUnsafeBufferPointer { bytes in
            let content = PGNWriter.tagValueContent(bytes, local)
            var unescaped: [UInt8] = []
            if PGNWriter.unescapeTagValue(bytes, content, into: &unescaped) { return source.decode(unescaped) }
            return source.decode(bytes[content])
        }
    }

    public func tag(_ name: String) -> TagPair? {
        var name = name
        return name.withUTF8 { wanted in
            syntax.tags.first { tag in
                guard tag.nameRange.count == wanted.count else { return false }
                let start = tag.nameRange.lowerBound - base
                for k in 0..<wanted.count where source.bytes[start + k] != wanted[k] { return false }
                return true
            }
        }
    }

    public func tagValue(_ name: String) -> String? { tag(name).flatMap(value(of:)) }

    /// Replays the game. With `keepMoves` false only diagnostics are produced (for `check`).
    public func run(keepMoves: Bool = true) -> ReplayedGame {
        var diagnostics: [Diagnostic] = []
        func report(
            _ code: Diagnostic.Code, _ severity: Diagnostic.Severity, _ message: String, _ range: Range<Int>,
            _ fixes: [Diagnostic.Fix] = []
        ) {
            diagnostics.append(Diagnostic(code, severity, message, range: range, game: index, fixes: fixes))
        }

        let variantTag = tag("Variant")
        let fenTag = tag("FEN")
        let start = GameStart(variantTag: variantTag.flatMap(value(of:)), fenTag: fenTag.flatMap(value(of:)))
        var game = ReplayedGame(start: start)
        checkTags(start: start, report: report)

        if case .unsupported(let name) = start.variant, let variantTag {
            report(
                .unsupportedVariant, .warning,
                "\(name.isEmpty ? "This variant" : "The variant \"\(name)\"") is not supported: its moves are not checked",
                variantTag.valueRange ?? variantTag.range)
        }
        if let error = start.fenError, let fenTag {
            report(.badFEN, .error, "Bad FEN: \(error.description)", fenRange(fenTag, error))
        }

        // The named positions of the mainline, kept only to judge tags that name the opening.
        var passed: [Opening]? = tag("ECO") != nil || tag("Opening") != nil ? [] : nil
        if let position = start.position {
            game.opening = OpeningBook.shared.opening(at: position).map { ($0, nil) }
            if let first = game.opening?.opening { passed?.append(first) }
            replayMoves(from: position, into: &game, passed: &passed, keepMoves: keepMoves, report: report)
        }
        checkResult(game: game, report: report)
        checkOpeningTags(game.opening?.opening, passed: passed ?? [], report: report)
        game.diagnostics = diagnostics
        return game
    }

    private func fenRange(_ tag: TagPair, _ error: FENError) -> Range<Int> {
        guard let valueRange = tag.valueRange else { return tag.range }
        guard let offset = error.offset else { return valueRange }
        // The offset counts Unicode scalars of the value; FENs are ASCII in practice.
        let start = min(valueRange.lowerBound + 1 + offset, max(valueRange.upperBound - 1, valueRange.lowerBound))
        return start..<min(start + 1, valueRange.upperBound)
    }

    /// The tags every game should have, in the order PGN writes them.
    public static let sevenTagRoster = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]

    private func checkTags(
        start: GameStart,
        report: (Diagnostic.Code, Diagnostic.Severity, String, Range<Int>, [Diagnostic.Fix]) -> Void
    ) {
        let missing = GameReplay.sevenTagRoster.filter { tag($0) == nil }
        let anchor = syntax.label
        if !missing.isEmpty {
            let result = syntax.resultIndex.map { GameResult(rawValue: syntax.nodes[$0].value)?.text ?? "*" } ?? "*"
            let lines = missing.map { name -> String in
                let value: String
                switch name {
                case "Date": value = "????.??.??"
                case "Result": value = result
                default: value = "?"
                }
                return PGNWriter.tagPair(name: name, value: value) + "\n"
            }
            let insertAt = anchor.lowerBound
            let list = missing.count == 1 ? "the \(missing[0]) tag" : "the tags " + missing.joined(separator: ", ")
            report(
                .missingTag, .information,
                "The Seven Tag Roster is incomplete: \(list) \(missing.count == 1 ? "is" : "are") missing",
                anchor.lowerBound..<min(anchor.upperBound, anchor.lowerBound + max(1, anchor.count)),
                [
                    Diagnostic.Fix(
                        title: "Add \(list)",
                        edits: [Diagnostic.Edit(range: insertAt..<insertAt, text: lines.joined())],
                        isPreferred: true)
                ])
        }
        if let setUp = tag("SetUp"), value(of: setUp) == "1", tag("FEN") == nil {
            report(
                .missingTag, .warning, "SetUp \"1\" says the game starts from a position, but there is no FEN tag",
                setUp.range, [])
        }
        if let fen = tag("FEN"), tag("SetUp") == nil {
            let insert = fen.range.lowerBound
            report(
                .missingTag, .information, "A game with a FEN tag should also have [SetUp \"1\"]", fen.range,
                [
                    Diagnostic.Fix(
                        title: "Add [SetUp \"1\"]",
                        edits: [Diagnostic.Edit(range: insert..<insert, text: "[SetUp \"1\"]\n")],
                        isPreferred: true)
                ])
        }
    }

    /// The `ECO` and `Opening` tags against the openings the mainline passed through (`passed`,
    /// the last of which, `opening`, is the game's), judged by meaning (`OpeningTags`): an `ECO`
    /// outside their families, an `Opening` that names none of them nor an opening of their
    /// families. Other books' words for the same opening (TWIC's `King's Indian`, `QGD`,
    /// `Gruenfeld`) agree. A missing tag is not reported (the editor offers to fill them in).
    private func checkOpeningTags(
        _ opening: Opening?, passed: [Opening],
        report: (Diagnostic.Code, Diagnostic.Severity, String, Range<Int>, [Diagnostic.Fix]) -> Void
    ) {
        guard let opening else { return }
        var wrong: [(tag: TagPair, says: String, right: String)] = []
        if let eco = tag("ECO"), let says = value(of: eco), says != opening.eco,
            !OpeningTags.ecoAgrees(says, passed: passed)
        {
            wrong.append((eco, says, opening.eco))
        }
        if let name = tag("Opening"), let says = value(of: name), !Self.names(says, opening.name),
            !OpeningTags.nameAgrees(says, passed: passed)
        {
            wrong.append((name, says, opening.name))
        }
        guard let first = wrong.first else { return }
        let said = wrong.map { "the \(text($0.tag.nameRange)) tag says \"\($0.says)\"" }.joined(separator: " and ")
        let edits = wrong.compactMap { item in
            item.tag.valueRange.map { Diagnostic.Edit(range: $0, text: PGNWriter.quotedTagValue(item.right)) }
        }
        report(
            .openingTags, .information, "The moves reach \(opening.title), but \(said)",
            first.tag.valueRange ?? first.tag.range,
            edits.isEmpty
                ? []
                : [
                    Diagnostic.Fix(
                        title: wrong.count == 2
                            ? "Set ECO and Opening to \(opening.title)"
                            : "Set \(text(first.tag.nameRange)) to \"\(first.right)\"",
                        edits: edits, isPreferred: false)
                ])
    }

    /// Whether an `Opening` tag names `name`: the name itself, or its family or variation
    /// written shorter (`Sicilian Defense`, `Sicilian Defense: Najdorf Variation`).
    /// Compared as UTF-8 bytes: `String.hasPrefix` compares characters, and looked up Unicode
    /// properties for every game of a file (2% of `check` on one core).
    static func names(_ tag: String, _ name: String) -> Bool {
        guard !tag.isEmpty, name.utf8.starts(with: tag.utf8) else { return false }
        let rest = name.utf8.dropFirst(tag.utf8.count)
        return rest.first.map { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ",") } ?? true
    }

    private func replayMoves(
        from position: Position, into game: inout ReplayedGame, passed: inout [Opening]?, keepMoves: Bool,
        report: (Diagnostic.Code, Diagnostic.Severity, String, Range<Int>, [Diagnostic.Fix]) -> Void
    ) {
        var replayer = LineReplayer(start: position)
        var pendingNumber: MovetextNode?
        var mainlineComplete = true
        // Some writers number the moves of a set-up game from 1 whatever the FEN says: the
        // first number of the mainline sets the count (the difference is reported once).
        var numberOffset: Int?
        let nodes = syntax.nodes
        source.bytes.withUnsafeBufferPointer { bytes in
            for (i, node) in nodes.enumerated() {
                switch node.kind {
                case .moveNumber:
                    pendingNumber = node
                case .move:
                    let numberNode = pendingNumber
                    pendingNumber = nil
                    let playable = replayer.current.isPlayable
                    let expected = replayer.nextMoveNumber
                    let lower = node.range.lowerBound - base
                    let san = UnsafeBufferPointer(rebasing: bytes[lower..<(node.range.upperBound - base)])
                    let outcome = replayer.play(san: san)
                    if let numberNode, playable {
                        if numberOffset == nil && replayer.depth == 0 {
                            numberOffset = numberNode.value - expected.number
                            if numberOffset != 0 && tag("FEN") != nil {
                                report(
                                    .wrongMoveNumber, .warning,
                                    "The FEN tag starts the game at move \(expected.number), but the moves are numbered from \(numberNode.value)",
                                    numberNode.range, [])
                            } else {
                                numberOffset = 0
                            }
                        }
                        let shifted = (number: expected.number + (numberOffset ?? 0), black: expected.black)
                        checkMoveNumber(numberNode, expected: shifted, report: report)
                    }
                    switch outcome {
                    case .played(let played):
                        game.playedNodes.append(i)
                        if played.depth == 0, let opening = OpeningBook.shared.opening(at: replayer.position) {
                            passed?.append(opening)
                            game.opening = (
                                opening, opening.title == game.opening?.opening.title ? game.opening?.node : i
                            )
                        }
                        if keepMoves {
                            game.moves.append(
                                ReplayedMove(
                                    node: i, move: played.move, before: replayer.positionBeforeLastMove!,
                                    after: replayer.position,
                                    ply: played.ply,
                                    depth: played.depth, leniency: played.leniency))
                        }
                        if played.move.isNull, let before = replayer.positionBeforeLastMove {
                            report(
                                .nullMove, played.depth == 0 ? .warning : .information,
                                played.depth == 0
                                    ? "Null move in the mainline: \(before.turn) passes, which is not a legal move (a database stores the moves before it and keeps the rest as a comment)"
                                    : "Null move: \(before.turn) passes (accepted in analysis; a database keeps this line from here as a comment)",
                                node.range, [])
                        }
                        let leniency = played.leniency.subtracting(.nullMoveNotation)
                        if !leniency.isEmpty || (played.move.isNull && node.range.count != 2) {
                            let canonical = replayer.positionBeforeLastMove!.san(played.move)
                            let why = (played.leniency.descriptions).joined(separator: "; ")
                            report(
                                .nonCanonicalSAN, .hint, "Standard notation is \(canonical): \(why)", node.range,
                                [
                                    Diagnostic.Fix(
                                        title: "Write \(canonical)",
                                        edits: [Diagnostic.Edit(range: node.range, text: canonical)],
                                        isPreferred: true)
                                ])
                        }
                    case .failed(let error, let before):
                        if replayer.depth == 0 { mainlineComplete = false }
                        reportFailure(
                            error, written: GameReplay.shortened(text(node.range)), before: before, range: node.range,
                            report: report)
                    case .skipped:
                        if replayer.depth == 0 { mainlineComplete = false }
                    }
                case .variationStart:
                    pendingNumber = nil
                    if replayer.beginVariation() == .noMoveToReplace {
                        report(
                            .syntax, .error, "A variation must come after the move it is an alternative to", node.range,
                            [])
                    }
                case .variationEnd:
                    pendingNumber = nil
                    replayer.endVariation()
                case .nag:
                    if node.value >= 0 && node.value <= 255 && NAGMeanings.meaning(node.value) == nil {
                        report(.unknownNAG, .hint, "NAG $\(node.value) has no standard meaning", node.range, [])
                    }
                case .comment, .result, .note:
                    break
                }
            }
        }
        while replayer.depth > 0 { replayer.endVariation() }
        if mainlineComplete { game.finalPosition = replayer.current.position }
    }

    /// A token as messages quote it: at most 40 characters.
    static func shortened(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(39)) + "…"
    }

    private func checkMoveNumber(
        _ node: MovetextNode, expected: (number: Int, black: Bool),
        report: (Diagnostic.Code, Diagnostic.Severity, String, Range<Int>, [Diagnostic.Fix]) -> Void
    ) {
        // `12.` before a Black move is a common import form only when it repeats White's number;
        // the standard writes `12...`.
        if node.value != expected.number || (node.isBlack && !expected.black) {
            let right = PGNWriter.moveNumber(expected.number, black: expected.black)
            let side = expected.black ? "Black" : "White"
            report(
                .wrongMoveNumber, .warning,
                "This is move \(expected.number) for \(side): the number should be \(right)",
                node.range,
                [
                    Diagnostic.Fix(
                        title: "Write \(right)", edits: [Diagnostic.Edit(range: node.range, text: right)],
                        isPreferred: true)
                ])
        }
    }

    private func reportFailure(
        _ error: SANError, written: String, before: Position, range: Range<Int>,
        report: (Diagnostic.Code, Diagnostic.Severity, String, Range<Int>, [Diagnostic.Fix]) -> Void
    ) {
        let side = before.turn
        switch error {
        case .syntax:
            report(.unknownMove, .error, "'\(written)' is not a move", range, [])
        case .illegal(let reason):
            report(
                .illegalMove, .error, "Illegal move \(written) (\(side) to move): \(reason.message(side: side))", range,
                [])
        case .ambiguous(let candidates):
            let names = candidates.map { move -> String in
                let role = before.role(at: move.from)?.name ?? "piece"
                return "the \(role) on \(move.from)"
            }
            let list =
                names.count == 2
                ? "\(names[0]) and \(names[1])" : names.dropLast().joined(separator: ", ") + " and \(names.last!)"
            let fixes = candidates.map { move -> Diagnostic.Fix in
                let san = before.san(move)
                return Diagnostic.Fix(
                    title: "Play \(san)", edits: [Diagnostic.Edit(range: range, text: san)], isPreferred: false)
            }
            report(.ambiguousMove, .error, "Ambiguous move \(written): \(list) can both make it", range, fixes)
        }
    }

    private func checkResult(
        game: ReplayedGame, report: (Diagnostic.Code, Diagnostic.Severity, String, Range<Int>, [Diagnostic.Fix]) -> Void
    ) {
        let resultTag = tag("Result")
        let tagResult = resultTag.flatMap(value(of:)).flatMap(GameResult.init(text:))
        guard let markerIndex = syntax.resultIndex else {
            let end = syntax.range.upperBound
            let marker = tagResult?.text ?? "*"
            report(
                .missingResult, .warning, "The game has no result at its end (1-0, 0-1, 1/2-1/2 or *)",
                (syntax.nodes.last?.range ?? syntax.tags.last?.range ?? syntax.range),
                [
                    Diagnostic.Fix(
                        title: "Add \(marker)", edits: [Diagnostic.Edit(range: end..<end, text: " \(marker)")],
                        isPreferred: true)
                ])
            return
        }
        let markerNode = syntax.nodes[markerIndex]
        guard let marker = GameResult(rawValue: markerNode.value) else { return }
        if let resultTag, let tagResult, tagResult != marker {
            var fixes: [Diagnostic.Fix] = []
            if let valueRange = resultTag.valueRange {
                fixes.append(
                    Diagnostic.Fix(
                        title: "Set the Result tag to \(marker.text)",
                        edits: [Diagnostic.Edit(range: valueRange, text: "\"\(marker.text)\"")], isPreferred: false))
            }
            fixes.append(
                Diagnostic.Fix(
                    title: "Change the result to \(tagResult.text)",
                    edits: [Diagnostic.Edit(range: markerNode.range, text: tagResult.text)], isPreferred: false))
            report(
                .resultMismatch, .warning, "The result \(marker.text) differs from the Result tag \(tagResult.text)",
                markerNode.range, fixes)
        }
        guard let final = game.finalPosition else { return }
        var decided: (GameResult, String)?
        if final.isCheckmate {
            decided = (final.turn == .white ? .blackWins : .whiteWins, "\(final.turn) is checkmated")
        } else if final.isStalemate {
            decided = (.draw, "\(final.turn) is stalemated")
        }
        if let (result, why) = decided, result != marker {
            // `*` (no result yet) on a decided game is common in puzzle files: worth a note only.
            let severity: Diagnostic.Severity = marker == .unknown ? .information : .warning
            var fixes = [
                Diagnostic.Fix(
                    title: "Change the result to \(result.text)",
                    edits: [Diagnostic.Edit(range: markerNode.range, text: result.text)], isPreferred: true)
            ]
            if let valueRange = resultTag?.valueRange, tagResult != result {
                fixes[0].edits.append(Diagnostic.Edit(range: valueRange, text: "\"\(result.text)\""))
            }
            report(
                .resultMismatch, severity, "\(why), so the result is \(result.text), not \(marker.text)",
                markerNode.range, fixes)
        }
    }
}
