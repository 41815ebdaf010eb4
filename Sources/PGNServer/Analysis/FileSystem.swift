import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which file a path names, whatever path reached it: the same file through two links, or a
/// hard link, has one identity.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
}

/// The file system as the workspace-wide requests and the files written for the client see it:
/// paths are bytes (a name need not be UTF-8), what a path names is asked without following a
/// link unless said, and files are read through one descriptor, their size known before.
enum FileSystem {
    /// The user's home folder: `$HOME` when it is an absolute path (a sandboxed editor or a test
    /// sets its own), else the account's.
    static var home: URL {
        ProcessInfo.processInfo.environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser
    }

    enum Kind: Sendable { case file, directory, link, other }

    /// What `lstat` or `stat` tells of a path.
    struct Status: Sendable {
        let kind: Kind
        let identity: FileIdentity
        let size: Int
        /// Seconds and nanoseconds since 1970 of the last change of its content.
        let modified: Int64
        let owner: UInt32
        /// The permission bits (`0o700`…).
        let permissions: UInt32

        init(_ s: stat) {
            switch UInt32(s.st_mode) & 0o170000 {
            case 0o100000: kind = .file
            case 0o040000: kind = .directory
            case 0o120000: kind = .link
            default: kind = .other
            }
            identity = FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
            size = Int(s.st_size)
            #if os(Linux)
                modified = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
            #else
                modified = Int64(s.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(s.st_mtimespec.tv_nsec)
            #endif
            owner = UInt32(s.st_uid)
            permissions = UInt32(s.st_mode) & 0o7777
        }
    }

    /// Calls `body` with `path` as a C string.
    static func withCPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (path + [0]).withUnsafeBufferPointer { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// What `path` names, a link itself when it is one (`lstat`); nil when nothing is there
    /// or it cannot be asked.
    static func status(_ path: [UInt8]) -> Status? {
        var s = stat()
        return withCPath(path) { lstat($0, &s) } == 0 ? Status(s) : nil
    }

    /// What `path` names once its links are followed (`stat`).
    static func followedStatus(_ path: [UInt8]) -> Status? {
        var s = stat()
        return withCPath(path) { stat($0, &s) } == 0 ? Status(s) : nil
    }

    /// The path with every link and `.`/`..` resolved (`realpath`); nil when it names nothing.
    static func resolved(_ path: [UInt8]) -> [UInt8]? {
        guard let resolved = withCPath(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }

    /// `path` + `/` + `name`.
    static func joined(_ path: [UInt8], _ name: [UInt8]) -> [UInt8] {
        path.last == UInt8(ascii: "/") ? path + name : path + [UInt8(ascii: "/")] + name
    }

    /// The last component of a path.
    static func name(_ path: [UInt8]) -> [UInt8] {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return Array(path[(slash + 1)...])
    }

    /// Whether `path` is `folder` or inside it (both resolved).
    static func isInside(_ path: [UInt8], _ folder: [UInt8]) -> Bool {
        if folder == [UInt8(ascii: "/")] { return path.first == UInt8(ascii: "/") }
        return path == folder || (path.starts(with: folder) && path[folder.count] == UInt8(ascii: "/"))
    }

    /// The entries of a folder with what `readdir` says of their kind (nil when it does not
    /// say), in no order; at most `limit` of them, and whether there were more. Nil when the
    /// folder cannot be opened.
    static func entries(of folder: [UInt8], limit: Int) -> (entries: [(name: [UInt8], kind: Kind?)], more: Bool)? {
        guard let directory = withCPath(folder, { opendir($0) }) else { return nil }
        defer { closedir(directory) }
        var entries: [(name: [UInt8], kind: Kind?)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            if entries.count == limit { return (entries, true) }
            let kind: Kind? =
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_REG): .file
                case Int32(DT_DIR): .directory
                case Int32(DT_LNK): .link
                case Int32(DT_UNKNOWN): nil
                default: .other
                }
            entries.append((name, kind))
        }
        return (entries, false)
    }

