import Foundation
import PGN
import TestSupport
import XCTest

@testable import GameStore

/// The import's one-pass reader must give exactly what the parser gives wherever it reads a
/// text at all, and must leave every text it is not sure of to the parser.
final class ImportScannerTests: XCTestCase {
    /// Tags and nodes as the parser and the scanner give them, for comparison.
    func summary(_ games: [GameSyntax]) -> [String] {
        games.map { game in
            let tags = game.tags.map { "\($0.nameRange)=\($0.valueRange.map { "\($0)" } ?? "-")" }
            // Move numbers are left out by the scanner: the import does not read them.
            let nodes = game.nodes.filter { $0.kind != .moveNumber }.map { "\($0.kind)\($0.range)\($0.value)" }
            let result = game.resultIndex.map { "\(game.nodes[$0].range)" } ?? "-"
            return (tags + nodes + ["result \(result)"]).joined(separator: " ")
        }
    }

    /// Every column of every encoded game, for comparison.
    func summary(_ results: [Result<EncodedGame, RefusedGame>]) -> [String] {
        results.map { result in
            switch result {
            case .failure(let refused): return "refused \(refused)"
            case .success(let game):
                let fields: [Any?] = [
                    game.event, game.site, game.white, game.black, game.date, game.utcTime, game.round,
                    game.whiteElo, game.blackElo, game.whiteMaterial, game.blackMaterial, game.result,
                    game.timeControl, game.eco, game.fen, game.plyCount, game.moves, game.pawnHome, game.moves2,
                    game.comments.map { "\($0.ply):\($0.text)" },
                ]
                return fields.map { "\($0 ?? "nil")" }.joined(separator: "|")
            }
        }
    }

