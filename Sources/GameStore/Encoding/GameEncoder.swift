import ChessCore
import Foundation
import PGN

/// One game ready for the `Games` table: every column's value, worked out from its PGN.
public struct EncodedGame: Sendable {
    public var event: String?
    public var site: String?
    public var white: String?
    public var black: String?
    /// `Date`, or `UTCDate` when there is no `Date`.
    public var date: String?
    public var utcTime: String?
    public var round: String?
    /// Rating; nil when absent or unreadable (`-` reads as 0).
    public var whiteElo: Int?
    public var blackElo: Int?
    /// The smallest material (P=1 N=3 B=3 R=5 Q=9) each side had in the mainline.
    public var whiteMaterial: Int
    public var blackMaterial: Int
    /// The Result tag's text (the termination marker's when there is no tag).
    public var result: String?
    public var timeControl: String?
    public var eco: String?
    /// The FEN tag, nil when the game starts from the standard position.
    public var fen: String?
    public var plyCount: Int
    /// En Croissant's encoding (see `MovesBlob`).
    public var moves: [UInt8]
    /// Pawns on their home rank at the end of the mainline: White's a–h as bits 0–7, Black's as 8–15.
    public var pawnHome: Int
    /// ocgdb's encoding of the mainline (see `Moves2`).
    public var moves2: [UInt8]
    /// The Zobrist hashes of the mainline's positions, from the start position on (for the
    /// position index).
    public var positionHashes: [UInt64] = []
    /// The material of the mainline's last position, packed (for the position index).
    var finalMaterial: Int64 = 0
    /// What a search reads of the game before its moves (for the position index).
    var signature: GameSignature?
    /// A hash of what the duplicate check compares besides the names: date, time, round,
    /// result, FEN, the length of `moves` and the mainline. Worked out where the game is read,
    /// so that the writer only adds the names' IDs to it.
    var contentHash = 0
    /// The tags no column holds (`Opening`, `Termination`, `Annotator`, `UTCDate` …) as PGN tag
    /// pairs, one a line, in the game's order, UTF-8; empty when there are none.
    public var otherTagBytes: [UInt8] = []

    /// The game's number in its file or batch, from 0 (as `RefusedGame.index`).
    public var index = 0
    /// What the import changed to store the game (movetext kept as text, a result read), in
    /// words, in the order of the movetext; empty for a game stored as written.
    public var changes: [String] = []
    /// Whether the mainline stops before the movetext's does (a move of it cannot be played):
    /// the rest is kept as text and the game has an `Incomplete` tag.
    public var incomplete = false

    /// `otherTagBytes` as text, nil when there are none.
    public var otherTags: String? { otherTagBytes.isEmpty ? nil : String(decoding: otherTagBytes, as: UTF8.self) }
    /// The mainline's comments, for the `Comments` table: 8 bytes each, their text in `moves`
    /// (where the full content holds it already) or in `commentBytes`.
    public var commentRows: [CommentRow]
    /// The text of the comments `moves` does not hold, each after its length (4 bytes).
    public var commentBytes: [UInt8]

    /// The mainline's comments: the 0-based index of the move each follows (-1 before the
    /// first move) and its text.
    public var comments: [(ply: Int, text: String)] {
        moves.withUnsafeBufferPointer { moves in
            commentBytes.withUnsafeBufferPointer { extra in
                commentRows.map { ($0.ply, String(decoding: $0.text(moves: moves, extra: extra), as: UTF8.self)) }
            }
        }
    }
}

/// One comment of a game's mainline: the move it follows and where its UTF-8 text is. A
/// game read with a clock comment after each move has as many of these as moves, and the
/// pieces of an import in flight hold thousands of games: they stay small, and the text is
/// not copied where the `Moves` blob holds it.
public struct CommentRow: Sendable, Hashable {
    private var plyValue: Int32
    /// The offset of the text's first byte in the game's `moves` (its length is the blob's
    /// chunk header, the two bytes before), or with `inExtra` set, in `commentBytes` (after
    /// its length in four bytes).
    private var offset: UInt32

    private static let inExtra: UInt32 = 1 << 31

    /// The 0-based index of the move the comment follows, -1 before the first move.
    public var ply: Int { Int(plyValue) }

    /// A comment whose text is in the blob, starting at `offset`.
    init(ply: Int, inMoves offset: Int) {
        plyValue = Int32(truncatingIfNeeded: ply)
        self.offset = UInt32(offset)
    }

    /// A comment whose text is in `commentBytes`, starting at `offset`.
    init(ply: Int, inExtra offset: Int) {
        plyValue = Int32(truncatingIfNeeded: ply)
        self.offset = UInt32(offset) | CommentRow.inExtra
    }

