import ChessCore
import PGN

/// One game ready for the `Games` table: every column's value, worked out from its PGN.
public struct EncodedGame: Sendable {
    /// The game's number in its file or batch, from 0.
    public var index: Int
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
    /// The mainline's comments: the 0-based index of the move each follows (-1 before the
    /// first move), and its UTF-8 text as a range of `commentBytes`.
    public var commentRows: [(ply: Int, range: Range<Int>)]
    public var commentBytes: [UInt8]

    /// The mainline's comments as text.
    public var comments: [(ply: Int, text: String)] {
        commentRows.map { ($0.ply, String(decoding: commentBytes[$0.range], as: UTF8.self)) }
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
        _ source: SourceText, firstIndex: Int = 0, content: MovesContent = .full
    ) -> [Result<EncodedGame, RefusedGame>] {
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        var results: [Result<EncodedGame, RefusedGame>] = []
        results.reserveCapacity(parser.games.count)
        var scratch = Scratch()
        for (k, syntax) in parser.games.enumerated() {
            let replay = GameReplay(source: source, syntax: syntax, index: firstIndex + k)
            results.append(encode(replay, content: content, scratch: &scratch))
        }
        return results
    }

    /// Reused between games so that lines of play are not allocated again for each.
    struct Scratch {
        var lines: [Line] = []
    }

    struct Line {
        var position: Position
        var before: Position?
        /// Plies from the start of the game to `position`.
        var ply: Int
    }

    /// One parsed game.
    public static func encode(_ replay: GameReplay, content: MovesContent = .full) -> Result<EncodedGame, RefusedGame> {
        var scratch = Scratch()
        return encode(replay, content: content, scratch: &scratch)
    }

