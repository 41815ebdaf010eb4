/// Finding the first of a few kinds of bytes in a long text, eight bytes at a time: a
/// document's text arrives as one JSON string of up to gigabytes, and its lines are indexed
/// once.
public enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` that is zero (exact for the lowest such byte, which
    /// is all the scans below use).
    @inline(__always) private static func zeros(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }

    /// The index of the first `"`, `\` or control character (below 0x20) at or after `start`,
    /// else `bytes.count`: where a JSON string's plain bytes end.
    public static func firstQuoteBackslashOrControl(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        first(in: bytes, from: start) { word in
            zeros(word ^ (ones &* 0x22)) | zeros(word ^ (ones &* 0x5C)) | ((word &- ones &* 0x20) & ~word & highs)
        } isOne: { byte in
            byte == 0x22 || byte == 0x5C || byte < 0x20
        }
    }

    /// The same, or the first byte that is not ASCII: where a JSON string's plain ASCII bytes end.
    public static func firstQuoteBackslashControlOrWide(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        first(in: bytes, from: start) { word in
            zeros(word ^ (ones &* 0x22)) | zeros(word ^ (ones &* 0x5C)) | ((word &- ones &* 0x20) & ~word & highs)
                | (word & highs)
        } isOne: { byte in
            byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80
        }
    }

    /// The index of the first line feed or carriage return at or after `start`, else `bytes.count`.
    public static func firstLineBreak(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        first(in: bytes, from: start) { word in
            zeros(word ^ (ones &* 0x0A)) | zeros(word ^ (ones &* 0x0D))
        } isOne: { byte in
            byte == 0x0A || byte == 0x0D
        }
    }

    /// Whether a line starts after the byte `previous`, `next` being the byte that follows it
    /// (nil at the end of the text): after a line feed, or a carriage return not followed by one.
    @inline(__always)
    public static func startsLine(after previous: UInt8, before next: UInt8?) -> Bool {
        previous == 0x0A || (previous == 0x0D && next != 0x0A)
    }

    /// Where the lines of a text start: 0, and after each `\n`, `\r\n` or lone `\r` (a text
    /// ending with a line break has a last, empty line at its end).
    public static func lineStarts(_ bytes: UnsafeBufferPointer<UInt8>) -> [Int] { starts(bytes) }

    /// The same in 32 bits, for a text under 4 GB.
    public static func lineStarts32(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt32] {
        precondition(bytes.count <= UInt32.max, "a text of 4 GB or more")
        return starts(bytes)
    }

    @inline(__always) private static func starts<Offset: FixedWidthInteger>(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> [Offset] {
        var starts: [Offset] = [0]
        // About forty bytes a line (a PGN file's are shorter than 80 columns).
        starts.reserveCapacity(bytes.count / 40 + 1)
        var index = firstLineBreak(bytes, from: 0)
        while index < bytes.count {
            if bytes[index] == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A { index += 1 }
            starts.append(Offset(truncatingIfNeeded: index + 1))
            index = firstLineBreak(bytes, from: index + 1)
        }
        return starts
    }

    /// The index of the first byte at or after `start` that `isOne` takes, else `bytes.count`;
    /// `marks` gives the high bit of such bytes in a word of eight (exact for the lowest).
    @inline(__always) private static func first(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int, marks: (UInt64) -> UInt64, isOne: (UInt8) -> Bool
    ) -> Int {
        var k = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            // Sixteen bytes a step while none is found: one branch for two words.
            while k + 16 <= bytes.count {
                let low = marks(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self))
                let high = marks(raw.loadUnaligned(fromByteOffset: k + 8, as: UInt64.self))
                if low | high != 0 {
                    return low != 0 ? k + low.trailingZeroBitCount / 8 : k + 8 + high.trailingZeroBitCount / 8
                }
                k += 16
            }
            while k + 8 <= bytes.count {
                let found = marks(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self))
                if found != 0 { return k + found.trailingZeroBitCount / 8 }
                k += 8
            }
        }
        while k < bytes.count && !isOne(bytes[k]) { k += 1 }
        return k
    }

    /// Whether bytes are valid UTF-8 (no overlong form, surrogate or value past U+10FFFF),
    /// ASCII 32 bytes at a time.
    public static func isValidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = b.count
        guard let base = b.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let high: UInt64 = 0x8080_8080_8080_8080
        while i < n {
            // Most text is ASCII: 32 bytes at a time while they are, then 8.
            if i + 32 <= n
                && (raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) & high == 0
            {
                i += 32
                continue
            }
            if i + 8 <= n && raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & high == 0 {
                i += 8
                continue
            }
            let c = b[i]
            if c < 0x80 {
                i += 1
                continue
            }
            let length: Int
            if c & 0xE0 == 0xC0 && c >= 0xC2 {
                length = 2
            } else if c & 0xF0 == 0xE0 {
                length = 3
            } else if c & 0xF8 == 0xF0 && c <= 0xF4 {
                length = 4
            } else {
                return false
            }
            guard i + length <= n else { return false }
            for k in 1..<length where b[i + k] & 0xC0 != 0x80 { return false }
            if length == 3 {
                let scalar = (UInt32(c & 0x0F) << 12) | (UInt32(b[i + 1] & 0x3F) << 6)
                if scalar < 0x800 || (0xD800...0xDFFF).contains(scalar | UInt32(b[i + 2] & 0x3F)) { return false }
            }
            if length == 4 {
                let high = (UInt32(c & 0x07) << 18) | (UInt32(b[i + 1] & 0x3F) << 12)
                if high < 0x10000 || high > 0x10FFFF { return false }
            }
            i += length
        }
        return true
    }
}
