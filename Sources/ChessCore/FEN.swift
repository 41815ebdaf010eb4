/// Forsyth–Edwards Notation: parsing with precise errors, and printing.
public enum FEN {
    public static let startingPosition = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
}

/// What is wrong with a FEN, where (which field, which character) and why.
public struct FENError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Field: String, Sendable {
        case board = "piece placement"
        case turn = "side to move"
        case castling = "castling rights"
        case enPassant = "en-passant square"
        case halfmoveClock = "halfmove clock"
        case fullmoveNumber = "fullmove number"
        case position = "position"

    }

    public enum Reason: Sendable, Equatable {
        case empty
        case tooManyFields(Int)
        case unexpectedCharacter(Character)
        case tooManySquaresInRank(rank: Int)
        case tooFewSquaresInRank(rank: Int)
        case tooManyRanks
        case tooFewRanks(Int)
        case invalidTurn(String)
        case duplicateCastlingRight(Character)
        case invalidNumber(String)
        case invalidSquare(String)
        case missingKing(Color)
        case tooManyKings(Color)
        case tooManyPawns(Color)
        case tooManyPieces(Color)
        case pawnOnBackRank(Square)
        case oppositeKingInCheck
        case tooManyCheckers
        case castlingWithoutKing(Color)
        case castlingWithoutRook(Character)
        case impossibleEnPassant(Square, String)
    }

    public let field: Field
    /// Offset of the offending character in the FEN (in Unicode scalars), when one is to blame.
    public let offset: Int?
    public let reason: Reason

    public init(field: Field, offset: Int?, reason: Reason) {
        self.field = field
        self.offset = offset
        self.reason = reason
    }

    public var message: String {
        switch reason {
        case .empty: return "the FEN is empty"
        case .tooManyFields(let n): return "a FEN has at most 6 fields, this one has \(n)"
        case .unexpectedCharacter(let c): return "unexpected character '\(c)'"
        case .tooManySquaresInRank(let r): return "rank \(r + 1) has more than 8 squares"
        case .tooFewSquaresInRank(let r): return "rank \(r + 1) has fewer than 8 squares"
        case .tooManyRanks: return "more than 8 ranks"
        case .tooFewRanks(let n): return "only \(n) ranks, 8 expected"
        case .invalidTurn(let s): return "'\(s)' is not a side to move (w or b)"
        case .duplicateCastlingRight(let c): return "castling right '\(c)' appears twice"
        case .invalidNumber(let s): return "'\(s)' is not a valid number"
        case .invalidSquare(let s): return "'\(s)' is not an en-passant square"
        case .missingKing(let c): return "\(c) has no king"
        case .tooManyKings(let c): return "\(c) has more than one king"
        case .tooManyPawns(let c): return "\(c) has more than 8 pawns"
        case .tooManyPieces(let c): return "\(c) has more than 16 pieces"
        case .pawnOnBackRank(let s): return "a pawn stands on \(s), on the first or last rank"
        case .oppositeKingInCheck: return "the side not to move is in check"
        case .tooManyCheckers: return "the king is attacked by more than two pieces"
        case .castlingWithoutKing(let c): return "\(c) may castle but its king is not on its first rank"
        case .castlingWithoutRook(let c): return "castling right '\(c)' has no rook to castle with"
        case .impossibleEnPassant(let s, let why): return "en-passant square \(s) is impossible: \(why)"
        }
    }

    public var description: String {
        if let offset { return "FEN \(field.rawValue), character \(offset + 1): \(message)" }
        return "FEN \(field.rawValue): \(message)"
    }
}

extension Position {
    /// Parses a FEN, X-FEN or Shredder-FEN. Missing trailing fields take their defaults
    /// (`w - - 0 1`), as many tools write them that way. Castling letters other than
    /// `KQkq` (or `KQkq` naming a rook not in the corner) make the position Chess960.
    public init(fen: String) throws(FENError) {
        self.init()
        let scalars = Array(fen.unicodeScalars)
        // Split on runs of spaces, remembering where each field starts.
        var fields: [(start: Int, text: [Unicode.Scalar])] = []
        var i = 0
        while i < scalars.count {
            if scalars[i] == " " || scalars[i] == "\t" {
                i += 1
                continue
            }
            let start = i
            while i < scalars.count && scalars[i] != " " && scalars[i] != "\t" { i += 1 }
            fields.append((start, Array(scalars[start..<i])))
        }
        guard !fields.isEmpty else { throw FENError(field: .board, offset: nil, reason: .empty) }
        guard fields.count <= 6 else {
            throw FENError(field: .fullmoveNumber, offset: fields[6].start, reason: .tooManyFields(fields.count))
        }

        try parseBoard(fields[0].text, at: fields[0].start)

        if fields.count > 1 {
            let (start, text) = fields[1]
            switch String(String.UnicodeScalarView(text)) {
            case "w", "W": turn = .white
            case "b", "B": turn = .black
            case let other: throw FENError(field: .turn, offset: start, reason: .invalidTurn(other))
            }
        }
        try validateBoard()
        if fields.count > 2 { try parseCastling(fields[2].text, at: fields[2].start) }
        if fields.count > 3 { try parseEnPassant(fields[3].text, at: fields[3].start) }
        if fields.count > 4 {
            halfmoveClock = try Position.parseNumber(
                fields[4].text, at: fields[4].start, field: .halfmoveClock, minimum: 0)
        }
        if fields.count > 5 {
            fullmoveNumber = try Position.parseNumber(
                fields[5].text, at: fields[5].start, field: .fullmoveNumber, minimum: 0)
            // Some writers put 0 here; the count starts at 1.
            if fullmoveNumber == 0 { fullmoveNumber = 1 }
        }
        rehash()
    }

