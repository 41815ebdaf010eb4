import ChessCore
import Foundation
import GameStore
import PGN
import TestSupport
import XCTest

/// Games imported and exported again are the same games: every tag as written, every move of
/// the mainline and of each variation, comments, NAGs and what the columns keep as text,
/// compared as parsed by the PGN layer (not as text).
final class RoundTripTests: XCTestCase {
    /// One game as the PGN layer reads it: the tags the database keeps (with the storage rules
    /// applied) and the movetext as a list of moves (UCI), comments, NAGs and parentheses.
    struct Summary: Equatable {
        var tags: [String: String]
        var movetext: [String]
        /// The termination marker, if the game has one.
        var result: String?
    }

    static func summaries(_ bytes: [UInt8]) -> [Summary] {
        let source = SourceText(bytes)
        let parser = bytes.withUnsafeBufferPointer { Parser($0) }
        return parser.games.enumerated().map { index, syntax in
            let replay = GameReplay(source: source, syntax: syntax, index: index)
            let played = replay.run(keepMoves: true)
            var moves: [Int: Move] = [:]
            for move in played.moves { moves[move.node] = move.move }
            var movetext: [String] = []
            for (k, node) in syntax.nodes.enumerated() {
                switch node.kind {
                case .move: movetext.append(moves[k].map { $0.uci(chess960: false) } ?? "unplayable")
                case .comment:
                    var text = replay.text(node.range)
                    text = node.value == 1 ? String(text.dropFirst()) : String(text.dropFirst().dropLast())
                    movetext.append("{" + normalized(text) + "}")
                case .nag: movetext.append("$\(node.value)")
                case .variationStart: movetext.append("(")
                case .variationEnd: movetext.append(")")
                case .note: movetext.append("note " + replay.text(node.range))
                case .moveNumber, .result: break
                }
            }
            var tags: [String: String] = [:]
            for tag in syntax.tags {
                tags[replay.text(tag.nameRange)] = replay.value(of: tag)
            }
            let result = syntax.resultIndex.flatMap { GameResult(rawValue: syntax.nodes[$0].value)?.text }
            return Summary(tags: tags, movetext: movetext, result: result)
        }
    }

