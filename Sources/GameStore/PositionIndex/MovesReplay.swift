import ChessCore
import GRDBSQLite

/// Replays a game's mainline from its two-byte move codes (`Moves2.code`: from | to << 6 |
/// promotion << 12, current promotion codes; castling as the king's move by two files, or onto
/// its own rook in Chess960) on a board of 64 squares, with each position's Zobrist hash as
/// `Position.hash` has it: en passant counts when the capture is legal.
///
/// Moves are not checked for legality (they were when the codes were written); a code that
/// does not fit the board ends the replay. It does a fraction of `Position.play`'s work, which
/// is what lets a search replay every game of a database.
final class MovesReplay {
    /// Pieces: 0 for an empty square, else 1 + role + 8 × color (white 1…6, black 9…14).
    private let board = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
    private let keys = ReplayKeys.shared
    // One replay belongs to one thread: no run-time checks of exclusive access (they took
    // half of a search's time).
    /// The position's Zobrist hash, as `Position.hash`.
    @exclusivity(unchecked) private(set) var hash: UInt64 = 0
    /// 0 when White is to move, 1 for Black.
    @exclusivity(unchecked) private(set) var turn = 0
    @exclusivity(unchecked) private(set) var material = ReplayMaterial()
    /// Whether the last move changed `material` (a capture or a pawn's move).
    @exclusivity(unchecked) private(set) var materialChanged = false
    @exclusivity(unchecked) private var castling: UInt64 = 0
    @exclusivity(unchecked) private var epFile = -1
    @exclusivity(unchecked) private var whiteKing = -1
    @exclusivity(unchecked) private var blackKing = -1

    init() { board.initialize(repeating: 0, count: 64) }

    deinit { board.deallocate() }

    /// Sets up `start`.
    func reset(to start: Position) {
        board.update(repeating: 0, count: 64)
        material = ReplayMaterial()
        whiteKing = -1
        blackKing = -1
        for index in 0..<64 {
            guard let piece = start.piece(at: Square(index)) else { continue }
            let color = Int(piece.color.rawValue)
            board[index] = UInt8(1 + Int(piece.role.rawValue) + 8 * color)
            material.add(color: color, pawn: piece.role == .pawn, square: index)
            if piece.role == .king {
                if color == 0 { whiteKing = index } else { blackKing = index }
            }
        }
        hash = start.hash
        turn = Int(start.turn.rawValue)
        castling = start.castlingRights.raw
        epFile = start.enPassantSquare?.file ?? -1
    }

    /// Copies another replay's position (a start set up once, reused for each game).
    func reset(to other: MovesReplay) {
        board.update(from: other.board, count: 64)
        hash = other.hash
        turn = other.turn
        material = other.material
        castling = other.castling
        epFile = other.epFile
        whiteKing = other.whiteKing
        blackKing = other.blackKing
    }

    @inline(__always) private func remove(_ square: Int) {
        hash ^= keys.pieces[Int(board[square]) &* 64 &+ square]
        board[square] = 0
    }

    @inline(__always) private func put(_ piece: UInt8, _ square: Int) {
        board[square] = piece
        hash ^= keys.pieces[Int(piece) &* 64 &+ square]
    }