    /// The text, in the game's `moves` or `commentBytes`.
    @inline(__always)
    public func text(moves: UnsafeBufferPointer<UInt8>, extra: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>
    {
        if offset & CommentRow.inExtra == 0 {
            let start = Int(offset)
            let length = Int(moves[start - 2]) | Int(moves[start - 1]) << 8
            return UnsafeBufferPointer(rebasing: moves[start..<start + length])
        }
        let start = Int(offset & ~CommentRow.inExtra)
        var length = 0
        for k in 0..<4 { length |= Int(extra[start - 4 + k]) << (8 * k) }
        return UnsafeBufferPointer(rebasing: extra[start..<start + length])
    }
}

/// A game that could not be stored, and why.
public struct RefusedGame: Error, Sendable, Hashable, CustomStringConvertible {
    /// The game's number in its file or batch, from 0.
    public var index: Int
    /// Why, e.g. `illegal move 23...Nf3`.
    public var reason: String

    public init(index: Int, reason: String) {
        self.index = index
        self.reason = reason
    }

    /// `game 12, illegal move 23...Nf3` (games counted from 1).
    public var description: String { "game \(index + 1), \(reason)" }
}

/// Turns parsed PGN games into `EncodedGame`s. Pure and thread-safe: many can run at once.
public enum GameEncoder {
    /// Every game of a text (or of a piece of a file holding whole games), numbered from
    /// `firstIndex`, in order. With `strict`, a game that cannot be stored as written (see
    /// `EncodedGame.changes`) is refused instead.
    public static func encode(
        _ source: SourceText, firstIndex: Int = 0, content: MovesContent = .full, commentRows: Bool = true,
        strict: Bool = false
    ) -> [Result<EncodedGame, RefusedGame>] {
        encode(bytes: source.bytes, firstIndex: firstIndex, content: content, commentRows: commentRows, strict: strict)
    }

    /// `encode(_:)` on UTF-8 bytes (or Latin-1 when they are not valid UTF-8).
    public static func encode(
        bytes: [UInt8], firstIndex: Int = 0, content: MovesContent = .full, commentRows: Bool = true,
        strict: Bool = false
    ) -> [Result<EncodedGame, RefusedGame>] {
        bytes.withUnsafeBufferPointer {
            encode(buffer: $0, firstIndex: firstIndex, content: content, commentRows: commentRows, strict: strict)
        }
    }

    /// `encode(bytes:)` on bytes in memory the caller holds (a mapped file, say). Without
    /// `commentRows`, the games' `commentRows` stay empty.
    public static func encode(
        buffer: UnsafeBufferPointer<UInt8>, firstIndex: Int = 0, content: MovesContent = .full,
        commentRows: Bool = true, strict: Bool = false
    ) -> [Result<EncodedGame, RefusedGame>] {
        // Most files are plainly written, and read faster so, each game encoded as soon as it
        // is read; the parser reads the rest of the text from the first game that is not.
        let text = Text(buffer)
        var results: [Result<EncodedGame, RefusedGame>] = []
        var scratch = Scratch()
        var scanner = ImportScanner(buffer)
        var game = GameSyntax(range: 0..<0)
        while let read = scanner.next(into: &game) {
            guard read else {
                let rest = Parser(buffer, start: scanner.offset, firstGameIndex: 0, stoppingAt: { _ in false })
                for syntax in rest.games {
                    results.append(
                        encode(
                            syntax, text: text, index: firstIndex + results.count, content: content,
                            commentRows: commentRows, strict: strict, scratch: &scratch))
                }
                break
            }
            results.append(
                encode(
                    game, text: text, index: firstIndex + results.count, content: content, commentRows: commentRows,
                    strict: strict, scratch: &scratch))
        }
        return results
    }

    /// Encodes games already read from `buffer`.
    static func encode(
        _ games: [GameSyntax], in buffer: UnsafeBufferPointer<UInt8>, firstIndex: Int, content: MovesContent,
        commentRows: Bool, strict: Bool = false
    ) -> [Result<EncodedGame, RefusedGame>] {
        var results: [Result<EncodedGame, RefusedGame>] = []
        results.reserveCapacity(games.count)
        var scratch = Scratch()
        let text = Text(buffer)
        for (k, syntax) in games.enumerated() {
            results.append(
                encode(
                    syntax, text: text, index: firstIndex + k, content: content, commentRows: commentRows,
                    strict: strict, scratch: &scratch))
        }
        return results
    }

