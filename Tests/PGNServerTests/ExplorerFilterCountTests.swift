import ChessCore
import Foundation
import GameStore
import TestSupport
import XCTest

@testable import PGNServer

/// A filter's games are counted once per database and filter: beside the requests as soon as
/// the filter is set from the editor, and once for requests that need them at the same time.
final class ExplorerFilterCountTests: XCTestCase {
    func testAFiltersGamesAreCountedOnceBesideTheRequests() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-filter-count-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("games.ocgdb.db3").path
        try makeDatabase(path)
        let center = ExplorerCenter()
        center.filter.withLock { $0 = ExplorerFilter(player: "carlsen") }
        let source = ExplorerSource(path: path, isOwn: true)
        center.countFilteredGames(in: [source])
        let deadline = Date().addingTimeInterval(10)
        while center.filterCounts == 0 && Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(center.filterCounts, 1)
        // Eight requests at once, at two positions: the count made beside serves them all.
        let after = Position.startingPosition.playing(Position.startingPosition.move(san: "e4")!)
        let games = await withTaskGroup(of: Int.self) { group in
            for k in 0..<8 {
                group.addTask {
                    await ExplorerCenter.offPool {
                        center.explore(k.isMultiple(of: 2) ? after : .startingPosition, in: [source]).answer.games
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(games, Array(repeating: 1, count: 8))
        XCTAssertEqual(center.filterCounts, 1)
        // Another filter: counted once more, by the first request that needs it.
        center.filter.withLock { $0 = ExplorerFilter(player: "carlsen", color: .black) }
        XCTAssertEqual(center.explore(.startingPosition, in: [source]).answer.games, 0)
        XCTAssertEqual(center.explore(after, in: [source]).answer.games, 0)
        XCTAssertEqual(center.filterCounts, 2)
        // A third, needed by eight requests at once with no count made beside: one count.
        center.filter.withLock { $0 = ExplorerFilter(player: "carlsen", color: .white) }
        let white = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { await ExplorerCenter.offPool { center.explore(after, in: [source]).answer.games } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(white, Array(repeating: 1, count: 8))
        XCTAssertEqual(center.filterCounts, 3)
    }
}