    static func encode(
        _ replay: GameReplay, content: MovesContent, scratch: inout Scratch
    ) -> Result<
        EncodedGame, RefusedGame
    > {
        let index = replay.index
        var game = EncodedGame(
            index: index, whiteMaterial: 39, blackMaterial: 39, plyCount: 0, moves: [], pawnHome: 0xFFFF, moves2: [],
            commentRows: [], commentBytes: [])
        var variantTag: String?
        var fenTag: String?
        var utcDate: String?
        var resultTag: String?
        for tag in replay.syntax.tags {
            guard let value = replay.value(of: tag) else { continue }
            switch replay.text(tag.nameRange) {
            case "Event": game.event = value
            case "Site": game.site = value
            case "Date": game.date = value
            case "UTCDate": utcDate = value
            case "UTCTime": game.utcTime = value
            case "Round": game.round = value
            case "White": game.white = value
            case "Black": game.black = value
            case "WhiteElo": game.whiteElo = parseElo(value)
            case "BlackElo": game.blackElo = parseElo(value)
            case "Result": resultTag = value
            case "TimeControl": game.timeControl = value
            case "ECO": game.eco = value
            case "FEN": fenTag = value
            case "Variant": variantTag = value
            default: break
            }
        }
        if game.date == nil || game.date!.isEmpty, let utcDate { game.date = utcDate }
        if let resultTag {
            game.result = resultTag
        } else if let marker = replay.syntax.resultIndex {
            game.result = GameResult(rawValue: replay.syntax.nodes[marker].value)?.text
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
        var lines = scratch.lines
        lines.removeAll(keepingCapacity: true)
        defer { scratch.lines = lines }
        let startPly = (startPosition.fullmoveNumber - 1) * 2 + (startPosition.turn == .black ? 1 : 0)
        lines.append(Line(position: startPosition, before: nil, ply: startPly))
        var moves: [UInt8] = []
        moves.reserveCapacity(replay.syntax.nodes.count + 8)
        var moves2: [UInt8] = []
        moves2.reserveCapacity(2 * replay.syntax.nodes.count)
        var mainlinePlies = 0
        var skipped = 0  // depth inside variations left out (`mainline` content)
        let full = content == .full
        let source = replay.source
        let base = replay.base

        let failure: RefusedGame? = source.bytes.withUnsafeBufferPointer { bytes -> RefusedGame? in
            for node in replay.syntax.nodes {
                let lower = node.range.lowerBound - base
                let upper = node.range.upperBound - base
                switch node.kind {
                case .moveNumber, .result:
                    continue
                case .move:
                    if skipped > 0 { continue }
                    let top = lines.count - 1
                    let position = lines[top].position
                    let san = UnsafeBufferPointer(rebasing: bytes[lower..<upper])
                    let played: (SANMove, Position)
                    do throws(SANError) {
                        played = try position.playSAN(bytes: san)
                    } catch {
                        return RefusedGame(
                            index: index,
                            reason: moveFailure(error, san: san, ply: lines[top].ply, inVariation: top > 0))
                    }
                    let move = played.0.move
                    if move.isNull {
                        return RefusedGame(
                            index: index,
                            reason:
                                "null move \(moveLabel(san: san, ply: lines[top].ply))\(top > 0 ? " in a variation" : ""): the database cannot hold it"
                        )
                    }
                    let after = played.1
                    guard let moveIndex = MoveOrder.index(of: move, in: position) else {
                        return RefusedGame(
                            index: index, reason: "illegal move \(moveLabel(san: san, ply: lines[top].ply))")
                    }
                    moves.append(UInt8(moveIndex))
                    lines[top].before = position
                    lines[top].position = after
                    lines[top].ply += 1
                    if top == 0 {
                        mainlinePlies += 1
                        Moves2.append(move, chess960: chess960, to: &moves2)
                        let (white, black) = materials(after)
                        whiteMaterial = min(whiteMaterial, white)
                        blackMaterial = min(blackMaterial, black)
                    }
                case .nag:
                    if skipped > 0 || !full || node.value < 0 { continue }
                    MovesBlob.appendNAG(node.value, to: &moves)
                case .comment:
                    if skipped > 0 { continue }
                    let bodyStart = game.commentBytes.count
                    appendCommentText(
                        bytes, lower..<upper, lineComment: node.value == 1, source: source, to: &game.commentBytes)
                    let body = bodyStart..<game.commentBytes.count
                    if full {
                        MovesBlob.appendComment(game.commentBytes[body], to: &moves)
                    }
                    if lines.count == 1 {
                        game.commentRows.append((mainlinePlies - 1, body))
                    } else {
                        game.commentBytes.removeSubrange(body)
                    }
                case .variationStart:
                    if skipped > 0 || !full {
                        skipped += 1
                        continue
                    }
                    let top = lines.count - 1
                    guard let before = lines[top].before else {
                        return RefusedGame(
                            index: index, reason: "a variation comes before any move it could replace")
                    }
                    moves.append(MovesBlob.variationStart)
                    lines.append(Line(position: before, before: nil, ply: lines[top].ply - 1))
                case .variationEnd:
                    if skipped > 0 {
                        skipped -= 1
                        continue
                    }
                    guard lines.count > 1 else { continue }
                    moves.append(MovesBlob.variationEnd)
                    lines.removeLast()
                }
            }
            return nil
        }
        if let failure { return .failure(failure) }
        // A variation left open at the end of the game is closed.
        while lines.count > 1 {
            moves.append(MovesBlob.variationEnd)
            lines.removeLast()
        }
        let final = lines[0].position
        game.plyCount = mainlinePlies
        game.moves = moves
        game.moves2 = moves2
        game.whiteMaterial = whiteMaterial
        game.blackMaterial = blackMaterial
        game.pawnHome = pawnHome(final)
        return .success(game)
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

    /// A comment's text without its delimiters and surrounding white space, as UTF-8.
    static func appendCommentText(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, lineComment: Bool, source: SourceText,
        to output: inout [UInt8]
    ) {
        var lower = range.lowerBound + 1  // `{` or `;`
        var upper = range.upperBound
        if !lineComment && upper > lower && bytes[upper - 1] == 0x7D { upper -= 1 }
        while lower < upper && isSpace(bytes[lower]) { lower += 1 }
        while upper > lower && isSpace(bytes[upper - 1]) { upper -= 1 }
        if source.encoding == .utf8 {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lower..<upper]))
        } else {
            output.append(contentsOf: source.string(lower..<upper).utf8)
        }
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// `23...Nf3` for the move about to be played at `ply`.
    static func moveLabel(san: UnsafeBufferPointer<UInt8>, ply: Int) -> String {
        var text = String(decoding: san, as: UTF8.self)
        if text.count > 40 { text = String(text.prefix(39)) + "…" }
        return "\(ply / 2 + 1)\(ply % 2 == 1 ? "..." : ".")\(text)"
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
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmingASCIISpaces: String {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        func space(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
        }
        while start < end && space(scalars[start]) { start = scalars.index(after: start) }
        while end > start && space(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        if start == scalars.startIndex && end == scalars.endIndex { return self }
        return String(scalars[start..<end])
    }
}