    /// Plays a move's code; false (stop there: the position may be half played) when it does
    /// not fit the board.
    @inline(__always)
    func play(_ code: UInt16) -> Bool {
        let from = Int(code & 63)
        let to = Int(code >> 6 & 63)
        let us = turn
        let them = us ^ 1
        let board = self.board
        let pieceKeys = keys.pieces
        let piece = board[from]
        guard piece != 0, Int(piece >> 3) == us else { return false }
        // The hash in a register: stores through `board` could alias the object's fields.
        var hash = self.hash ^ keys.blackToMove
        if epFile >= 0 {
            hash ^= keys.enPassant[epFile]
            epFile = -1
        }
        let role = Int(piece & 7) - 1
        let target = board[to]
        let promotion = Int(code >> 12 & 7)
        materialChanged = role == 0 || target != 0
        if role == 5 {
            let ontoRook = target == piece - 2
            if ontoRook || (to == from + 2 || to == from - 2) && from >> 3 == to >> 3 {
                self.hash = hash
                return castle(piece, from: from, to: to, ontoRook: ontoRook)
            }
            if us == 0 { whiteKing = to } else { blackKing = to }
        }
        if target != 0 {
            guard Int(target >> 3) == them, target & 7 != 6 else { return false }
            hash ^= pieceKeys[Int(target) &* 64 &+ to]
            material.lose(color: them, pawn: target & 7 == 1, square: to)
        } else if role == 0 && (from ^ to) & 7 != 0 {
            let captured = us == 0 ? to - 8 : to + 8
            let pawn = UInt8(1 + 8 * them)
            guard board[captured] == pawn else { return false }
            board[captured] = 0
            hash ^= pieceKeys[Int(pawn) &* 64 &+ captured]
            material.lose(color: them, pawn: true, square: captured)
        }
        var moved = piece
        if role == 0 {
            material.leave(color: us, square: from)
            if promotion != 0 {
                // Current codes: 2 knight, 3 bishop, 4 rook, 5 queen.
                guard promotion >= 2 && promotion <= 5 else { return false }
                moved = UInt8(promotion + 8 * us)
                material.promote(color: us)
            }
        } else if promotion != 0 {
            return false
        }
        board[from] = 0
        board[to] = moved
        hash ^= pieceKeys[Int(piece) &* 64 &+ from] ^ pieceKeys[Int(moved) &* 64 &+ to]
        self.hash = hash
        turn = them
        if castling != 0 {
            var lost = castling & (1 << UInt64(from) | 1 << UInt64(to))
            if role == 5 { lost |= castling & (0xFF << UInt64(from & ~7)) }
            if lost != 0 { loseCastling(lost) }
        }
        if role == 0 && (to == from + 16 || to == from - 16) {
            let pawn = UInt8(1 + 8 * them)
            let file = to & 7
            if file > 0 && board[to - 1] == pawn || file < 7 && board[to + 1] == pawn {
                if enPassantIsLegal(pushed: to, skipped: (from + to) / 2, capturer: them) {
                    epFile = file
                    self.hash ^= keys.enPassant[file]
                }
            }
        }
        return true
    }

    private func castle(_ king: UInt8, from: Int, to: Int, ontoRook: Bool) -> Bool {
        let rank = from & ~7
        let kingside = to > from
        let rookFrom = ontoRook ? to : rank + (kingside ? 7 : 0)
        let rook = king - 2
        guard board[rookFrom] == rook else { return false }
        let kingTo = rank + (kingside ? 6 : 2)
        let rookTo = rank + (kingside ? 5 : 3)
        remove(from)
        remove(rookFrom)
        put(king, kingTo)
        put(rook, rookTo)
        if turn == 0 { whiteKing = kingTo } else { blackKing = kingTo }
        let lost = castling & (0xFF << UInt64(rank))
        if lost != 0 { loseCastling(lost) }
        turn ^= 1
        return true
    }

    private func loseCastling(_ lost: UInt64) {
        var bits = lost
        while bits != 0 {
            hash ^= keys.castling[bits.trailingZeroBitCount]
            bits &= bits - 1
        }
        castling &= ~lost
    }

    /// Whether `capturer`'s side has a legal en-passant capture onto `skipped` of the pawn just
    /// pushed to `pushed` (its king not left attacked), as `Position` decides it.
    private func enPassantIsLegal(pushed: Int, skipped: Int, capturer: Int) -> Bool {
        let king = capturer == 0 ? whiteKing : blackKing
        guard king >= 0 else { return false }
        let pawn = UInt8(1 + 8 * capturer)
        let pushedPawn = board[pushed]
        for from in [pushed - 1, pushed + 1] where from >> 3 == pushed >> 3 && board[from] == pawn {
            board[from] = 0
            board[pushed] = 0
            board[skipped] = pawn
            let attacked = isAttacked(king, by: capturer ^ 1)
            board[skipped] = 0
            board[pushed] = pushedPawn
            board[from] = pawn
            if !attacked { return true }
        }
        return false
    }

