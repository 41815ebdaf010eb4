import PGN
import XCTest

/// Twins: the same game twice, or a copy whose mainline is the start of another's, with the
/// same players, date and round.
final class TwinsTests: XCTestCase {
    func keys(_ text: String) -> [TwinKey?] {
        let source = SourceText(text)
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        return parser.games.enumerated().map { TwinKey(GameReplay(source: source, syntax: $1, index: $0)) }
    }

    func game(_ white: String, _ moves: String, round: String = "6", date: String = "2021.12.03") -> String {
        "[White \"\(white)\"]\n[Black \"Nepomniachtchi, Ian\"]\n[Date \"\(date)\"]\n[Round \"\(round)\"]\n\n\(moves)\n\n"
    }

    func testAnExactCopyPointsAtTheFirst() {
        let pairs = Twins.find(keys(game("Carlsen, Magnus", "1. d4 Nf6 *") + game("carlsen,magnus", "1. d4+ Nf6!? *")))
        XCTAssertEqual(pairs, [Twins.Pair(copy: 1, kept: 0, isShorter: false)])
    }

    func testAShorterCopyPointsAtTheLongestWhereverItIs() {
        let text =
            game("Carlsen", "1. d4 Nf6 2. Nf3 d5 3. g3 *") + game("Carlsen", "1. d4 Nf6 *")
            + game("Carlsen", "1. d4 Nf6 2. Nf3 d5 3. g3 e6 1-0")
        XCTAssertEqual(
            Twins.find(keys(text)),
            [Twins.Pair(copy: 0, kept: 2, isShorter: true), Twins.Pair(copy: 1, kept: 2, isShorter: true)])
    }

    func testOtherRoundsDatesMovesOrPlayersAreNotTwins() {
        let text =
            game("Carlsen", "1. d4 Nf6 *") + game("Carlsen", "1. d4 Nf6 *", round: "7")
            + game("Carlsen", "1. d4 Nf6 *", date: "2021.12.04") + game("Caruana", "1. d4 Nf6 *")
            + game("Carlsen", "1. e4 *") + game("Carlsen", "1. d4 d5 *")
        XCTAssertEqual(Twins.find(keys(text)), [])
    }

    func testVariationsDoNotCountAndGamesWithoutMovesOrPlayersHaveNoKey() {
        let text = game("Carlsen", "1. d4 (1. e4 e5) 1... Nf6 *") + game("Carlsen", "1. d4 Nf6 (1... d5) *")
        XCTAssertEqual(Twins.find(keys(text)), [Twins.Pair(copy: 1, kept: 0, isShorter: false)])
        XCTAssertNil(keys(game("Carlsen", "*"))[0])
        XCTAssertNil(keys("[Event \"x\"]\n\n1. e4 *\n")[0])
    }
}
