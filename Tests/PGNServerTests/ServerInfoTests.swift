import LanguageServer
import PGNServer
import TestSupport
import XCTest

/// The PGN server names itself and its version in its answer to `initialize`: the version that
/// `pgn-lsp --version` prints and the release tarball is named after.
final class ServerInfoTests: XCTestCase {
    func testInitializeAnswersNameAndVersion() async throws {
        let client = TestClient { PGNLanguageServer(server: $0).register() }
        let result = try await client.initialize()
        XCTAssertEqual(result["serverInfo"], ["name": "pgn-lsp", "version": .string(PGNLanguageServer.version)])
        let status = try await client.shutdownAndExit()
        XCTAssertEqual(status, 0)
    }

    func testVersionIsMajorMinorPatch() {
        let parts = PGNLanguageServer.version.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3, PGNLanguageServer.version)
        XCTAssertTrue(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, PGNLanguageServer.version)
    }
}
