import CStorageShims
import Dispatch
import Foundation
import PGN

/// How far an import has got.
public struct ImportProgress: Sendable {
    /// Bytes of the input whose games are written.
    public var bytesDone: Int
    /// The size of the input, when known.
    public var totalBytes: Int?
    /// Games read so far (stored, duplicate or refused).
    public var games: Int
}

extension GameDatabase {
    /// Pieces of about this many bytes are cut at a game boundary and read on separate cores.
    static let pieceSize = 2 << 20

    /// Runs `body` (the imports of several files, typically) as one import: the search indexes
    /// of a new file (`withSearchIndexesBuiltAtTheEnd`) and the opening tree
    /// (`withDeferredPositionTree`) are built once, after the last, from all the games.
    /// `totalBytes` is the size of all the PGN the imports read (nil when not known).
    public func withIndexesBuiltAtTheEnd<T>(totalBytes: Int?, _ body: () throws -> T) throws -> T {
        try withSearchIndexesBuiltAtTheEnd {
            try withDeferredPositionTree(totalBytes: totalBytes, body)
        }
    }

    /// Imports a PGN file: mapped into memory when it is a regular file (no copy of its bytes),
    /// otherwise read as a stream (see `importPGN(from:)`).
    public func importPGN(
        path: String, firstIndex: Int = 0, progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) throws -> StoreReport {
        if let mapped = MappedFile(path: path) {
            return try withExtendedLifetime(mapped) {
                var start = 0
                let bytes = mapped.bytes
                return try importPieces(
                    totalBytes: bytes.count, firstIndex: firstIndex, progress: progress,
                    written: { mapped.release(upTo: $0) }
                ) {
                    guard start < bytes.count else { return nil }
                    var end = min(bytes.count, start + GameDatabase.pieceSize)
                    // Cut after the last whole game of the window; a game longer than the
                    // window widens it, up to `longestGame`.
                    while true {
                        let window = UnsafeBufferPointer(rebasing: bytes[start..<end])
                        if let (cut, _) = PieceCutter.cut(
                            window, atEnd: end == bytes.count, longest: GameDatabase.longestGame)
                        {
                            end = start + cut
                            break
                        }
                        end = min(bytes.count, end + GameDatabase.pieceSize)
                    }
                    defer { start = end }
                    return ImportPiece(
                        mapped: UnsafeBufferPointer(rebasing: bytes[start..<end]), end: end, file: mapped)
                }
            }
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw GameStoreError.sqlite(path: path, message: "cannot open the file for reading")
        }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
        return try importPGN(from: handle, totalBytes: size, firstIndex: firstIndex, progress: progress)
    }

    /// The longest text a stream is read with before it is cut without a game start.
    static let longestGame = 64 << 20

    /// Imports a PGN stream: read in pieces cut between games, games read and encoded on every
    /// core, written in order while later pieces are being read. Memory stays bounded by the
    /// pieces in flight (2 MB of text each, 8 and one per core) whatever the size of the input. Games are
    /// numbered from `firstIndex` in refusals. A failure to write stops the import;
    /// transactions already committed stay.
    public func importPGN(
        from input: FileHandle, totalBytes: Int? = nil, firstIndex: Int = 0,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) throws -> StoreReport {
        var pending: [UInt8] = []
        var bytesRead = 0
        var atEnd = false
        return try importPieces(totalBytes: totalBytes, firstIndex: firstIndex, progress: progress) {
            while !atEnd {
                let data = try input.read(upToCount: GameDatabase.pieceSize) ?? Data()
                if data.isEmpty {
                    atEnd = true
                } else {
                    pending.append(contentsOf: data)
                }
                // Text in which no game starts (a binary file, endless junk) is cut anyway.
                guard
                    let (cut, _) = pending.withUnsafeBufferPointer({
                        PieceCutter.cut($0, atEnd: atEnd, longest: GameDatabase.longestGame)
                    })
                else { continue }
                let piece = PieceCutter.takePiece(&pending, upTo: cut)
                bytesRead += cut
                return ImportPiece(owned: piece, end: bytesRead)
            }
            return nil
        }
    }

