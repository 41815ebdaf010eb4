import ChessCore
import PGN
import XCTest

@testable import GameStore

/// What no move column can hold (a null move and the rest of its line, a move that cannot be
/// played and what follows it, notes among the moves, a variation with nothing to replace) is
/// kept as a comment at its place: En Croissant reads the blob as ever, ocgdb reads the
/// mainline up to it, and the export writes the text back where it stood.
final class KeptTextTests: XCTestCase {
    func encode(_ pgn: String, content: MovesContent = .full, strict: Bool = false) throws -> EncodedGame {
        let results = GameEncoder.encode(SourceText(pgn), content: content, strict: strict)
        XCTAssertEqual(results.count, 1)
        return try results[0].get()
    }

    /// The blob read back: moves in SAN, `{comment}`, `$n`, `(` and `)`.
    func elements(_ game: EncodedGame, from start: Position = .startingPosition) throws -> [String] {
        var lines = LinePositions(start)
        return try MovesBlob.decode(game.moves, from: start).map { element in
            switch element {
            case .move(let move):
                let san = lines.position.san(move)
                lines.play(move)
                return san
            case .comment(let text): return "{\(text)}"
            case .nag(let value): return "$\(value)"
            case .variationStart:
                _ = lines.startVariation()
                return "("
            case .variationEnd:
                _ = lines.endVariation()
                return ")"
            }
        }
    }

    /// The movetext an export writes for the game, its lines joined by spaces.
    func exported(_ game: EncodedGame, from start: Position = .startingPosition) throws -> String {
        PGNWriter.movetext(try MovesBlob.decode(game.moves, from: start), from: start, result: "*")
            .replacingOccurrences(of: "\n", with: " ")
    }

    func testANullMoveInAVariationKeepsTheVariationFromThereAsText() throws {
        let game = try encode("1. e4 e5 2. Nf3 Nc6 (2... d6 3. d4 -- {threat} 4. dxe5 (4. Nc3 Nf6) 4... dxe5) 3. Bb5 *")
        XCTAssertEqual(
            try elements(game),
            [
                "e4", "e5", "Nf3", "Nc6", "(", "d6", "d4",
                "{PGN as written: -- {threat} 4. dxe5 (4. Nc3 Nf6) 4... dxe5}",
                ")", "Bb5",
            ])
        XCTAssertEqual(game.plyCount, 5)
        XCTAssertEqual(hex(game.moves2), hex(try encode("1. e4 e5 2. Nf3 Nc6 3. Bb5 *").moves2))
        XCTAssertEqual(
            game.changes, ["null move 3...-- in a variation: the variation kept as a comment from there"])
        XCTAssertFalse(game.incomplete)
        XCTAssertEqual(
            try exported(game),
            "1. e4 e5 2. Nf3 Nc6 (2... d6 3. d4 -- {threat} 4. dxe5 (4. Nc3 Nf6) 4... dxe5) 3. Bb5 *")
    }

    func testALineThatStartsWithANullMoveKeepsItsMoveNumber() throws {
        let game = try encode("1. e4 e5 (1... --  2. d4) 2. Nf3 *")
        XCTAssertEqual(try elements(game), ["e4", "e5", "(", "{PGN as written: 1... --  2. d4}", ")", "Nf3"])
        XCTAssertEqual(try exported(game), "1. e4 e5 (1... -- 2. d4) 2. Nf3 *")
    }

    func testANullMoveInTheMainlineStoresTheMovesBeforeIt() throws {
        for null in ["--", "Z0"] {
            let game = try encode("1. e4 e5 2. Nf3 \(null) {pass} 3. Bc4 (3. d4) Nc6 *")
            XCTAssertEqual(
                try elements(game), ["e4", "e5", "Nf3", "{PGN as written: \(null) {pass} 3. Bc4 (3. d4) Nc6}"])
            XCTAssertEqual(game.plyCount, 3)
            XCTAssertEqual(game.positionHashes.count, 4)
            // ocgdb reads the rest as the last move's comment.
            XCTAssertEqual(game.comments.map(\.ply), [2])
            XCTAssertEqual(game.comments.first?.text, "PGN as written: \(null) {pass} 3. Bc4 (3. d4) Nc6")
            XCTAssertEqual(
                game.changes, ["null move 2...\(null): the game stored up to it, the rest kept as a comment"])
            // A null move is no fault of the game: it is not marked incomplete.
            XCTAssertFalse(game.incomplete)
            XCTAssertEqual(game.otherTags, nil)
            XCTAssertEqual(try exported(game), "1. e4 e5 2. Nf3 \(null) {pass} 3. Bc4 (3. d4) Nc6 *")
        }
    }

