import Foundation
import XCTest

@testable import PGNServer

/// A file read in pieces that end where a game ends (`FilePieces`): together they are the file,
/// each starts at the start of a line, and its first line is counted.
final class FilePiecesTests: XCTestCase {
    func testThePiecesAreTheFileCutBetweenGames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-pieces-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Over two pieces' worth, with CRLF line breaks and a lone CR.
        let game = "[Event \"E\"]\r\n[White \"W\"]\r[Black \"B\"]\r\n\r\n1. e4 e5 *\r\n\r\n"
        let size = 1_000
        let text = String(repeating: game, count: 2 * size / game.utf8.count + 10)
        let file = folder.appendingPathComponent("games.pgn")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let opened = try FileSystem.open(Array(file.path.utf8), limit: 1 << 30).get()
        var pieces = FilePieces(opened, size: size)
        var joined: [UInt8] = []
        var count = 0
        while let piece = pieces.next() {
            count += 1
            XCTAssertEqual(piece.offset, joined.count)
            XCTAssertEqual(piece.firstLine, FilePieces.lineBreaks(joined))
            XCTAssertEqual(piece.bytes.first, UInt8(ascii: "["), "a piece starts with a game")
            XCTAssertLessThanOrEqual(piece.bytes.count, size)
            joined += piece.bytes
        }
        XCTAssertGreaterThanOrEqual(count, 3)
        XCTAssertNil(pieces.failure)
        XCTAssertEqual(joined, Array(text.utf8))
        XCTAssertEqual(FilePieces.lineBreaks(Array("a\r\nb\rc\n\n".utf8)), 4)
    }
}
