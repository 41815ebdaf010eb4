import Foundation
import GRDB
import GRDBSQLite

/// A game reaching a position of the tree's plies, as the tree's builder sorts them: the
/// position's key, the next position's key, the game's rank and outcome (`GameRanks.payloads`),
/// in 16 bytes. Sorting by `high` sorts by key.
struct Occurrence {
    /// The key (48 bits) and the game's high 16 bits.
    var high: UInt64
    /// The next position's key + 1 (0 where the game ended) and the game's low 16 bits.
    var low: UInt64

    init(key: UInt64, next: UInt64, game: UInt32) {
        high = key << 16 | UInt64(game >> 16)
        // A key is below 2^48; one of 2^48 − 1 would be taken for a game's end.
        let following = next == OpeningTreeBatch.ended ? 0 : (next &+ 1) & 0xFFFF_FFFF_FFFF
        low = following << 16 | UInt64(game & 0xFFFF)
    }

    @inline(__always) var key: UInt64 { high >> 16 }
    /// The next position's key + 1; 0 where the game ended (sorts first, as `Next` = -1 does).
    @inline(__always) var following: UInt64 { low >> 16 }
    @inline(__always) var next: UInt64 { following == 0 ? OpeningTreeBatch.ended : following - 1 }
    @inline(__always) var game: UInt32 {
        UInt32(truncatingIfNeeded: high & 0xFFFF) << 16 | UInt32(truncatingIfNeeded: low & 0xFFFF)
    }
    @inline(__always) var rank: Int { Int(game & GameRanks.rankMask) }
    @inline(__always) var outcome: GameOutcome { GameOutcome(code: game >> 30) }
}

/// Scratch files of occurrences, one per range of keys, written in a replay and read back one
/// at a time. They are made in the database's folder (a temporary folder may be memory) and
/// unlinked at once: nothing is left behind, whatever happens to the process.
final class OccurrenceSpill {
    /// Occurrences buffered per file before they are written (32 KB; 8 MB for 256 files).
    static let buffered = 2048

    let folder: String
    private let descriptors: [Int32]
    /// Per file: occurrences buffered, and written (pointers, not arrays: `append` runs tens of
    /// millions of times, and an array's checks were most of its cost).
    private let pending: UnsafeMutablePointer<Int>
    private let written: UnsafeMutablePointer<Int>
    private let buffers: UnsafeMutablePointer<Occurrence>

    /// Files in the folder of `db`'s file, else in the system's temporary folder.
    convenience init(files: Int, near db: Database) throws {
        var folders: [String] = []
        if let name = sqlite3_db_filename(db.sqliteConnection, "main"), name.pointee != 0 {
            folders.append(URL(fileURLWithPath: String(cString: name)).deletingLastPathComponent().path)
        }
        folders.append(NSTemporaryDirectory())
        try self.init(files: files, folders: folders)
    }

    /// Files in the first of `folders` where they can be made.
    init(files: Int, folders: [String]) throws {
        var failure = "no folder to write to"
        var chosen: (folder: String, descriptors: [Int32])?
        for folder in folders {
            var made: [Int32] = []
            for file in 0..<files {
                let path = (folder as NSString).appendingPathComponent(
                    ".pgn-lsp-positions-\(getpid())-\(file)-\(UInt32.random(in: 0...UInt32.max))")
                let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                if descriptor < 0 {
                    failure = String(cString: strerror(errno))
                    break
                }
                unlink(path)
                made.append(descriptor)
            }
            if made.count == files {
                chosen = (folder, made)
                break
            }
            made.forEach { _ = close($0) }
        }
        guard let chosen else {
            throw GameStoreError.scratchFile(folder: folders.first ?? "", reason: failure)
        }
        folder = chosen.folder
        descriptors = chosen.descriptors
        pending = .allocate(capacity: max(1, files))
        pending.initialize(repeating: 0, count: max(1, files))
        written = .allocate(capacity: max(1, files))
        written.initialize(repeating: 0, count: max(1, files))
        buffers = .allocate(capacity: max(1, files) * OccurrenceSpill.buffered)
    }

    deinit {
        descriptors.forEach { _ = close($0) }
        buffers.deallocate()
        pending.deallocate()
        written.deallocate()
    }

    @inline(__always)
    func append(_ occurrence: Occurrence, to file: Int) throws {
        buffers[file * OccurrenceSpill.buffered + pending[file]] = occurrence
        pending[file] += 1
        if pending[file] == OccurrenceSpill.buffered { try flush(file) }
    }

