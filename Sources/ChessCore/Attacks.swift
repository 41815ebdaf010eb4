/// Precomputed attack sets: leapers by table, sliders by magic bitboards.
///
/// The tables are built once, on first use, from a fixed seed: no magic numbers are
/// shipped, and every run builds the same tables. Everything lives in one allocation that
/// is never freed, so the move generator reads raw memory with no reference counting.
public struct Attacks: @unchecked Sendable {
    @usableFromInline let table: UnsafeMutablePointer<UInt64>
    @usableFromInline let magics: UnsafeMutablePointer<Magic>

    @usableFromInline struct Magic {
        @usableFromInline var mask: UInt64
        @usableFromInline var factor: UInt64
        @usableFromInline var shift: UInt64
        @usableFromInline var offset: Int
    }

    // Layout of `table`, in UInt64 words.
    @usableFromInline static let knightBase = 0
    @usableFromInline static let kingBase = 64
    @usableFromInline static let whitePawnBase = 128
    @usableFromInline static let blackPawnBase = 192
    @usableFromInline static let betweenBase = 256
    @usableFromInline static let lineBase = betweenBase + 4096
    @usableFromInline static let sliderBase = lineBase + 4096
    static let rookEntries = 102_400
    static let bishopEntries = 5_248
    static let totalWords = sliderBase + rookEntries + bishopEntries

    /// The shared tables.
    public static let shared = Attacks()

    private init() {
        table = .allocate(capacity: Attacks.totalWords)
        table.initialize(repeating: 0, count: Attacks.totalWords)
        magics = .allocate(capacity: 128)  // 0..<64 rooks, 64..<128 bishops
        buildLeapers()
        var offset = Attacks.sliderBase
        var rng = SplitMix64(seed: 0x5EED_C0DE_2026)
        for square in 0..<64 {
            offset = buildMagic(square: square, directions: Attacks.rookDirections, slot: square, offset: offset, rng: &rng)
        }
        for square in 0..<64 {
            offset = buildMagic(square: square, directions: Attacks.bishopDirections, slot: 64 + square, offset: offset, rng: &rng)
        }
        buildRays()
    }

    static let rookDirections = [(0, 1), (0, -1), (1, 0), (-1, 0)]
    static let bishopDirections = [(1, 1), (1, -1), (-1, 1), (-1, -1)]

    // MARK: Queries

    @inlinable @inline(__always)
    public func knight(_ square: Square) -> Bitboard {
        Bitboard(raw: table[Attacks.knightBase &+ square.index])
    }

    @inlinable @inline(__always)
    public func king(_ square: Square) -> Bitboard {
        Bitboard(raw: table[Attacks.kingBase &+ square.index])
    }

    /// The squares a pawn of `color` on `square` attacks.
    @inlinable @inline(__always)
    public func pawn(_ color: Color, _ square: Square) -> Bitboard {
        Bitboard(raw: table[(color == .white ? Attacks.whitePawnBase : Attacks.blackPawnBase) &+ square.index])
    }

    @inlinable @inline(__always)
    public func rook(_ square: Square, _ occupied: Bitboard) -> Bitboard {
        slider(magics[square.index], occupied)
    }

    @inlinable @inline(__always)
    public func bishop(_ square: Square, _ occupied: Bitboard) -> Bitboard {
        slider(magics[64 &+ square.index], occupied)
    }

    @inlinable @inline(__always)
    public func queen(_ square: Square, _ occupied: Bitboard) -> Bitboard {
        rook(square, occupied) | bishop(square, occupied)
    }

    @inlinable @inline(__always)
    func slider(_ magic: Magic, _ occupied: Bitboard) -> Bitboard {
        let index = ((occupied.raw & magic.mask) &* magic.factor) >> magic.shift
        return Bitboard(raw: table[magic.offset &+ Int(truncatingIfNeeded: index)])
    }

    /// The squares strictly between two squares on a line, or empty if not aligned.
    @inlinable @inline(__always)
    public func between(_ a: Square, _ b: Square) -> Bitboard {
        Bitboard(raw: table[Attacks.betweenBase &+ a.index &* 64 &+ b.index])
    }

    /// The whole line (edge to edge) through two aligned squares, or empty if not aligned.
    @inlinable @inline(__always)
    public func line(_ a: Square, _ b: Square) -> Bitboard {
        Bitboard(raw: table[Attacks.lineBase &+ a.index &* 64 &+ b.index])
    }

