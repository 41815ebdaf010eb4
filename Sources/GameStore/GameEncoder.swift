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
    /// A hash of what the duplicate check compares besides the names: date, time, round, the
    /// length of `moves` and the mainline. Worked out where the game is read, so that the
    /// writer only adds the names' IDs to it.
    var contentHash = 0
    /// The tags no column holds (`Opening`, `Termination`, `Annotator`, `UTCDate` …) as PGN tag
    /// pairs, one a line, in the game's order, UTF-8; empty when there are none.
    public var otherTagBytes: [UInt8] = []

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
    /// `firstIndex`, in order.
    public static func encode(
        _ source: SourceText, firstIndex: Int = 0, content: MovesContent = .full, commentRows: Bool = true
    ) -> [Result<EncodedGame, RefusedGame>] {
        encode(bytes: source.bytes, firstIndex: firstIndex, content: content, commentRows: commentRows)
    }

    /// `encode(_:)` on UTF-8 bytes (or Latin-1 when they are not valid UTF-8).
    public static func encode(
        bytes: [UInt8], firstIndex: Int = 0, content: MovesContent = .full, commentRows: Bool = true
    ) -> [Result<EncodedGame, RefusedGame>] {
        bytes.withUnsafeBufferPointer {
            encode(buffer: $0, firstIndex: firstIndex, content: content, commentRows: commentRows)
        }
    }

    /// `encode(bytes:)` on bytes in memory the caller holds (a mapped file, say). Without
    /// `commentRows`, the games' `commentRows` stay empty.
    public static func encode(
        buffer: UnsafeBufferPointer<UInt8>, firstIndex: Int = 0, content: MovesContent = .full,
        commentRows: Bool = true
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
                            commentRows: commentRows, scratch: &scratch))
                }
                break
            }
            results.append(
                encode(
                    game, text: text, index: firstIndex + results.count, content: content, commentRows: commentRows,
                    scratch: &scratch))
        }
        return results
    }

    /// Encodes games already read from `buffer`.
    static func encode(
        _ games: [GameSyntax], in buffer: UnsafeBufferPointer<UInt8>, firstIndex: Int, content: MovesContent,
        commentRows: Bool
    ) -> [Result<EncodedGame, RefusedGame>] {
        var results: [Result<EncodedGame, RefusedGame>] = []
        results.reserveCapacity(games.count)
        var scratch = Scratch()
        let text = Text(buffer)
        for (k, syntax) in games.enumerated() {
            results.append(
                encode(
                    syntax, text: text, index: firstIndex + k, content: content, commentRows: commentRows,
                    scratch: &scratch))
        }
        return results
    }

    /// Lines of play left to finish while a variation is read, kept between games.
    struct Scratch {
        var parents: [Line] = []
        var value: [UInt8] = []
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
        _ syntax: GameSyntax, text: Text, index: Int, content: MovesContent, commentRows: Bool,
        scratch: inout Scratch
    ) -> Result<EncodedGame, RefusedGame> {
        var game = EncodedGame(
            whiteMaterial: 39, blackMaterial: 39, plyCount: 0, moves: [], pawnHome: 0xFFFF, moves2: [],
            commentRows: [], commentBytes: [])
        var variantTag: String?
        var fenTag: String?
        var utcDate: String?
        var resultTag: String?
        let bytes = text.bytes
        var otherTags: [UInt8] = []
        /// A tag pair for the `Tags` column: its bytes as written when they are a tag pair on
        /// one line in UTF-8, else written again from its name and value.
        func keep(_ tag: TagPair, _ valueRange: Range<Int>) {
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
        for tag in syntax.tags {
            guard let valueRange = tag.valueRange else { continue }
            let name = UnsafeBufferPointer(rebasing: bytes[tag.nameRange])
            guard let field = TagField(name) else {
                // `SetUp` goes with the FEN column; a tag with no name is not a tag.
                if !name.isEmpty && !TagField.isSetUp(name) { keep(tag, valueRange) }
                continue
            }
            let value = text.value(valueRange, scratch: &scratch.value)
            switch field {
            case .event: game.event = value
            case .site: game.site = value
            case .date: game.date = value
            case .utcDate:
                utcDate = value
                // Kept as it is: the date column holds it only when there is no `Date`.
                keep(tag, valueRange)
            case .utcTime: game.utcTime = value
            case .round: game.round = value
            case .white: game.white = value
            case .black: game.black = value
            case .whiteElo: game.whiteElo = parseElo(value)
            case .blackElo: game.blackElo = parseElo(value)
            case .result: resultTag = value
            case .timeControl: game.timeControl = value
            case .eco: game.eco = value
            case .fen: fenTag = value
            case .variant: variantTag = value
            }
        }
        if game.date == nil || game.date!.isEmpty, let utcDate { game.date = utcDate }
        game.otherTagBytes = otherTags
        if let resultTag {
            game.result = resultTag
        } else if let marker = syntax.resultIndex {
            game.result = GameResult(rawValue: syntax.nodes[marker].value)?.text
        }

        let start = GameStart(variantTag: variantTag, fenTag: fenTag)
        if case .unsupported(let name) = start.variant {
            return .failure(RefusedGame(index: index, reason: "unsupported variant \"\(name)\""))
        }
        if let error = start.fenError {
            return .failure(RefusedGame(index: index, reason: "invalid FEN: \(error.description)"))
        }
        guard let startPosition = start.position else {
            return .failure(RefusedGame(index: index, reason: "no start position"))
        }
        if let fenTag, startPosition != .startingPosition || startPosition.isChess960 {
            game.fen = fenTag.trimmingASCIISpaces
        }
        let chess960 = startPosition.isChess960

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
        var moves: [UInt8] = []
        // The blob is about as long as the movetext (comments are most of both).
        moves.reserveCapacity(syntax.range.count + 16)
        var moves2: [UInt8] = []
        moves2.reserveCapacity(syntax.nodes.count)
        var mainlinePlies = 0
        var hashes: [UInt64] = []
        hashes.reserveCapacity(syntax.nodes.count / 2 + 2)
        hashes.append(startPosition.hash)
        var skipped = 0  // depth inside variations left out (`mainline` content)
        let full = content == .full

        for node in syntax.nodes {
            switch node.kind {
            case .moveNumber, .result:
                continue
            case .move:
                if skipped > 0 { continue }
                let san = UnsafeBufferPointer(rebasing: bytes[node.range])
                let inVariation = !parents.isEmpty
                previous = position
                let move: Move
                do throws(SANError) {
                    move = try position.applySAN(bytes: san, inCheck: inCheck)
                } catch {
                    return .failure(
                        RefusedGame(
                            index: index, reason: moveFailure(error, san: san, ply: ply, inVariation: inVariation)))
                }
                guard !move.isNull, let moveIndex = MoveOrder.index(of: move, in: previous, inCheck: inCheck) else {
                    let place = inVariation ? " in a variation" : ""
                    return .failure(
                        RefusedGame(
                            index: index,
                            reason: "null move \(moveLabel(san: san, ply: ply))\(place): the database cannot hold it"))
                }
                moves.append(UInt8(truncatingIfNeeded: moveIndex))
                hasPrevious = true
                ply += 1
                inCheck = position.isCheck
                if !inVariation {
                    mainlinePlies += 1
                    hashes.append(position.hash)
                    Moves2.append(move, chess960: chess960, to: &moves2)
                    // Material changes only by a capture or a promotion.
                    if position.occupied.count != previous.occupied.count || move.promotion != nil {
                        let (white, black) = materials(position)
                        whiteMaterial = min(whiteMaterial, white)
                        blackMaterial = min(blackMaterial, black)
                    }
                }
            case .nag:
                if skipped > 0 || !full || node.value < 0 { continue }
                MovesBlob.appendNAG(node.value, to: &moves)
            case .comment:
                if skipped > 0 { continue }
                let row = commentRows && parents.isEmpty
                guard full || row else { continue }
                withCommentText(text, node.range, lineComment: node.value == 1, scratch: &scratch.value) { body in
                    // In one chunk of the blob (its header then the text), a row points to it.
                    let start = moves.count + 3
                    if full { MovesBlob.appendComment(body, to: &moves) }
                    guard row else { return }
                    if full && body.count < MovesBlob.maximumChunk - 3 {
                        game.commentRows.append(CommentRow(ply: mainlinePlies - 1, inMoves: start))
                    } else {
                        var length = body.count
                        for _ in 0..<4 {
                            game.commentBytes.append(UInt8(truncatingIfNeeded: length))
                            length >>= 8
                        }
                        game.commentRows.append(CommentRow(ply: mainlinePlies - 1, inExtra: game.commentBytes.count))
                        game.commentBytes.append(contentsOf: body)
                    }
                }
            case .variationStart:
                if skipped > 0 || !full {
                    skipped += 1
                    continue
                }
                guard hasPrevious else {
                    return .failure(
                        RefusedGame(index: index, reason: "a variation comes before any move it could replace"))
                }
                moves.append(MovesBlob.variationStart)
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
                moves.append(MovesBlob.variationEnd)
                position = parent.position
                inCheck = position.isCheck
                if let before = parent.before { previous = before }
                hasPrevious = parent.before != nil
                ply = parent.ply
            }
        }
        // A variation left open at the end of the game is closed.
        while let parent = parents.popLast() {
            moves.append(MovesBlob.variationEnd)
            position = parent.position
        }
        game.plyCount = mainlinePlies
        var content = Hasher()
        content.combine(game.date)
        content.combine(game.utcTime)
        content.combine(game.round)
        content.combine(moves.count)
        moves2.withUnsafeBytes { content.combine(bytes: $0) }
        game.contentHash = content.finalize()
        game.moves = moves
        game.moves2 = moves2
        game.positionHashes = hashes
        game.finalMaterial = ReplayMaterial(position).packed
        game.whiteMaterial = whiteMaterial
        game.blackMaterial = blackMaterial
        game.pawnHome = pawnHome(position)
        return .success(game)
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
    public static func parseElo(_ text: String) -> Int? {
        let trimmed = text.trimmingASCIISpaces
        if trimmed == "-" { return 0 }
        guard !trimmed.isEmpty, trimmed.utf8.count <= 9, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        return Int(trimmed)
    }

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