    /// Lines of play left to finish while a variation is read, kept between games.
    struct Scratch {
        var parents: [Line] = []
        var value: [UInt8] = []
        /// A comment that keeps movetext as text.
        var kept: [UInt8] = []
    }

    struct Line {
        var position: Position
        var before: Position?
        /// Plies from the start of the game to `position`.
        var ply: Int
    }

    /// The bytes of a text and how to read them.
    struct Text {
        let bytes: UnsafeBufferPointer<UInt8>
        let latin1: Bool

        /// UTF-8 bytes, or Latin-1 when they are not valid UTF-8.
        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            latin1 = !SourceText.isValidUTF8(bytes)
        }

        func string(_ range: Range<Int>) -> String {
            string(UnsafeBufferPointer(rebasing: bytes[range]))
        }

        func string(_ slice: UnsafeBufferPointer<UInt8>) -> String {
            if !latin1 { return String(decoding: slice, as: UTF8.self) }
            var result = ""
            result.unicodeScalars.append(contentsOf: slice.map { Unicode.Scalar($0) })
            return result
        }

        /// A tag's value: quotes removed, `\"` and `\\` resolved.
        func value(_ range: Range<Int>, scratch: inout [UInt8]) -> String {
            let content = PGNWriter.tagValueContent(bytes, range)
            guard PGNWriter.unescapeTagValue(bytes, content, into: &scratch) else { return string(content) }
            return scratch.withUnsafeBufferPointer { string($0) }
        }
    }

