import ChessCore
import TestSupport
import XCTest

@testable import PGN

/// Opening names: lichess's list built in, a game named by the last named position of its
/// mainline, and the `opening-tags` diagnostic.
final class OpeningTests: XCTestCase {
    let book = OpeningBook.shared

    func position(_ moves: String) -> Position {
        var position = Position.startingPosition
        for san in moves.split(separator: " ") {
            guard let move = position.move(san: String(san)) else {
                XCTFail("\(san) does not play")
                break
            }
            position.play(move)
        }
        return position
    }

    func testEveryLineOfTheListPlaysAndNamesItsPosition() {
        XCTAssertEqual(book.openings.count, 3807)
        XCTAssertEqual(book.openings.first?.title, "A00 Amar Opening")
        XCTAssertEqual(book.openings.map(\.plies).max(), 36)
        let najdorf = position("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6")
        XCTAssertEqual(book.opening(at: najdorf)?.title, "B90 Sicilian Defense: Najdorf Variation")
        XCTAssertNil(book.opening(at: .startingPosition))
    }

    func testATranspositionGetsTheNameOfThePositionItReaches() {
        // The Najdorf by another move order.
        let other = position("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6")
        let transposed = position("Nf3 c5 e4 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6")
        XCTAssertEqual(book.opening(at: transposed), book.opening(at: other))
    }

