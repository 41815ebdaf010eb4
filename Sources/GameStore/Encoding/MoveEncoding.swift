import ChessCore
import PGN

/// What goes into the `Moves` column besides the mainline's moves.
public enum MovesContent: String, Sendable, CaseIterable {
    /// Comments, NAGs and variations too (read by En Croissant 0.15 and later).
    case full
    /// The mainline's moves only (read by every version).
    case mainline
}

/// One element of a game's movetext as the `Moves` column holds it, in order.
public enum MovetextElement: Sendable, Hashable {
    case move(Move)
    /// A comment's text, without braces.
    case comment(String)
    /// A numeric annotation glyph (`$1` is 1).
    case nag(Int)
    /// A variation starts: it replaces the last move of the enclosing line.
    case variationStart
    case variationEnd
}

/// En Croissant's `Moves` encoding: one byte per move, the move's index in `MoveOrder`, and
/// markers for variations, comments and NAGs (bytes 252–255: no position has that many moves).
public enum MovesBlob {
    public static let variationStart: UInt8 = 255
    public static let variationEnd: UInt8 = 254
    public static let comment: UInt8 = 253
    public static let nag: UInt8 = 252
    /// A comment longer than this many bytes is split over several markers.
    public static let maximumChunk = 65_535

    /// Appends a comment marker (several when the text is longer than 65,535 bytes; chunks
    /// end on a character boundary).
    public static func appendComment<Bytes: RandomAccessCollection>(_ text: Bytes, to blob: inout [UInt8])
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var start = text.startIndex
        repeat {
            var end = min(text.endIndex, start + maximumChunk)
            if end < text.endIndex {
                // Do not cut a UTF-8 sequence: back off over continuation bytes.
                while end > start + 1 && text[end] & 0xC0 == 0x80 { end -= 1 }
            }
            let length = end - start
            blob.append(comment)
            blob.append(UInt8(truncatingIfNeeded: length))
            blob.append(UInt8(truncatingIfNeeded: length >> 8))
            blob.append(contentsOf: text[start..<end])
            start = end
        } while start < text.endIndex
    }

    /// Appends a NAG marker: the NAG written `$n`.
    public static func appendNAG(_ value: Int, to blob: inout [UInt8]) {
        let value = max(0, value)
        var digits = 1
        var power = 10
        while power <= value {
            digits += 1
            power *= 10
        }
        blob.append(nag)
        blob.append(UInt8(truncatingIfNeeded: digits + 1))
        blob.append(0)
        blob.append(0x24)  // $
        while power > 1 {
            power /= 10
            blob.append(UInt8(48 + value / power % 10))
        }
    }

    /// The bytes of a whole movetext from `start`. Every move must be legal where it stands
    /// (a variation starts from the position before the move it replaces); nil otherwise.
    public static func encode(_ elements: [MovetextElement], from start: Position) -> [UInt8]? {
        var blob: [UInt8] = []
        var lines = LinePositions(start)
        for element in elements {
            switch element {
            case .move(let move):
                guard let index = MoveOrder.index(of: move, in: lines.position) else { return nil }
                blob.append(UInt8(index))
                lines.play(move)
            case .comment(let text):
                appendComment(Array(text.utf8), to: &blob)
            case .nag(let value):
                appendNAG(value, to: &blob)
            case .variationStart:
                guard lines.startVariation() else { return nil }
                blob.append(variationStart)
            case .variationEnd:
                guard lines.endVariation() else { return nil }
                blob.append(variationEnd)
            }
        }
        return blob
    }

    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A byte names a move the position does not have.
        case noSuchMove(offset: Int, index: UInt8, legalMoves: Int)
        /// A marker's length runs past the end of the blob.
        case truncated(offset: Int)
        /// A variation starts where no move can be replaced, or ends where none is open.
        case badVariation(offset: Int)

        public var description: String {
            switch self {
            case .noSuchMove(let offset, let index, let count):
                return "byte \(offset): move \(index) does not exist (the position has \(count) legal moves)"
            case .truncated(let offset): return "byte \(offset): the blob ends inside a marker"
            case .badVariation(let offset): return "byte \(offset): a variation marker with no line to belong to"
            }
        }
    }

    /// Reads a blob written from `start`. Comment chunks split by the writer (a chunk of at least
    /// 65,532 bytes followed by another comment) are joined again.
    public static func decode(_ blob: [UInt8], from start: Position) throws(DecodingError) -> [MovetextElement] {
        var elements: [MovetextElement] = []
        var lines = [(position: start, before: Position?.none)]
        var i = 0
        var pendingComment: [UInt8]?
        var lastChunk = 0
        func flushComment() {
            if let text = pendingComment {
                elements.append(.comment(String(decoding: text, as: UTF8.self)))
                pendingComment = nil
            }
        }
        while i < blob.count {
            let byte = blob[i]
            if byte == comment || byte == nag {
                guard i + 3 <= blob.count else { throw .truncated(offset: i) }
                let length = Int(blob[i + 1]) | Int(blob[i + 2]) << 8
                guard i + 3 + length <= blob.count else { throw .truncated(offset: i) }
                let body = blob[(i + 3)..<(i + 3 + length)]
                if byte == comment && pendingComment != nil && lastChunk >= maximumChunk - 3 {
                    // The rest of a comment the writer had to split.
                    pendingComment! += body
                } else {
                    flushComment()
                    if byte == comment {
                        pendingComment = Array(body)
                    } else {
                        elements.append(.nag(parseNAG(body)))
                    }
                }
                lastChunk = length
                i += 3 + length
                continue
            }
            flushComment()
            switch byte {
            case variationStart:
                guard let before = lines[lines.count - 1].before else { throw .badVariation(offset: i) }
                elements.append(.variationStart)
                lines.append((before, nil))
            case variationEnd:
                guard lines.count > 1 else { throw .badVariation(offset: i) }
                elements.append(.variationEnd)
                lines.removeLast()
            default:
                let top = lines.count - 1
                let position = lines[top].position
                guard let move = MoveOrder.move(at: Int(byte), in: position) else {
                    throw .noSuchMove(offset: i, index: byte, legalMoves: position.legalMoveCount)
                }
                elements.append(.move(move))
                lines[top].before = position
                lines[top].position = position.playing(move)
            }
            i += 1
        }
        flushComment()
        return elements
    }

    /// Calls `body` with each move of the mainline and the position after it (variations,
    /// comments and NAGs skipped, their moves not read); false when the blob cannot be read.
    static func walkMainline(_ blob: [UInt8], from start: Position, _ body: (Move, Position) -> Void) -> Bool {
        var position = start
        var depth = 0
        var i = 0
        while i < blob.count {
            let byte = blob[i]
            if byte == comment || byte == nag {
                guard i + 3 <= blob.count else { return false }
                i += 3 + (Int(blob[i + 1]) | Int(blob[i + 2]) << 8)
                guard i <= blob.count else { return false }
                continue
            }
            switch byte {
            case variationStart: depth += 1
            case variationEnd:
                guard depth > 0 else { return false }
                depth -= 1
            default:
                if depth == 0 {
                    guard let move = MoveOrder.move(at: Int(byte), in: position) else { return false }
                    position.play(move)
                    body(move, position)
                }
            }
            i += 1
        }
        return true
    }

    /// Whether a blob holds a comment marker (read without decoding its moves).
    public static func hasComments(_ blob: [UInt8]) -> Bool {
        var i = 0
        while i < blob.count {
            let byte = blob[i]
            if byte == comment { return true }
            if byte == nag {
                guard i + 2 < blob.count else { return false }
                i += 3 + (Int(blob[i + 1]) | Int(blob[i + 2]) << 8)
            } else {
                i += 1
            }
        }
        return false
    }

    /// `$12`, `12`, or a suffix annotation (`!` is 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6).
    static func parseNAG(_ body: ArraySlice<UInt8>) -> Int {
        var text = body
        if text.first == 0x24 { text = text.dropFirst() }
        if !text.isEmpty && text.allSatisfy({ $0 >= 48 && $0 <= 57 }) && text.count <= 3 {
            return text.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        return NAGMeanings.value(ofSuffix: String(decoding: text, as: UTF8.self)) ?? 0
    }
}

