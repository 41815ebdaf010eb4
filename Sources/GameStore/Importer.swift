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
    /// Pieces of this many bytes are cut at a game boundary and read on separate cores.
    static let pieceSize = 2 << 20

    /// Imports a PGN stream: read in pieces cut between games, games read and encoded on every
    /// core, written one batch of pieces per transaction while the next batch is being read.
    /// Memory stays bounded by a few pieces whatever the size of the input. Games are numbered
    /// from `firstIndex` in refusals. A failure to write stops the import; batches already
    /// written stay.
    public func importPGN(
        from input: FileHandle, totalBytes: Int? = nil, firstIndex: Int = 0,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) throws -> StoreReport {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let width = 2 * cores
        let content = options.moves
        let writer = DispatchQueue(label: "GameStore.import.writer")
        let writing = DispatchGroup()
        let state = ImportState()
        var pending: [UInt8] = []
        var bytesRead = 0
        var nextIndex = firstIndex
        var atEnd = false

        while !atEnd {
            var pieces: [[UInt8]] = []
            while pieces.count < width && !atEnd {
                let data = try input.read(upToCount: GameDatabase.pieceSize) ?? Data()
                if data.isEmpty {
                    atEnd = true
                } else {
                    pending.append(contentsOf: data)
                }
                let cut: Int? = atEnd ? pending.count : pending.withUnsafeBufferPointer { Checker.lastGameBoundary($0) }
                guard let cut, cut > 0 else { continue }
                // The piece takes the buffer; only the bytes after the cut (part of one game) move.
                var piece = pending
                pending = Array(piece[cut...])
                piece.removeLast(piece.count - cut)
                pieces.append(piece)
                bytesRead += cut
            }
            if pieces.isEmpty { break }

            nonisolated(unsafe) let results = UnsafeMutableBufferPointer<[Result<EncodedGame, RefusedGame>]>
                .allocate(capacity: pieces.count)
            results.initialize(repeating: [])
            let texts = pieces
            pieces.removeAll()
            DispatchQueue.concurrentPerform(iterations: texts.count) { k in
                results[k] = GameEncoder.encode(bytes: texts[k], firstIndex: 0, content: content)
            }
            // Games are numbered from 0 in each piece: the writer adds where each piece starts.
            var batch: [[Result<EncodedGame, RefusedGame>]] = []
            var offsets: [Int] = []
            for k in 0..<results.count {
                offsets.append(nextIndex)
                nextIndex += results[k].count
                batch.append(results[k])
            }
            results.deinitialize()
            results.deallocate()

            // One batch is written while the next is read.
            writing.wait()
            if let error = state.error { throw error }
            let done = bytesRead
            let games = batch
            let pieceOffsets = offsets
            writer.async(group: writing) {
                do {
                    let written = try self.write(pieces: games, indexOffsets: pieceOffsets)
                    state.report.add(written)
                    progress?(ImportProgress(bytesDone: done, totalBytes: totalBytes, games: state.report.total))
                } catch {
                    state.error = error
                }
            }
        }
        writing.wait()
        if let error = state.error { throw error }
        return state.report
    }

    /// Imports a PGN file (see `importPGN(from:)`).
    public func importPGN(
        path: String, firstIndex: Int = 0, progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) throws -> StoreReport {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw GameStoreError.sqlite(path: path, message: "cannot open the file for reading")
        }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
        return try importPGN(from: handle, totalBytes: size, firstIndex: firstIndex, progress: progress)
    }
}

/// What the writer thread hands back to the reading thread; read only after waiting for it.
private final class ImportState: @unchecked Sendable {
    var report = StoreReport()
    var error: (any Error)?
}