    /// Appends the occurrences of `bytes` (a multiple of 16 bytes, here any data to keep
    /// aside), copied into the file's buffer.
    func append(bytes: UnsafeRawBufferPointer, to file: Int) throws {
        let stride = MemoryLayout<Occurrence>.stride
        precondition(bytes.count % stride == 0)
        var next = 0
        while next < bytes.count / stride {
            let count = min(bytes.count / stride - next, OccurrenceSpill.buffered - pending[file])
            UnsafeMutableRawPointer(buffers + file * OccurrenceSpill.buffered + pending[file]).copyMemory(
                from: bytes.baseAddress! + next * stride, byteCount: count * stride)
            pending[file] += count
            next += count
            if pending[file] == OccurrenceSpill.buffered { try flush(file) }
        }
    }

    /// Writes what is buffered.
    func finish() throws {
        for file in 0..<descriptors.count { try flush(file) }
    }

    /// The occurrences written to a file.
    func count(_ file: Int) -> Int { written[file] }

    /// Reads `count` occurrences of a file from the `first`.
    func read(_ file: Int, from first: Int, count: Int, into target: UnsafeMutablePointer<Occurrence>) throws {
        let raw = UnsafeMutableRawPointer(target)
        var done = 0
        let bytes = count * MemoryLayout<Occurrence>.stride
        while done < bytes {
            let read = pread(
                descriptors[file], raw + done, bytes - done, off_t((first * MemoryLayout<Occurrence>.stride) + done))
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                throw GameStoreError.scratchFile(
                    folder: folder,
                    reason: read == 0 ? "a scratch file is shorter than written" : String(cString: strerror(errno)))
            }
            done += read
        }
    }

    private func flush(_ file: Int) throws {
        let bytes = pending[file] * MemoryLayout<Occurrence>.stride
        let raw = UnsafeRawPointer(buffers + file * OccurrenceSpill.buffered)
        var done = 0
        while done < bytes {
            let wrote = Foundation.write(descriptors[file], raw + done, bytes - done)
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                throw GameStoreError.scratchFile(folder: folder, reason: String(cString: strerror(errno)))
            }
            done += wrote
        }
        written[file] += pending[file]
        pending[file] = 0
    }
}

/// Reads a scratch file's occurrences and sorts them by key (a radix sort, a byte of the key at
/// a time), in two buffers kept from one file to the next.
final class OccurrenceSorter {
    private var capacity = 0
    private var first: UnsafeMutablePointer<Occurrence>?
    private var second: UnsafeMutablePointer<Occurrence>?
    private let counts = UnsafeMutablePointer<Int>.allocate(capacity: 6 * 256)

    deinit {
        first?.deallocate()
        second?.deallocate()
        counts.deallocate()
    }

    /// The file's occurrences, sorted by key; valid until the next call.
    func read(_ spill: OccurrenceSpill, _ file: Int) throws -> UnsafeMutableBufferPointer<Occurrence> {
        let count = spill.count(file)
        if count > capacity {
            first?.deallocate()
            second?.deallocate()
            capacity = max(count, min(capacity * 5 / 4, PositionTreeBuilder.occurrencesSortedAtMost))
            first = .allocate(capacity: capacity)
            second = .allocate(capacity: capacity)
        }
        guard count > 0, var source = first, var target = second else {
            return UnsafeMutableBufferPointer(start: first, count: 0)
        }
        try spill.read(file, from: 0, count: count, into: source)
        counts.initialize(repeating: 0, count: 6 * 256)
        for index in 0..<count {
            let high = source[index].high
            for digit in 0..<6 {
                counts[digit * 256 + Int(truncatingIfNeeded: high >> UInt64(16 + 8 * digit)) & 255] += 1
            }
        }
        for digit in 0..<6 {
            let shift = UInt64(16 + 8 * digit)
            let bucket = counts + digit * 256
            // A byte all keys of the range share.
            if bucket[Int(truncatingIfNeeded: source[0].high >> shift) & 255] == count { continue }
            var offset = 0
            for value in 0..<256 {
                let size = bucket[value]
                bucket[value] = offset
                offset += size
            }
            for index in 0..<count {
                let occurrence = source[index]
                let value = Int(truncatingIfNeeded: occurrence.high >> shift) & 255
                target[bucket[value]] = occurrence
                bucket[value] += 1
            }
            swap(&source, &target)
        }
        return UnsafeMutableBufferPointer(start: source, count: count)
    }
}