    static func encode(
        _ syntax: GameSyntax, text: Text, index: Int, content: MovesContent, commentRows: Bool, strict: Bool,
        scratch: inout Scratch
    ) -> Result<EncodedGame, RefusedGame> {
        var game = EncodedGame(
            whiteMaterial: 39, blackMaterial: 39, plyCount: 0, moves: [], pawnHome: 0xFFFF, moves2: [],
            commentRows: [], commentBytes: [])
        var variantTag: String?
        var fenTag: (pair: TagPair, value: String)?
        var dateTag: (pair: TagPair, value: String)?
        var setUpTag: TagPair?
        var utcDate: String?
        var resultTag: (pair: TagPair, value: String)?
        var hasIncompleteTag = false
        let bytes = text.bytes
        var otherTags: [UInt8] = []
        /// A tag pair for the `Tags` column: its bytes as written when they are a tag pair on
        /// one line in UTF-8, else written again from its name and value.
        func keep(_ tag: TagPair) {
            guard let valueRange = tag.valueRange else { return }
            if !otherTags.isEmpty { otherTags.append(0x0A) }
            let raw = UnsafeBufferPointer(rebasing: bytes[tag.range])
            if !text.latin1, raw.first == 0x5B, raw.last == 0x5D, !raw.contains(0x0A), !raw.contains(0x0D),
                valueRange.count >= 2,
                PGNWriter.tagValueContent(bytes, valueRange).upperBound == valueRange.upperBound - 1
            {
                otherTags.append(contentsOf: raw)
            } else {
                otherTags.append(
                    contentsOf: PGNWriter.tagPair(
                        name: text.string(tag.nameRange), value: text.value(valueRange, scratch: &scratch.value)
                    ).utf8)
            }
        }
        /// `[Name]` in the `Tags` column: the game has no such tag, though a column would give one.
        func keepAbsent(_ name: String) {
            if !otherTags.isEmpty { otherTags.append(0x0A) }
            otherTags.append(contentsOf: TagColumns.absent(name).utf8)
        }
        for tag in syntax.tags {
            guard let valueRange = tag.valueRange else { continue }
            let name = UnsafeBufferPointer(rebasing: bytes[tag.nameRange])
            guard let field = TagField(name) else {
                if TagField.isSetUp(name) {
                    // Given back from the FEN column, when it says what the tag says.
                    setUpTag = tag
                } else if !name.isEmpty {
                    // A tag with no name is not a tag.
                    hasIncompleteTag = hasIncompleteTag || TagField.isIncomplete(name)
                    keep(tag)
                }
                continue
            }
            let value = text.value(valueRange, scratch: &scratch.value)
            switch field {
            case .event: game.event = value
            case .site: game.site = value
            case .date: dateTag = (tag, value)
            case .utcDate:
                utcDate = value
                // Kept as it is: the date column holds it only when there is no `Date`.
                keep(tag)
            case .utcTime: game.utcTime = value
            case .round: game.round = value
            case .white: game.white = value
            case .black: game.black = value
            case .whiteElo:
                game.whiteElo = TagColumns.elo(value)
                if !TagColumns.eloWrittenBack(value) { keep(tag) }
            case .blackElo:
                game.blackElo = TagColumns.elo(value)
                if !TagColumns.eloWrittenBack(value) { keep(tag) }
            case .result:
                resultTag = (tag, value)
            case .timeControl: game.timeControl = value
            case .eco: game.eco = value
            case .fen: fenTag = (tag, value)
            case .variant:
                variantTag = value
                // The column gives back only `Chess960`, and only for a Chess960 start.
                keep(tag)
            }
        }
        game.date = TagColumns.date(dateTag?.value, utcDate: utcDate)
        if let dateTag {
            if game.date != dateTag.value || !TagColumns.dateWrittenBack(dateTag.value) { keep(dateTag.pair) }
        } else if game.date != nil {
            keepAbsent("Date")
        }
        let marker = syntax.resultIndex.flatMap { GameResult(rawValue: syntax.nodes[$0].value) }
        if let resultTag {
            game.result = TagColumns.result(resultTag.value)
            if !TagColumns.isDecided(game.result!), let marker, marker != .unknown {
                // `[Result "*"]` over a finished game: the column holds what the marker says.
                game.result = marker.text
            }
            if game.result != resultTag.value { keep(resultTag.pair) }
        } else if let marker {
            game.result = marker.text
        }

        let start = GameStart(variantTag: variantTag, fenTag: fenTag?.value)
        if case .unsupported(let name) = start.variant {
            return .failure(RefusedGame(index: index, reason: "unsupported variant \"\(name)\""))
        }
        if let error = start.fenError {
            return .failure(RefusedGame(index: index, reason: "invalid FEN: \(error.description)"))
        }
        guard let startPosition = start.position else {
            return .failure(RefusedGame(index: index, reason: "no start position"))
        }
        if let fenTag {
            game.fen = TagColumns.fen(fenTag.value, start: startPosition)
            if game.fen != fenTag.value { keep(fenTag.pair) }
        }
        // An export writes `SetUp "1"` with a FEN, `Variant "Chess960"` for a Chess960 start.
        if let setUpTag {
            if game.fen == nil || text.value(setUpTag.valueRange!, scratch: &scratch.value) != "1" { keep(setUpTag) }
        } else if game.fen != nil {
            keepAbsent("SetUp")
        }
        let chess960 = startPosition.isChess960
        if variantTag == nil && chess960 && game.fen != nil { keepAbsent("Variant") }

        var (whiteMaterial, blackMaterial) = materials(startPosition)
        // The line being read is kept in locals; the lines it returns to wait in `parents`.
        var parents = scratch.parents
        parents.removeAll(keepingCapacity: true)
        defer { scratch.parents = parents }
        var position = startPosition
        var inCheck = position.isCheck
        // The position before the last move of the line being read, when there is one.
        var previous = startPosition
        var hasPrevious = false
        var ply = PGNWriter.ply(of: startPosition)
        // The blob is about as long as the movetext (comments are most of both).
        var out = Movetext(full: content == .full, commentRows: commentRows)
        out.moves.reserveCapacity(syntax.range.count + 16)
        var moves2: [UInt8] = []
        moves2.reserveCapacity(syntax.nodes.count)
        var mainlinePlies = 0
        var hashes: [UInt64] = []
        hashes.reserveCapacity(syntax.nodes.count / 2 + 2)
        hashes.append(startPosition.hash)
        // The game's signature (`GameSignature`), worked out as the mainline is played.
        var signature = SignatureBuilder(home: UInt16(truncatingIfNeeded: GameEncoder.pawnHome(startPosition)))
        var skipped = 0  // depth inside variations left out (`mainline` content)
        let full = out.full
        let nodes = syntax.nodes

        for k in nodes.indices {
            let node = nodes[k]
            var keptUntilHere = false
            if let kept = out.keeping {
                // Everything up to the end of the kept line is text, variations included.
                switch node.kind {
                case .variationStart:
                    out.keeping!.depth += 1
                    out.keptEnd = node.range.upperBound
                    continue
                case .variationEnd where kept.depth > 0:
                    out.keeping!.depth -= 1
                    out.keptEnd = node.range.upperBound
                    if kept.ownParen && kept.depth == 1 {
                        out.endKeeping(text, mainline: parents.isEmpty, ply: mainlinePlies - 1, scratch: &scratch.kept)
                    }
                    continue
                case .variationEnd, .result:
                    // The end of the kept line; the `)` goes on to close its variation.
                    out.endKeeping(text, mainline: parents.isEmpty, ply: mainlinePlies - 1, scratch: &scratch.kept)
                    keptUntilHere = true
                default:
                    out.keptEnd = node.range.upperBound
                    continue
                }
            }
            if skipped == 0 && (node.kind == .note || (node.kind == .nag && node.value < 0 && full)) {
                if let run = out.notes, out.lastNote == k - 1 {
                    out.notes = run.lowerBound..<node.range.upperBound
                } else {
                    out.flushNotes(
                        text, nodes, mainline: parents.isEmpty, ply: ply, mainlinePly: mainlinePlies - 1,
                        scratch: &scratch.kept)
                    out.notes = node.range
                }
                out.lastNote = k
                continue
            }
            if out.notes != nil {
                out.flushNotes(
                    text, nodes, mainline: parents.isEmpty, ply: ply, mainlinePly: mainlinePlies - 1,
                    scratch: &scratch.kept)
            }
            switch node.kind {
            case .moveNumber, .note:
                continue
            case .result:
                // `1/2` is the one three-byte result with a slash.
                if node.range.count == 3 && bytes[node.range.lowerBound + 1] == 0x2F {
                    out.changes.append("the result 1/2 read as 1/2-1/2")
                }
                if !keptUntilHere, k > 0, nodes[k - 1].kind == .move,
                    nodes[k - 1].range.upperBound == node.range.lowerBound
                {
                    let move = UnsafeBufferPointer(rebasing: bytes[nodes[k - 1].range])
                    out.changes.append(
                        "\(quoted(text, nodes[k - 1].range.lowerBound..<node.range.upperBound)) read as \(moveLabel(san: move, ply: ply - 1)) and the result \(GameResult(rawValue: node.value)?.text ?? "*")"
                    )
                }
            case .move:
                if skipped > 0 { continue }
                let san = UnsafeBufferPointer(rebasing: bytes[node.range])
                let inVariation = !parents.isEmpty
                previous = position
                let move: Move
                do throws(SANError) {
                    move = try position.applySAN(bytes: san, inCheck: inCheck)
                } catch {
                    let what = moveFailure(error, san: san, ply: ply, inVariation: false)
                    out.keepLine(syntax, from: k, what, bytes: bytes, mainline: !inVariation)
                    if !inVariation { out.incomplete = what }
                    continue
                }
                guard !move.isNull, let moveIndex = MoveOrder.index(of: move, in: previous, inCheck: inCheck) else {
                    position = previous
                    out.keepLine(
                        syntax, from: k, "null move \(moveLabel(san: san, ply: ply))", bytes: bytes,
                        mainline: !inVariation)
                    continue
                }
                out.moves.append(UInt8(truncatingIfNeeded: moveIndex))
                hasPrevious = true
                ply += 1
                inCheck = position.isCheck
                if !inVariation {
                    mainlinePlies += 1
                    hashes.append(position.hash)
                    Moves2.append(move, chess960: chess960, to: &moves2)
                    signature.played(home: UInt16(truncatingIfNeeded: GameEncoder.pawnHome(position))) {
                        ReplayMaterial(position).packed
                    }
                    // Material changes only by a capture or a promotion.
                    if position.occupied.count != previous.occupied.count || move.promotion != nil {
                        let (white, black) = materials(position)
                        whiteMaterial = min(whiteMaterial, white)
                        blackMaterial = min(blackMaterial, black)
                    }
                }
            case .nag:
                if skipped > 0 || !full { continue }
                MovesBlob.appendNAG(node.value, to: &out.moves)
            case .comment:
                if skipped > 0 { continue }
                let mainline = parents.isEmpty
                guard full || (commentRows && mainline) else { continue }
                // A comment of the game's own that reads as kept movetext is kept as written,
                // braces and all, so that an export gives back a comment.
                if KeptText.isKeptComment(bytes, node.range) {
                    out.keepText(node.range, text, mainline: mainline, ply: mainlinePlies - 1, scratch: &scratch.kept)
                    continue
                }
                withCommentText(text, node.range, lineComment: node.value == 1, scratch: &scratch.value) { body in
                    out.appendComment(body, mainline: mainline, ply: mainlinePlies - 1)
                }
            case .variationStart:
                if skipped > 0 || !full {
                    skipped += 1
                    continue
                }
                guard hasPrevious else {
                    // Nothing for it to replace: the whole variation is kept as text.
                    out.keeping = (node.range.lowerBound, 1, true)
                    out.keptEnd = node.range.upperBound
                    out.changes.append("a variation with no move before it to replace kept as a comment")
                    continue
                }
                out.moves.append(MovesBlob.variationStart)
                parents.append(Line(position: position, before: previous, ply: ply))
                position = previous
                inCheck = position.isCheck
                hasPrevious = false
                ply -= 1
            case .variationEnd:
                if skipped > 0 {
                    skipped -= 1
                    continue
                }
                guard let parent = parents.popLast() else { continue }
                out.moves.append(MovesBlob.variationEnd)
                position = parent.position
                inCheck = position.isCheck
                if let before = parent.before { previous = before }
                hasPrevious = parent.before != nil
                ply = parent.ply
            }
        }
        out.flushNotes(
            text, nodes, mainline: parents.isEmpty, ply: ply, mainlinePly: mainlinePlies - 1, scratch: &scratch.kept)
        out.endKeeping(text, mainline: parents.isEmpty, ply: mainlinePlies - 1, scratch: &scratch.kept)
        // A variation left open at the end of the game is closed.
        if !parents.isEmpty { out.changes.append("a variation left open closed at the end of the game") }
        while let parent = parents.popLast() {
            out.moves.append(MovesBlob.variationEnd)
            position = parent.position
        }
        if syntax.tags.isEmpty && syntax.resultIndex == nil && mainlinePlies == 0
            && !nodes.contains(where: { $0.kind == .move })
        {
            return .failure(RefusedGame(index: index, reason: "not a game: text with no tags, moves or result"))
        }
        if strict, let first = out.changes.first {
            return .failure(RefusedGame(index: index, reason: first))
        }
        if let incomplete = out.incomplete {
            game.incomplete = true
            // Any program that reads the exported game shows the tag: its moves stop early.
            if !hasIncompleteTag {
                if !otherTags.isEmpty { otherTags.append(0x0A) }
                otherTags.append(
                    contentsOf: PGNWriter.tagPair(
                        name: "Incomplete", value: "\(incomplete): the moves from there are kept as a comment"
                    ).utf8)
            }
        }
        game.otherTagBytes = otherTags
        game.changes = out.changes
        game.index = index
        game.commentRows = out.rows
        game.commentBytes = out.commentBytes
        game.plyCount = mainlinePlies
        var content = Hasher()
        content.combine(game.date)
        content.combine(game.utcTime)
        content.combine(game.round)
        // The result by its length and first byte (`1-0`, `0-1`, `1/2-1/2`, `*`), the FEN
        // where there is one: hashing them as strings cost the readers more than they tell.
        if let result = game.result { content.combine(result.utf8.count << 8 | Int(result.utf8.first ?? 0)) }
        if let fen = game.fen { content.combine(fen) }
        content.combine(out.moves.count)
        moves2.withUnsafeBytes { content.combine(bytes: $0) }
        game.contentHash = content.finalize()
        game.moves = out.moves
        game.moves2 = moves2
        game.positionHashes = hashes
        game.finalMaterial = ReplayMaterial(position).packed
        game.signature = signature.signature(final: game.finalMaterial, ordered: game.fen == nil)
        game.whiteMaterial = whiteMaterial
        game.blackMaterial = blackMaterial
        game.pawnHome = pawnHome(position)
        return .success(game)
    }