    /// Nil, or the parser's games and their encoding exactly.
    func checkAgreement(_ bytes: [UInt8], _ label: String) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let scanned = ImportScanner.games(in: buffer) else { return false }
            let parsed = Parser(buffer).games
            XCTAssertEqual(summary(scanned), summary(parsed), label)
            for content in [MovesContent.full, .mainline] {
                XCTAssertEqual(
                    summary(
                        GameEncoder.encode(scanned, in: buffer, firstIndex: 0, content: content, commentRows: true)),
                    summary(GameEncoder.encode(parsed, in: buffer, firstIndex: 0, content: content, commentRows: true)),
                    label)
            }
            return true
        }
    }

    func testEveryCorpusFileItReadsComesOutAsTheParserHasIt() throws {
        let files = try SharedMaterial.files(under: "corpus", suffix: ".pgn").map { try SharedMaterial.url($0) }
        XCTAssertGreaterThan(files.count, SharedMaterial.sharedIsPresent ? 90 : 40)
        var read: [String] = []
        for file in files {
            let bytes = Array(try Data(contentsOf: file))
            if checkAgreement(bytes, file.lastPathComponent) { read.append(file.lastPathComponent) }
            // The import's way: plain games in one pass up to the first one that is not, the
            // parser from there on.
            bytes.withUnsafeBufferPointer { buffer in
                XCTAssertEqual(
                    summary(GameEncoder.encode(buffer: buffer, firstIndex: 3, content: .full, commentRows: true)),
                    summary(
                        GameEncoder.encode(
                            Parser(buffer).games, in: buffer, firstIndex: 3, content: .full, commentRows: true)),
                    file.lastPathComponent)
            }
        }
        // The large exports are plainly written: the fast way must be the way they are read.
        for name in ["lichess_db_1000k.pgn", "lichess_db_100k.pgn", "lichess_db_10k.pgn"] {
            XCTAssertTrue(read.contains(name), "\(name) is read in one pass")
        }
        print("import scanner: \(read.count) of \(files.count) corpus files read in one pass")
    }

    func testTextsItLeavesToTheParser() {
        let game = "[Event \"e\"]\n[White \"a\"]\n\n1. e4 e5 1-0\n"
        let unsure = [
            "1. e4 e5 *\n",  // no tags
            "[Event \"e\"]\n\n1. e4 ; a line comment\ne5 *\n",
            "[Event \"e\"]\n%escape\n1. e4 *\n",
            "[Event \"e\"]\n\n1. e4 {a {nested} comment} *\n",
            "[Event \"e\"]\n\n1. e4 {never closed *\n",
            "[Event \"e\"]\n\n1. e4 e5\n",  // no termination marker
            "[Event \"e\"]\n[Event \"f\"]\n\n1. e4 *\n",  // repeated tag
            "[Event \"e\"] 1. e4 *\n",  // movetext on the tag's line
            "[Event\"e\"]\n\n1. e4 *\n",
            "[Event \"e]\n\n1. e4 *\n",
            "[Event \"e\"]\n\n1. e4 (1. d4 *\n",  // open variation
            "[Event \"e\"]\n\n1. e4 ) *\n",
            "[Event \"e\"]\n\n1. e4 e5 2. exd6e.p. *\n",
            "[Event \"e\"]\n\n1. 0-0 *\n",
            "[Event \"e\"]\n\n1. e4 *\n{between games}\n" + game,
            "[Event \"e\"]\n\n1. e4 ½-½\n",
            "[Event \"e\"]\n\n1. e4 1-0[Event \"f\"]\n",
            "\u{FEFF}" + game,
            "[Event \"e\"]\n\n1. e4 keep e5 *\n",  // a note among the moves
            "[Event \"e\"]\n\n1. e4 e5 2. d4 exd4 3. Qxd4 Nc6 4. Qd1 d61-0\n",  // a result against its move
            "[Event \"e\"]\n\n1. d4 d5 1/2\n",
            "[Event \"e\"]\n\n1. e4 e5 (1... c5 1-0) *\n",  // a result inside a variation
            "[Event \"e\"]\n\n1. e4 {open\n" + game,  // a comment that a tag line ends
        ]
        for text in unsure {
            XCTAssertNil(Array(text.utf8).withUnsafeBufferPointer { ImportScanner.games(in: $0) }, text)
        }
        let plain = [
            game,
            game.replacingOccurrences(of: "\n", with: "\r\n"),
            "[Event \"e \\\"quoted\\\" \\\\ x\"]\n\n1. e4!? $14 (1. d4?? {c} (1. c4) 1... d5) 1... e5!! *\n\n" + game,
            "[Event \"e\"]\n\n*\n",
            "[Event \"e\"]\n\n1. e4 ! ? !!! $ $300 1/2-1/2",
            "\n\n" + game + "\n\n\n",
            "[Event \"e\"]\n\n1. e4 {a comment\n[%cal Ge2e4] over lines} 1. Nf3 Z0 2. O-O-O *\n",
        ]
        for text in plain {
            XCTAssertTrue(checkAgreement(Array(text.utf8), text), text)
        }
    }

    func testDamagedTextIsReadAsTheParserReadsItOrLeftToIt() throws {
        // A slice of a real export, damaged a byte at a time in many ways.
        let head = Array(try SharedMaterial.bytes("corpus/lichess/lichess_db_10k.pgn").prefix(8000))
        let cut = head.withUnsafeBufferPointer { PieceCutter.lastGameBoundary($0) }!
        let source = Array(head.prefix(cut))
        XCTAssertTrue(checkAgreement(source, "undamaged"))
        let inserted: [UInt8] = Array("{}()[]\"\\;%$!?*.-/01 \n\r\tNxe8=Q+#".utf8) + [0xC3, 0x0B]
        var state: UInt64 = 2026
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var read = 0
        for trial in 0..<400 {
            var bytes = source
            for _ in 0..<(1 + trial % 3) {
                let at = next(bytes.count)
                switch next(3) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(inserted[next(inserted.count)], at: at)
                default: bytes[at] = inserted[next(inserted.count)]
                }
            }
            if checkAgreement(bytes, "trial \(trial)") { read += 1 }
            bytes.withUnsafeBufferPointer { buffer in
                XCTAssertEqual(
                    summary(GameEncoder.encode(buffer: buffer, content: .full, commentRows: true)),
                    summary(
                        GameEncoder.encode(
                            Parser(buffer).games, in: buffer, firstIndex: 0, content: .full, commentRows: true)),
                    "trial \(trial)")
            }
        }
        XCTAssertGreaterThan(read, 50, "many damaged texts are still plain")
        XCTAssertLessThan(read, 400, "and many are not")
    }

    /// Vertical tab and form feed are white space for the lexer, the import scanner and the
    /// stored comments alike (`Lexer.isSpace`); they once were for the lexer only.
    func testVerticalTabAndFormFeedAreWhiteSpaceEverywhere() throws {
        for byte in [UInt8(0x0B), 0x0C] {
            let space = String(UnicodeScalar(byte))
            let text = "[Event \"E\"]\n[Result \"*\"]\n\n1. e4\(space)e5 {\(space)a comment\(space)}\(space)2. Nf3 *\n"
            XCTAssertTrue(checkAgreement(Array(text.utf8), "byte \(byte)"), "the scanner reads byte \(byte)")
            let games = try XCTUnwrap(Array(text.utf8).withUnsafeBufferPointer { ImportScanner.games(in: $0) })
            let encoded = Array(text.utf8).withUnsafeBufferPointer {
                GameEncoder.encode(games, in: $0, firstIndex: 0, content: .full, commentRows: true)
            }
            guard case .success(let game) = encoded.first else { return XCTFail("not encoded") }
            XCTAssertEqual(game.comments.map(\.text), ["a comment"])
            XCTAssertEqual(game.plyCount, 3)
        }
        XCTAssertTrue(Lexer.isSpace(0x0B) && Lexer.isSpace(0x0C) && !Lexer.isSpace(0x1C) && !Lexer.isSpace(0xA0))
    }

    /// The import reads a text cut into pieces (`PieceCutter`) as it reads it whole: a byte-order
    /// mark, `%` escape lines (one inside a tag section), a game without tags, text between games.
    func testPiecesCutByThePieceCutterEncodeAsTheWholeText() {
        let text = """
            \u{FEFF}[Event "a"]
            % an escape line between tags
            [Round "1"]

            1. e4 e5 *

            Text between games.
            [Event "c"]

            1. d4 d5 1-0

            1. c4 *
            % an escape line between games
            [Event "e"]

            1. Nf3 *

            """
        let bytes = Array(text.utf8)
        var pieces: [[UInt8]] = []
        var rest = bytes[...]
        while let (end, _) = Array(rest).withUnsafeBufferPointer({
            PieceCutter.cut($0, atEnd: false, longest: 1 << 20)
        }) {
            // Cut the front off, as a stream is cut: up to the last whole game, again and again.
            let head = Array(rest[rest.startIndex..<(rest.startIndex + end)])
            let firstCut = head.withUnsafeBufferPointer { PieceCutter.firstGameBoundary($0) } ?? head.count
            pieces.append(Array(head[..<firstCut]))
            rest = rest[(rest.startIndex + firstCut)...]
        }
        pieces.append(Array(rest))
        XCTAssertEqual(pieces.count, 3)
        var games = 0
        var cut: [String] = []
        for piece in pieces {
            let part = GameEncoder.encode(bytes: piece, firstIndex: games)
            games += part.count
            cut += summary(part)
        }
        XCTAssertEqual(cut, summary(GameEncoder.encode(bytes: bytes)))
        XCTAssertEqual(games, 5)
    }
}
