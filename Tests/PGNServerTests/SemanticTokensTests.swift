import ChessCore
import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// Semantic tokens are made per game and stitched; after edits, `full/delta` answers what
/// changed. Whatever the edits, the tokens equal those a new server makes of the same text.
final class SemanticTokensTests: XCTestCase {
    let uri = "file:///tokens.pgn"

    /// Games with what makes tokens tricky: comments between games and over several lines, an
    /// escape line, a game that starts after a comment on its line, characters that are wider
    /// than a byte (in UTF-8 and UTF-16), variations, an illegal move.
    static let text = """
        % escape line before the games
        {A comment between games
        over two lines} [Event "Café ♞ 𝄞"]
        [White "Émile"]
        [Black "Zoë"]
        [Result "1-0"]

        1. e4 {née 𝄞 two
        lines} e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 Nc6 3. Bb5 $1 a6 4. Qxf7 1-0

        ; a line comment between games
        [Event "Second"]

        1. d4 d5 2. c4 e6 3. Nc3 Nf6 *
        %escape inside
        [Event "Third"]
        1. e4 e5 2. Ke2!? Ke7 1/2-1/2

        """

    private func tokens(
        _ client: TestClient, _ method: String, _ extra: [String: JSONValue] = [:]
    ) async throws
        -> JSONValue
    {
        var params = extra
        params["textDocument"] = ["uri": .string(uri)]
        return try await client.result("textDocument/semanticTokens/\(method)", .object(params))
    }

    private func integers(_ value: JSONValue?) -> [Int] { value?.arrayValue?.compactMap(\.intValue) ?? [] }

    /// The tokens a server that never saw an edit makes of `text`.
    private func fresh(_ text: String) async throws -> [Int] {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        try await client.initialize()
        client.open(uri, text)
        return integers(try await tokens(client, "full")["data"])
    }

    func testDeltasAfterRandomEditsEqualTheTokensOfANewServer() async throws {
        try await checkRandomEdits(of: Self.text, seed: 7)
    }

    /// The same with Windows line ends (ChessBase's exports): the text between games is then
    /// read, not told blank by the line starts.
    func testDeltasAfterRandomEditsOfATextWithCarriageReturnsEqualTheTokensOfANewServer() async throws {
        try await checkRandomEdits(of: Self.text.replacingOccurrences(of: "\n", with: "\r\n"), seed: 19)
    }

    /// The same game many times (one analysis serves every copy), and clients that name a result
    /// a few edits old: each answer still turns the named result into the new tokens.
    func testDeltasFromOlderResultsInAFileOfCopiesEqualTheTokensOfANewServer() async throws {
        let game = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 {a\nb} Nc6 3. Bb5 a6 *\n\n"
        try await checkRandomEdits(of: String(repeating: game, count: 8), seed: 11, olderResults: true)
    }