    /// What the movetext of one game gives while it is read: the `Moves` blob, the mainline's
    /// comment rows, and what could not be stored as moves, kept as text where it stood
    /// (`KeptText`) and said in `changes`. A value of its own, so that the read's hot loop
    /// reaches it without the run-time exclusivity checks that locals captured by nested
    /// functions would need.
    struct Movetext {
        let full: Bool
        let commentRows: Bool
        var moves: [UInt8] = []
        var rows: [CommentRow] = []
        var commentBytes: [UInt8] = []
        var changes: [String] = []
        /// The line being kept as text since `start`: the variations opened in it, and whether
        /// it began at a `(` of its own (a variation with no move to replace), whose `)` ends it.
        var keeping: (start: Int, depth: Int, ownParen: Bool)?
        var keptEnd = 0
        /// Notes next to each other, kept as one text.
        var notes: Range<Int>?
        var lastNote = -2
        /// Why the mainline stops before the movetext does, when a move of it cannot be played.
        var incomplete: String?

        init(full: Bool, commentRows: Bool) {
            self.full = full
            self.commentRows = commentRows
        }

        /// A comment (UTF-8) at the current place: in the blob, and for the mainline a row, after
        /// the mainline's move `ply` (0-based).
        mutating func appendComment(_ body: UnsafeBufferPointer<UInt8>, mainline: Bool, ply: Int) {
            let row = commentRows && mainline
            // In one chunk of the blob (its header then the text), a row points to it.
            let start = moves.count + 3
            if full { MovesBlob.appendComment(body, to: &moves) }
            guard row else { return }
            if full && body.count < MovesBlob.maximumChunk - 3 {
                rows.append(CommentRow(ply: ply, inMoves: start))
            } else {
                var length = body.count
                for _ in 0..<4 {
                    commentBytes.append(UInt8(truncatingIfNeeded: length))
                    length >>= 8
                }
                rows.append(CommentRow(ply: ply, inExtra: commentBytes.count))
                commentBytes.append(contentsOf: body)
            }
        }

