/// Precomputed attack sets: leapers by table, sliders by magic bitboards.
///
/// The tables are built once, on first use. The magic factors were found by the search in
/// `buildMagic` from a fixed seed and are kept below, so that a start costs no search. Everything lives in one allocation that
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
            offset = buildMagic(
                square: square, directions: Attacks.rookDirections, slot: square, offset: offset,
                known: Attacks.knownFactors[square], rng: &rng)
        }
        for square in 0..<64 {
            offset = buildMagic(
                square: square, directions: Attacks.bishopDirections, slot: 64 + square, offset: offset,
                known: Attacks.knownFactors[64 + square], rng: &rng)
        }
        buildRays()
    }

    /// Factors found by `buildMagic`'s search from the seed above (rooks a1…h8, bishops a1…h8).
    static let knownFactors: [UInt64] = [
        0x880104000800020, 0x2280200040008014, 0x100200040110008, 0x100050008100220,
        0x2200020020100408, 0x180040080010200, 0x3600010082000804, 0xC200020404482081,
        0xA012800040048031, 0x4210C04000201000, 0x3001002000110842, 0x800800801000,
        0x4800800800400, 0x1002000805020010, 0x4000804810210, 0x1101000081000042,
        0x18208001400680, 0x411000C000402000, 0x801010040102006, 0x8000210008100100,
        0x1000850011000800, 0x80110200440, 0x800400100102B8, 0x4002000132804C,
        0x1000400080008020, 0x5000C0002000, 0xC010080020200400, 0x19010B0100100121,
        0x2000040280080080, 0x280020080040080, 0x900008E400011002, 0x51004200008104,
        0x8220004000808000, 0x40002800601000, 0xC880200080801000, 0x100101000820,
        0xE408080080800400, 0x812800400800200, 0x81002040008C1, 0x98041042000089,
        0x2C40400080218000, 0x4010002000484000, 0x20040200101000, 0x4088020100101000,
        0x8102001020060008, 0x804000200808004, 0x421000200010104, 0x400808044020021,
        0x40008000402080, 0xC00400020008180, 0xC140408224120200, 0x300080D0C80280,
        0x902001004608A00, 0x1002000410080200, 0x11002080400, 0x2C0500408600,
        0x201042014800041, 0x4010C20C0005081, 0x4200C2B080206A, 0x80090008203000DD,
        0x102001084600902, 0x482000408011082, 0x8900020000A441, 0x20004401002082,
        0x22830100081248A, 0x2062022204190880, 0x444008A010028, 0x8004104200100040,
        0x1001104000000452, 0x40822020004410, 0x8201208820080022, 0x50A020084440218,
        0x1000106002008611, 0x4002018C20084A0, 0x12410441020A0000, 0x8004309092000011,
        0xD0004D1040001008, 0x8202091008840201, 0x4402084020, 0x80A11400A20800,
        0x240411A019120820, 0x2116102040108, 0x201010C010202, 0x80800802024402,
        0x3012100401040820, 0x620B01B601190104, 0x4510C1400821102, 0x2010840422800,
        0x402808A804301000, 0x2451080020280900, 0x24011002060400, 0x3082002268008020,
        0x400084006B80201A, 0x255001000C808082, 0x10184104188C1100, 0x420510122008640,
        0x286804084A2000, 0x8013004044480, 0x2003010820082, 0x1001400888820200,
        0x4004080200042008, 0x4010100020004400, 0x82080441031400, 0x2006840010402,
        0x2222020040402, 0x10620220089002, 0x11001082101004, 0x4C0010411020800,
        0x424200200800410, 0x800C304840402200, 0x201C22C0811208, 0x108408084042E100,
        0x1000440220100022, 0x828C300A0144, 0xC010104208042C10, 0x2080A40020A80025,
        0x4400001042020019, 0x1000081001020800, 0xA0E00210810220, 0x421A8204010100,
        0x4210812100240, 0x1080104208908809, 0x864410216010408, 0x2200000E0460800,
        0x4090800110820200, 0x8920024008010440, 0xA0A22108010800A0, 0x86250A200830200,
    ]

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

    /// The magic factors in use (rooks a1…h8, then bishops a1…h8).
    public var magicFactors: [UInt64] { (0..<128).map { magics[$0].factor } }

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
        square: Int, directions: [(Int, Int)], slot: Int, offset: Int, known: UInt64, rng: inout SplitMix64
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
            // The factor found by an earlier search with this seed first; it saves the search
            // (about 150 ms) at every start. Should it ever fail, the search goes on.
            let factor = attempt == 1 ? known : rng.next() & rng.next() & rng.next()
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