    func testTheClocksDoNotMatterButTheSideToMoveDoes() throws {
        let french = try Position(fen: "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
        XCTAssertEqual(book.opening(at: french)?.name, "French Defense")
        let clocks = try Position(fen: "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 7 40")
        XCTAssertEqual(book.opening(at: clocks)?.name, "French Defense")
        let blackToMove = try Position(fen: "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2")
        XCTAssertNil(book.opening(at: blackToMove))
    }

    func testAGameIsNamedByTheLastNamedPositionOfItsMainline() {
        // After 5... a6 the moves leave the list; variations do not count.
        let text =
            "[Event \"x\"]\n\n1. e4 c5 (1... e5 2. Nf3) 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Rb1 h6 7. Ra1 *"
        let source = SourceText(text)
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        let game = GameReplay(source: source, syntax: parser.games[0], index: 0).run()
        XCTAssertEqual(game.opening?.opening.eco, "B90")
        XCTAssertEqual(game.opening?.node.map { source.string(parser.games[0].nodes[$0].range) }, "a6")
        XCTAssertEqual(Checker.check(source).openings.map { $0?.eco }, ["B90"])
    }

    func testTagsThatDisagreeWithTheMovesAreReportedWithAFix() {
        let text =
            "[ECO \"C20\"]\n[Opening \"Sicilian Defense\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 *"
        let source = SourceText(text)
        let found = Checker.check(source).diagnostics.filter { $0.code == .openingTags }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(
            found.first?.message,
            "The moves reach B90 Sicilian Defense: Najdorf Variation, but the ECO tag says \"C20\"")
        XCTAssertEqual(found.first?.severity, .information)
        XCTAssertEqual(found.first.map { source.string($0.range) }, "\"C20\"")
        let fix = try? XCTUnwrap(found.first?.fixes.first)
        XCTAssertEqual(fix?.title, "Set ECO to \"B90\"")
        XCTAssertEqual(fix?.edits.map(\.text), ["\"B90\""])

        // Both wrong: one diagnostic, one fix for both tags.
        let both = "[ECO \"A00\"]\n[Opening \"Sicilian Defense\"]\n\n1. e4 e6 *"
        let diagnostics = Checker.check(SourceText(both)).diagnostics.filter { $0.code == .openingTags }
        XCTAssertEqual(
            diagnostics.first?.message,
            "The moves reach C00 French Defense, but the ECO tag says \"A00\" and the Opening tag says \"Sicilian Defense\""
        )
        XCTAssertEqual(diagnostics.first?.fixes.first?.edits.map(\.text), ["\"C00\"", "\"French Defense\""])
    }

    func testTagsThatAgreeOrAreMissingAreNotReported() {
        for text in [
            "[ECO \"B90\"]\n[Opening \"Sicilian Defense: Najdorf Variation\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 *",
            // The family is a shorter name of the same opening.
            "[ECO \"B90\"]\n[Opening \"Sicilian Defense\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 *",
            // The same with a name that is not ASCII.
            "[ECO \"D85\"]\n[Opening \"Grünfeld Defense\"]\n\n1. d4 Nf6 2. c4 g6 3. Nc3 d5 4. cxd5 Nxd5 *",
            "[Event \"x\"]\n\n1. e4 e6 *",
            // A game from a position that is no named one.
            "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n[ECO \"A00\"]\n\n1. O-O *",
        ] {
            XCTAssertEqual(codes(text).filter { $0.hasPrefix("opening-tags") }, [], text)
        }
    }

    /// TWIC's and ChessBase's words for the openings (`[Opening "King's Indian"]`
    /// `[Variation "Saemisch, 5...O-O"]`, `QGD`, `Gruenfeld`, `Petrov`, `Robatsch (modern)
    /// defence`), with their ECO codes: none is marked, though most are not lichess's words or
    /// codes for the last named position.
    /// ASCII names are read as bytes: the same words as the general reading, for every name
    /// of the list, each with its family, and names written oddly.
    func testAnASCIINameHasTheSameWordsReadAsBytes() {
        var names = book.openings.flatMap { [$0.name, String($0.name.prefix { $0 != ":" })] }
        names += [
            "Ruy Lopez (Spanish opening)", "Ruy Lopez (Spanish (Morphy)) Defence", "Sicilian (Najdorf", "a)b(c)d",
            "King's Gambit's", "Bishop's Opening's", "'s", "x's", "It's 'sa 's ", "Gruenfeld", "Grueeenfeld",
            "Queen's Gambit Declined: 5...O-O 6.Bg5", "QGD, Slav", "KID; 4.e4 d6", "Nimzowitsch-Larsen", "Reti 1.Nf3",
            "CENTRE GAME", "Petroff\r\nDefence", "Alekhin_Defense", "  ", "", "Vs. The Game of the Century",
        ]
        var compared = 0
        for name in names where name.utf8.allSatisfy({ $0 < 0x80 }) {
            let bytes = Array(name.utf8)
            let read = bytes.withUnsafeBufferPointer { OpeningTags.asciiWords($0) }
            XCTAssertEqual(read, OpeningTags.generalWords(name), name)
            XCTAssertEqual(OpeningTags.words(name), read, name)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 6000)
        XCTAssertEqual(OpeningTags.words("Grünfeld"), OpeningTags.words("Gruenfeld"))
    }

    func testTheWordsOfTWICAndChessBaseAreNotMarked() throws {
        let url = SharedMaterial.fixtures.appendingPathComponent("corpus/pgn-lsp/twic-openings.pgn")
        let source = SourceText(Array(try Data(contentsOf: url)))
        let result = Checker.check(source)
        XCTAssertEqual(result.openings.count, 24)
        XCTAssertEqual(result.diagnostics.filter { $0.code == .openingTags }.map(\.message), [])
        // What the exact comparison marked: the file tests the judging by meaning.
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        var differ = 0
        for (game, opening) in zip(parser.games, result.openings) {
            guard let opening, let eco = game.tags.first(where: { source.string($0.nameRange) == "ECO" }),
                let name = game.tags.first(where: { source.string($0.nameRange) == "Opening" })
            else { continue }
            let says = (source.string(eco.valueRange!), String(source.string(name.valueRange!).dropFirst().dropLast()))
            // Lichess's code, and its name or the start of it.
            let rest = opening.name.hasPrefix(says.1) ? opening.name.dropFirst(says.1.count) : "no"
            if says.0 != "\"\(opening.eco)\"" || !(rest.isEmpty || rest.hasPrefix(":") || rest.hasPrefix(",")) {
                differ += 1
            }
        }
        XCTAssertGreaterThanOrEqual(differ, 20)
    }

    /// A tag that contradicts the moves is still marked, in any book's words.
    func testRealContradictionsAreMarked() {
        let french = "1.e4 e6 2.d4 d5 3.Nc3 Bb4 4.e5 c5 *"
        let kingsIndian = "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.f3 O-O *"
        for (tags, moves, marked) in [
            (
                "[ECO \"C18\"]\n[Opening \"Sicilian\"]\n[Variation \"Najdorf\"]", french,
                "the Opening tag says \"Sicilian\""
            ),
            ("[ECO \"B90\"]\n[Opening \"French\"]", french, "the ECO tag says \"B90\""),
            ("[ECO \"E81\"]\n[Opening \"Caro-Kann\"]", kingsIndian, "the Opening tag says \"Caro-Kann\""),
            ("[ECO \"E81\"]\n[Opening \"Nimzo-Indian\"]", kingsIndian, "the Opening tag says \"Nimzo-Indian\""),
            (
                "[ECO \"A45\"]\n[Opening \"Sicilian Defence\"]", "1.d4 Nf6 2.Bg5 *",
                "the Opening tag says \"Sicilian Defence\""
            ),
            ("[ECO \"D85\"]", kingsIndian, "the ECO tag says \"D85\""),
        ] {
            let text = "\(tags)\n\n\(moves)"
            let messages = Checker.check(SourceText(text)).diagnostics.filter { $0.code == .openingTags }.map(\.message)
            XCTAssertEqual(messages.count, 1, text)
            XCTAssertTrue(messages.first?.hasSuffix(marked) == true, "\(messages)")
        }
    }

    /// How names are compared: spellings, aliases, possessives, variations after a comma.
    func testNamesAgreeByMeaning() {
        let book = OpeningBook.shared
        let samisch = book.opening(at: position("d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 f3 O-O"))!
        let berlin = book.opening(at: position("e4 e5 Nf3 Nc6 Bb5 Nf6"))!
        let petrov = book.opening(at: position("e4 e5 Nf3 Nf6"))!
        for (tag, opening) in [
            ("King's Indian", samisch), ("Kings Indian Defence", samisch), ("KID", samisch),
            ("King's Indian, Saemisch", samisch), ("King's Indian: Sämisch Variation", samisch),
            ("Spanish", berlin), ("Ruy Lopez (Spanish opening)", berlin), ("Ruy Lopez, Berlin defence", berlin),
            ("Petrov", petrov), ("Petroff Defence", petrov), ("Russian Game", petrov),
        ] {
            XCTAssertTrue(OpeningTags.nameAgrees(tag, passed: [opening]), "\(tag) for \(opening.name)")
        }
        XCTAssertFalse(OpeningTags.nameAgrees("French", passed: [samisch]))
        XCTAssertTrue(OpeningTags.nameAgrees("Not an opening at all", passed: [samisch]), "not judged")
        XCTAssertTrue(OpeningTags.ecoAgrees("E89", passed: [samisch]))
        XCTAssertFalse(OpeningTags.ecoAgrees("E99", passed: [samisch]))
        XCTAssertTrue(OpeningTags.ecoAgrees("?", passed: [samisch]), "not judged")
    }
}