    /// White space runs as one space: the export lays comments out in its own lines.
    static func normalized(_ comment: String) -> String {
        comment.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).joined(separator: " ")
    }

    /// The tags a database gives back for a source game's tags: every one as written, and the
    /// Seven Tag Roster's that the game lacks as their defaults (as PGN's export format writes
    /// them).
    static func expectedTags(_ game: Summary) -> [String: String] {
        let tags = game.tags
        var expected = tags.filter { !$0.key.isEmpty }
        for name in ["Event", "Site", "White", "Black", "Round"] where tags[name] == nil { expected[name] = "?" }
        if tags["Date"] == nil { expected["Date"] = "????.??.??" }
        // Without a Result tag, the termination marker's result.
        if tags["Result"] == nil { expected["Result"] = game.result ?? "*" }
        return expected
    }

    /// Imports test material files (by their path in the shared folder, see `SharedMaterial`)
    /// into a new database, exports them and compares.
    func roundTrip(_ files: [String], content: MovesContent = .full) throws -> [Summary] {
        try roundTrip(urls: files.map { try SharedMaterial.url($0) }, content: content)
    }

    func roundTrip(urls: [URL], content: MovesContent = .full) throws -> [Summary] {
        let folder = try TemporaryDirectory()
        defer { folder.cleanUp() }
        let database = try GameDatabase(path: folder.path("round-trip.db3"), options: .init(moves: content))
        var sources: [Summary] = []
        var seenBefore = 0
        for url in urls {
            let file = url.lastPathComponent
            let report = try database.importPGN(path: url.path)
            let games = RoundTripTests.summaries(Array(try Data(contentsOf: url)))
            let refused = Set(report.refused.map(\.index))
            XCTAssertEqual(report.stored + report.duplicates + refused.count, games.count, file)
            // A game already stored (same identifying tags and moves) comes back once.
            var seen = Set<[String]>()
            for (index, game) in games.enumerated() where !refused.contains(index) {
                let identity = ["Event", "Site", "Round", "White", "Black", "Date", "UTCDate", "UTCTime"].map {
                    game.tags[$0] ?? "\u{0}"
                }
                if seen.insert(identity + game.movetext).inserted { sources.append(game) }
            }
            XCTAssertEqual(sources.count - (seenBefore), report.stored, file)
            seenBefore = sources.count
        }
        var exported = ""
        let report = try database.exportPGN { exported += $0 }
        XCTAssertEqual(report.failed, [])
        XCTAssertEqual(report.layouts, [.enCroissant: sources.count])
        let back = RoundTripTests.summaries(Array(exported.utf8))
        XCTAssertEqual(back.count, sources.count)
        for (k, (source, exported)) in zip(sources, back).enumerated() {
            var tags = exported.tags
            // A game whose mainline stops early says so (`GameEncoder`), and only such a game.
            if source.tags["Incomplete"] == nil, tags.removeValue(forKey: "Incomplete") != nil {
                XCTAssertTrue(source.movetext.contains("unplayable"), "game \(k + 1) is marked incomplete")
            }
            XCTAssertEqual(tags, RoundTripTests.expectedTags(source), "game \(k + 1): tags")
            var movetext = source.movetext
            // A variation left open at the end of a game is closed (the import says so).
            let open = movetext.filter { $0 == "(" }.count - movetext.filter { $0 == ")" }.count
            movetext += Array(repeating: ")", count: max(open, 0))
            if content == .mainline {
                // Only the mainline's moves and comments come back.
                var depth = 0
                movetext = movetext.filter { item in
                    if item == "(" { depth += 1 }
                    defer { if item == ")" { depth -= 1 } }
                    return depth == 0 && item != ")" && !item.hasPrefix("$")
                }
            }
            XCTAssertEqual(exported.movetext, movetext, "game \(k + 1): movetext")
            if exported.movetext != movetext { break }
        }
        return sources
    }

    func testLichessComesBackUnchanged() throws {
        let files = [
            "corpus/lichess/lichess_db_10k.pgn", "corpus/lichess/lichess_db_100k.pgn",
            "corpus/lichess/lichess_db_1000k.pgn",
        ]
        var games: [Summary] = []
        for file in files { games += try roundTrip([file]) }
        XCTAssertEqual(games.count, 490)
        XCTAssertGreaterThan(games.filter { $0.movetext.contains { $0.hasPrefix("{") } }.count, 400, "clock comments")
    }

    /// A collection with CRLF line ends and a malformed tag (no stated licence): with the shared
    /// folder only.
    func testMalakhovComesBackUnchanged() throws {
        let games = try roundTrip(["corpus/collections/Malakhov.pgn"])
        XCTAssertEqual(games.count, 1_802)
    }

    /// Variations, NAGs and comments with accents, from GPL files of the shared folder when it
    /// is there, else from files written for the project.
    func testVariationsNAGsAndLatin1Comments() throws {
        let shared = SharedMaterial.available([
            "corpus/scid/res_gameUTF8.pgn", "corpus/scid/res_gameLatin1.pgn",
            "corpus/python-chess/kasparov-deep-blue-1997.pgn", "corpus/pgn-extract/najdorf.pgn",
            "corpus/pychess/mate_in_2.pgn",
        ])
        let files =
            shared + [
                "corpus/chess-library/variations.pgn", "corpus/pgn-lsp/variations-nags.pgn",
                "corpus/pgn-lsp/latin1-blank-line.pgn", "corpus/pgn-lsp/utf8-multibyte.pgn",
                "corpus/pgn-lsp/setup-puzzles.pgn",
            ]
        var items: [String] = []
        for file in files {
            let games = try roundTrip([file])
            XCTAssertGreaterThan(games.count, 0, file)
            items += games.flatMap(\.movetext)
        }
        XCTAssertGreaterThan(items.filter { $0 == "(" }.count, shared.count == 5 ? 100 : 30, "variations")
        XCTAssertGreaterThan(items.filter { $0.hasPrefix("$") }.count, 20, "NAGs")
        XCTAssertTrue(items.contains { $0.hasPrefix("{") && $0.unicodeScalars.contains { $0.value > 127 } }, "accents")
    }

    /// Annotated analysis with null moves, results written short or against their move, faults
    /// in variations and in the mainline, notes among the moves, tags that a column cannot hold
    /// as written, and games without moves: every game stored, and given back as it was.
    func testWhatTheColumnsCannotHoldComesBackAsWritten() throws {
        let files = [
            "corpus/pgn-lsp/chessbase-analysis.pgn", "corpus/pgn-lsp/results-written-short.pgn",
            "corpus/pgn-lsp/faults.pgn", "corpus/pgn-lsp/tags-as-written.pgn", "corpus/pgn-lsp/study-diagrams.pgn",
            "corpus/pgn-lsp/null-moves.pgn",
        ]
        var games: [Summary] = []
        for file in files { games += try roundTrip([file]) }
        XCTAssertEqual(games.count, 29)
        XCTAssertEqual(games.filter { $0.movetext.allSatisfy { $0.hasPrefix("{") } }.count, 4, "games without moves")
        XCTAssertTrue(games.contains { $0.tags["Variant"] == "Standard" })
        XCTAssertTrue(games.contains { $0.movetext.contains("note e.p.") })
    }

    func testTheMainlineSettingKeepsMovesAndMainlineComments() throws {
        for file in SharedMaterial.available(["corpus/pgn-lsp/variations-nags.pgn", "corpus/scid/res_gameUTF8.pgn"]) {
            let games = try roundTrip([file], content: .mainline)
            XCTAssertTrue(games.contains { $0.movetext.contains("(") }, "\(file) has variations")
        }
    }

    func testMainlineCommentsComeBackFromTheirRowsOverSeveralBatches() throws {
        // The export reads 2,048 games at a time: the comment rows are read on from where the
        // batch before stopped.
        // 1,802 games (Malakhov.pgn, with the shared folder only), then 438 with clock comments:
        // both batches have commented games.
        let files = ["corpus/collections/Malakhov.pgn", "corpus/lichess/lichess_db_1000k.pgn"]
        let games = try roundTrip(files, content: .mainline)
        XCTAssertGreaterThan(games.count, 2_048)
        XCTAssertGreaterThan(games.filter { $0.movetext.contains { $0.hasPrefix("{") } }.count, 400, "clock comments")
    }

    func testMainlineCommentsOfFiveCopiesOfAnExportComeBackOverSeveralBatches() throws {
        // 438 games with clock comments five times over, each copy another round: 2,190 games,
        // every batch of 2,048 with commented games.
        let one = try SharedMaterial.text("corpus/lichess/lichess_db_1000k.pgn")
        let folder = try TemporaryDirectory()
        defer { folder.cleanUp() }
        let file = folder.url.appendingPathComponent("five-rounds.pgn")
        let text = (1...5).map { one.replacingOccurrences(of: "[Round \"-\"]", with: "[Round \"\($0)\"]") }
        try text.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let games = try roundTrip(urls: [file], content: .mainline)
        XCTAssertEqual(games.count, 5 * 438)
        XCTAssertGreaterThan(games.filter { $0.movetext.contains { $0.hasPrefix("{") } }.count, 2_000, "clock comments")
    }
}
