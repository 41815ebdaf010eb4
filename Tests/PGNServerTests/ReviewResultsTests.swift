import Foundation
import LanguageServer
import TestSupport
import XCTest

/// What a player sees of the engine, with the real Stockfish (Debian's, as CI installs it):
/// the hover's "starting" line and then its figures; after a review, inlay hints for the
/// inaccuracies, mistakes and blunders with the better move, evaluations only on demand and
/// never beside a written one, the evaluation graph in the code lens and the tags' hover, and
/// annotations laid out under the line length.
final class ReviewResultsTests: XCTestCase {
    static let stockfish = "/usr/games/stockfish"
    let blunder = """
        [Event "Casual game"]
        [White "White"]
        [Black "Black"]
        [Result "0-1"]

        1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 { [%eval -2.5] } Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1

        """

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.stockfish) else {
            throw XCTSkip("Stockfish is installed by scripts/bootstrap")
        }
    }

    private func client(
        _ settings: JSONValue = [:], capabilities: JSONValue = [:], clientInfo: JSONValue = ["name": "tests"]
    ) async throws -> TestClient {
        let client = try await TestClient.pgn(blunder, capabilities: capabilities, clientInfo: clientInfo)
        var pgn = settings.objectValue ?? [:]
        pgn["engine"] = ["path": .string(Self.stockfish), "hoverMs": 200]
        pgn["review"] = ["depth": 8]
        client.notify("workspace/didChangeConfiguration", ["settings": ["pgn": .object(pgn)]])
        return client
    }

    private func review(_ client: TestClient) async throws {
        _ = try await client.result(
            "workspace/executeCommand", ["command": "pgn.reviewGame", "arguments": [.string(testURI), 0]])
    }

    private func labels(_ client: TestClient) async throws -> [String] {
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 7, 0)])
        return (hints.arrayValue ?? []).compactMap { $0["label"]?.stringValue }
    }

    func testTheFirstHoverSaysTheEngineIsStartingAndALaterOneHasTheFigures() async throws {
        let client = try await client(capabilities: ["textDocument": ["hover": ["contentFormat": ["markdown"]]]])
        let hover = {
            try await client.result("textDocument/hover", at(5, 46))["contents"]?["value"]?.stringValue ?? ""
        }
        let first = try await hover()
        let lines = first.components(separatedBy: "\n")
        XCTAssertEqual(lines.first, "**5. Nxf7** — White  ")
        XCTAssertEqual(lines[1], "**Engine** starting… (the evaluation comes with the next hover)  ")
        var later = first
        let deadline = Date().addingTimeInterval(10)
        while later.contains("starting…") && Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            later = try await hover()
        }
        let parts = later.components(separatedBy: "\n")
        // The move, the evaluation and line, the judgement, then the opening.
        XCTAssertTrue(parts[1].hasPrefix("**Engine** -"), later)
        XCTAssertTrue(parts[1].contains(" · best line 5... "), later)
        XCTAssertTrue(parts[2].hasPrefix("Before the move "), later)
        XCTAssertTrue(parts[2].contains("this move: **blunder** ??"), later)
        XCTAssertTrue(parts[3].hasPrefix("Opening: **"), later)
        XCTAssertFalse(later.contains("−"), "one minus sign, ASCII: \(later)")
    }

    func testAfterAReviewTheHintsAreTheJudgementsWithTheBetterMove() async throws {
        let client = try await client()
        try await review(client)
        let labels = try await labels(client).filter { !$0.hasPrefix("C50 ") }
        XCTAssertFalse(labels.isEmpty)
        for label in labels {
            XCTAssertTrue(
                label.range(of: #"^(\?!|\?|\?\?)( better \S+)?$"#, options: .regularExpression) != nil, label)
        }
        XCTAssertTrue(labels.contains { $0.hasPrefix("?? better ") }, "\(labels)")
    }

    func testEvaluationsOnDemandButNotBesideAWrittenOne() async throws {
        let client = try await client(["inlayHints": ["evaluations": true]])
        try await review(client)
        let hints = try await client.result(
            "textDocument/inlayHint", ["textDocument": textDocument(), "range": range(0, 0, 7, 0)])
        let byColumn = Dictionary(
            (hints.arrayValue ?? []).map {
                ($0["position"]?["character"]?.intValue ?? -1, $0["label"]?.stringValue ?? "")
            },
            uniquingKeysWith: { a, b in a + " | " + b })
        // 1. e4: an evaluation alone; 5. Nxf7 (its comment holds [%eval]): the judgement alone.
        XCTAssertNotNil(byColumn[5]?.range(of: #"^[+-]?\d+\.\d\d$"#, options: .regularExpression), "\(byColumn)")
        XCTAssertNotNil(byColumn[50]?.range(of: #"^\?\? better \S+$"#, options: .regularExpression), "\(byColumn)")
        XCTAssertFalse(byColumn.values.contains { $0.contains("−") }, "\(byColumn)")
    }

    func testTheEvaluationGraphInTheCodeLensAndTheTagsHover() async throws {
        let vscode: JSONValue = ["name": "Visual Studio Code"]
        let markdown: JSONValue = ["textDocument": ["hover": ["contentFormat": ["markdown"]]]]
        let client = try await client(capabilities: markdown, clientInfo: vscode)
        try await review(client)
        let lenses = try await client.result("textDocument/codeLens", ["textDocument": textDocument()])
        let titles = (lenses.arrayValue ?? []).compactMap { $0["command"]?["title"]?.stringValue }
        XCTAssertEqual(titles.count, 3, "\(titles)")
        // One block a move, 14 half-moves; White's chances fall with 5. Nxf7.
        let graph = titles[1]
        XCTAssertEqual(graph.count, 14, graph)
        XCTAssertTrue(graph.allSatisfy { "▁▂▃▄▅▆▇█".contains($0) }, graph)
        XCTAssertEqual(graph.last, "▁", "Black mates: White's chances are nil")
        let hover = try await client.result("textDocument/hover", at(1, 3))["contents"]?["value"]?.stringValue ?? ""
        XCTAssertTrue(hover.contains("`\(graph)` White's chances, move by move"), hover)
        XCTAssertTrue(hover.contains("![The evaluation graph](data:image/svg+xml;base64,"), hover)
    }

    func testAnnotationsAreLaidOutUnderTheLineLength() async throws {
        let capabilities: JSONValue = ["workspace": ["applyEdit": true]]
        let client = try await client(["format": ["lineLength": 60]], capabilities: capabilities)
        try await review(client)
        let id = client.startRequest(
            "workspace/executeCommand", ["command": "pgn.annotateGame", "arguments": [.string(testURI), 0]])
        let (editID, params) = try await client.serverRequest("workspace/applyEdit")
        client.send(.response(id: editID, result: .success(["applied": true])))
        _ = try await client.response(to: id)
        let edits = params?["edit"]?["changes"]?[testURI]?.arrayValue ?? []
        XCTAssertEqual(edits.count, 1, "the game written anew")
        let text = edits.first?["newText"]?.stringValue ?? ""
        XCTAssertTrue(text.contains("[Annotator \"pgn-lsp\"]"), text)
        XCTAssertNotNil(text.range(of: #"5\. Nxf7\?\?\s\{\[%eval -"#, options: .regularExpression), text)
        // A command is never cut by a line break.
        XCTAssertNil(text.range(of: #"\[%eval\n"#, options: .regularExpression), text)
        for line in text.components(separatedBy: "\n") {
            XCTAssertLessThan(line.count, 60, line)
        }
    }
}
