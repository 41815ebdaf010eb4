import Foundation
import LanguageServer
import TestSupport
import XCTest

@testable import PGNServer

/// The files of database games written for the client (`ReferenceFiles`): in a folder only
/// this user can enter, each file 0600 and written where no link leads it, the oldest removed.
/// Each test has its own `$XDG_CACHE_HOME`, home and temporary folder.
final class ReferenceFilesTests: XCTestCase {
    private var base: URL!
    private var saved: [String: String?] = [:]

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("pgn-reference-files-\(UUID())")
        for folder in ["cache", "home", "tmp"] {
            try FileManager.default.createDirectory(
                at: base.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (name, folder) in [("XDG_CACHE_HOME", "cache"), ("HOME", "home"), ("TMPDIR", "tmp")] {
            saved[name] = ProcessInfo.processInfo.environment[name]
            setenv(name, base.appendingPathComponent(folder).path, 1)
        }
    }

    override func tearDownWithError() throws {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        try? FileManager.default.removeItem(at: base)
    }

    private var cache: URL { base.appendingPathComponent("cache/pgn-lsp/positions") }
    private var home: URL { base.appendingPathComponent("home/.cache/pgn-lsp/positions") }
    private var temporary: URL { base.appendingPathComponent("tmp/pgn-lsp-\(geteuid())/positions") }

    private func status(_ url: URL) throws -> FileSystem.Status {
        try XCTUnwrap(FileSystem.status(Array(url.path.utf8)), url.path)
    }

    /// The folder a file is written to now.
    private func folderUsed() throws -> URL {
        try ReferenceFiles.store(Array("% a game\n".utf8), name: "probe.pgn").deletingLastPathComponent()
    }

    func testTheFolderIsMadePrivateAndTheFilesOnlyTheUserCanRead() throws {
        let file = try ReferenceFiles.store(Array("[White \"A\"]\n\n1. e4 *\n".utf8), name: "games.pgn")
        XCTAssertEqual(file.deletingLastPathComponent().path, cache.path)
        XCTAssertEqual(try status(cache).permissions, 0o700)
        XCTAssertEqual(try status(cache.deletingLastPathComponent()).permissions, 0o700)
        XCTAssertEqual(try status(file).permissions, 0o600)
        XCTAssertEqual(try status(file).owner, geteuid())
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "[White \"A\"]\n\n1. e4 *\n")
        // Written anew: the same name, the new text.
        _ = try ReferenceFiles.store(Array("[White \"B\"]\n\n1. d4 *\n".utf8), name: "games.pgn")
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "[White \"B\"]\n\n1. d4 *\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.path), ["games.pgn"])
    }

    func testAFolderOthersCanWriteToIsNotUsed() throws {
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        chmod(cache.path, 0o777)
        XCTAssertEqual(try folderUsed().path, home.path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.path), [])
    }

    func testAFolderOfTheUsersThatOthersCanReadIsNarrowed() throws {
        // As earlier versions made it.
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        chmod(cache.path, 0o755)
        XCTAssertEqual(try folderUsed().path, cache.path)
        XCTAssertEqual(try status(cache).permissions, 0o700)
    }

    func testAFolderOfAnotherUserIsNotUsed() throws {
        guard geteuid() == 0 else {
            throw XCTSkip("only root can give a folder to another user (the mode checks run as any user)")
        }
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        chmod(cache.path, 0o700)
        XCTAssertEqual(chown(cache.path, 54_321, 54_321), 0)
        XCTAssertEqual(try folderUsed().path, home.path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.path), [])
        // Another user's folder in the temporary folder, where anyone can make one first.
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        XCTAssertEqual(chown(temporary.deletingLastPathComponent().path, 54_321, 54_321), 0)
        try FileManager.default.removeItem(at: base.appendingPathComponent("home"))
        try "".write(to: base.appendingPathComponent("home"), atomically: true, encoding: .utf8)
        let made = try folderUsed()
        XCTAssertNotEqual(made.path, temporary.path)
        XCTAssertTrue(made.lastPathComponent.hasPrefix("pgn-lsp-\(geteuid())-"), made.path)
    }

    func testALinkPlantedForTheFolderIsNotFollowed() throws {
        let elsewhere = base.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        chmod(elsewhere.path, 0o700)
        try FileManager.default.createDirectory(
            at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: cache, withDestinationURL: elsewhere)
        XCTAssertEqual(try folderUsed().path, home.path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
    }

    func testALinkPlantedForAFileIsReplacedNotFollowed() throws {
        _ = try folderUsed()
        let target = base.appendingPathComponent("target.txt")
        try "kept".write(to: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: cache.appendingPathComponent("games.pgn"), withDestinationURL: target)
        let file = try ReferenceFiles.store(Array("[White \"A\"]\n".utf8), name: "games.pgn")
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "kept")
        XCTAssertEqual(try status(file).kind, .file)
        XCTAssertEqual(try status(file).permissions, 0o600)
    }

    func testWhenNoFolderIsFitANewOneIsMadeForTheProcess() throws {
        for folder in [cache, home, temporary] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            chmod(folder.path, 0o777)
        }
        let made = try folderUsed()
        XCTAssertEqual(made.deletingLastPathComponent().path, base.appendingPathComponent("tmp").path)
        XCTAssertTrue(made.lastPathComponent.hasPrefix("pgn-lsp-\(geteuid())-"), made.path)
        XCTAssertEqual(try status(made).permissions, 0o700)
        XCTAssertEqual(try folderUsed().path, made.path, "one folder for the process")
        XCTAssertTrue(ReferenceFiles.folders().contains(made))
    }

    func testTheOldestFilesAreRemovedBeyondTheNewest() throws {
        for k in 0..<15 {
            let file = try ReferenceFiles.store(Array("% \(k)\n".utf8), name: "old-\(k).pgn")
            try FileManager.default.setAttributes([.modificationDate: Date() - 3600], ofItemAtPath: file.path)
        }
        for k in 0..<ReferenceFiles.kept {
            _ = try ReferenceFiles.store(Array("% \(k)\n".utf8), name: "new-\(k).pgn")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        XCTAssertEqual(names.count, ReferenceFiles.kept)
        XCTAssertEqual(names.filter { $0.hasPrefix("old-") }, [], "the oldest are removed")
    }
}
