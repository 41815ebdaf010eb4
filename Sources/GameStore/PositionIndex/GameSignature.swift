import ChessCore
import Foundation
import GRDB

/// What a search reads of a game before its moves (`PositionSignatures`, 32 bytes a game):
/// enough to skip, unread, most games that cannot reach a position.
///
/// - `final`: the material of the last position (`ReplayMaterial.packed`). Material and the
///   pawns on their starting rank only go down: a game that ends with more than the position
///   never had it.
/// - `departures`: the order in which the 16 pawns left their starting squares, four bits a
///   pawn (White's a–h 0–7, Black's 8–15), the first in the low bits. A pawn never comes back
///   to its starting square (pawns move forward), so the set of pawns gone from home only
///   grows: a game reaches a position whose pawns gone from home are k pawns only if its
///   first k departures are exactly those. Unknown (`unordered`) for a game from a FEN.
/// - `afterTree`: the material after ply `PositionIndex.treeDepth`, 0 for a game no longer
///   than that (-1 when unknown): what tells whether a game may reach a position of the
///   opening tree again after the tree's plies, where the tree does not count it.
struct GameSignature: Equatable {
    var final: Int64
    var departures: UInt64
    /// Whether `departures` holds the order (false for a game from a FEN, or one whose moves
    /// could not all be replayed).
    var ordered: Bool
    var afterTree: Int64

    static let size = 32

    /// The signature of a game from `fen` (nil: the standard start) with these two-byte codes
    /// (`Moves2.code`); the departures are kept for a game from the standard start only. A
    /// game whose moves cannot all be replayed gets no order and an unknown `afterTree`.
    init(codes: UnsafeRawBufferPointer, fen: String?, final: Int64) {
        let replay = MovesReplay()
        if let fen {
            guard let start = try? Position(fen: fen) else {
                self.init(final: final, departures: 0, ordered: false, afterTree: -1)
                return
            }
            replay.reset(to: start)
        } else {
            replay.reset(to: GameSignature.standard)
        }
        var builder = SignatureBuilder(home: GameSignature.home(replay.material))
        for ply in 0..<codes.count / 2 {
            guard replay.play(codes.loadUnaligned(fromByteOffset: ply * 2, as: UInt16.self).littleEndian) else {
                self.init(final: final, departures: 0, ordered: false, afterTree: -1)
                return
            }
            builder.played(home: GameSignature.home(replay.material)) { replay.material.packed }
        }
        self = builder.signature(final: final, ordered: fen == nil)
    }

    init(final: Int64, departures: UInt64, ordered: Bool, afterTree: Int64) {
        self.final = final
        self.departures = departures
        self.ordered = ordered
        self.afterTree = afterTree
    }

    /// Only read (copied into each replay), from any thread.
    nonisolated(unsafe) private static let standard: MovesReplay = {
        let replay = MovesReplay()
        replay.reset(to: .startingPosition)
        return replay
    }()

    /// The pawns on their starting squares: White's a–h as bits 0–7, Black's as 8–15.
    @inline(__always) static func home(_ material: ReplayMaterial) -> UInt16 {
        UInt16(material.whiteHome) | UInt16(material.blackHome) << 8
    }

    /// Appends the signature of game `id` as `PositionSignatures` stores it.
    func append(id: Int64, to bytes: inout [UInt8]) {
        for value in [
            UInt64(bitPattern: id), UInt64(bitPattern: final) | (ordered ? 1 << 63 : 0), departures,
            UInt64(bitPattern: afterTree),
        ] {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    /// The signature of the entry at `offset` of a `PositionSignatures` row, and its game's ID.
    @inline(__always) static func read(_ base: UnsafeRawPointer, _ offset: Int) -> (id: Int64, GameSignature) {
        func word(_ k: Int) -> UInt64 {
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8 * k, as: UInt64.self))
        }
        let flagged = word(1)
        return (
            Int64(bitPattern: word(0)),
            GameSignature(
                final: Int64(bitPattern: flagged & ~(1 << 63)), departures: word(2), ordered: flagged >> 63 != 0,
                afterTree: Int64(bitPattern: word(3)))
        )
    }
}

/// A signature worked out move by move as a mainline is played: by the import's encoder as it
/// reads a game, and from a game's stored moves (`GameSignature.init(codes:fen:final:)`).
struct SignatureBuilder {
    private var home: UInt16
    private var departures: UInt64 = 0
    private var departed: UInt64 = 0
    private var plies = 0
    private var afterTree: Int64 = 0

    /// From a position with these pawns on their starting squares (`GameSignature.home`).
    init(home: UInt16) { self.home = home }

