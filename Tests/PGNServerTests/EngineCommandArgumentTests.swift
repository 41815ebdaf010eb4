import Foundation
import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// The commands that take a game by position answer any position the client sends, however
/// far outside the document, with an error, and the server goes on.
final class EngineCommandArgumentTests: XCTestCase {
    private let uri = "untitled:positions.pgn"
    private let text = "[Event \"A\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n"

    func testPositionsOutsideTheDocumentAreAnsweredWithAnError() async throws {
        let client = TestClient { server in PGNLanguageServer(server: server).register() }
        try await client.initialize()
        client.open(uri, text)
        let commands = ["pgn.reviewGame", "pgn.annotateGame", "pgn.saveGame", "pgn.fillOpeningTags"]
        let negative = "takes a position whose line and character are 0 or more"
        let places: [(line: Int, character: Int, message: String)] = [
            (.max, 0, "there is no game after the end of the document"),
            (.max, .max, "there is no game after the end of the document"),
            (4, .max, "there is no game at line 5"),
            (.min, .min, negative),
            (-1, 0, negative),
            (0, .min, negative),
        ]
        for command in commands {
            for place in places {
                let message = place.message == negative ? "\(command) \(negative)" : place.message
                let position: JSONValue = ["line": .integer(place.line), "character": .integer(place.character)]
                let error = try await client.error(
                    "workspace/executeCommand", ["command": .string(command), "arguments": [.string(uri), position]])
                XCTAssertEqual(error.code, .invalidParams, "\(command) \(place)")
                XCTAssertEqual(error.message, message, "\(command) \(place)")
            }
        }
        // A position inside the game, even with a huge character, finds it: saving it then asks
        // for a database, which a document outside any folder does not have.
        let inside: JSONValue = ["line": 3, "character": .integer(.max)]
        let found = try await client.error(
            "workspace/executeCommand", ["command": "pgn.saveGame", "arguments": [.string(uri), inside]])
        XCTAssertTrue(found.message.hasSuffix("set pgn.database.path"), found.message)
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }
}
