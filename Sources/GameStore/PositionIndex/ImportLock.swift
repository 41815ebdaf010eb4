import Foundation

/// The lock an import holds while it adds games to a file's position index: an exclusive
/// `flock` on a small file beside the database (`games.db3-pgn-lsp-import`), which holds the
/// token the import also wrote in `PositionIndexState.Updater`. The kernel releases the lock
/// when the process ends, however it ends, so that a reader tells a running import (the lock
/// is held, by the holder of that token) from one that was killed (it is not), with no
/// process ID to trust: process IDs are reused, and mean nothing to another machine or
/// container that shares the file.
///
/// `flock` locks belong to an open file, not to a process: closing another descriptor of
/// the file releases nothing, and a reader in the same process sees the lock as another
/// process would. The file is not the database's: SQLite's own locks on the database are
/// `fcntl` locks, which a descriptor of the database opened and closed here would release.
///
/// On shared storage, other machines see the lock where the file system carries `flock`
/// locks across machines (NFS does, as the `fcntl` locks SQLite itself needs there). Where it
/// does not, or where the file system has no locks at all, a reader sees no lock: it takes the
/// import for interrupted and the index for out of date (searches build it again or refuse;
/// they never answer from it), and the import, finding at its end that the index changed
/// under it, leaves it out of date too.
final class ImportLock {
    /// Who holds the lock of a database, as a reader sees it.
    enum Holder: Equatable {
        /// No process holds it (or it cannot be told: a file system without locks).
        case nobody
        /// A live process holds it, with this token (nil when the file's text is not one).
        case running(token: Int64?)
    }

    enum Acquisition {
        case acquired(ImportLock)
        /// Another live import holds it.
        case heldByAnother
        /// The file cannot be made or locked here (a read-only folder, no locks).
        case unavailable
    }

    let path: String
    let token: Int64
    private var descriptor: Int32

    private init(path: String, token: Int64, descriptor: Int32) {
        self.path = path
        self.token = token
        self.descriptor = descriptor
    }

    deinit { release() }

    /// The lock file of the database at `database`: beside it, under the name of the file a
    /// symbolic link leads to (as SQLite names its journal), so that every path to the
    /// database names the same lock.
    static func path(of database: String) -> String {
        guard let resolved = realpath(database, nil) else { return database + suffix }
        defer { free(resolved) }
        return String(cString: resolved) + suffix
    }

    static let suffix = "-pgn-lsp-import"

    /// Takes the lock of `database` and writes `token` in its file, waiting up to `timeout`
    /// seconds while readers glance at it or an import that is ending lets it go (an import
    /// that runs holds it for minutes: no use waiting for it).
    static func acquire(database: String, token: Int64, timeout: Double) -> Acquisition {
        let path = self.path(of: database)
        let deadline = ContinuousClock.now + .milliseconds(Int(max(0, timeout) * 1000))
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard descriptor >= 0 else { return .unavailable }
            if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let failure = errno
                close(descriptor)
                guard failure == EWOULDBLOCK || failure == EINTR else { return .unavailable }
                if ContinuousClock.now >= deadline { return .heldByAnother }
                usleep(10_000)
                continue
            }
            // The import that held it before may have removed the file meanwhile: the lock of
            // a file no longer at `path` is no one's.
            var opened = stat()
            var named = stat()
            guard fstat(descriptor, &opened) == 0, stat(path, &named) == 0, opened.st_dev == named.st_dev,
                opened.st_ino == named.st_ino
            else {
                close(descriptor)
                if ContinuousClock.now >= deadline { return .heldByAnother }
                continue
            }
            let text = Array("\(token) \(getpid())\n".utf8)
            guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, text, text.count, 0) == text.count else {
                close(descriptor)
                return .unavailable
            }
            // Over a network file system, readers on other machines read it from the server.
            fsync(descriptor)
            return .acquired(ImportLock(path: path, token: token, descriptor: descriptor))
        }
    }

    /// Lets the lock go: its file is removed first, while still held, so that no import
    /// takes the lock of a file no longer there.
    func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }

    /// Removes the lock file of `database` when no import holds it (an import killed before
    /// its end leaves it); taken first, as an import takes it, so that a running import's
    /// file stays.
    static func removeIfUnheld(database: String) {
        let path = self.path(of: database)
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }
        var opened = stat()
        var named = stat()
        if fstat(descriptor, &opened) == 0, stat(path, &named) == 0, opened.st_dev == named.st_dev,
            opened.st_ino == named.st_ino
        {
            unlink(path)
        }
    }

    /// Who holds the lock of `database`: read without making the file, and through a
    /// descriptor of its own (a shared lock tried and let go at once).
    static func holder(of database: String) -> Holder {
        let descriptor = open(path(of: database), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return .nobody }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return .nobody
        }
        guard errno == EWOULDBLOCK else { return .nobody }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0 else { return .running(token: nil) }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        return .running(token: text.split(separator: " ").first.flatMap { Int64($0) })
    }
}
