import TextPositions
import XCTest

/// The scans that find the end of a JSON string's plain run and the next line break, eight
/// and sixteen bytes at a time, against a byte-by-byte search: every byte that stops them at
/// every place of a word, from every start.
final class ByteScanTests: XCTestCase {
    func testScansStopWhereAByteByByteSearchStops() {
        let stops: [(name: String, scan: (UnsafeBufferPointer<UInt8>, Int) -> Int, isOne: (UInt8) -> Bool)] = [
            (
                "quote, backslash or control", ByteScan.firstQuoteBackslashOrControl,
                { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }
            ),
            (
                "the same or wide", ByteScan.firstQuoteBackslashControlOrWide,
                { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 >= 0x80 }
            ),
            ("line break", ByteScan.firstLineBreak, { $0 == 0x0A || $0 == 0x0D }),
        ]
        var generator = SeededGenerator(seed: 0x5CA9)
        let plain = Array("e4 e5 Nf3 {clk} ".utf8)
        let special: [UInt8] = [0x22, 0x5C, 0x0A, 0x0D, 0x00, 0x1F, 0x80, 0xC3, 0xFF, 0x20, 0x7F]
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 70] {
            for _ in 0..<20 {
                var bytes = (0..<length).map { _ in plain.randomElement(using: &generator)! }
                for _ in 0..<Int.random(in: 0...2, using: &generator) where length > 0 {
                    bytes[Int.random(in: 0..<length, using: &generator)] = special.randomElement(using: &generator)!
                }
                bytes.withUnsafeBufferPointer { buffer in
                    for stop in stops {
                        for start in 0...length {
                            let expected = (start..<length).first { stop.isOne(bytes[$0]) } ?? length
                            XCTAssertEqual(stop.scan(buffer, start), expected, "\(stop.name) in \(bytes) from \(start)")
                        }
                    }
                }
            }
        }
    }
}