    /// Whether a knight, pawn, bishop, rook or queen of `color` attacks `square`.
    private func isAttacked(_ square: Int, by color: Int) -> Bool {
        let file = square & 7
        let rank = square >> 3
        let offset = UInt8(8 * color)
        func at(_ f: Int, _ r: Int) -> UInt8? {
            f >= 0 && f < 8 && r >= 0 && r < 8 ? board[r * 8 + f] : nil
        }
        for (df, dr) in [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
        where at(file + df, rank + dr) == 2 + offset {
            return true
        }
        // A white pawn attacks from the rank below, a black one from the rank above.
        let pawnRank = color == 0 ? rank - 1 : rank + 1
        if at(file - 1, pawnRank) == 1 + offset || at(file + 1, pawnRank) == 1 + offset { return true }
        for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let straight = df == 0 || dr == 0
            var (f, r) = (file + df, rank + dr)
            while let piece = at(f, r) {
                if piece != 0 {
                    if piece == 5 + offset || piece == (straight ? 4 : 3) + offset { return true }
                    break
                }
                f += df
                r += dr
            }
        }
        return false
    }
}

/// What can only go down as a game goes on, for each side: its pieces (pawns and king
/// included), its pawns, and its pawns still on their starting rank (a bit per file). A game
/// whose figures fell below a position's can no longer reach it.
struct ReplayMaterial: Equatable {
    var whitePieces: UInt8 = 0
    var blackPieces: UInt8 = 0
    var whitePawns: UInt8 = 0
    var blackPawns: UInt8 = 0
    var whiteHome: UInt8 = 0
    var blackHome: UInt8 = 0

    /// Whether a game with this material may still reach a position with `target`'s.
    @inline(__always) func mayReach(_ target: ReplayMaterial) -> Bool {
        whitePieces >= target.whitePieces && blackPieces >= target.blackPieces && whitePawns >= target.whitePawns
            && blackPawns >= target.blackPawns && target.whiteHome & ~whiteHome == 0
            && target.blackHome & ~blackHome == 0
    }

    mutating func add(color: Int, pawn: Bool, square: Int) {
        if color == 0 { whitePieces &+= 1 } else { blackPieces &+= 1 }
        guard pawn else { return }
        if color == 0 { whitePawns &+= 1 } else { blackPawns &+= 1 }
        if square >> 3 == (color == 0 ? 1 : 6) {
            if color == 0 { whiteHome |= 1 << UInt8(square & 7) } else { blackHome |= 1 << UInt8(square & 7) }
        }
    }

    @inline(__always) mutating func lose(color: Int, pawn: Bool, square: Int) {
        if color == 0 { whitePieces &-= 1 } else { blackPieces &-= 1 }
        guard pawn else { return }
        if color == 0 { whitePawns &-= 1 } else { blackPawns &-= 1 }
        leave(color: color, square: square)
    }

    /// A pawn of `color` leaves `square`.
    @inline(__always) mutating func leave(color: Int, square: Int) {
        if color == 0 {
            if square >> 3 == 1 { whiteHome &= ~(1 << UInt8(square & 7)) }
        } else if square >> 3 == 6 {
            blackHome &= ~(1 << UInt8(square & 7))
        }
    }

    @inline(__always) mutating func promote(color: Int) {
        if color == 0 { whitePawns &-= 1 } else { blackPawns &-= 1 }
    }
}

/// `Zobrist`'s keys laid out for `MovesReplay`: by piece code and square.
private struct ReplayKeys: @unchecked Sendable {
    let pieces: UnsafeMutablePointer<UInt64>
    let castling: UnsafeMutablePointer<UInt64>
    let enPassant: UnsafeMutablePointer<UInt64>
    let blackToMove: UInt64

    static let shared = ReplayKeys()

    private init() {
        let z = Zobrist.shared
        pieces = .allocate(capacity: 16 * 64)
        pieces.initialize(repeating: 0, count: 16 * 64)
        for color in Color.allCases {
            for role in Role.allCases {
                for square in 0..<64 {
                    pieces[(1 + Int(role.rawValue) + 8 * Int(color.rawValue)) * 64 + square] = z.piece(
                        color, role, Square(square))
                }
            }
        }
        castling = .allocate(capacity: 64)
        for square in 0..<64 { castling[square] = z.castling(Square(square)) }
        enPassant = .allocate(capacity: 8)
        for file in 0..<8 { enPassant[file] = z.enPassant(file: file) }
        blackToMove = z.blackToMove
    }
}

/// Replays rows of `PositionMoves` (a game's two-byte codes and its FEN, if any) read through
/// a raw statement: the standard start set up once, a FEN start parsed when it changes.
final class PositionMovesReader {
    let replay = MovesReplay()
    private let standard = MovesReplay()
    private let fenStart = MovesReplay()
    private var lastFEN: String?

