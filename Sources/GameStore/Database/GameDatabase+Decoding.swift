import ChessCore
import Dispatch
import Foundation
import GRDB
import PGN

extension GameDatabase {
    /// A game read from one column value as an export reads it: `value` holds the moves in
    /// `layout` (a `Moves` BLOB, text for `.text`, a `Moves2` BLOB for the ocgdb layouts),
    /// played from `fen` or, without one, the standard start. Throws
    /// `GameStoreError.unreadableGame` when the value or the FEN cannot be read.
    public static func decodeMoves(_ value: [UInt8], layout: MovesLayout, fen: String? = nil) throws -> StoredGame {
        var row = GameRow(id: 0)
        row.fen = fen
        switch layout {
        case .ocgdbMoves2, .ocgdbMoves2Old: row.moves2 = value
        case .text:
            row.moves = value
            row.movesAreText = true
        case .enCroissant, .twoByte: row.moves = value
        }
        let readLayout = ReadLayout(
            columns: [:], primary: layout, hasComments: false, hasEvents: false, hasSites: false, hasPlayers: false)
        return try decode(row, layout: readLayout)
    }

    /// Where a stored game starts: its FEN, else the standard start.
    static func startPosition(of row: GameRow) throws -> Position {
        guard let fen = row.fen?.trimmingASCIISpaces, !fen.isEmpty else { return .startingPosition }
        do {
            return try Position(fen: fen)
        } catch {
            throw GameStoreError.unreadableGame(id: row.id, reason: "bad FEN \"\(fen)\": \(error.description)")
        }
    }

    static func decode(_ row: GameRow, layout: ReadLayout) throws -> StoredGame {
        let start = try startPosition(of: row)
        var (elements, used) = try decodeMoves(row, layout: layout, start: start)
        // Comments kept apart (ocgdb, or a `mainline` blob) go back after their moves.
        if !row.comments.isEmpty && !elements.contains(where: { if case .comment = $0 { true } else { false } }) {
            elements = merge(row.comments, into: elements)
        }
        return StoredGame(
            id: row.id, tags: tags(row, start: start), start: start, elements: elements,
            result: marker(row.result), layout: used)
    }

    static func decodeMoves(
        _ row: GameRow, layout: ReadLayout, start: Position
    ) throws -> (
        [MovetextElement], MovesLayout
    ) {
        func moves2(
            _ blob: [UInt8], _ codes: Moves2.PromotionCodes, _ used: MovesLayout
        ) throws -> (
            [MovetextElement], MovesLayout
        ) {
            guard let moves = Moves2.decode(blob, from: start, codes: codes) else {
                throw GameStoreError.unreadableGame(id: row.id, reason: "its Moves2 column names an illegal move")
            }
            return (moves.map(MovetextElement.move), used)
        }
        func enCroissant(_ blob: [UInt8]) throws -> ([MovetextElement], MovesLayout) {
            do {
                return (try MovesBlob.decode(blob, from: start), .enCroissant)
            } catch {
                throw GameStoreError.unreadableGame(id: row.id, reason: error.description)
            }
        }
        switch layout.primary {
        case .enCroissant:
            if let moves = row.moves {
                return row.movesAreText ? try text(row, start: start) : try enCroissant(moves)
            }
            if let blob = row.moves2 { return try moves2(blob, .current, .ocgdbMoves2) }
            return ([], .enCroissant)
        case .ocgdbMoves2, .ocgdbMoves2Old:
            if let blob = row.moves2 {
                return try moves2(blob, layout.primary == .ocgdbMoves2 ? .current : .old, layout.primary)
            }
            if let moves = row.moves {
                return row.movesAreText ? try text(row, start: start) : try enCroissant(moves)
            }
            return ([], layout.primary)
        case .text, .twoByte:
            guard let moves = row.moves else { return ([], layout.primary) }
            if row.movesAreText || layout.primary == .text { return try text(row, start: start) }
            // Ambiguous: En Croissant's encoding if every byte reads, else two bytes a move.
            if let elements = try? MovesBlob.decode(moves, from: start) { return (elements, .enCroissant) }
            return try moves2(moves, .queenFirst, .twoByte)
        }
    }

    /// SAN movetext stored as text.
    static func text(_ row: GameRow, start: Position) throws -> ([MovetextElement], MovesLayout) {
        var pgn = ""
        if let fen = row.fen, !fen.isEmpty { pgn += PGNWriter.tagPair(name: "FEN", value: fen) + "\n\n" }
        pgn += String(decoding: row.moves ?? [], as: UTF8.self)
        let results = GameEncoder.encode(SourceText(pgn))
        guard let first = results.first else { return ([], .text) }
        switch first {
        case .success(let game):
            do {
                return (try MovesBlob.decode(game.moves, from: start), .text)
            } catch {
                throw GameStoreError.unreadableGame(id: row.id, reason: error.description)
            }
        case .failure(let refused):
            throw GameStoreError.unreadableGame(id: row.id, reason: refused.reason)
        }
    }

