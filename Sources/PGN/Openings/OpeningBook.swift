import ChessCore

/// A named opening: its ECO code, its name (`Family: Variation, Subvariation`) and the moves
/// that define it, from the start position.
public struct Opening: Sendable, Hashable {
    public let eco: String
    public let name: String
    /// The defining moves in SAN with move numbers, as the list writes them.
    public let moves: String
    /// How many half-moves the defining line has.
    public let plies: Int

    /// `B90 Sicilian Defense: Najdorf Variation`.
    public var title: String { "\(eco) \(name)" }
}

/// Names positions after lichess's list of openings (`OpeningData`), the way that list says a
/// game is classified: by the last position of its line that has a name. Positions are compared
/// as FEN compares them without the clocks (board, side to move, castling rights, and an
/// en-passant square only where a capture there is legal), so a transposition gets the name
/// of the position it reaches, whatever the move order.
public final class OpeningBook: Sendable {
    /// The book of the list built into the program, read when first used (about 3,800 lines).
    public static let shared = OpeningBook(tsv: OpeningData.tsv)

    private let byHash: [UInt64: [(position: Position, opening: Opening)]]
    /// One bit for each value of a hash's low 16 bits that a named position has: most
    /// positions of a game are told apart here, without a lookup (a replay asks after every
    /// mainline move).
    private let filter: [UInt64]
    /// Every opening of the list, in its order.
    public let openings: [Opening]

    /// Reads lines of `eco`, `name`, `moves` separated by tabs; a line whose moves do not play
    /// from the start position is left out.
    init(tsv: String) {
        var byHash: [UInt64: [(position: Position, opening: Opening)]] = [:]
        var openings: [Opening] = []
        // Read as bytes: the book is read before the first game is judged, once per process.
        var tsv = tsv
        tsv.withUTF8 { bytes in
            func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
            var lineStart = 0
            while lineStart < bytes.count {
                let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
                defer { lineStart = lineEnd + 1 }
                guard let tab = bytes[lineStart..<lineEnd].firstIndex(of: 0x09),
                    let secondTab = bytes[(tab + 1)..<lineEnd].firstIndex(of: 0x09),
                    !bytes[(secondTab + 1)..<lineEnd].contains(0x09)
                else { continue }
                var position = Position.startingPosition
                var plies = 0
                var playable = true
                var wordStart = secondTab + 1
                while wordStart < lineEnd {
                    let wordEnd = bytes[wordStart..<lineEnd].firstIndex(of: 0x20) ?? lineEnd
                    defer { wordStart = wordEnd + 1 }
                    guard wordEnd > wordStart else { continue }
                    // Move numbers (`1.`, `3...`) are left out.
                    if bytes[wordEnd - 1] == 0x2E && bytes[wordStart] >= 0x30 && bytes[wordStart] <= 0x39 { continue }
                    do throws(SANError) {
                        _ = try position.applySAN(bytes: UnsafeBufferPointer(rebasing: bytes[wordStart..<wordEnd]))
                    } catch {
                        playable = false
                        break
                    }
                    plies += 1
                }
                guard playable else { continue }
                let opening = Opening(
                    eco: text(lineStart..<tab), name: text((tab + 1)..<secondTab),
                    moves: text((secondTab + 1)..<lineEnd), plies: plies)
                openings.append(opening)
                // Where two lines reach one position, the first line's name stands.
                if !(byHash[position.hash] ?? []).contains(where: { Self.same($0.position, position) }) {
                    byHash[position.hash, default: []].append((position, opening))
                }
            }
        }
        var filter = [UInt64](repeating: 0, count: 1024)
        for hash in byHash.keys { filter[Int(hash & 0xFFFF) >> 6] |= 1 << (hash & 63) }
        self.filter = filter
        self.byHash = byHash
        self.openings = openings
    }

    /// The name of this very position, if the list has one.
    public func opening(at position: Position) -> Opening? {
        let hash = position.hash
        guard filter[Int(hash & 0xFFFF) >> 6] & (1 << (hash & 63)) != 0 else { return nil }
        guard let candidates = byHash[position.hash] else { return nil }
        return candidates.first(where: { Self.same($0.position, position) })?.opening
    }

    /// The same position but for the clocks.
    static func same(_ a: Position, _ b: Position) -> Bool {
        a.hash == b.hash && a.white == b.white && a.black == b.black && a.pawns == b.pawns && a.knights == b.knights
            && a.bishops == b.bishops && a.rooks == b.rooks && a.queens == b.queens && a.kings == b.kings
            && a.turn == b.turn && a.castlingRights == b.castlingRights && a.enPassantSquare == b.enPassantSquare
    }
}