    init() { standard.reset(to: .startingPosition) }

    /// Sets the replay at the start of the statement's row; false when its FEN cannot be read.
    func start(_ statement: OpaquePointer?, fenColumn: Int32) -> Bool {
        guard let text = sqlite3_column_text(statement, fenColumn) else {
            replay.reset(to: standard)
            return true
        }
        let fen = String(cString: text)
        if fen != lastFEN {
            guard let position = try? Position(fen: fen) else { return false }
            fenStart.reset(to: position)
            lastFEN = fen
        }
        replay.reset(to: fenStart)
        return true
    }

    /// Replays the row's moves from the start set by `start`: the keys of the first `limit`
    /// positions into `keys`; returns how many (fewer when the game is shorter, or when a code
    /// does not fit the board).
    func keys(
        _ statement: OpaquePointer?, movesColumn: Int32, into keys: UnsafeMutablePointer<UInt64>, limit: Int
    ) -> Int {
        keys[0] = PositionIndex.key(replay.hash)
        let bytes = Int(sqlite3_column_bytes(statement, movesColumn))
        guard let codes = sqlite3_column_blob(statement, movesColumn), limit > 1 else { return 1 }
        var count = 1
        var offset = 0
        while count < limit && offset + 1 < bytes {
            guard replay.play(codes.loadUnaligned(fromByteOffset: offset, as: UInt16.self).littleEndian) else { break }
            keys[count] = PositionIndex.key(replay.hash)
            count += 1
            offset += 2
        }
        return count
    }

    /// Replays the row's moves from the start set by `start` until the game reaches the
    /// position of `hash` (at most `plies` moves in): the ply, and the key of the position
    /// after it (`OpeningTreeBatch.ended` at the game's end). Nil when it does not, or can
    /// no longer (its material fell below `material`).
    func find(
        _ hash: UInt64, material: ReplayMaterial, _ statement: OpaquePointer?, movesColumn: Int32, plies: Int
    ) -> (ply: Int, next: UInt64)? {
        guard replay.material.mayReach(material) else { return nil }
        let bytes = Int(sqlite3_column_bytes(statement, movesColumn))
        let codes = sqlite3_column_blob(statement, movesColumn)
        let moves = codes == nil ? 0 : bytes / 2
        var ply = 0
        while true {
            if replay.hash == hash {
                guard ply < moves,
                    replay.play(codes!.loadUnaligned(fromByteOffset: ply * 2, as: UInt16.self).littleEndian)
                else { return (ply, OpeningTreeBatch.ended) }
                return (ply, PositionIndex.key(replay.hash))
            }
            guard ply < moves, ply < plies,
                replay.play(codes!.loadUnaligned(fromByteOffset: ply * 2, as: UInt16.self).littleEndian),
                !replay.materialChanged || replay.material.mayReach(material)
            else { return nil }
            ply += 1
        }
    }
}

extension ReplayMaterial {
    /// The material of `position`.
    init(_ position: Position) {
        let white = position.white.raw
        let black = position.black.raw
        let pawns = position.pawns.raw
        self.init(
            whitePieces: UInt8(white.nonzeroBitCount), blackPieces: UInt8(black.nonzeroBitCount),
            whitePawns: UInt8((white & pawns).nonzeroBitCount), blackPawns: UInt8((black & pawns).nonzeroBitCount),
            whiteHome: UInt8(truncatingIfNeeded: (white & pawns) >> 8),
            blackHome: UInt8(truncatingIfNeeded: (black & pawns) >> 48))
    }

    /// Six bytes in an integer, as `PositionMoves.Final` holds a game's last position's.
    var packed: Int64 {
        Int64(whitePieces) | Int64(blackPieces) << 8 | Int64(whitePawns) << 16 | Int64(blackPawns) << 24
            | Int64(whiteHome) << 32 | Int64(blackHome) << 40
    }

    init(packed: Int64) {
        func byte(_ shift: Int64) -> UInt8 { UInt8(truncatingIfNeeded: packed >> shift) }
        self.init(
            whitePieces: byte(0), blackPieces: byte(8), whitePawns: byte(16), blackPawns: byte(24),
            whiteHome: byte(32), blackHome: byte(40))
    }
}