    /// Puts mainline comments (by the ply of the move they follow) into a movetext.
    static func merge(_ comments: [(ply: Int, text: String)], into elements: [MovetextElement]) -> [MovetextElement] {
        var byPly: [Int: [String]] = [:]
        for comment in comments { byPly[comment.ply, default: []].append(comment.text) }
        var result: [MovetextElement] = (byPly[-1] ?? []).map(MovetextElement.comment)
        var depth = 0
        var ply = -1
        for element in elements {
            result.append(element)
            switch element {
            case .move where depth == 0:
                ply += 1
                result += (byPly[ply] ?? []).map(MovetextElement.comment)
            case .variationStart: depth += 1
            case .variationEnd: depth -= 1
            default: break
            }
        }
        // Comments past the last move still go at the end.
        for (later, texts) in byPly.sorted(by: { $0.key < $1.key }) where later > ply {
            result += texts.map(MovetextElement.comment)
        }
        return result
    }

    static func marker(_ result: String?) -> String {
        switch result?.trimmingASCIISpaces {
        case "1-0"?: return "1-0"
        case "0-1"?: return "0-1"
        case "1/2-1/2"?, "½-½"?: return "1/2-1/2"
        default: return "*"
        }
    }

    /// The tags a row gives back: the Seven Tag Roster (`?` for what is unknown), then the
    /// other columns that have a value and the `Tags` column's pairs, by name. A tag the
    /// `Tags` column holds beside its column (`TagColumns`: a rating written `?`, a `1/2`
    /// result, a `Variant`) is given back as written while the column holds what it gives; a
    /// tag marked there as absent (`[Date]`) is left out on the same condition.
    static func tags(_ row: GameRow, start: Position) -> [(name: String, value: String)] {
        func name(_ value: String?, id: Int64?) -> String {
            guard let value, id != 0 else { return "?" }
            return value
        }
        var date = row.date ?? "????.??.??"
        if date.contains("-") { date = date.replacingOccurrences(of: "-", with: ".") }
        // The sentinel rows (ID 0) stand for an absent tag.
        var tags: [(name: String, value: String)] = [
            ("Event", name(row.event, id: row.eventID)), ("Site", name(row.site, id: row.siteID)), ("Date", date),
            ("Round", row.round ?? "?"), ("White", name(row.white, id: row.whiteID)),
            ("Black", name(row.black, id: row.blackID)), ("Result", row.result ?? "*"),
        ]
        var others: [(name: String, value: String)] = []
        if let elo = row.blackElo { others.append(("BlackElo", TagColumns.eloText(elo))) }
        if let eco = row.eco { others.append(("ECO", eco)) }
        if let fen = row.fen?.trimmingASCIISpaces, !fen.isEmpty {
            others.append(("FEN", fen))
            others.append(("SetUp", "1"))
        }
        if let timeControl = row.timeControl { others.append(("TimeControl", timeControl)) }
        if let utcTime = row.utcTime { others.append(("UTCTime", utcTime)) }
        if isChess960(start) { others.append(("Variant", "Chess960")) }
        if let elo = row.whiteElo { others.append(("WhiteElo", TagColumns.eloText(elo))) }
        if let otherTags = row.otherTags {
            let kept = TagColumns.read(otherTags)
            let utcDate = kept.first { $0.name == "UTCDate" }?.value ?? nil
            /// Whether the columns still hold what a kept tag (nil: its absence) gives them.
            func columnsAgree(_ name: String, _ value: String?) -> Bool {
                switch name {
                case "WhiteElo": return value.flatMap(TagColumns.elo).map(Int64.init) == row.whiteElo
                case "BlackElo": return value.flatMap(TagColumns.elo).map(Int64.init) == row.blackElo
                case "Date": return TagColumns.date(value, utcDate: utcDate) == row.date
                case "Result":
                    // A tag that decides nothing stood beside the marker that filled the column.
                    guard let value else { return false }
                    let result = TagColumns.result(value)
                    return result == row.result || !TagColumns.isDecided(result)
                case "FEN": return value.flatMap(TagColumns.fen) == row.fen?.trimmingASCIISpaces
                case "SetUp", "Variant": return true
                default: return false
                }
            }
            var known = Set(tags.map(\.name) + others.map(\.name) + ["SetUp"])
            for (name, value) in kept {
                if let k = tags.firstIndex(where: { $0.name == name }) {
                    // The Seven Tag Roster is always written: an absent one as its default.
                    if columnsAgree(name, value) {
                        tags[k].value = value ?? (name == "Date" ? "????.??.??" : name == "Result" ? "*" : "?")
                    }
                } else if let k = others.firstIndex(where: { $0.name == name }) {
                    guard columnsAgree(name, value) else { continue }
                    if let value { others[k].value = value } else { others.remove(at: k) }
                } else if let value, !known.contains(name) || (name == "SetUp" && row.fen == nil) {
                    known.insert(name)
                    others.append((name, value))
                } else if value == nil {
                    known.insert(name)
                }
            }
            others.sort { $0.name < $1.name }
        }
        return tags + others
    }

    /// A start position whose castling needs Chess960's rules: a king off the e-file or a
    /// castling rook off the a- and h-files.
    static func isChess960(_ position: Position) -> Bool {
        for color in [Color.white, .black] {
            let rights = position.castlingRights & position.pieces(color)
            if rights.isEmpty { continue }
            if position.kingSquare(color)?.file != 4 { return true }
            for rook in rights where rook.file != 0 && rook.file != 7 { return true }
        }
        return false
    }
}
