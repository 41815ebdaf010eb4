import Foundation
import LanguageServer

/// A `.pgn` file of the workspace, as the walk found it (not read yet).
struct WorkspaceFile: Sendable, Hashable {
    /// The path the walk reached it by, and its URI.
    let path: [UInt8]
    let uri: DocumentURI
    /// What is opened to read it: its path, or for a link the file the link resolves to.
    let target: [UInt8]
    let identity: FileIdentity
    let size: Int
    let modified: Int64

    /// The file opened, when it is still the file the walk found, and still smaller than `limit`.
    func open(limit: Int) -> Result<FileSystem.OpenFile, FileSystem.ReadFailure> {
        FileSystem.open(target, limit: limit, expected: identity)
    }
}

/// Finds the `.pgn` files under the workspace folders, for the requests that read them all
/// (`workspace/symbol`, references, rename) and the index of their twins. The walk is bounded:
///
/// - each file is found once, whatever the links or paths that reach it (`FileIdentity`);
/// - a link is followed to a file only when that file is inside a workspace folder (a folder
///   reached by a link is not entered: what is inside the workspace is reached by its own path);
/// - hidden files and folders (`.git`, `.build`, …), `node_modules`, the pseudo file systems
///   (`/proc`, `/sys`, `/dev` and the like) and the folders in `leavingOut` are not looked into;
/// - files of `largestFile` bytes or more are left out before anything of them is read;
/// - the walk stops after `files` files, `entries` entries looked at or `duration`.
///
/// What it left out, and why, is in `notes`, except what is never the user's (hidden, pseudo).
enum WorkspaceWalk {
    struct Limits: Sendable {
        var files = 500
        var entries = 100_000
        var duration: Duration = .seconds(2)
        var largestFile = 64 << 20
    }

    struct Found: Sendable {
        var files: [WorkspaceFile] = []
        /// What was left out and why, one line each (`path: reason`).
        var notes: [String] = []
    }

    /// The `.pgn` files under `roots` (absolute paths), in the order of their paths within each
    /// root; the files and folders whose identity is in `leavingOut` left out without a note.
    static func pgnFiles(
        under roots: [[UInt8]], leavingOut: Set<FileIdentity> = [], limits: Limits = Limits(),
        isCancelled: () -> Bool = { false }
    ) -> Found {
        withoutActuallyEscaping(isCancelled) { isCancelled in
            var walk = Walk(roots: roots, leavingOut: leavingOut, limits: limits, isCancelled: isCancelled)
            walk.run()
            return walk.found
        }
    }

    /// The file systems of the kernel's own, which hold no one's files, by their type in
    /// `/proc/self/mounts`.
    static let pseudoTypes: Set<String> = [
        "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
        "pstore", "bpf", "configfs", "fusectl", "mqueue", "binfmt_misc", "selinuxfs", "efivarfs", "nsfs",
        "hugetlbfs", "autofs", "rpc_pipefs",
    ]