    func testAnIllegalMainlineMoveStoresTheMovesBeforeItAndMarksTheGame() throws {
        let game = try encode("[Event \"e\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Nf3 {oops} a6 (3... d6) 4. Bb5 1-0")
        XCTAssertEqual(
            try elements(game), ["e4", "e5", "Nf3", "Nc6", "{PGN as written: 3. Nf3 {oops} a6 (3... d6) 4. Bb5}"])
        XCTAssertEqual(game.plyCount, 4)
        XCTAssertTrue(game.incomplete)
        XCTAssertEqual(game.changes, ["illegal move 3.Nf3: the game stored up to it, the rest kept as a comment"])
        XCTAssertEqual(
            game.otherTags, "[Incomplete \"illegal move 3.Nf3: the moves from there are kept as a comment\"]")
        XCTAssertEqual(game.result, "1-0")
        // A tag of the game's own of that name stays as it is.
        let own = try encode("[Event \"e\"]\n[Incomplete \"mine\"]\n\n1. e4 e5 2. Ke3 *")
        XCTAssertEqual(own.otherTags, "[Incomplete \"mine\"]")
        XCTAssertTrue(own.incomplete)
    }

    func testAmbiguousAndUnreadableMovesAreKeptToo() throws {
        let ambiguous = try encode("1. Nf3 Nf6 2. Nc3 Nc6 3. Nd4 Nd5 4. Nb5 a6 *")
        XCTAssertEqual(
            ambiguous.changes, ["ambiguous move 4.Nb5: the game stored up to it, the rest kept as a comment"])
        let unreadable = try encode("1. e4 e5 2. Sf3 Sc6 *")
        XCTAssertEqual(
            unreadable.changes, ["unreadable move 2.Sf3: the game stored up to it, the rest kept as a comment"])
        XCTAssertEqual(try exported(unreadable), "1. e4 e5 2. Sf3 Sc6 *")
    }

    func testAFaultInAVariationCostsOnlyThatVariation() throws {
        let game = try encode("1. e4 e5 (1... Nf3 2. d4 (2. c4)) (1... c5 2. Nf3) 2. Nf3 Nc6 *")
        XCTAssertEqual(
            try elements(game),
            ["e4", "e5", "(", "{PGN as written: 1... Nf3 2. d4 (2. c4)}", ")", "(", "c5", "Nf3", ")", "Nf3", "Nc6"])
        XCTAssertEqual(game.plyCount, 4)
        XCTAssertFalse(game.incomplete)
        XCTAssertEqual(
            game.changes, ["illegal move 1...Nf3 in a variation: the variation kept as a comment from there"])
    }

    func testNotesAmongTheMovesAreKeptWhereTheyStandAndTheLineGoesOn() throws {
        let game = try encode("1. e4 d5 2. e5 f5 3. exf6 e.p. (3. d4 keep Nc6 +) 3... Nxf6 !?! 4. d4 White resigns *")
        XCTAssertEqual(
            try elements(game),
            [
                "e4", "d5", "e5", "f5", "exf6", "{PGN as written: e.p.}", "(", "d4", "{PGN as written: keep}", "Nc6",
                "{PGN as written: +}", ")", "Nxf6", "{PGN as written: !?!}", "d4", "{PGN as written: White resigns}",
            ])
        XCTAssertEqual(game.plyCount, 7)
        XCTAssertEqual(game.changes.count, 5)
        XCTAssertEqual(game.changes.first, "the note \"e.p.\" after 3.exf6 kept as a comment")
        XCTAssertEqual(
            try exported(game), "1. e4 d5 2. e5 f5 3. exf6 e.p. (3. d4 keep Nc6 +) 3... Nxf6 !?! 4. d4 White resigns *")
    }

    func testAResultInsideAVariationIsANote() throws {
        let game = try encode("1. e4 e5 (1... c5 2. Nf3 1/2-1/2) 2. Nf3 1-0")
        XCTAssertEqual(try elements(game), ["e4", "e5", "(", "c5", "Nf3", "{PGN as written: 1/2-1/2}", ")", "Nf3"])
        XCTAssertEqual(game.result, "1-0")
        XCTAssertEqual(game.changes, ["the result \"1/2-1/2\" after 2.Nf3 kept as a comment"])
        // At the end of the game, a result inside a variation left open is the game's result.
        let open = try encode("1. e4 e5 (1... c5 2. Nf3 1/2-1/2")
        XCTAssertEqual(open.result, "1/2-1/2")
        XCTAssertEqual(open.changes, ["a variation left open closed at the end of the game"])
    }