    private static func parseNumber(
        _ text: [Unicode.Scalar], at start: Int, field: FENError.Field, minimum: Int
    ) throws(FENError) -> Int {
        let string = String(String.UnicodeScalarView(text))
        guard text.count <= 6, let value = Int(string), value >= minimum else {
            throw FENError(field: field, offset: start, reason: .invalidNumber(string))
        }
        return value
    }

    private mutating func parseBoard(_ text: [Unicode.Scalar], at start: Int) throws(FENError) {
        var rank = 7
        var file = 0
        for (k, scalar) in text.enumerated() {
            let offset = start + k
            switch scalar {
            case "/":
                if file < 8 { throw FENError(field: .board, offset: offset, reason: .tooFewSquaresInRank(rank: rank)) }
                if rank == 0 { throw FENError(field: .board, offset: offset, reason: .tooManyRanks) }
                rank -= 1
                file = 0
            case "1"..."9":
                file += Int(scalar.value) - 48
                if file > 8 { throw FENError(field: .board, offset: offset, reason: .tooManySquaresInRank(rank: rank)) }
            default:
                // A `~` after a piece marks a promoted piece in crazyhouse FENs; it says nothing here.
                if scalar == "~" && k > 0 && Piece(fenCharacter: Character(text[k - 1])) != nil { continue }
                guard let piece = Piece(fenCharacter: Character(scalar)) else {
                    throw FENError(field: .board, offset: offset, reason: .unexpectedCharacter(Character(scalar)))
                }
                if file >= 8 {
                    throw FENError(field: .board, offset: offset, reason: .tooManySquaresInRank(rank: rank))
                }
                put(piece.color, piece.role, Square(rank * 8 + file))
                file += 1
            }
        }
        if file < 8 {
            throw FENError(field: .board, offset: start + text.count, reason: .tooFewSquaresInRank(rank: rank))
        }
        if rank > 0 { throw FENError(field: .board, offset: start + text.count, reason: .tooFewRanks(8 - rank)) }
    }

    private func validateBoard() throws(FENError) {
        for color in Color.allCases {
            let k = pieces(color, .king).count
            if k == 0 { throw FENError(field: .board, offset: nil, reason: .missingKing(color)) }
            if k > 1 { throw FENError(field: .board, offset: nil, reason: .tooManyKings(color)) }
            if pieces(color, .pawn).count > 8 {
                throw FENError(field: .board, offset: nil, reason: .tooManyPawns(color))
            }
            if pieces(color).count > 16 { throw FENError(field: .board, offset: nil, reason: .tooManyPieces(color)) }
        }
        if let pawn = (pawns & (Bitboard.rank(0) | Bitboard.rank(7))).first {
            throw FENError(field: .board, offset: nil, reason: .pawnOnBackRank(pawn))
        }
        if let theirKing = kingSquare(turn.opponent), isAttacked(theirKing, by: turn) {
            throw FENError(field: .turn, offset: nil, reason: .oppositeKingInCheck)
        }
        if checkers.count > 2 { throw FENError(field: .board, offset: nil, reason: .tooManyCheckers) }
    }

    private mutating func parseCastling(_ text: [Unicode.Scalar], at start: Int) throws(FENError) {
        if text == ["-"] { return }
        var rights = Bitboard()
        var usesFiles = false
        for (k, scalar) in text.enumerated() {
            let offset = start + k
            let character = Character(scalar)
            let color: Color = character.isUppercase ? .white : .black
            let backRank = Bitboard.rank(color.backRank)
            guard let king = kingSquare(color), king.rank == color.backRank else {
                if "KQkqABCDEFGHabcdefgh".contains(character) {
                    throw FENError(field: .castling, offset: offset, reason: .castlingWithoutKing(color))
                }
                throw FENError(field: .castling, offset: offset, reason: .unexpectedCharacter(character))
            }
            let candidates = pieces(color, .rook) & backRank
            let rook: Square?
            switch character {
            case "K", "k":
                // The outermost rook on the king's h-side (X-FEN).
                rook = (candidates & Bitboard(raw: ~((2 << UInt64(king.index)) &- 1))).last
            case "Q", "q":
                rook = (candidates & Bitboard(raw: (1 << UInt64(king.index)) - 1)).first
            case "A"..."H", "a"..."h":
                usesFiles = true
                let file = Int(character.lowercased().unicodeScalars.first!.value) - 97
                let square = Square(color.backRank * 8 + file)
                rook = candidates.contains(square) && square != king ? square : nil
            default:
                throw FENError(field: .castling, offset: offset, reason: .unexpectedCharacter(character))
            }
            guard let rook else {
                throw FENError(field: .castling, offset: offset, reason: .castlingWithoutRook(character))
            }
            if rights.contains(rook) {
                throw FENError(field: .castling, offset: offset, reason: .duplicateCastlingRight(character))
            }
            // Only one rook a side: the king castles with one rook towards each wing.
            let sameWing =
                rights & backRank
                & (rook.file > king.file
                    ? Bitboard(raw: ~((2 << UInt64(king.index)) &- 1)) : Bitboard(raw: (1 << UInt64(king.index)) - 1))
            if sameWing.isNotEmpty {
                throw FENError(field: .castling, offset: offset, reason: .duplicateCastlingRight(character))
            }
            rights.insert(rook)
        }
        castlingRights = rights
        if usesFiles || !isStandardCastling { isChess960 = true }
    }

