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

    /// One game: its tags read, its start position found, its movetext walked, then what the
    /// whole game gives.
    static func encode(
        _ syntax: GameSyntax, text: Text, index: Int, content: MovesContent, commentRows: Bool, strict: Bool,
        scratch: inout Scratch
    ) -> Result<EncodedGame, RefusedGame> {
        var game = EncodedGame(
            whiteMaterial: 39, blackMaterial: 39, plyCount: 0, moves: [], pawnHome: 0xFFFF, moves2: [],
            commentRows: [], commentBytes: [])
        var tags = TagReading(text)
        tags.read(syntax, into: &game, scratch: &scratch.value)
        tags.setDate(of: &game, scratch: &scratch.value)
        let marker = syntax.resultIndex.flatMap { GameResult(rawValue: syntax.nodes[$0].value) }
        tags.setResult(of: &game, marker: marker, scratch: &scratch.value)
        let start: Position
        do throws(RefusedGame) {
            start = try tags.start(of: &game, index: index, scratch: &scratch.value)
        } catch {
            return .failure(error)
        }

        var walk = MovetextWalk(from: start, syntax, content: content, commentRows: commentRows)
        walk.read(syntax, text, scratch: &scratch)
        if let reason = refusal(syntax, walk, strict: strict) {
            return .failure(RefusedGame(index: index, reason: reason))
        }
        if let incomplete = walk.out.incomplete {
            game.incomplete = true
            tags.keepIncomplete(incomplete)
        }
        game.otherTagBytes = tags.kept
        game.index = index
        finish(&game, walk)
        return .success(game)
    }

    /// Why a game whose movetext was read is refused: text with no tags, moves or result is no
    /// game, and with `strict` a game is refused for its first change. Nil when it is stored.
    static func refusal(_ syntax: GameSyntax, _ walk: MovetextWalk, strict: Bool) -> String? {
        if syntax.tags.isEmpty && syntax.resultIndex == nil && walk.mainlinePlies == 0
            && !syntax.nodes.contains(where: { $0.kind == .move })
        {
            return "not a game: text with no tags, moves or result"
        }
        if strict, let first = walk.out.changes.first { return first }
        return nil
    }

    /// The end of a game: what its movetext gave, the duplicate check's hash of its content,
    /// and its last position's material, signature and pawns at home.
    static func finish(_ game: inout EncodedGame, _ walk: consuming MovetextWalk) {
        game.changes = walk.out.changes
        game.commentRows = walk.out.rows
        game.commentBytes = walk.out.commentBytes
        game.plyCount = walk.mainlinePlies
        game.moves = walk.out.moves
        game.moves2 = walk.moves2
        game.contentHash = contentHash(of: game)
        game.positionHashes = walk.hashes
        game.finalMaterial = ReplayMaterial(walk.position).packed
        game.signature = walk.signature.signature(final: game.finalMaterial, ordered: game.fen == nil)
        game.whiteMaterial = walk.whiteMaterial
        game.blackMaterial = walk.blackMaterial
        game.pawnHome = pawnHome(walk.position)
    }

    /// `EncodedGame.contentHash`, from the game's columns and moves.
    static func contentHash(of game: EncodedGame) -> Int {
        var content = Hasher()
        content.combine(game.date)
        content.combine(game.utcTime)
        content.combine(game.round)
        // The result by its length and first byte (`1-0`, `0-1`, `1/2-1/2`, `*`), the FEN
        // where there is one: hashing them as strings cost the readers more than they tell.
        if let result = game.result { content.combine(result.utf8.count << 8 | Int(result.utf8.first ?? 0)) }
        if let fen = game.fen { content.combine(fen) }
        content.combine(game.moves.count)
        game.moves2.withUnsafeBytes { content.combine(bytes: $0) }
        return content.finalize()
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
