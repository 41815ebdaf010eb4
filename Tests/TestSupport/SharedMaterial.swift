import Foundation
import XCTest

/// The one way tests find the material of the shared folder (`../shared` beside the package
/// root, or the folder `PGN_SHARED` names), by its path there, e.g.
/// `corpus/lichess/lichess_db_10k.pgn`: the project's own copy under `Tests/Fixtures` when it
/// has one (the CC0 and MIT files, by the same path), else the shared folder's file, else the
/// test is skipped with a message that names the file. Files written for the project's tests
/// live under `Tests/Fixtures` too (`corpus/pgn-lsp`) and are found the same way.
public enum SharedMaterial {
    /// The package's root folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The project's copies, by the same paths as in the shared folder.
    public static let fixtures = packageRoot.appendingPathComponent("Tests").appendingPathComponent("Fixtures")

    /// The shared folder: `$PGN_SHARED`, else `../shared` beside the package root.
    public static let sharedRoot: URL = {
        if let path = ProcessInfo.processInfo.environment["PGN_SHARED"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// Whether the shared folder is there: then every test runs in full.
    public static var sharedIsPresent: Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: sharedRoot.path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// The file at `path`, or nil when neither the project nor the shared folder has it.
    public static func find(_ path: String) -> URL? {
        for base in [fixtures, sharedRoot] {
            let url = base.appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }

    /// The file at `path`; throws `XCTSkip` when neither the project nor the shared folder has it.
    public static func url(_ path: String) throws -> URL {
        guard let url = find(path) else { throw XCTSkip(missing(path)) }
        return url
    }

    public static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(path)))
    }

    public static func text(_ path: String) throws -> String {
        try String(contentsOf: url(path), encoding: .utf8)
    }

    /// Those of `paths` that are there, in their order.
    public static func available(_ paths: [String]) -> [String] {
        paths.filter { find($0) != nil }
    }

    /// Every file under `folder` whose name ends with `suffix`, in the project's copies and in the
    /// shared folder (a path both have, once), sorted.
    public static func files(under folder: String, suffix: String) -> [String] {
        var found: Set<String> = []
        for base in [fixtures, sharedRoot] {
            let walker = FileManager.default.enumerator(atPath: base.appendingPathComponent(folder).path)
            while let path = walker?.nextObject() as? String {
                if path.hasSuffix(suffix) { found.insert(folder + "/" + path) }
            }
        }
        return found.sorted()
    }

    /// Why a test is skipped: the file it needs is kept in the shared folder, and the shared
    /// folder is not there.
    public static func missing(_ path: String) -> String {
        "needs \(path) of the shared folder (\(origin(of: path)); not copied into the project): found neither in "
            + "\(fixtures.path) nor in \(sharedRoot.path)"
    }

    /// Where a file the project does not copy comes from: its row in `Tests/Fixtures/shared-only.tsv`.
    static func origin(of path: String) -> String {
        let table = (try? String(contentsOf: fixtures.appendingPathComponent("shared-only.tsv"), encoding: .utf8)) ?? ""
        for row in table.split(separator: "\n") where !row.hasPrefix("#") {
            let fields = row.split(separator: "\t")
            if fields.count == 2 && path.hasPrefix(fields[0]) { return String(fields[1]) }
        }
        return "see the shared folder's README"
    }
}
