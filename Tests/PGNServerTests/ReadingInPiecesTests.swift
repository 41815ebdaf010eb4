import Foundation
import PGN
import XCTest

@testable import PGNServer

/// A large text is read on every core in pieces (`PGNAnalyzer.pieceBounds`): each cut is a game
/// start, pieces are at most 8 MB and grow smaller towards the end, a game longer than a piece
/// is never cut, and the games found are those of one reading of the whole text.
final class ReadingInPiecesTests: XCTestCase {
    static let game = "[Event \"Club\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n"

    /// The starts of the games of one reading of the whole text.
    static func gameStarts(_ bytes: [UInt8]) -> [Int] {
        bytes.withUnsafeBufferPointer { Parser($0).games.map(\.range.lowerBound) }
    }

    func testPiecesEndAtGamesAndShrinkTowardsTheEnd() {
        let bytes = Array(String(repeating: Self.game, count: (40 << 20) / Self.game.utf8.count).utf8)
        let bounds = bytes.withUnsafeBufferPointer { PGNAnalyzer.pieceBounds($0, cores: 2) }
        XCTAssertEqual(bounds.first, 0)
        XCTAssertEqual(bounds.last, bytes.count)
        let starts = Set(Self.gameStarts(bytes))
        for cut in bounds.dropFirst().dropLast() { XCTAssertTrue(starts.contains(cut), "a cut at \(cut)") }
        let sizes = zip(bounds, bounds.dropFirst()).map { $1 - $0 }
        XCTAssertTrue(sizes.allSatisfy { $0 <= 8 << 20 }, "\(sizes)")
        XCTAssertEqual(sizes.prefix(2), [sizes[0], sizes[0]], "8 MB pieces first")
        XCTAssertGreaterThan(sizes[0], 8 << 20 - 100)
        XCTAssertLessThan(sizes.last!, 2 << 20, "a small last piece")
        XCTAssertEqual(sizes.dropLast(2), sizes.dropLast(2).sorted(by: >), "never larger than the one before")
    }

    func testAGameLongerThanAPieceIsReadWhole() throws {
        let before = String(repeating: Self.game, count: (3 << 20) / Self.game.utf8.count)
        // A game with a comment of 12 MB, more than a piece of 8 MB.
        let long = "[Event \"Lesson\"]\n\n1. e4 {" + String(repeating: "The centre. ", count: 1 << 20) + "} e5 *\n\n"
        let after = String(repeating: Self.game, count: (6 << 20) / Self.game.utf8.count)
        let bytes = Array((before + long + after).utf8)
        let longGame = before.utf8.count..<(before.utf8.count + long.utf8.count)
        let bounds = bytes.withUnsafeBufferPointer { PGNAnalyzer.pieceBounds($0, cores: 2) }
        XCTAssertFalse(bounds.contains { longGame.contains($0) && $0 != longGame.lowerBound }, "\(bounds)")
        XCTAssertTrue(bounds.contains { $0 > longGame.upperBound && $0 < bytes.count }, "the games after it are cut")
        let cut = PGNAnalyzer.cutIntoGames(bytes)
        XCTAssertEqual(cut.ranges.map(\.lowerBound), Self.gameStarts(bytes))
        XCTAssertTrue(cut.ranges.contains { $0.lowerBound == longGame.lowerBound && $0.count >= 12 << 20 })
    }

    func testASmallTextOrOneCoreIsOnePiece() {
        let bytes = Array(String(repeating: Self.game, count: 1000).utf8)
        XCTAssertEqual(bytes.withUnsafeBufferPointer { PGNAnalyzer.pieceBounds($0, cores: 2) }, [0, bytes.count])
        let large = Array(String(repeating: Self.game, count: (5 << 20) / Self.game.utf8.count).utf8)
        XCTAssertEqual(large.withUnsafeBufferPointer { PGNAnalyzer.pieceBounds($0, cores: 1) }, [0, large.count])
    }
}