    func testShortAndGluedResultsAreReadAsResults() throws {
        let short = try encode("[Result \"1/2\"]\n\n1. d4 d5 1/2")
        XCTAssertEqual(short.result, "1/2-1/2")
        XCTAssertEqual(short.otherTags, "[Result \"1/2\"]")
        XCTAssertEqual(short.changes, ["the result 1/2 read as 1/2-1/2"])
        let glued = try encode("[Result \"1-0\"]\n\n1.e4 e5 2.d4 exd4 3.Qxd4 Nc6 4.Qd1 d61-0")
        XCTAssertEqual(glued.plyCount, 8)
        XCTAssertEqual(glued.result, "1-0")
        XCTAssertEqual(glued.changes, ["\"d61-0\" read as 4...d6 and the result 1-0"])
    }

    func testAVariationWithNoMoveToReplaceIsKeptWhole() throws {
        let game = try encode("(1. d4 d5) 1. e4 e5 *")
        XCTAssertEqual(try elements(game), ["{PGN as written: (1. d4 d5)}", "e4", "e5"])
        XCTAssertEqual(try exported(game), "(1. d4 d5) 1. e4 e5 *")
    }

    func testAGameCommentThatLooksLikeKeptTextComesBackAsAComment() throws {
        let game = try encode("1. e4 {PGN as written: not moves} e5 *")
        XCTAssertEqual(try elements(game), ["e4", "{PGN as written: {PGN as written: not moves}}", "e5"])
        XCTAssertEqual(try exported(game), "1. e4 {PGN as written: not moves} 1... e5 *")
        XCTAssertEqual(game.changes, [])
    }

    func testTheMainlineSettingKeepsTheMainlinesTextInTheCommentRowsOnly() throws {
        let game = try encode("1. e4 e5 (1... --) 2. Nf3 Nc6 3. Nf3 a6 *", content: .mainline)
        XCTAssertEqual(try elements(game), ["e4", "e5", "Nf3", "Nc6"])
        XCTAssertEqual(game.comments.map(\.text), ["PGN as written: 3. Nf3 a6"])
        // Without comment rows there is nowhere to keep it, and the change says so.
        let results = GameEncoder.encode(
            SourceText("1. e4 e5 2. Nf3 Nc6 3. Nf3 a6 *"), content: .mainline, commentRows: false)
        let bare = try results[0].get()
        XCTAssertEqual(bare.comments.count, 0)
        XCTAssertEqual(
            bare.changes, ["illegal move 3.Nf3: the game stored up to it, the rest left out (no comments stored)"])
    }

    func testStrictRefusesWhatItWouldChange() {
        for text in ["1. e4 -- *", "1. e4 e5 (1... Nf3) *", "1. d4 d5 1/2", "1. e4 keep e5 *", "1. e4 e5 2. Ke3 *"] {
            let results = GameEncoder.encode(SourceText(text), strict: true)
            guard case .failure = results[0] else { return XCTFail("\(text) is stored under strict") }
        }
        XCTAssertNoThrow(try GameEncoder.encode(SourceText("1. e4 e5 *"), strict: true)[0].get())
    }

    func testTextThatIsNoGameIsNotStored() {
        let results = GameEncoder.encode(SourceText("Games of the club, 1994\n\n[Event \"e\"]\n\n1. e4 *"))
        XCTAssertEqual(results.count, 2)
        guard case .failure(let refused) = results[0] else { return XCTFail("prose stored as a game") }
        XCTAssertEqual(refused.reason, "not a game: text with no tags, moves or result")
        XCTAssertNoThrow(try results[1].get())
    }

    func testTheWriterLaysKeptTextOutAsItsOwn() {
        var writer = MovetextWriter(lineLength: 30)
        writer.move("e4".utf8)
        writer.raw("-- ; a line comment\n2. d4 {a long comment that wraps over lines} (2. c4)")
        writer.word("*")
        // A `;` comment ends its line; the brace comment wraps like the writer's own.
        XCTAssertEqual(
            writer.finish(), "1. e4 -- ; a line comment\n2. d4 {a long comment that\nwraps over lines} (2. c4) *")
    }
}