    /// The import pipeline. The calling thread cuts pieces (`nextPiece`, nil at the end); one
    /// reader thread per core takes each in turn, parses and encodes it (and gives back a mapped
    /// piece's pages at once); one writer thread stores the encoded pieces in file order, all
    /// that are ready (up to four) at a time, `piecesPerTransaction` to a transaction. At most
    /// 8 pieces and one per core are in flight, cut and not yet written, so a writer slower
    /// than the readers holds them back instead of letting results pile up, and memory stays
    /// the same whatever the input's size.
    func importPieces(
        totalBytes: Int?, firstIndex: Int, progress: (@Sendable (ImportProgress) -> Void)?,
        written: (@Sendable (Int) -> Void)? = nil, nextPiece: () throws -> ImportPiece?
    ) throws -> StoreReport {
        // Into a file this instance created, batches are committed without waiting for the
        // disk: a crash of the machine (not of the program, whose writes the system keeps)
        // could leave the new file unreadable, but it held nothing else, and the import can
        // run again. The whole file is synced once at the end: inside
        // `withIndexesBuiltAtTheEnd`, after the tree and the search indexes, the system
        // writing the games meanwhile (at a million games, the sync took 0.6 s before them).
        let unsynced = createdFile
        // Large buffers (the tree's sort buffers, growing by a quarter) must go back to the
        // system when freed: at 4M games, served from the heaps after the import's pieces had
        // been freed, they took the anonymous memory from 130 MB to 277 MB while the tree was built.
        cstorage_map_large_allocations()
        if unsynced {
            try run { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        }
        defer {
            if unsynced {
                _ = try? run { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                if searchIndexesDeferred {
                    _ = cstorage_start_writeback(path)
                    syncPending = true
                } else {
                    syncFile()
                }
            }
        }
        // Every player, event and site ID a game gets comes from a lookup or an insert of the
        // same transaction: SQLite's four foreign-key checks per game (a fifth of the writer's
        // time at a million games) would only find them again. Checked as before in saves and edits.
        try run { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        defer { _ = try? run { db in try db.execute(sql: "PRAGMA foreign_keys = ON") } }
        return try withSearchIndexesBuiltAtTheEnd {
            try withDeferredPositionTree(totalBytes: totalBytes) {
                try runPipeline(
                    totalBytes: totalBytes, firstIndex: firstIndex, progress: progress, written: written,
                    nextPiece: nextPiece)
            }
        }
    }

    private func runPipeline(
        totalBytes: Int?, firstIndex: Int, progress: (@Sendable (ImportProgress) -> Void)?,
        written: (@Sendable (Int) -> Void)?, nextPiece: () throws -> ImportPiece?
    ) throws -> StoreReport {

        // Enough pieces in flight that the workers need not wait for the writer, which works
        // alongside them, and few enough that the encoded games waiting (a few MB a piece) stay
        // small; small transactions keep SQLite's dirty pages within its cache.
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let pipeline = ImportPipeline(
            limit: 2 * GameDatabase.piecesPerBatch + cores, maxBatch: GameDatabase.piecesPerBatch)
        let content = options.moves
        let commentRows = options.commentRows
        let strict = options.strict
        let writing = DispatchGroup()

        // The writer: pieces in order, up to `piecesPerTransaction` in one transaction.
        DispatchQueue(label: "GameStore.import.writer").async(group: writing) {
            do {
                try self.writePieces(
                    pipeline, totalBytes: totalBytes, firstIndex: firstIndex, progress: progress, written: written)
            } catch {
                pipeline.fail(error)
            }
        }

        // The readers: one thread per core, each taking the next piece cut, at the same priority
        // as the writer and as other programs (a lower one would let any busy process starve
        // them); the bound on the pieces in flight keeps them from running far ahead. A reader
        // may still be reading a piece after a failure: the input must outlive them all.
        let reading = DispatchGroup()
        for _ in 0..<cores {
            reading.enter()
            let reader = Thread {
                while let (number, piece) = pipeline.nextToRead() {
                    let encoded = piece.withBytes {
                        GameEncoder.encode(
                            buffer: $0, firstIndex: 0, content: content, commentRows: commentRows, strict: strict)
                    }
                    // The encoded games hold copies: the piece's pages are not read again.
                    piece.release()
                    pipeline.deliver(number, encoded, end: piece.end)
                }
                reading.leave()
            }
            reader.name = "GameStore.import.reader"
            // As much stack as a dispatch worker: the parser recurses into variations.
            reader.stackSize = 8 << 20
            reader.start()
        }

        var count = 0
        var cutError: (any Error)?
        while pipeline.waitForRoom() {
            let piece: ImportPiece?
            do {
                piece = try nextPiece()
            } catch {
                cutError = error
                break
            }
            guard let piece else { break }
            pipeline.started(count, piece)
            count += 1
        }
        pipeline.close(count: count, error: cutError)
        writing.wait()
        reading.wait()
        return try pipeline.result()
    }
}

extension GameDatabase {
    /// The writer's loop: each batch of pieces ready is written as it comes (and leaves the
    /// pipeline, so that the readers go on), and the transaction commits once it holds
    /// `piecesPerTransaction` pieces (fewer at first), and at the end. A failure rolls back the
    /// open transaction: the transactions committed before it stay.
    fileprivate func writePieces(
        _ pipeline: ImportPipeline, totalBytes: Int?, firstIndex: Int,
        progress: (@Sendable (ImportProgress) -> Void)?, written: (@Sendable (Int) -> Void)?
    ) throws {
        try run { db in
            var next = 0
            var nextIndex = firstIndex
            var pieces = 0
            var stored = 0
            func commit() throws {
                try db.commit()
                if stored > 0 { self.removeSearchIndex() }
                pieces = 0
                stored = 0
            }
            try self.withStatementJournalInMemory(db) {
                do {
                    while let (batch, end) = pipeline.takeReady(from: next) {
                        var offsets: [Int] = []
                        for piece in batch {
                            offsets.append(nextIndex)
                            nextIndex += piece.count
                        }
                        if !db.isInsideTransaction { try db.beginTransaction(.immediate) }
                        let report = try self.writeInTransaction(db, batch, offsets, progress: nil, keepIDs: false)
                        pieces += batch.count
                        stored += report.stored
                        next += batch.count
                        written?(end)
                        // The pipeline takes the batch: the writer keeps no reference to free.
                        let games = pipeline.finish(consume batch, report: report)
                        progress?(ImportProgress(bytesDone: end, totalBytes: totalBytes, games: games))
                        // The first transactions are as large as what the import wrote before
                        // them: the first games show soon, while the file is small.
                        let committed = next - pieces
                        if pieces >= min(GameDatabase.piecesPerTransaction, max(GameDatabase.piecesPerBatch, committed))
                        {
                            try commit()
                        }
                    }
                    if db.isInsideTransaction { try commit() }
                } catch {
                    if db.isInsideTransaction {
                        try? db.rollback()
                        self.forgetAfterRollback()
                    }
                    throw error
                }
            }
        }
    }

    /// The most pieces the writer takes at once (about 8 MB of PGN, 3,500 games). At most
    /// twice this many pieces and one per reader are in flight (cut and not yet written): one
    /// batch being written, the next gathering, and every reader busy meanwhile. On 2 cores,
    /// 1M games: 2 at once (8 in flight) 36.5 s, 8 (18) 33.8 s, medians of three; 4 (10) as
    /// fast as 8 in alternated runs, with 20 MB less resident at 1M games and 21 MB less
    /// anonymous memory at 4M.
    static let piecesPerBatch = 4

    /// The pieces written in one transaction (about 128 MB of PGN, 56,000 games), several of
    /// the writer's batches. Each page a transaction changes that the file had before it (the
    /// pages of the names' indexes that new names go into, all over them; the last page of
    /// each table) is copied to the journal and written again at the commit, so larger
    /// transactions copy less (the first transactions of an import are smaller: 4, 4, 8, 16
    /// and 32 pieces, as many as were written before them). At a million games, 4 pieces to a
    /// transaction wrote 8.9 GB for a 2 GB file and took 25.9–28.9 s; 16 pieces took 22.5–24.3 s, 64 pieces 23.2–23.9 s.
    /// At 4 million: 16 pieces 139.9 s, 64 pieces 127.7 s, 256 pieces 125.0 s. The pieces
    /// leave the pipeline as soon as they are written: memory does not grow with this (beyond
    /// the page cache, SQLite writes dirty pages out before the commit). An interrupted import
    /// loses the games of one transaction at most.
    nonisolated(unsafe) static var piecesPerTransaction = 64
}

/// A piece of the input holding whole games: a view of a mapped file, or bytes read.
struct ImportPiece: @unchecked Sendable {
    private let mapped: UnsafeBufferPointer<UInt8>?
    private let owned: [UInt8]?
    private let file: MappedFile?
    /// The input's bytes up to the end of this piece.
    let end: Int

    init(mapped: UnsafeBufferPointer<UInt8>, end: Int, file: MappedFile) {
        self.mapped = mapped
        self.owned = nil
        self.file = file
        self.end = end
    }

    init(owned: [UInt8], end: Int) {
        self.mapped = nil
        self.owned = owned
        self.file = nil
        self.end = end
    }

    /// Gives back the memory of a mapped piece's pages (those that lie wholly inside it).
    func release() {
        if let mapped, let file { file.release(mapped) }
    }

    func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        if let mapped { return body(mapped) }
        return owned!.withUnsafeBufferPointer(body)
    }
}

/// The state the cutting thread, the workers and the writer share, behind one lock.
private final class ImportPipeline: @unchecked Sendable {
    typealias Encoded = [Result<EncodedGame, RefusedGame>]

    private let condition = NSCondition()
    private let limit: Int
    /// The most pieces written in one transaction.
    private let maxBatch: Int
    private var inFlight = 0
    /// Pieces cut and not yet taken by a reader.
    private var toRead: [(Int, ImportPiece)] = []
    private var ready: [Int: (games: Encoded, end: Int)] = [:]
    /// Pieces written, for the cutting thread to free.
    private var written: [[Encoded]] = []
    /// Batches the cutting thread freed since it last gave free memory back to the system.
    private var freedBatches = 0
    /// Every this many batches freed (about 64 MB of PGN), the cutting thread gives the free
    /// memory of every thread's heap back to the system (`malloc_trim`): each reader's heap
    /// otherwise keeps the most its pieces ever needed. At a million games with comment
    /// rows, the heaps held 145 MB for 110 MB in use at the end, and the peak of anonymous
    /// memory fell from 163 to 147 MB with the trims.
    static let batchesBetweenTrims = 8
    private var total: Int?
    private var error: (any Error)?
    private var report = StoreReport()

    init(limit: Int, maxBatch: Int) {
        self.limit = limit
        self.maxBatch = maxBatch
    }

    /// Waits until another piece may be cut, freeing meanwhile the pieces the writer has
    /// written; false once the writer has failed.
    func waitForRoom() -> Bool {
        while true {
            condition.lock()
            while inFlight >= limit && error == nil && written.isEmpty { condition.wait() }
            let spent = written
            written = []
            let room = inFlight < limit || error != nil
            let failed = error != nil
            condition.unlock()
            // Freed here, outside the lock.
            withExtendedLifetime(spent) {}
            if !spent.isEmpty {
                freedBatches += spent.count
                if freedBatches >= ImportPipeline.batchesBetweenTrims {
                    freedBatches = 0
                    cstorage_release_free_memory()
                }
            }
            if room { return !failed }
        }
    }

    /// Piece `number` was cut: the next reader free takes it.
    func started(_ number: Int, _ piece: ImportPiece) {
        condition.lock()
        inFlight += 1
        toRead.append((number, piece))
        condition.broadcast()
        condition.unlock()
    }

    /// The next piece cut and not yet taken by a reader, in order; nil once every piece is
    /// taken and no more will be cut, or the import failed.
    func nextToRead() -> (Int, ImportPiece)? {
        condition.lock()
        defer { condition.unlock() }
        while toRead.isEmpty && total == nil && error == nil { condition.wait() }
        guard error == nil, !toRead.isEmpty else { return nil }
        return toRead.removeFirst()
    }

    func deliver(_ number: Int, _ games: Encoded, end: Int) {
        condition.lock()
        ready[number] = (games, end)
        condition.broadcast()
        condition.unlock()
    }

    /// No more pieces: `count` were cut. A cutting error stops the import like a write error.
    func close(count: Int, error: (any Error)?) {
        condition.lock()
        total = count
        if let error, self.error == nil { self.error = error }
        condition.broadcast()
        condition.unlock()
    }

    /// The pieces from `next` on that are ready, in order (at least one, at most `maxBatch`);
    /// nil when every piece is written or the import failed.
    func takeReady(from next: Int) -> (pieces: [Encoded], end: Int)? {
        condition.lock()
        defer { condition.unlock() }
        while ready[next] == nil && error == nil && total != next { condition.wait() }
        if error != nil || ready[next] == nil { return nil }
        var pieces: [Encoded] = []
        var end = 0
        var k = next
        while pieces.count < maxBatch, let piece = ready.removeValue(forKey: k) {
            pieces.append(piece.games)
            end = piece.end
            k += 1
        }
        return (pieces, end)
    }

    /// A batch of pieces is written; returns the games read so far. The pieces are freed by
    /// the cutting thread (`waitForRoom`), which mostly waits, and not by the writer, on which
    /// the whole import waits: their games are thousands of arrays and strings.
    func finish(_ pieces: [Encoded], report stored: StoreReport) -> Int {
        condition.lock()
        defer { condition.unlock() }
        inFlight -= pieces.count
        report.add(stored)
        written.append(pieces)
        condition.broadcast()
        return report.total
    }

    func fail(_ error: any Error) {
        condition.lock()
        if self.error == nil { self.error = error }
        condition.broadcast()
        condition.unlock()
    }

    func result() throws -> StoreReport {
        condition.lock()
        defer { condition.unlock() }
        if let error { throw error }
        return report
    }
}

/// A regular file mapped read-only into memory for as long as this object lives.
final class MappedFile: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>

    /// Nil when the file cannot be opened or is not a regular, non-empty file (a pipe, say).
    init?(path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else {
            return nil
        }
        let size = Int(status.st_size)
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            return nil
        }
        madvise(address, size, MADV_SEQUENTIAL)
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }

    /// Gives back the memory of the whole pages inside `part`, a part of `bytes` that will not
    /// be read again.
    func release(_ part: UnsafeBufferPointer<UInt8>) {
        guard let base = part.baseAddress, part.count > 0 else { return }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let first = (UInt(bitPattern: base) + page - 1) / page * page
        let last = (UInt(bitPattern: base) + UInt(part.count)) / page * page
        guard last > first else { return }
        madvise(UnsafeMutableRawPointer(bitPattern: first), Int(last - first), MADV_DONTNEED)
    }

    /// Gives back the memory of the pages before `offset`, which will not be read again (they
    /// would be read from the file again if they were).
    func release(upTo offset: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = min(offset, bytes.count) / page * page
        guard length > 0 else { return }
        madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress), length, MADV_DONTNEED)
    }
}

extension GameDatabase {
    /// Writes the file's data to the disk (what SQLite's syncs would have done).
    func syncFile() {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