    /// After the mainline's next move: the pawns now on their starting squares, and the
    /// position's material, asked for after the tree's last ply only.
    @inline(__always) mutating func played(home now: UInt16, material: () -> Int64) {
        plies += 1
        let left = home & ~now
        if left != 0 {
            // A pawn never comes back to its starting square, and one at most leaves it in a
            // move: 16 departures at most.
            departures |= UInt64(left.trailingZeroBitCount) << (4 * departed)
            departed += 1
            home = now
        }
        if plies == PositionIndex.treeDepth { afterTree = material() }
    }

    /// The signature of the game played, whose last position's material is `final`; the
    /// departures are in order only from the standard start (`ordered`).
    func signature(final: Int64, ordered: Bool) -> GameSignature {
        GameSignature(
            final: final, departures: ordered ? departures : 0, ordered: ordered,
            afterTree: plies > PositionIndex.treeDepth ? afterTree : 0)
    }
}

/// What a position asks of a game's signature.
struct SignatureTarget {
    let material: ReplayMaterial
    /// The pawns gone from their starting squares, and how many.
    let gone: UInt16
    let goneCount: Int

    init(_ material: ReplayMaterial) {
        self.material = material
        gone = ~GameSignature.home(material)
        goneCount = gone.nonzeroBitCount
    }

    /// Whether a game of this signature may reach the position at some ply (false: it cannot).
    @inline(__always) func mayMatch(_ signature: GameSignature) -> Bool {
        guard material.mayReach(ReplayMaterial(packed: signature.final)) else { return false }
        return !signature.ordered || departed(signature.departures) == gone
    }

    /// The first `goneCount` pawns of `departures`, as a set.
    @inline(__always) func departed(_ departures: UInt64) -> UInt16 {
        var set: UInt16 = 0
        var order = departures
        for _ in 0..<goneCount {
            set |= 1 << UInt16(order & 15)
            order >>= 4
        }
        return set
    }

    /// Whether a game of this signature may reach the position after the tree's plies.
    @inline(__always) func mayMatchAfterTree(_ signature: GameSignature) -> Bool {
        signature.afterTree != 0 && ReplayMaterial(packed: signature.afterTree).mayReach(material)
            && mayMatch(signature)
    }
}

/// The materials after ply `PositionIndex.treeDepth` of the games longer than that, as
/// `PositionIndexState.Late` keeps them: for each set of pawns on their starting squares, the
/// most pieces and pawns of each side that any game with that set has, 8 bytes each. A
/// position of the tree that none of them may reach is reached by no game after the tree's
/// plies: the tree's count is then the whole count, read without a scan. The bound may let a
/// position through that no game reaches (it is then counted by a scan), never the other way.
enum LateMaterials {
    /// `stored` with `added`, one bound for each set of pawns at home, in ascending order: a
    /// dictionary lookup per value (the sets are a few thousand at most where a flush adds
    /// thousands of values).
    static func merged(_ stored: [Int64], _ added: Set<Int64>) -> [Int64] {
        var bounds: [UInt16: ReplayMaterial] = [:]
        bounds.reserveCapacity(stored.count + added.count)
        func add(_ value: Int64) {
            let material = ReplayMaterial(packed: value)
            let home = GameSignature.home(material)
            guard var bound = bounds[home] else {
                bounds[home] = material
                return
            }
            bound.whitePieces = max(bound.whitePieces, material.whitePieces)
            bound.blackPieces = max(bound.blackPieces, material.blackPieces)
            bound.whitePawns = max(bound.whitePawns, material.whitePawns)
            bound.blackPawns = max(bound.blackPawns, material.blackPawns)
            bounds[home] = bound
        }
        for value in stored { add(value) }
        for value in added { add(value) }
        return bounds.values.map(\.packed).sorted()
    }

    /// The values `PositionIndexState.Late` holds.
    static func stored(_ db: Database) throws -> [Int64] {
        values(try Data.fetchOne(db, sql: "SELECT Late FROM PositionIndexState").map { [UInt8]($0) } ?? [])
    }

    static func blob(_ values: [Int64]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in values { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        return bytes
    }

    static func values(_ blob: [UInt8]) -> [Int64] {
        stride(from: 0, to: blob.count - 7, by: 8).map { offset in
            blob.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self)) }
        }
    }

    /// Whether a game may reach a position of `material` after the tree's plies.
    static func mayReach(_ values: [Int64], _ material: ReplayMaterial) -> Bool {
        values.contains { ReplayMaterial(packed: $0).mayReach(material) }
    }
}
