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

    /// The index of the first line feed or carriage return at or after `start`, else `bytes.count`.
    public static func firstLineBreak(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        first(in: bytes, from: start) { word in
            zeros(word ^ (ones &* 0x0A)) | zeros(word ^ (ones &* 0x0D))
        } isOne: { byte in
            byte == 0x0A || byte == 0x0D
        }
    }

    /// The index of the first byte at or after `start` that `isOne` takes, else `bytes.count`;
    /// `marks` gives the high bit of such bytes in a word of eight (exact for the lowest).
    @inline(__always) private static func first(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int, marks: (UInt64) -> UInt64, isOne: (UInt8) -> Bool
    ) -> Int {
        var k = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while k + 8 <= bytes.count {
                let found = marks(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self))
                if found != 0 { return k + found.trailingZeroBitCount / 8 }
                k += 8
            }
        }
        while k < bytes.count && !isOne(bytes[k]) { k += 1 }
        return k
    }
}
