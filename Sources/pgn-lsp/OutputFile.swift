import Foundation

/// An error a command reports in one sentence (`Error: …` on standard error, exit status 1).
struct CommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Writes all of `bytes` to a file descriptor; returns the error number when writing fails.
@discardableResult
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return written < 0 ? errno : EIO }
            offset += written
        }
        return nil
    }
}

/// `writeAll(_:_:)` of a text to standard error; a failure there has nowhere to be reported.
func writeToStandardError(_ text: String) {
    writeAll(STDERR_FILENO, Array(text.utf8))
}

/// What a command writes: standard output, or a file that is replaced whole or not at all.
///
/// A file is written to a new file in the same folder, synced to the disk, then renamed over
/// the target by `commit()`: a full disk or an I/O error leaves the old file as it was. The
/// target must be missing or a regular file; a symbolic link is followed, and the file it
/// leads to is replaced (the link stays). A file with other hard links is replaced under
/// this name only: the other names keep the old contents. Devices, FIFOs and folders are
/// refused, and so is any input of the command, under whatever name.
final class OutputFile {
    /// The name given by the user, in messages.
    private let name: String
    /// The file to replace, and the permissions of the file there (nil for a new file); nil
    /// for standard output.
    private let target: (path: String, mode: mode_t?)?
    /// Standard output, or the new file once something is written (-1 before).
    private var descriptor: Int32
    private var temporary: String?
    private var buffer: [UInt8] = []
    private var failure: Int32?

    /// Standard output.
    init() {
        name = "standard output"
        target = nil
        descriptor = STDOUT_FILENO
    }

    /// The file at `path`. An existing file is replaced only when `replacing` is true;
    /// `inputs` are the files the command reads, with what each is (`the database`). Nothing
    /// is created before the first write.
    init(path: String, replacing: Bool, inputs: [(path: String, what: String)]) throws {
        name = path
        descriptor = -1
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else {
                throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            try OutputFile.checkFolder(of: path, name: path)
            target = (path, nil)
            return
        }
        var resolved = path
        if status.st_mode & S_IFMT == S_IFLNK {
            guard let real = realpath(path, nil) else {
                throw CommandError("cannot follow the symbolic link \(path): \(String(cString: strerror(errno)))")
            }
            resolved = String(cString: real)
            free(real)
            guard stat(resolved, &status) == 0 else {
                throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw CommandError("\(path) is a folder: name a file")
        default: throw CommandError("\(path) is not a regular file (a device, FIFO or socket): name a file")
        }
        for input in inputs {
            var other = stat()
            if stat(input.path, &other) == 0 && other.st_dev == status.st_dev && other.st_ino == status.st_ino {
                throw CommandError("\(path) is \(input.what): name another file")
            }
        }
        guard replacing else { throw CommandError("\(path) already exists: use --force to replace it") }
        try OutputFile.checkFolder(of: resolved, name: path)
        target = (resolved, status.st_mode & 0o7777)
    }

    /// Throws unless a file can be created in the folder of `path`.
    private static func checkFolder(of path: String, name: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard access(folder, W_OK) == 0 else {
            throw CommandError("cannot write \(name): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if let temporary {
            close(descriptor)
            unlink(temporary)
        }
    }

    /// Writes `bytes` (buffered); throws when writing fails.
    func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func flush() throws {
        if descriptor < 0, let target { try create(next: target.path, mode: target.mode) }
        if failure == nil { failure = writeAll(descriptor, buffer) }
        buffer.removeAll(keepingCapacity: true)
        if let failure { throw CommandError("cannot write \(name): \(String(cString: strerror(failure)))") }
    }

    /// Creates the new file, in the folder of the file it is to replace.
    private func create(next path: String, mode: mode_t?) throws {
        let url = URL(fileURLWithPath: path)
        let prefix = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "."
        while descriptor < 0 {
            let candidate = prefix + String(UInt32.random(in: .min ... .max), radix: 36)
            descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 {
                temporary = candidate
            } else if errno != EEXIST {
                throw CommandError("cannot write \(name): \(String(cString: strerror(errno)))")
            }
        }
        // The new file keeps the permissions of the one it replaces.
        if let mode { fchmod(descriptor, mode) }
    }

    /// Writes what is buffered and, for a file, syncs it and puts it in place of the target.
    /// When anything fails, the target is left as it was.
    func commit() throws {
        try flush()
        guard let temporary, let target else { return }
        var failed = fsync(descriptor) != 0 ? errno : nil
        if close(descriptor) != 0 && failed == nil { failed = errno }
        if failed == nil && rename(temporary, target.path) != 0 { failed = errno }
        if failed != nil { unlink(temporary) }
        self.temporary = nil
        if let failed { throw CommandError("cannot write \(name): \(String(cString: strerror(failed)))") }
        // The rename itself reaches the disk with the folder.
        let folder = open(URL(fileURLWithPath: target.path).deletingLastPathComponent().path, O_RDONLY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