/// ocgdb's `Moves2` encoding: two bytes per mainline move, little-endian
/// `from | to << 6 | promotion << 12`, castling as the king's move (e1g1).
public enum Moves2 {
    /// The promotion codes, which changed once: files with an Info row `Data Structure Version`
    /// use the current ones.
    public enum PromotionCodes: Sendable {
        /// 2 knight, 3 bishop, 4 rook, 5 queen.
        case current
        /// 2 queen, 3 rook, 4 bishop, 5 knight.
        case old
        /// 1 queen, 2 bishop, 3 rook, 4 knight: a two-byte `Moves` layout some apps write.
        case queenFirst

        func code(_ role: Role) -> UInt16 {
            switch (self, role) {
            case (.current, .knight): return 2
            case (.current, .bishop): return 3
            case (.current, .rook): return 4
            case (.current, .queen): return 5
            case (.old, .queen): return 2
            case (.old, .rook): return 3
            case (.old, .bishop): return 4
            case (.old, .knight): return 5
            case (.queenFirst, .queen): return 1
            case (.queenFirst, .bishop): return 2
            case (.queenFirst, .rook): return 3
            case (.queenFirst, .knight): return 4
            default: return 0
            }
        }

        func role(_ code: UInt16) -> Role? {
            for role in [Role.queen, .rook, .bishop, .knight] where self.code(role) == code { return role }
            return nil
        }
    }