        /// The source text of `range`, kept where it stood. False when nothing can hold it (a
        /// `mainline` blob without comment rows).
        @discardableResult
        mutating func keepText(
            _ range: Range<Int>, _ text: Text, mainline: Bool, ply: Int, scratch: inout [UInt8]
        ) -> Bool {
            guard full || (commentRows && mainline) else { return false }
            if text.latin1 {
                KeptText.comment(keeping: text.string(range).utf8, into: &scratch)
            } else {
                KeptText.comment(keeping: UnsafeBufferPointer(rebasing: text.bytes[range]), into: &scratch)
            }
            scratch.withUnsafeBufferPointer { appendComment($0, mainline: mainline, ply: ply) }
            return true
        }

        /// The notes read since the last other node, kept as one text and said.
        mutating func flushNotes(
            _ text: Text, _ nodes: [MovetextNode], mainline: Bool, ply: Int, mainlinePly: Int, scratch: inout [UInt8]
        ) {
            guard let run = notes else { return }
            notes = nil
            let kept = keepText(run, text, mainline: mainline, ply: mainlinePly, scratch: &scratch)
            // Named by the move it follows in its line.
            var place = "before the first move of its line"
            var k = lastNote
            while k > 0 {
                k -= 1
                let kind = nodes[k].kind
                if kind == .move {
                    place =
                        "after "
                        + moveLabel(san: UnsafeBufferPointer(rebasing: text.bytes[nodes[k].range]), ply: ply - 1)
                    break
                }
                if kind == .variationStart || kind == .variationEnd { break }
            }
            let what = GameResult(text: text.string(run)) != nil ? "the result" : "the note"
            changes.append(
                "\(what) \(quoted(text, run)) \(place) \(kept ? "kept as a comment" : "left out with the comments")")
        }