    /// True when every castling right belongs to a king on e1/e8 and a rook in a corner.
    var isStandardCastling: Bool {
        for color in Color.allCases where (castlingRights & pieces(color)).isNotEmpty {
            guard kingSquare(color)?.file == 4 else { return false }
            let corners = Bitboard.rank(color.backRank) & (Bitboard.file(0) | Bitboard.file(7))
            if (castlingRights & pieces(color) & ~corners).isNotEmpty { return false }
        }
        return true
    }

    private mutating func parseEnPassant(_ text: [Unicode.Scalar], at start: Int) throws(FENError) {
        if text == ["-"] { return }
        let string = String(String.UnicodeScalarView(text))
        guard let square = Square(string) else {
            throw FENError(field: .enPassant, offset: start, reason: .invalidSquare(string))
        }
        let up = turn == .white ? 8 : -8
        guard square.rank == (turn == .white ? 5 : 2) else {
            throw FENError(
                field: .enPassant, offset: start,
                reason: .impossibleEnPassant(
                    square, "it must be on rank \(turn == .white ? 6 : 3) with \(turn) to move"))
        }
        let pushed = Square(square.index - up)
        let origin = Square(square.index + up)
        guard pieces(turn.opponent, .pawn).contains(pushed) else {
            throw FENError(
                field: .enPassant, offset: start,
                reason: .impossibleEnPassant(square, "no \(turn.opponent.description.lowercased()) pawn on \(pushed)"))
        }
        guard !occupied.contains(square) && !occupied.contains(origin) else {
            throw FENError(
                field: .enPassant, offset: start,
                reason: .impossibleEnPassant(square, "\(occupied.contains(square) ? square : origin) is not empty"))
        }
        // Kept only when a capture is possible, as the position's invariant asks.
        if enPassantCaptureIsLegal(on: square) { enPassantSquare = square }
    }

    /// The FEN of this position. Castling is written `KQkq` where that is unambiguous and
    /// by rook file (X-FEN) otherwise; the en-passant square only when a capture is legal.
    public var fen: String {
        var result = boardFEN
        result += turn == .white ? " w " : " b "
        result += castlingFEN
        result += " "
        result += enPassantSquare?.name ?? "-"
        result += " \(halfmoveClock) \(fullmoveNumber)"
        return result
    }

    /// The piece-placement field alone.
    public var boardFEN: String {
        var result = ""
        for rank in stride(from: 7, through: 0, by: -1) {
            var empty = 0
            for file in 0..<8 {
                if let piece = piece(at: Square(rank * 8 + file)) {
                    if empty > 0 { result += String(empty) }
                    empty = 0
                    result.append(piece.fenCharacter)
                } else {
                    empty += 1
                }
            }
            if empty > 0 { result += String(empty) }
            if rank > 0 { result += "/" }
        }
        return result
    }

    /// The castling field (`KQkq`, X-FEN file letters where needed, or `-`).
    public var castlingFEN: String {
        var result = ""
        for color in [Color.white, .black] {
            guard let king = kingSquare(color) else { continue }
            let backRank = Bitboard.rank(color.backRank)
            let rooks = self.rooks & pieces(color) & backRank
            let rights = castlingRights & pieces(color)
            for rook in rights.reversed() {
                let kingside = rook.file > king.file
                let outermost =
                    kingside
                    ? (rooks & Bitboard(raw: ~((2 << UInt64(king.index)) &- 1))).last
                    : (rooks & Bitboard(raw: (1 << UInt64(king.index)) - 1)).first
                var letter: Character
                if outermost == rook {
                    letter = kingside ? "K" : "Q"
                } else {
                    letter = Square.fileLetter(rook.file)
                    letter = Character(letter.uppercased())
                }
                result.append(color == .white ? letter : Character(letter.lowercased()))
            }
        }
        return result.isEmpty ? "-" : result
    }
}