    /// The lines of `text` as LSP counts them (`\n`, `\r\n` or a lone `\r` ends one), each
    /// with its end.
    static func lines(_ text: String) -> [(content: String, end: String)] {
        var lines: [(content: String, end: String)] = []
        var content = String.UnicodeScalarView()
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if scalar == "\r" && scalars.first == "\n" {
                scalars.removeFirst()
                lines.append((String(content), "\r\n"))
            } else if scalar == "\n" || scalar == "\r" {
                lines.append((String(content), String(scalar)))
            } else {
                content.append(scalar)
                continue
            }
            content = String.UnicodeScalarView()
        }
        lines.append((String(content), ""))
        return lines
    }

    /// Random edits of `text`, each followed by a delta from the latest result (or, with
    /// `olderResults`, from one of the last four), applied as a client applies them.
    private func checkRandomEdits(of start: String, seed: UInt64, olderResults: Bool = false) async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        let result = try await client.initialize()
        XCTAssertEqual(result["capabilities"]?["semanticTokensProvider"]?["full"]?["delta"], true)
        var text = start
        client.open(uri, text)
        let first = try await tokens(client, "full")
        var data = integers(first["data"])
        var resultID = first["resultId"]?.stringValue ?? ""
        var results = [(id: resultID, data: data)]
        XCTAssertFalse(data.isEmpty)
        let expected = try await fresh(text)
        XCTAssertEqual(data, expected)

        var random = SplitMix64(seed: seed)
        func pick(_ bound: Int) -> Int { bound <= 1 ? 0 : Int.random(in: 0..<bound, using: &random) }
        let pieces = [
            " ", "{", "}", "(", ")", "Nf3 ", "\n", "[Site \"é\"]\n", "\n%esc\n", "1-0\n\n", "♞", ";x", "\r", "\r\n\r\n",
        ]
        for version in 2...40 {
            var lines = Self.lines(text)
            let line = pick(lines.count)
            let characters = Array(lines[line].content)
            let at = pick(characters.count + 1)
            let deleted = pick(2) == 0 ? min(pick(4), characters.count - at) : 0
            let inserted = deleted > 0 && pick(2) == 0 ? "" : pieces[pick(pieces.count)]
            func column(_ k: Int) -> Int { String(characters[..<k]).utf16.count }
            let range = LSPRange(
                start: LSPPosition(line: line, character: column(at)),
                end: LSPPosition(line: line, character: column(at + deleted)))
            lines[line].content = String(characters[..<at]) + inserted + String(characters[(at + deleted)...])
            text = lines.map { $0.content + $0.end }.joined()
            client.change(uri, version: version, [changeEvent(range, inserted)])

            if olderResults { (resultID, data) = results[max(0, results.count - 1 - pick(4))] }
            let answer = try await tokens(client, "full/delta", ["previousResultId": .string(resultID)])
            XCTAssertNil(answer["data"], "a delta, not the whole data")
            // Each edit's start is in the named result's integers: applied from the last.
            let edits = answer["edits"]?.arrayValue ?? []
            let starts = edits.compactMap { $0["start"]?.intValue }
            XCTAssertEqual(starts, starts.sorted(), "edits in order")
            for edit in edits.reversed() {
                let start = try XCTUnwrap(edit["start"]?.intValue)
                let count = try XCTUnwrap(edit["deleteCount"]?.intValue)
                data.replaceSubrange(start..<(start + count), with: integers(edit["data"]))
            }
            resultID = answer["resultId"]?.stringValue ?? ""
            results.append((resultID, data))
            let expected = try await fresh(text)
            XCTAssertEqual(data, expected, "after edit \(version): \(inserted.debugDescription) at \(range)")
            if data != expected { return }
        }
    }

    func testATypedSpaceIsADeltaOfAFewEntries() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        try await client.initialize()
        // 200 games: the delta must not grow with the document.
        let game = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n"
        client.open(uri, String(repeating: game, count: 200))
        let first = try await tokens(client, "full")
        XCTAssertEqual(
            integers(first["data"]).count, 200 * 12 * 5,
            "a tag's name and value, 9 movetext tokens and the result per game")
        let position = LSPPosition(line: 100 * 4 + 2, character: 6)  // before `2.` of game 101
        client.change(uri, version: 2, [changeEvent(LSPRange(start: position, end: position), " ")])
        let answer = try await tokens(
            client, "full/delta", ["previousResultId": first["resultId"] ?? .null])
        let edits = answer["edits"]?.arrayValue ?? []
        XCTAssertEqual(edits.count, 1)
        XCTAssertLessThanOrEqual(integers(edits.first?["data"]).count, 5, "\(edits)")
    }

    func testADeltaFromAResultTwoEditsOldIsStillADelta() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        try await client.initialize()
        let game = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n"
        client.open(uri, String(repeating: game, count: 200))
        let first = try await tokens(client, "full")
        var previous = first
        for version in 2...3 {
            let position = LSPPosition(line: 10 * version + 2, character: 6)
            client.change(uri, version: version, [changeEvent(LSPRange(start: position, end: position), " ")])
            previous = try await tokens(client, "full/delta", ["previousResultId": previous["resultId"] ?? .null])
        }
        // A client that dropped the last two answers names the first result: one small edit for
        // each place typed at, not the games between them.
        let answer = try await tokens(client, "full/delta", ["previousResultId": first["resultId"] ?? .null])
        XCTAssertNil(answer["data"], "an edit, not the whole data")
        let edits = answer["edits"]?.arrayValue ?? []
        XCTAssertEqual(edits.count, 2)
        for edit in edits { XCTAssertLessThanOrEqual(integers(edit["data"]).count, 5, "\(edits)") }
    }

    func testAnUnknownPreviousResultGetsTheWholeData() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        try await client.initialize()
        client.open(uri, Self.text)
        let answer = try await tokens(client, "full/delta", ["previousResultId": "no such result"])
        let expected = try await fresh(Self.text)
        XCTAssertEqual(integers(answer["data"]), expected)
        XCTAssertNotNil(answer["resultId"]?.stringValue)
    }

    func testARangeHasTheTokensOfItsLines() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        try await client.initialize(positionEncodings: ["utf-8"])
        client.open(uri, Self.text)
        let whole = absolute(integers(try await tokens(client, "full")["data"]))
        for (from, to) in [(0, 3), (7, 8), (12, 16), (2, 2)] {
            let range: JSONValue = [
                "start": ["line": .integer(from), "character": 0], "end": ["line": .integer(to), "character": 3],
            ]
            let part = absolute(integers(try await tokens(client, "range", ["range": range])["data"]))
            XCTAssertEqual(part, whole.filter { (from...to).contains($0[0]) }, "lines \(from)–\(to)")
        }
    }

    /// The whole document's tokens are written a few hundred games at a time, each game's
    /// tokens made again from its summary: they are those a range over every line gives, which
    /// are written at once, in every encoding, across many pieces, with the text between games.
    func testTheWholeTokensWrittenInPiecesAreThoseOfEveryLine() async throws {
        let text = String(repeating: Self.text, count: 700)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        let one = try await fresh(Self.text).count
        for encoding in ["utf-8", "utf-16", "utf-32"] {
            let client = TestClient { PGNLanguageServer(server: $0).register() }
            try await client.initialize(positionEncodings: [encoding])
            client.open(uri, text)
            let whole = integers(try await tokens(client, "full")["data"])
            let range: JSONValue = [
                "start": ["line": 0, "character": 0], "end": ["line": .integer(lines), "character": 0],
            ]
            let every = integers(try await tokens(client, "range", ["range": range])["data"])
            XCTAssertEqual(whole, every, encoding)
            XCTAssertEqual(whole.count, 700 * one, encoding)
        }
    }

    /// Relative data as absolute tokens: [line, column, length, type, modifiers].
    private func absolute(_ data: [Int]) -> [[Int]] {
        var line = 0
        var column = 0
        return stride(from: 0, to: data.count - 4, by: 5).map { i in
            line += data[i]
            column = data[i] == 0 ? column + data[i + 1] : data[i + 1]
            return [line, column, data[i + 2], data[i + 3], data[i + 4]]
        }
    }

    /// A token past column 65,535 (a comment on one very long line) does not fit the tokens'
    /// compact form: the game keeps them in full, and they come out right.
    func testTokensOnAVeryLongLineComeOutRight() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        try await client.initialize(positionEncodings: ["utf-8"])
        let comment = "{" + String(repeating: "a", count: 70_000) + "}"
        let text = "[Event \"long\"]\n\n1. e4 \(comment) e5 2. Nf3 *\n"
        client.open(uri, text)
        let whole = absolute(integers(try await tokens(client, "full")["data"]))
        let column = "1. e4 ".utf8.count + comment.utf8.count + 1
        XCTAssertTrue(whole.contains([2, column, 2, 3, 0]), "e5 after the comment: \(whole.suffix(4))")
        XCTAssertTrue(whole.contains([2, "1. e4 ".utf8.count, comment.utf8.count, 5, 0]), "the comment")
    }
}
