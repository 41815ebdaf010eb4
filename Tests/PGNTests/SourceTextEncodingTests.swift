import ChessCore
import PGN
import XCTest

/// Whether a text is UTF-8 decides how every byte of a file is read (Latin-1 otherwise): the
/// check must agree with the standard library's decoder on every kind of byte sequence, at
/// every place in the long runs of ASCII it skips in blocks.
final class SourceTextEncodingTests: XCTestCase {
    /// Sequences the check must accept or refuse, each placed after ASCII runs of every length
    /// around the block sizes and followed by more ASCII.
    func testTheCheckAgreesWithTheDecoderAtEveryOffset() {
        let pieces: [[UInt8]] = [
            [0xC3, 0xA9],  // é
            [0xE2, 0x82, 0xAC],  // €
            [0xF0, 0x9F, 0x98, 0x80],  // an emoji
            [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF, the last scalar
            [0xE9],  // Latin-1 é: a lead byte with no continuation
            [0xC0, 0xAF],  // overlong
            [0xE0, 0x80, 0xAF],  // overlong, three bytes
            [0xED, 0xA0, 0x80],  // a surrogate
            [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
            [0xF5, 0x80, 0x80, 0x80],  // no such lead byte
            [0x80],  // a continuation alone
            [0xE2, 0x82],  // cut short
            [0xFF],
        ]
        for piece in pieces {
            for before in 0...70 {
                for after in [0, 1, 7, 8, 31, 33] {
                    let bytes = [UInt8](repeating: 0x61, count: before) + piece + [UInt8](repeating: 0x62, count: after)
                    let expected = String(validating: bytes, as: UTF8.self) != nil
                    XCTAssertEqual(SourceText.isValidUTF8(bytes), expected, "\(piece) after \(before), \(after) after")
                }
            }
        }
    }

    /// The check reads only the bytes it is given, whatever their count: a byte that would
    /// make the text invalid lies just past the end of each.
    func testTheCheckStopsAtTheEndOfItsBytes() {
        for count in 0...100 {
            for last: [UInt8] in [[], [0xC3, 0xA9]] {
                let text = [UInt8](repeating: 0x61, count: count) + last
                let bytes = text + [0xFF]
                let valid = bytes.withUnsafeBufferPointer {
                    SourceText.isValidUTF8(UnsafeBufferPointer(rebasing: $0[0..<text.count]))
                }
                XCTAssertTrue(valid, "\(count) ASCII bytes, then \(last)")
            }
        }
    }

    /// Random mixes of ASCII, valid characters and stray bytes, against the decoder (a fixed
    /// seed, so that a failure comes back).
    func testTheCheckAgreesWithTheDecoderOnRandomText() {
        var random = SplitMix64(seed: 20_261_127)
        var refused = 0
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                bytes += [UInt8](repeating: 0x20, count: Int.random(in: 0...40, using: &random))
                switch Int.random(in: 0..<10, using: &random) {
                case 0: bytes.append(UInt8.random(in: 0x80...0xFF, using: &random))
                case 1...3:
                    bytes += Array("é€😀ß".utf8).shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random))
                default: bytes += Array("ĉ日本語🏁".utf8)
                }
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            if !expected { refused += 1 }
            XCTAssertEqual(SourceText.isValidUTF8(bytes), expected, "\(bytes)")
        }
        // Both kinds were met.
        XCTAssertGreaterThan(refused, 100)
        XCTAssertLessThan(refused, 2900)
    }
}