        /// A line that cannot be stored from the node at `k` on: kept as text to its end (the
        /// `)` of its variation, or the end of the game).
        mutating func keepLine(
            _ syntax: GameSyntax, from k: Int, _ what: String, bytes: UnsafeBufferPointer<UInt8>, mainline: Bool
        ) {
            let nodes = syntax.nodes
            // With the move number before it (which the import's reader may not list as a node).
            var floor = syntax.range.lowerBound
            if let before = nodes[..<k].last(where: { $0.kind != .moveNumber }) { floor = before.range.upperBound }
            let start = moveNumberStart(bytes, before: nodes[k].range.lowerBound, floor: floor)
            keeping = (start, 0, false)
            keptEnd = nodes[k].range.upperBound
            if mainline {
                let rest = full || commentRows ? "the rest kept as a comment" : "the rest left out (no comments stored)"
                changes.append("\(what): the game stored up to it, \(rest)")
            } else {
                changes.append("\(what) in a variation: the variation kept as a comment from there")
            }
        }

        /// Ends the line kept as text at `keptEnd`.
        mutating func endKeeping(_ text: Text, mainline: Bool, ply: Int, scratch: inout [UInt8]) {
            guard let kept = keeping else { return }
            keeping = nil
            keepText(kept.start..<keptEnd, text, mainline: mainline, ply: ply, scratch: &scratch)
        }
    }

    /// A piece of the text in quotes, as a change is said: at most 40 characters.
    static func quoted(_ text: Text, _ range: Range<Int>) -> String {
        var words = text.string(range)
        if words.count > 40 { words = String(words.prefix(39)) + "…" }
        return "\"\(words)\""
    }

    /// Where the move number written before `offset` starts (`12.`, `12...`, `12 ...`, `12…`,
    /// white space between), not before `floor`; `offset` when there is none.
    static func moveNumberStart(_ bytes: UnsafeBufferPointer<UInt8>, before offset: Int, floor: Int) -> Int {
        var k = offset
        func skipSpace() { while k > floor && Lexer.isSpace(bytes[k - 1]) { k -= 1 } }
        skipSpace()
        let dotsEnd = k
        if k - 3 >= floor && bytes[k - 3] == 0xE2 && bytes[k - 2] == 0x80 && bytes[k - 1] == 0xA6 {
            k -= 3
        } else {
            while k > floor && bytes[k - 1] == 0x2E { k -= 1 }
        }
        guard k < dotsEnd else { return offset }
        skipSpace()
        let digitsEnd = k
        while k > floor && bytes[k - 1] &- 0x30 < 10 { k -= 1 }
        return k < digitsEnd && (k == floor || !Lexer.isSymbolByte(bytes[k - 1])) ? k : offset
    }