/// Makes the tree's rows of a range of keys, in the table's order, and adds the range's keys
/// to the filter.
struct TreeRows {
    let ranks: GameRanks

    /// From occurrences sorted by key: a key two games or more reach gets a row per next
    /// position.
    func add(
        sorted occurrences: UnsafeMutableBufferPointer<Occurrence>, to rows: inout [TreeRow], filter: SinglesFilterPart
    ) {
        let count = occurrences.count
        var start = 0
        while start < count {
            let key = occurrences[start].key
            var end = start + 1
            while end < count && occurrences[end].key == key { end += 1 }
            filter.insert(key)
            if end - start >= 2 {
                var run = UnsafeMutableBufferPointer(rebasing: occurrences[start..<end])
                if run.count <= 16 {
                    for index in 1..<run.count {
                        let moving = run[index]
                        var slot = index
                        while slot > 0 && run[slot - 1].low > moving.low {
                            run[slot] = run[slot - 1]
                            slot -= 1
                        }
                        run[slot] = moving
                    }
                } else {
                    run.sort { $0.low < $1.low }
                }
                var group = 0
                while group < run.count {
                    let following = run[group].following
                    var row = TreeRow(position: key, next: run[group].next)
                    var best = Int.max
                    var member = group
                    while member < run.count && run[member].following == following {
                        row.count(run[member].outcome)
                        best = min(best, run[member].rank)
                        member += 1
                    }
                    row.bestGame = ranks.id(best)
                    row.bestElo = ranks.elo(best)
                    rows.append(row)
                    group = member
                }
            }
            start = end
        }
    }

    /// From a file too large to sort in memory (many games reach a few of its positions):
    /// added up in a table of rows, read in pieces.
    func add(summing spill: OccurrenceSpill, _ file: Int, to rows: inout [TreeRow], filter: SinglesFilterPart) throws {
        let sums = OpeningTreeBatch(capacity: 1 << 16)
        let piece = OccurrenceSpill.buffered * 16
        let buffer = UnsafeMutablePointer<Occurrence>.allocate(capacity: piece)
        defer { buffer.deallocate() }
        var first = 0
        while first < spill.count(file) {
            let count = min(piece, spill.count(file) - first)
            try spill.read(file, from: first, count: count, into: buffer)
            for index in 0..<count {
                // In the order of IDs: the batch's best game is the one of the lowest rank.
                let rank = buffer[index].rank
                sums.add(
                    buffer[index].key, buffer[index].next, outcome: buffer[index].outcome, elo: ranks.elo(rank),
                    gameID: ranks.id(rank))
            }
            first += count
        }
        let summed = sums.sorted()
        var start = 0
        while start < summed.count {
            let key = summed[start].position
            var end = start
            var games: UInt32 = 0
            while end < summed.count && summed[end].position == key {
                games += summed[end].games
                end += 1
            }
            filter.insert(key)
            if games >= 2 { rows.append(contentsOf: summed[start..<end].map(TreeRow.init)) }
            start = end
        }
    }
}

/// One row of `PositionTree`: the games that stood in a position and went on to the next.
struct TreeRow: Equatable, TreeRowCounts {
    var position: UInt64
    var next: UInt64
    var games: UInt32 = 0
    var whiteWins: UInt32 = 0
    var draws: UInt32 = 0
    var blackWins: UInt32 = 0
    var bestGame: Int64 = 0
    /// -1 when no game of the row has a rating.
    var bestElo: Int32 = -1

    init(position: UInt64, next: UInt64) {
        self.position = position
        self.next = next
    }

    init(_ slot: OpeningTreeBatch.Slot) {
        position = slot.position
        next = slot.next
        games = slot.games
        whiteWins = slot.whiteWins
        draws = slot.draws
        blackWins = slot.blackWins
        bestGame = slot.bestGame
        bestElo = slot.bestElo
    }

    func write(with insert: PreparedStatement) throws {
        insert.bind(1, Int64(position))
        insert.bind(2, next == OpeningTreeBatch.ended ? PositionIndex.ended : Int64(next))
        insert.bind(3, Int64(games))
        insert.bind(4, Int64(whiteWins))
        insert.bind(5, Int64(draws))
        insert.bind(6, Int64(blackWins))
        insert.bind(7, bestGame)
        insert.bind(8, bestElo < 0 ? nil : Int64(bestElo))
        defer { insert.reset() }
        _ = try insert.step()
    }
}
