import ChessCore
import PGN
import TestSupport
import XCTest

final class ExportFormatTests: XCTestCase {
    func format(_ text: String, lineLength: Int = 80) -> String {
        ExportFormat.format(SourceText(text), lineLength: lineLength)
    }

    func testTagPairsAreReadBackAsTheyWereWritten() {
        let written = [
            PGNWriter.tagPair(name: "Opening", value: "Sicilian \"Najdorf\" \\ 6.Bg5"),
            "not a tag", "[ \"no name\"]",
            PGNWriter.tagPair(name: "Annotator", value: "Dvoretsky, Mark"),
            "[Termination \"Normal\"  ]",
        ].joined(separator: "\n")
        let pairs = PGNWriter.tagPairs(written)
        XCTAssertEqual(pairs.map(\.name), ["Opening", "Annotator", "Termination"])
        XCTAssertEqual(pairs.map(\.value), ["Sicilian \"Najdorf\" \\ 6.Bg5", "Dvoretsky, Mark", "Normal"])
    }

    func testTagsMoveNumbersCommentsAndVariations() {
        let input = """
            [White "Morphy, Paul"]
            [ECO "C41"]
            [Event "Paris \\"Opera\\""]
            [Black "Duke Karl"]
            [Annotator "A"]

            1.e4 e5 2.Nf3 d6 3.d4 Bg4?! {A weak move,
            the bishop gets traded.} 4.dxe5 (4.Be2 Nc6 (4...e4) 5.O-O) 4...Bxf3 $2 ; bishop for knight
            5.Qxf3 dxe5 6.Bc4 Nf6 7.Qb3 Qe7 8.Nc3 c6 9.Bg5 b5 10.Nxb5 cxb5 11.Bxb5+ Nbd7 12.O-O-O Rd8 1-0
            """
        let expected = """
            [Event "Paris \\"Opera\\""]
            [White "Morphy, Paul"]
            [Black "Duke Karl"]
            [Annotator "A"]
            [ECO "C41"]

            1. e4 e5 2. Nf3 d6 3. d4 Bg4 $6 {A weak move, the bishop gets traded.} 4. dxe5
            (4. Be2 Nc6 (4... e4) 5. O-O) 4... Bxf3 $2 {bishop for knight} 5. Qxf3 dxe5
            6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7
            12. O-O-O Rd8 1-0

            """
        XCTAssertEqual(format(input), expected)
    }

    func testNeverChangesAMoveAndKeepsWhatCannotBeFormatted() {
        // Moves keep their spelling, even when not canonical; missing data stays missing.
        XCTAssertEqual(format("1.e2e4 e5 2.Ng1-f3"), "1. e2e4 e5 2. Ng1-f3\n")
        // A game with a syntax error, or an escape line, comes back as it was.
        let broken = "[Event \"x\"]\n\n1. e4 (1. d4 e5 *"
        XCTAssertEqual(format(broken), broken + "\n")
        let escaped = "[Event \"x\"]\n\n1. e4\n%private note\ne5 *"
        XCTAssertEqual(format(escaped), escaped + "\n")
        // A `;` comment holding a `}` stays a `;` comment, ending its line.
        XCTAssertEqual(format("1. e4 ; a } here\ne5 *"), "1. e4 ; a } here\n1... e5 *\n")
    }

    func testFENGamesStartAtTheirMoveNumber() {
        let input = "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]\n[SetUp \"1\"]\n\n12... Kd7 13. e4 *"
        XCTAssertEqual(
            format(input), "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]\n[SetUp \"1\"]\n\n12... Kd7 13. e4 *\n")
    }

    /// Every game of real files: lines short enough, formatting twice changes nothing, and the
    /// formatted games replay to the same moves (every line, variations included) and tags.
    func testCorpusIsIdempotentAndKeepsEveryMove() throws {
        let files =
            SharedMaterial.available([
                "corpus/lichess/lichess_db_100k.pgn", "corpus/scid/res_gameUTF8.pgn", "corpus/scid/res_gameLatin1.pgn",
            ])
            + SharedMaterial.files(under: "corpus", suffix: ".pgn").filter {
                $0.contains("/pgn-extract/") || $0.contains("/python-chess/") || $0.contains("/pgn-lsp/")
            }
        var games = 0
        for path in files {
            let source = SourceText(try SharedMaterial.bytes(path))
            let once = ExportFormat.format(source)
            let twice = ExportFormat.format(SourceText(once))
            XCTAssertEqual(once, twice, "\(path) is not idempotent")
            for line in once.split(separator: "\n") where !line.hasPrefix("[") && line.count >= 80 {
                XCTAssertFalse(line.contains(" "), "\(path): line of \(line.count) characters: \(line.prefix(40))…")
            }
            let before = summary(source)
            let after = summary(SourceText(once))
            XCTAssertEqual(before.count, after.count, path)
            for (k, (a, b)) in zip(before, after).enumerated() {
                XCTAssertEqual(a.moves, b.moves, "\(path) game \(k + 1): moves changed")
                XCTAssertEqual(a.tags, b.tags, "\(path) game \(k + 1): tags changed")
            }
            games += before.count
        }
        XCTAssertGreaterThan(games, SharedMaterial.sharedIsPresent ? 2_000 : 80)
    }

    func summary(_ source: SourceText) -> [(moves: [String], tags: [String: String])] {
        let parser = source.bytes.withUnsafeBufferPointer { Parser($0) }
        return parser.games.enumerated().map { index, syntax in
            let replay = GameReplay(source: source, syntax: syntax, index: index)
            let moves = replay.run().moves.map { "\($0.depth):\($0.move.uci(chess960: true))" }
            var tags: [String: String] = [:]
            for tag in syntax.tags { tags[replay.text(tag.nameRange)] = replay.value(of: tag) ?? "" }
            return (moves, tags)
        }
    }
}