    /// The squares a piece of `role` and `color` on `square` attacks.
    @inlinable
    public func attacks(_ role: Role, _ color: Color, _ square: Square, _ occupied: Bitboard) -> Bitboard {
        switch role {
        case .pawn: return pawn(color, square)
        case .knight: return knight(square)
        case .bishop: return bishop(square, occupied)
        case .rook: return rook(square, occupied)
        case .queen: return queen(square, occupied)
        case .king: return king(square)
        }
    }

    // MARK: Construction

    private static func slidingAttacks(_ square: Int, _ occupied: UInt64, _ directions: [(Int, Int)]) -> UInt64 {
        var result: UInt64 = 0
        for (df, dr) in directions {
            var file = square % 8 + df
            var rank = square / 8 + dr
            while (0..<8).contains(file) && (0..<8).contains(rank) {
                let bit: UInt64 = 1 << UInt64(rank * 8 + file)
                result |= bit
                if occupied & bit != 0 { break }
                file += df
                rank += dr
            }
        }
        return result
    }

    private func buildLeapers() {
        let knightSteps = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
        let kingSteps = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
        func leap(_ square: Int, _ steps: [(Int, Int)]) -> UInt64 {
            var result: UInt64 = 0
            for (df, dr) in steps {
                let file = square % 8 + df
                let rank = square / 8 + dr
                if (0..<8).contains(file) && (0..<8).contains(rank) { result |= 1 << UInt64(rank * 8 + file) }
            }
            return result
        }
        for square in 0..<64 {
            table[Attacks.knightBase + square] = leap(square, knightSteps)
            table[Attacks.kingBase + square] = leap(square, kingSteps)
            table[Attacks.whitePawnBase + square] = leap(square, [(-1, 1), (1, 1)])
            table[Attacks.blackPawnBase + square] = leap(square, [(-1, -1), (1, -1)])
        }
    }

    private func buildRays() {
        let directions = Attacks.rookDirections + Attacks.bishopDirections
        for a in 0..<64 {
            for (df, dr) in directions {
                // Walk from a in one direction; every square met is aligned with a.
                var between: UInt64 = 0
                var file = a % 8 + df
                var rank = a / 8 + dr
                while (0..<8).contains(file) && (0..<8).contains(rank) {
                    let b = rank * 8 + file
                    table[Attacks.betweenBase + a * 64 + b] = between
                    let line =
                        Attacks.slidingAttacks(a, 0, [(df, dr), (-df, -dr)]) | (1 << UInt64(a))
                    table[Attacks.lineBase + a * 64 + b] = line
                    between |= 1 << UInt64(b)
                    file += df
                    rank += dr
                }
            }
        }
    }

    /// Finds a magic factor for one square and fills its part of the slider table.
    private func buildMagic(
        square: Int, directions: [(Int, Int)], slot: Int, offset: Int, rng: inout SplitMix64
    ) -> Int {
        // Relevant occupancy: the rays without their last square (an edge square never blocks).
        var mask: UInt64 = 0
        for (df, dr) in directions {
            var file = square % 8 + df
            var rank = square / 8 + dr
            while (0..<8).contains(file + df) && (0..<8).contains(rank + dr) {
                mask |= 1 << UInt64(rank * 8 + file)
                file += df
                rank += dr
            }
        }
        let bits = mask.nonzeroBitCount
        let size = 1 << bits
        var occupancies = [UInt64](repeating: 0, count: size)
        var references = [UInt64](repeating: 0, count: size)
        var subset: UInt64 = 0
        for i in 0..<size {
            occupancies[i] = subset
            references[i] = Attacks.slidingAttacks(square, subset, directions)
            subset = (subset &- mask) & mask
        }
        var used = [Int](repeating: 0, count: size)
        var attempt = 0
        let shift = UInt64(64 - bits)
        while true {
            attempt += 1
            let factor = rng.next() & rng.next() & rng.next()
            if ((mask &* factor) >> 56).nonzeroBitCount < 6 { continue }
            var ok = true
            for i in 0..<size {
                let index = Int((occupancies[i] &* factor) >> shift)
                if used[index] != attempt {
                    used[index] = attempt
                    table[offset + index] = references[i]
                } else if table[offset + index] != references[i] {
                    ok = false
                    break
                }
            }
            if ok {
                magics[slot] = Magic(mask: mask, factor: factor, shift: shift, offset: offset)
                return offset + size
            }
        }
    }
}

/// A small, fast, deterministic pseudo-random generator (SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