    /// The two-byte code of a move. Castling is the king's move to the g- or c-file, except in
    /// Chess960 where that can be an ordinary king step: there the king goes onto its rook.
    public static func code(_ move: Move, chess960: Bool = false, codes: PromotionCodes = .current) -> UInt16 {
        let to = move.isCastle && !chess960 ? move.kingDestination : move.to
        var code = UInt16(move.from.rawValue) | UInt16(to.rawValue) << 6
        if let promotion = move.promotion { code |= codes.code(promotion) << 12 }
        return code
    }

    /// Appends a move's code, little-endian.
    @inline(__always)
    public static func append(_ move: Move, chess960: Bool = false, to blob: inout [UInt8]) {
        let value = code(move, chess960: chess960)
        blob.append(UInt8(truncatingIfNeeded: value))
        blob.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// The legal move a code names in `position`, in either castling convention, or nil.
    public static func move(_ code: UInt16, in position: Position, codes: PromotionCodes = .current) -> Move? {
        let from = Square(rawValue: UInt8(code & 63))
        let to = Square(rawValue: UInt8((code >> 6) & 63))
        let promotionCode = code >> 12
        let promotion = promotionCode == 0 ? nil : codes.role(promotionCode)
        if promotionCode != 0 && promotion == nil { return nil }
        var castle: Move?
        for move in position.legalMoves where move.from == from {
            if move.isCastle {
                if move.to == to || move.kingDestination == to { castle = move }
            } else if move.to == to && move.promotion == promotion {
                return move
            }
        }
        return promotion == nil ? castle : nil
    }

    /// Reads a whole blob from `start`; nil when its length is odd or a code names no legal move.
    public static func decode(_ blob: [UInt8], from start: Position, codes: PromotionCodes = .current) -> [Move]? {
        guard blob.count % 2 == 0 else { return nil }
        var position = start
        var moves: [Move] = []
        moves.reserveCapacity(blob.count / 2)
        var i = 0
        while i < blob.count {
            let value = UInt16(blob[i]) | UInt16(blob[i + 1]) << 8
            guard let move = move(value, in: position, codes: codes) else { return nil }
            moves.append(move)
            position.play(move)
            i += 2
        }
        return moves
    }
}

/// The position of each open line while movetext elements are walked: moves are played in the
/// innermost line, and a variation starts from the position before its line's last move.
struct LinePositions {
    private var lines: [(position: Position, before: Position?)]

    init(_ start: Position) { lines = [(start, nil)] }

    /// Where the innermost line stands.
    var position: Position { lines[lines.count - 1].position }

    mutating func play(_ move: Move) {
        let position = position
        lines[lines.count - 1] = (position.playing(move), position)
    }

    /// Opens a variation; false when its line has no move to replace (the variation then
    /// starts where the line stands).
    mutating func startVariation() -> Bool {
        let top = lines[lines.count - 1]
        lines.append((top.before ?? top.position, nil))
        return top.before != nil
    }

    /// Closes the innermost variation; false when none is open.
    mutating func endVariation() -> Bool {
        guard lines.count > 1 else { return false }
        lines.removeLast()
        return true
    }
}
