import Foundation
import PGN
import XCTest

@testable import GameStore

/// Names of players as someone types them to look for their games: any case and accents, the
/// start of the surname or of each word, in any order; and the names closest to one that
/// matches none.
final class PlayerNameTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var database: GameDatabase!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        database = try GameDatabase(path: directory.path("players.db3"))
        let games = [
            ("Maghsoodloo, Parham", "Carlsen, Magnus"), ("Carlsen, Magnus", "Ding, Liren"),
            ("Ding, Liren", "Gukesh D"), ("Carlsen, M.", "Caruana, Fabiano"), ("Ivanchuk, Vassily", "Jobava, Baadur"),
        ]
        let sources = games.enumerated().map { index, players in
            GameSource(
                text: "[Round \"\(index)\"]\n[White \"\(players.0)\"]\n[Black \"\(players.1)\"]\n\n1. e4 e5 *\n",
                index: index)
        }
        _ = try database.store(games: sources)
    }

    override func tearDown() { directory.cleanUp() }

    private func exported(_ player: String) throws -> [String] {
        var text = ""
        _ = try database.exportPGN(player: player) { text += $0 }
        return text.split(separator: "\n").filter { $0.hasPrefix("[Round ") }.map(String.init)
    }

    func testAPlayerIsFoundByTheStartOfTheirNameInAnyCase() throws {
        XCTAssertEqual(try exported("Maghsoodloo"), ["[Round \"0\"]"])
        XCTAssertEqual(try exported("maghsoodloo, parham"), ["[Round \"0\"]"])
        XCTAssertEqual(try exported("MAGH"), ["[Round \"0\"]"])
        // Every spelling of Carlsen: the full name and the one with an initial.
        XCTAssertEqual(try exported("carlsen"), ["[Round \"0\"]", "[Round \"1\"]", "[Round \"3\"]"])
        XCTAssertEqual(try exported("Magnus Carlsen"), ["[Round \"0\"]", "[Round \"1\"]"])
        XCTAssertEqual(try exported("Carlsen, Magnus"), ["[Round \"0\"]", "[Round \"1\"]"])
        XCTAssertEqual(try exported("Gukesh"), ["[Round \"2\"]"])
        XCTAssertEqual(try exported("Nobody"), [])
        XCTAssertEqual(
            try database.players(meantBy: "car").map(\.name), ["Carlsen, Magnus", "Carlsen, M.", "Caruana, Fabiano"])
        XCTAssertEqual(try database.players(meantBy: "  ").map(\.name), [])
    }

    func testTheClosestNamesAreSuggestedForANameThatMatchesNone() throws {
        XCTAssertEqual(try database.players(closestTo: "Maghsudloo"), ["Maghsoodloo, Parham"])
        XCTAssertEqual(try database.players(closestTo: "Carlson"), ["Carlsen, M.", "Carlsen, Magnus"])
        XCTAssertEqual(try database.players(closestTo: "Ivantchuk"), ["Ivanchuk, Vassily"])
        XCTAssertEqual(try database.players(closestTo: "Zzyzx"), [], "nothing close")
    }

    func testNameKeyMeansAndDistances() {
        let name = NameKey("Carlsen, Magnus")
        XCTAssertTrue(name.isMeant(by: NameKey("carl")))
        XCTAssertTrue(name.isMeant(by: NameKey("Magnus Carlsen")))
        XCTAssertTrue(name.isMeant(by: NameKey("Cârlsen m")))
        XCTAssertFalse(name.isMeant(by: NameKey("Carlsen Carlsen")), "each word of the name once")
        XCTAssertFalse(name.isMeant(by: NameKey("agnus")))
        XCTAssertFalse(name.isMeant(by: NameKey("")))
        XCTAssertEqual(name.distance(to: NameKey("Carlson")), 1)
        XCTAssertEqual(name.distance(to: NameKey("carlsen, magnus")), 0)
    }
}
