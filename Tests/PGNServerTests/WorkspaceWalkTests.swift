import Foundation
import XCTest

@testable import PGNServer

/// The walk that finds the workspace's `.pgn` files (`WorkspaceWalk`) and the URIs of the files
/// it finds (`FileURI`). The requests that use them are tested in their own files.
final class WorkspaceWalkTests: XCTestCase {
    private func withFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-walk-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    private func names(_ found: WorkspaceWalk.Found) -> [String] {
        found.files.map { FileSystem.display(FileSystem.name($0.path)) }
    }

    func testTheFilesComeInTheOrderOfTheirPaths() throws {
        try withFolder { folder in
            for name in ["b.pgn", "a/z.PGN", "a/y.txt", "c.pgn"] {
                let file = folder.appendingPathComponent(name)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try "1. e4 *\n".write(to: file, atomically: true, encoding: .utf8)
            }
            let found = WorkspaceWalk.pgnFiles(under: [Array(folder.path.utf8)])
            XCTAssertEqual(names(found), ["z.PGN", "b.pgn", "c.pgn"])
            XCTAssertEqual(found.notes, [])
        }
    }

    func testTheWalkStopsAtItsLimitsAndSaysWhere() throws {
        try withFolder { folder in
            for k in 0..<30 {
                try "1. e4 *\n".write(
                    to: folder.appendingPathComponent(String(format: "game%02d.pgn", k)), atomically: true,
                    encoding: .utf8)
            }
            var limits = WorkspaceWalk.Limits()
            limits.files = 10
            let few = WorkspaceWalk.pgnFiles(under: [Array(folder.path.utf8)], limits: limits)
            XCTAssertEqual(few.files.count, 10)
            XCTAssertEqual(
                few.notes,
                ["more than 10 .pgn files in the workspace: those from \(folder.path)/game10.pgn on are left out"])
            limits = WorkspaceWalk.Limits()
            limits.entries = 5
            let short = WorkspaceWalk.pgnFiles(under: [Array(folder.path.utf8)], limits: limits)
            XCTAssertEqual(short.files.count, 0)
            XCTAssertEqual(
                short.notes,
                [
                    "the walk of the workspace stopped after 5 entries, at \(folder.path): the files further on are left out"
                ])
        }
    }

    func testAWalkOfTheWholeDiskKeepsToItsTimeAndLeavesOutTheKernelsFileSystems() {
        var limits = WorkspaceWalk.Limits()
        limits.duration = .milliseconds(300)
        let started = ContinuousClock.now
        let found = WorkspaceWalk.pgnFiles(under: [Array("/".utf8)], limits: limits)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        for file in found.files {
            for pseudo in ["/proc/", "/sys/", "/dev/"] {
                XCTAssertFalse(FileSystem.display(file.path).hasPrefix(pseudo), FileSystem.display(file.path))
            }
        }
        XCTAssertEqual(WorkspaceWalk.pgnFiles(under: [Array("/proc".utf8)]).files.count, 0)
    }

    func testAMountPointIsReadWithItsEscapes() {
        let field = Array(#"/mnt/my\040disk\134x"#.utf8)
        XCTAssertEqual(
            FileSystem.display(WorkspaceWalk.mountPoint(field[...])), "/mnt/my disk\\x")
    }

    func testAURINamesTheBytesOfItsPathWhateverThey() {
        let path: [UInt8] = Array("/tmp/a b%+é/".utf8) + Array(1...255).filter { $0 != UInt8(ascii: "/") }
        let uri = FileURI.uri(path: path)
        XCTAssertTrue(uri.hasPrefix("file:///tmp/a%20b%25%2B%C3%A9/%01%02"), uri)
        XCTAssertEqual(FileURI.path(uri), path)
        XCTAssertEqual(FileURI.path("file://localhost/tmp/x.pgn"), Array("/tmp/x.pgn".utf8))
        XCTAssertEqual(FileURI.path("FILE:///tmp/x%2epgn"), Array("/tmp/x.pgn".utf8))
        XCTAssertNil(FileURI.path("file://elsewhere/tmp/x.pgn"))
        XCTAssertNil(FileURI.path("untitled:Untitled-1"))
        XCTAssertEqual(FileURI.name("file:///tmp/Caf%E9.pgn"), "Caf\u{FFFD}.pgn")
    }
}