    /// The tags that give a column its value, known by their name's bytes.
    enum TagField {
        case event, site, date, utcDate, utcTime, round, white, black, whiteElo, blackElo, result, timeControl
        case eco, fen, variant

        static let names: [(StaticString, TagField)] = [
            ("Event", .event), ("Site", .site), ("Date", .date), ("UTCDate", .utcDate), ("UTCTime", .utcTime),
            ("Round", .round), ("White", .white), ("Black", .black), ("WhiteElo", .whiteElo),
            ("BlackElo", .blackElo), ("Result", .result), ("TimeControl", .timeControl), ("ECO", .eco),
            ("FEN", .fen), ("Variant", .variant),
        ]

        static func isSetUp(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
            name.count == 5 && name.elementsEqual("SetUp".utf8)
        }

        static func isIncomplete(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
            name.count == 10 && name.elementsEqual("Incomplete".utf8)
        }

        init?(_ name: UnsafeBufferPointer<UInt8>) {
            for (literal, field) in TagField.names
            where literal.utf8CodeUnitCount == name.count
                && memcmp(literal.utf8Start, name.baseAddress!, name.count) == 0
            {
                self = field
                return
            }
            return nil
        }
    }

    /// White's and Black's material, P=1 N=3 B=3 R=5 Q=9.
    @inline(__always)
    static func materials(_ position: Position) -> (Int, Int) {
        func value(_ side: Bitboard) -> Int {
            (position.pawns & side).count + 3 * ((position.knights | position.bishops) & side).count + 5
                * (position.rooks & side).count + 9 * (position.queens & side).count
        }
        return (value(position.white), value(position.black))
    }

    /// White pawns on rank 2 as bits 0–7 (a-file first), Black pawns on rank 7 as bits 8–15.
    static func pawnHome(_ position: Position) -> Int {
        let white = (position.pawns & position.white).raw >> 8 & 0xFF
        let black = (position.pawns & position.black).raw >> 48 & 0xFF
        return Int(white | black << 8)
    }

    /// An Elo tag: digits (spaces around allowed), `-` for unrated (0); anything else is nil.
    public static func parseElo(_ text: String) -> Int? { TagColumns.elo(text) }

    /// Calls `body` with a comment's text without its delimiters and surrounding white space,
    /// as UTF-8: the source bytes themselves, or their conversion (in `scratch`) from Latin-1.
    @inline(__always)
    static func withCommentText(
        _ text: Text, _ range: Range<Int>, lineComment: Bool, scratch: inout [UInt8],
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        let bytes = text.bytes
        var lower = range.lowerBound + 1  // `{` or `;`
        var upper = range.upperBound
        if !lineComment && upper > lower && bytes[upper - 1] == 0x7D { upper -= 1 }
        while lower < upper && Lexer.isSpace(bytes[lower]) { lower += 1 }
        while upper > lower && Lexer.isSpace(bytes[upper - 1]) { upper -= 1 }
        if text.latin1 {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: text.string(lower..<upper).utf8)
            scratch.withUnsafeBufferPointer(body)
        } else {
            body(UnsafeBufferPointer(rebasing: bytes[lower..<upper]))
        }
    }

    /// `23...Nf3` for the move about to be played at `ply`.
    static func moveLabel(san: UnsafeBufferPointer<UInt8>, ply: Int) -> String {
        var text = String(decoding: san, as: UTF8.self)
        if text.count > 40 { text = String(text.prefix(39)) + "…" }
        return PGNWriter.moveNumber(ply: ply) + text
    }

    static func moveFailure(_ error: SANError, san: UnsafeBufferPointer<UInt8>, ply: Int, inVariation: Bool) -> String {
        let label = moveLabel(san: san, ply: ply)
        let place = inVariation ? " in a variation" : ""
        switch error {
        case .syntax: return "unreadable move \(label)\(place)"
        case .illegal: return "illegal move \(label)\(place)"
        case .ambiguous: return "ambiguous move \(label)\(place)"
        }
    }
}

extension String {
    /// Without leading and trailing white space (`Lexer.isSpace`).
    var trimmingASCIISpaces: String {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        func space(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCII && Lexer.isSpace(UInt8(scalar.value)) }
        while start < end && space(scalars[start]) { start = scalars.index(after: start) }
        while end > start && space(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        if start == scalars.startIndex && end == scalars.endIndex { return self }
        return String(scalars[start..<end])
    }
}