    /// Where those file systems are mounted (`/proc`, `/sys`, `/dev` and the like, wherever
    /// they are), as `/proc/self/mounts` lists them; the usual places where it cannot be read.
    static func pseudoMounts() -> Set<[UInt8]> {
        var mounts: Set<[UInt8]> = [Array("/proc".utf8), Array("/sys".utf8), Array("/dev".utf8)]
        guard case .success(let table) = FileSystem.read(Array("/proc/self/mounts".utf8), limit: 1 << 24)
        else { return mounts }
        for line in table.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 3, pseudoTypes.contains(String(decoding: fields[2], as: UTF8.self)) else {
                continue
            }
            mounts.insert(mountPoint(fields[1]))
        }
        return mounts
    }

    /// A mount point as the table writes it: a space, a tab, a line break or `\` as `\040`….
    static func mountPoint(_ field: ArraySlice<UInt8>) -> [UInt8] {
        var path: [UInt8] = []
        var i = field.startIndex
        while i < field.endIndex {
            let digits = field[(i + 1)..<min(i + 4, field.endIndex)]
            let value = digits.reduce(0) { $0 * 8 + Int($1) - Int(UInt8(ascii: "0")) }
            if field[i] == UInt8(ascii: "\\"), digits.count == 3,
                digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }), value < 256
            {
                path.append(UInt8(value))
                i += 4
            } else {
                path.append(field[i])
                i += 1
            }
        }
        return path
    }

    /// Sizes as the notes give them: `2.1 GB`, `70 MB`.
    static func size(_ bytes: Int) -> String {
        let megabytes = Double(bytes) / Double(1 << 20)
        if megabytes >= 1024 { return String(format: "%.1f GB", megabytes / 1024) }
        return String(format: "%.0f MB", megabytes)
    }

    private struct Walk {
        let roots: [[UInt8]]
        let leavingOut: Set<FileIdentity>
        let limits: Limits
        let isCancelled: () -> Bool
        let resolvedRoots: [[UInt8]]
        let pseudoMounts = WorkspaceWalk.pseudoMounts()
        let clock = ContinuousClock()
        let started: ContinuousClock.Instant
        var found = Found()
        var seen = Set<FileIdentity>()
        var entries = 0
        var stopped = false

        init(roots: [[UInt8]], leavingOut: Set<FileIdentity>, limits: Limits, isCancelled: @escaping () -> Bool) {
            self.roots = roots
            self.leavingOut = leavingOut
            self.limits = limits
            self.isCancelled = isCancelled
            resolvedRoots = roots.compactMap(FileSystem.resolved)
            started = clock.now
        }

        /// A path still to look at: a folder, a `.pgn` name, or an entry `readdir` did not say
        /// the kind of.
        enum Pending {
            case folder([UInt8])
            case file([UInt8])
            case unknown([UInt8])
        }

        mutating func run() {
            for root in roots where !stopped {
                guard let status = FileSystem.followedStatus(root), status.kind == .directory else {
                    note(root, "the workspace folder cannot be read")
                    continue
                }
                var pending: [Pending] = [.folder(root)]
                while !stopped, let next = pending.popLast() {
                    switch next {
                    case .folder(let path): enter(path, into: &pending)
                    case .file(let path): consider(path)
                    case .unknown(let path):
                        guard let status = FileSystem.status(path) else { continue }
                        if status.kind == .directory {
                            enter(path, into: &pending)
                        } else if Self.isPGN(FileSystem.name(path)) {
                            consider(path)
                        }
                    }
                }
            }
        }

        static func isPGN(_ name: [UInt8]) -> Bool {
            name.count > 4 && String(decoding: name.suffix(4), as: UTF8.self).lowercased() == ".pgn"
        }

        static func isLeftAlone(_ name: [UInt8]) -> Bool {
            name.first == UInt8(ascii: ".") || name == Array("node_modules".utf8)
        }

        mutating func note(_ path: [UInt8], _ reason: String) {
            found.notes.append("\(FileSystem.display(path)): \(reason)")
        }

        /// Stops the walk when it has gone on long enough; says so once.
        mutating func overLimits(at path: [UInt8]) -> Bool {
            if stopped { return true }
            if isCancelled() {
                stopped = true
                return true
            }
            if entries > limits.entries {
                stopped = true
                found.notes.append(
                    "the walk of the workspace stopped after \(limits.entries) entries, at "
                        + "\(FileSystem.display(path)): the files further on are left out")
            } else if clock.now - started > limits.duration {
                stopped = true
                found.notes.append(
                    "the walk of the workspace stopped after \(limits.duration), at "
                        + "\(FileSystem.display(path)): the files further on are left out")
            }
            return stopped
        }

        mutating func enter(_ folder: [UInt8], into pending: inout [Pending]) {
            guard let status = FileSystem.followedStatus(folder), status.kind == .directory else { return }
            if leavingOut.contains(status.identity) || pseudoMounts.contains(folder) { return }
            guard !overLimits(at: folder) else { return }
            guard let (listed, more) = FileSystem.entries(of: folder, limit: limits.entries - entries + 1) else {
                note(folder, "this folder cannot be read")
                return
            }
            entries += listed.count
            if more { entries = limits.entries + 1 }
            // Looked at in the order of their names, the first name first.
            var children: [Pending] = []
            for (name, kind) in listed where !Self.isLeftAlone(name) {
                let path = FileSystem.joined(folder, name)
                switch kind {
                case .directory: children.append(.folder(path))
                case .file, .link, .other: if Self.isPGN(name) { children.append(.file(path)) }
                case nil: children.append(.unknown(path))
                }
            }
            children.sort { Self.path(of: $0).lexicographicallyPrecedes(Self.path(of: $1)) }
            pending += children.reversed()
            _ = overLimits(at: folder)
        }

        static func path(of pending: Pending) -> [UInt8] {
            switch pending {
            case .folder(let path), .file(let path), .unknown(let path): path
            }
        }

        mutating func consider(_ path: [UInt8]) {
            guard let status = FileSystem.status(path) else { return }
            var target = path
            var file = status
            switch status.kind {
            case .directory: return
            case .other:
                note(path, "not a regular file")
                return
            case .file: break
            case .link:
                guard let resolved = FileSystem.resolved(path), let followed = FileSystem.status(resolved) else {
                    note(path, "a link to nothing")
                    return
                }
                guard resolvedRoots.contains(where: { FileSystem.isInside(resolved, $0) }) else {
                    note(path, "a link to \(FileSystem.display(resolved)), outside the workspace folders")
                    return
                }
                guard followed.kind == .file else { return }
                (target, file) = (resolved, followed)
            }
            guard !leavingOut.contains(file.identity), !seen.contains(file.identity) else { return }
            guard file.size < limits.largestFile else {
                note(
                    path,
                    "\(WorkspaceWalk.size(file.size)), over the \(limits.largestFile >> 20) MB "
                        + "that requests over the whole workspace read")
                return
            }
            guard found.files.count < limits.files else {
                stopped = true
                found.notes.append(
                    "more than \(limits.files) .pgn files in the workspace: those from "
                        + "\(FileSystem.display(path)) on are left out")
                return
            }
            seen.insert(file.identity)
            found.files.append(
                WorkspaceFile(
                    path: path, uri: FileURI.uri(path: path), target: target, identity: file.identity,
                    size: file.size, modified: file.modified))
        }
    }
}