    /// Why a file was not read.
    enum ReadFailure: Error, Sendable {
        case cannotOpen(String)
        case notAFile
        case tooLarge(Int)
        case changed
    }

    /// A file opened for reading, closed when dropped.
    final class OpenFile {
        let descriptor: Int32
        /// Its size when it was opened: no more than this is read of it.
        let size: Int
        private(set) var consumed = 0

        fileprivate init(_ descriptor: Int32, size: Int) {
            self.descriptor = descriptor
            self.size = size
        }

        deinit { close(descriptor) }

        /// Appends up to `count` more bytes of the file to `buffer` (none past `size`); how
        /// many, 0 at its end.
        func read(into buffer: inout [UInt8], count: Int) throws(ReadFailure) -> Int {
            let wanted = min(count, size - consumed)
            guard wanted > 0 else { return 0 }
            let before = buffer.count
            var failure: ReadFailure?
            buffer.append(contentsOf: repeatElement(0, count: wanted))
            let got = buffer.withUnsafeMutableBufferPointer { all -> Int in
                while true {
                    let n = systemRead(descriptor, all.baseAddress! + before, wanted)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = .cannotOpen(String(cString: strerror(errno))) }
                    return max(n, 0)
                }
            }
            buffer.removeLast(wanted - got)
            if let failure { throw failure }
            consumed += got
            return got
        }
    }

    /// The file at `path`, opened: its size is known before anything is read, and a file of
    /// `limit` bytes or more is not opened. With `expected`, the file must still be that one
    /// (the walk's). Without `followingLinks`, a link is not opened.
    static func open(
        _ path: [UInt8], limit: Int, expected: FileIdentity? = nil, followingLinks: Bool = false
    ) -> Result<OpenFile, ReadFailure> {
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        if !followingLinks { flags |= O_NOFOLLOW }
        let descriptor = withCPath(path) { systemOpen($0, flags) }
        guard descriptor >= 0 else { return .failure(.cannotOpen(String(cString: strerror(errno)))) }
        var s = stat()
        guard fstat(descriptor, &s) == 0 else {
            close(descriptor)
            return .failure(.cannotOpen(String(cString: strerror(errno))))
        }
        let status = Status(s)
        let failure: ReadFailure? =
            status.kind != .file
            ? .notAFile
            : expected.map { $0 != status.identity } == true
                ? .changed : status.size >= limit ? .tooLarge(status.size) : nil
        if let failure {
            close(descriptor)
            return .failure(failure)
        }
        return .success(OpenFile(descriptor, size: status.size))
    }

    /// The bytes of the file at `path` (`open`), read whole; a file whose size says nothing (the
    /// kernel's tables in `/proc`) is read to its end, at most `limit` bytes.
    static func read(
        _ path: [UInt8], limit: Int, expected: FileIdentity? = nil, followingLinks: Bool = false
    ) -> Result<[UInt8], ReadFailure> {
        switch open(path, limit: limit, expected: expected, followingLinks: followingLinks) {
        case .failure(let failure): return .failure(failure)
        case .success(let file):
            if file.size == 0 { return readToEnd(file.descriptor, limit: limit) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(file.size)
            do {
                while try file.read(into: &bytes, count: file.size) > 0 {}
            } catch {
                return .failure(error)
            }
            return .success(bytes)
        }
    }

    /// A file whose size says nothing (the kernel's tables in `/proc`, an empty file), read
    /// until its end, at most `limit` bytes.
    private static func readToEnd(_ descriptor: Int32, limit: Int) -> Result<[UInt8], ReadFailure> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBufferPointer { systemRead(descriptor, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(.cannotOpen(String(cString: strerror(errno)))) }
            if n == 0 { return .success(bytes) }
            bytes += chunk[..<n]
            if bytes.count >= limit { return .failure(.tooLarge(bytes.count)) }
        }
    }

    /// `write(2)`.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }

    /// The bytes as text for a message: what is not UTF-8 shown as U+FFFD.
    static func display(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }
}

/// `open(2)` and `read(2)`, which `FileSystem`'s own hide.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    open(path, flags)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
    #else
        Darwin.read(descriptor, buffer, count)
    #endif
}
