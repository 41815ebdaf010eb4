import ChessCore
import PGN
import XCTest

/// A repertoire holds every position of its games and variations, found by position: a game
/// that reaches a prepared position by another move order is still in it.
final class RepertoireTests: XCTestCase {
    static func replays(_ text: String) -> [GameReplay] {
        let bytes = Array(text.utf8)
        let source = SourceText(bytes)
        let parser = bytes.withUnsafeBufferPointer { Parser($0) }
        return parser.games.enumerated().map { GameReplay(source: source, syntax: $1, index: $0) }
    }

    static func repertoire(_ text: String, side: Color) -> Repertoire {
        var repertoire = Repertoire(side: side)
        for replay in replays(text) { XCTAssertTrue(repertoire.add(replay, file: "rep.pgn")) }
        return repertoire
    }

    static func follow(_ game: String, _ repertoire: Repertoire) -> RepertoireDeparture {
        let replayed = replays(game)[0].run(keepMoves: true)
        return RepertoireDeparture.follow(
            start: replayed.start.position!, mainline: replayed.moves.filter { $0.depth == 0 }, through: repertoire)
    }

    /// Black's repertoire (en-croissant#849): the Nimzo-Indian through 1. d4 Nf6 2. c4, and the
    /// English through 1. c4 Nf6 2. Nc3 only.
    static let black = """
        [Event "Nimzo-Indian"]
        [Orientation "black"]

        1. d4 Nf6 2. c4 e6 3. Nc3 (3. Nf3 b6) 3... Bb4 *

        [Event "English"]
        [Orientation "black"]

        1. c4 Nf6 2. Nc3 e6 *
        """

    func testAPositionCoveredThroughOneMoveOrderIsCoveredThroughTheOther() {
        let repertoire = Self.repertoire(Self.black, side: .black)
        // 1. c4 Nf6 2. d4 reaches the Nimzo-Indian's position after 2. c4: prepared there.
        let departure = Self.follow("1. c4 Nf6 2. d4 e6 3. Nc3 Bb4 4. e3 O-O *", repertoire)
        XCTAssertEqual(departure.kind, .ended, "in the repertoire to its last prepared move")
        XCTAssertEqual(departure.ply, 6)
        XCTAssertEqual(departure.moveNumber, "4.")
        XCTAssertEqual(departure.place?.chapter, 0)
        XCTAssertEqual(departure.place?.line, 4)
        // The other way round: the English's position after 2. Nc3 e6, reached from 1. d4.
        let other = Self.follow("1. Nc3 Nf6 2. c4 e6 3. d4 Bb4 *", repertoire)
        XCTAssertEqual(other.kind, .opponent, "1. Nc3 was not prepared")
        XCTAssertEqual(other.ply, 0)
    }

    func testWhoLeftTheRepertoireAndWhatItPrepared() {
        let repertoire = Self.repertoire(Self.black, side: .black)
        let player = Self.follow("1. d4 Nf6 2. c4 e6 3. Nf3 d5 *", repertoire)
        XCTAssertEqual(player.kind, .player)
        XCTAssertEqual(player.ply, 5)
        XCTAssertEqual(player.played, "d5")
        XCTAssertEqual(player.moveNumber, "3...")
        XCTAssertEqual(player.prepared.map(\.san), ["b6"])
        let opponent = Self.follow("1. d4 Nf6 2. Bg5 e6 *", repertoire)
        XCTAssertEqual(opponent.kind, .opponent)
        XCTAssertEqual(opponent.played, "Bg5")
        XCTAssertEqual(opponent.prepared.map(\.san), ["c4"])
        XCTAssertEqual(opponent.prepared.first?.place.line, 4)
        let stayed = Self.follow("1. c4 Nf6 2. Nc3 *", repertoire)
        XCTAssertEqual(stayed.kind, .stayed)
        XCTAssertEqual(stayed.ply, 3)
        XCTAssertEqual(stayed.prepared.map(\.san), ["e6"])
        let notMet = Self.follow("[FEN \"k7/8/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. Kb1 *", repertoire)
        XCTAssertEqual(notMet.kind, .notMet)
    }

    func testTheSideOfARepertoireGameIsReadFromItsTags() {
        let games = Self.replays(
            """
            [Orientation "White"]

            1. e4 *

            [ChesstempoRepertoireColour "black"]

            1. e4 c5 *

            [Event "no side"]

            1. d4 *
            """)
        XCTAssertEqual(games.map(Repertoire.side(of:)), [.white, .black, nil])
        XCTAssertEqual(games.map(Repertoire.chapterName(of:)), ["game 1", "game 2", "no side"])
    }
}
