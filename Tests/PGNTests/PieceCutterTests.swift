import PGN
import XCTest

/// `pgn-lsp check`, `pgn-lsp import` and the server's first reading cut a text into pieces with
/// `PieceCutter` and read each on its own: the pieces must give the games the whole text gives.
final class PieceCutterTests: XCTestCase {
    /// A byte-order mark, `%` escape lines (one inside a tag section), a game without tags and
    /// text between games.
    static let sample = """
        \u{FEFF}[Event "a"]
        [Site "b"]
        % an escape line between tags
        [Round "1"]

        1. e4 e5 *

        Text between games.
        [Event "c"]
        [Result "1-0"]

        1. d4 d5 1-0

        1. c4 *
        % an escape line between games
        [Event "e"]

        1. Nf3 {a [comment] } *

        [Event "f"]
        [Event "g"]

        """

    /// The text cut at every place the cutter allows.
    static func pieces(_ bytes: [UInt8]) -> [Range<Int>] {
        var cuts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            while let next = PieceCutter.firstGameBoundary(UnsafeBufferPointer(rebasing: buffer[cuts.last!...])) {
                cuts.append(cuts.last! + next)
            }
        }
        cuts.append(bytes.count)
        return zip(cuts, cuts.dropFirst()).map { $0..<$1 }
    }

    func testEveryCallerCutsTheSampleAsTheWholeTextReadsIt() throws {
        let bytes = Array(Self.sample.utf8)
        let pieces = Self.pieces(bytes)
        XCTAssertEqual(
            pieces.map { String(decoding: bytes[$0], as: UTF8.self).prefix(11) },
            ["\u{FEFF}[Event \"a\"", "[Event \"c\"]", "[Event \"e\"]", "[Event \"f\"]"])
        // The parser (the server's first reading, and the import's reader when a game is not plain).
        let whole = bytes.withUnsafeBufferPointer { Parser($0) }
        let cut = pieces.flatMap { piece in
            bytes.withUnsafeBufferPointer {
                Parser(UnsafeBufferPointer(rebasing: $0[piece]), base: piece.lowerBound).games
            }
        }
        XCTAssertEqual(whole.games.count, 7)
        XCTAssertEqual(cut.map(\.range), whole.games.map(\.range))
        XCTAssertEqual(cut.map { $0.tags.map(\.range) }, whole.games.map { $0.tags.map(\.range) })
        // The checker (`pgn-lsp check`).
        let report = Checker.check(SourceText(bytes))
        var games = 0
        var diagnostics: [Diagnostic] = []
        for piece in pieces {
            let part = Checker.check(SourceText(Array(bytes[piece])), base: piece.lowerBound, firstGameIndex: games)
            games += part.games
            diagnostics += part.diagnostics
        }
        XCTAssertEqual(games, report.games)
        XCTAssertEqual(diagnostics.map(\.range), report.diagnostics.map(\.range))
        XCTAssertEqual(diagnostics.map(\.code), report.diagnostics.map(\.code))
    }

    func testAStreamIsCutAfterItsLastWholeGameOrWhereNoGameStarts() {
        let bytes = Array(Self.sample.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            let last = PieceCutter.lastGameBoundary(buffer)!
            XCTAssertTrue(PieceCutter.cut(buffer, atEnd: false, longest: 1 << 20)! == (last, false))
            XCTAssertTrue(PieceCutter.cut(buffer, atEnd: true, longest: 1 << 20)! == (bytes.count, false))
            let head = UnsafeBufferPointer(rebasing: buffer[..<20])
            XCTAssertNil(PieceCutter.cut(head, atEnd: false, longest: 1 << 20))
            // No game starts in the first 16 bytes: cut after the last line break before them.
            XCTAssertTrue(PieceCutter.cut(head, atEnd: false, longest: 16)! == (15, true))
        }
    }

    /// A piece taken from the pending bytes keeps their buffer; the bytes after the cut stay
    /// pending, copied.
    func testAPieceTakesThePendingBuffer() {
        let text = Array("[White \"A\"]\n\n1. e4 *\n\n[White \"B\"]\n\n1. d4".utf8)
        // Bytes of its own, as a stream's reader holds them (a buffer shared is copied).
        var pending: [UInt8] = []
        pending.append(contentsOf: text)
        let buffer = pending.withUnsafeBufferPointer { $0.baseAddress }
        let cut = pending.withUnsafeBufferPointer { PieceCutter.cut($0, atEnd: false, longest: 1 << 20)!.end }
        let piece = PieceCutter.takePiece(&pending, upTo: cut)
        XCTAssertEqual(piece, Array(text[..<cut]))
        XCTAssertEqual(pending, Array(text[cut...]))
        XCTAssertEqual(String(decoding: pending.prefix(9), as: UTF8.self), "[White \"B")
        XCTAssertEqual(piece.withUnsafeBufferPointer { $0.baseAddress }, buffer)
        // At the end of a stream the whole of it is a piece, and nothing stays pending.
        let last = PieceCutter.takePiece(&pending, upTo: pending.count)
        XCTAssertEqual(last, Array(text[cut...]))
        XCTAssertTrue(pending.isEmpty)
    }
}
