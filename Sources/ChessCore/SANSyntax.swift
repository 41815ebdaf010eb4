/// The pieces of a move written in SAN or a lenient relative of it.
struct SANSyntax: Equatable {
    enum Check { case none, check, mate }
    var role: Role?
    var fromFile: Int?
    var fromRank: Int?
    var to: Square?
    var castle: Bool?  // true for kingside
    var promotion: Role?
    var capture = false
    var separator: UInt8?
    var check = Check.none
    var isNull = false
    var leniency = SANLeniency()

    /// Whether `bytes` are exactly `literal`. (A function of its own: a nested one capturing
    /// the reader's cursors would put them on the heap, behind exclusivity checks.)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == bytes.count else { return false }
        for k in 0..<bytes.count where literal.utf8Start[k] != bytes[k] { return false }
        return true
    }

    private init() {}

    /// Reads the text, or nil when it is not a move.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let text = SANSyntax(common: bytes) {
            self = text
        } else {
            self.init(parsing: bytes)
        }
    }

    /// The shapes most moves have (`e4`, `Nf3`, `exd5`, `Nxf3`, each with or without `+` or
    /// `#`), read as `init(parsing:)` reads them; nil for any other text.
    @inline(__always)
    init?(common bytes: UnsafeBufferPointer<UInt8>) {
        var n = bytes.count
        var check = Check.none
        if n > 0 && bytes[n - 1] == 0x2B {  // +
            check = .check
            n -= 1
        } else if n > 0 && bytes[n - 1] == 0x23 {  // #
            check = .mate
            n -= 1
        }
        guard n >= 2 && n <= 4, let toFile = Square.file(ascii: bytes[n - 2]),
            let toRank = Square.rank(ascii: bytes[n - 1])
        else { return nil }
        self.init()
        self.check = check
        to = Square(toRank * 8 + toFile)
        /// A piece letter as SAN writes it: upper case, and never `P`.
        @inline(__always) func piece(_ c: UInt8) -> Role? {
            c & 0x20 == 0 && c != 0x50 ? Role(ascii: c) : nil
        }
        switch n {
        case 2:
            return
        case 3:
            guard let role = piece(bytes[0]) else { return nil }
            self.role = role
        default:
            guard bytes[1] == 0x78 else { return nil }  // x
            if let role = piece(bytes[0]) {
                self.role = role
            } else if let file = Square.file(ascii: bytes[0]) {
                fromFile = file
            } else {
                return nil
            }
            capture = true
            separator = 0x78
        }
    }

    /// Reads any text, or nil when it is not a move.
    init?(parsing bytes: UnsafeBufferPointer<UInt8>) {
        var end = bytes.count
        var start = 0
        guard end > 0 else { return nil }
        // Null moves.
        if end == 2 && bytes[0] == 0x2D && bytes[1] == 0x2D {  // --
            isNull = true
            return
        }
        if Self.equals(bytes, "Z0") || Self.equals(bytes, "0000") || Self.equals(bytes, "@@@@") {
            isNull = true
            leniency.insert(.nullMoveNotation)
            return
        }
        // Check and mate signs, and an en-passant mark, in either order.
        var sawSuffix = true
        while sawSuffix && end > start {
            sawSuffix = false
            let last = bytes[end - 1]
            if last == 0x2B {  // +
                // `++` is mate in some texts.
                if check == .none { check = .check } else if check == .check { check = .mate }
                end -= 1
                sawSuffix = true
            } else if last == 0x23 {  // #
                check = .mate
                end -= 1
                sawSuffix = true
            } else if end - start >= 6 && bytes[end - 4] == 0x65 && bytes[end - 3] == 0x2E && bytes[end - 2] == 0x70
                && last == 0x2E
            {
                end -= 4  // e.p.
                leniency.insert(.enPassantSuffix)
                sawSuffix = true
            } else if end - start >= 4 && bytes[end - 2] == 0x65 && last == 0x70
                && Square.rank(ascii: bytes[end - 3]) != nil
            {
                end -= 2  // ep
                leniency.insert(.enPassantSuffix)
                sawSuffix = true
            }
        }
        guard end > start else { return nil }

        // Castling.
        let first = bytes[start]
        if first == 0x4F || first == 0x30 || first == 0x6F {  // O 0 o
            var k = start
            var count = 0
            while k < end && bytes[k] == first {
                count += 1
                k += 1
                if k < end && bytes[k] == 0x2D { k += 1 } else { break }
            }
            if k == end && (count == 2 || count == 3) {
                castle = count == 2
                if first == 0x30 { leniency.insert(.castlingWithZeros) }
                if first == 0x6F { leniency.insert(.lowercaseCastling) }
                return
            }
            guard first != 0x4F || count == 0 else { return nil }
        }

        // Promotion at the end: `=Q`, `Q`, `(Q)`, `/Q`.
        if end - start >= 3, let role = Role(ascii: bytes[end - 1]),
            Square.rank(ascii: bytes[end - 2]) != nil || bytes[end - 2] == 0x3D || bytes[end - 2] == 0x2F
        {
            if bytes[end - 1] >= 0x61 { leniency.insert(.lowercasePromotion) }
            promotion = role
            end -= 1
            if bytes[end - 1] == 0x3D || bytes[end - 1] == 0x2F {
                end -= 1
                if bytes[end] == 0x2F { leniency.insert(.promotionWithoutEquals) }
            } else {
                leniency.insert(.promotionWithoutEquals)
            }
        } else if end - start >= 5 && bytes[end - 3] == 0x28 && bytes[end - 1] == 0x29,
            let role = Role(ascii: bytes[end - 2])
        {
            promotion = role
            end -= 3
            leniency.insert(.promotionWithoutEquals)
        }

        // Destination square.
        guard end - start >= 2, let toFile = Square.file(ascii: bytes[end - 2]),
            let toRank = Square.rank(ascii: bytes[end - 1])
        else {
            return nil
        }
        to = Square(toRank * 8 + toFile)
        end -= 2

        // Capture sign or long-algebraic hyphen.
        if end > start
            && (bytes[end - 1] == 0x78 || bytes[end - 1] == 0x3A || bytes[end - 1] == 0x2D || bytes[end - 1] == 0x58)
        {
            separator = bytes[end - 1]
            capture = separator != 0x2D
            if separator == 0x3A { leniency.insert(.colonCapture) }
            end -= 1
        }

        // Piece letter (a lower-case `b` is a file, never a bishop).
        if end > start {
            let c = bytes[start]
            switch c {
            case 0x4E: role = .knight
            case 0x42: role = .bishop
            case 0x52: role = .rook
            case 0x51: role = .queen
            case 0x4B: role = .king
            case 0x50: role = .pawn
            case 0x6E, 0x72, 0x71, 0x6B:
                role = Role(ascii: c)
                leniency.insert(.lowercasePiece)
            default: break
            }
            if role != nil { start += 1 }
        }
        // Disambiguation: file, rank, or both.
        if end > start, let file = Square.file(ascii: bytes[start]) {
            fromFile = file
            start += 1
        }
        if end > start, let rank = Square.rank(ascii: bytes[start]) {
            fromRank = rank
            start += 1
        }
        guard start == end else { return nil }
        if separator == 0x2D && (fromFile == nil || fromRank == nil) { return nil }
    }
}
