import PGN

/// A file read in pieces of at most `size` bytes (when its games are shorter) that end where a game ends (`PieceCutter`), so
/// that what is held of a file is one piece, whatever its size: the requests over the whole
/// workspace and the index of its twins read its files so. A piece starts at the start of a
/// line, so that a place in it is the same place in the file, its line counted from the
/// piece's first.
struct FilePieces {
    struct Piece {
        let bytes: [UInt8]
        /// Where it starts in the file: its first byte, and its first line.
        let offset: Int
        let firstLine: Int
    }

    static let size = 4 << 20

    private let file: FileSystem.OpenFile
    private let size: Int
    private var pending: [UInt8] = []
    private var atEnd = false
    private var offset = 0
    private var line = 0
    /// Why the file stopped being read before its end.
    private(set) var failure: FileSystem.ReadFailure?

    init(_ file: FileSystem.OpenFile, size: Int = FilePieces.size) {
        self.file = file
        self.size = size
    }

    mutating func next() -> Piece? {
        while true {
            // A piece ends after its last whole game: read until one ends, or the file does.
            if !atEnd {
                do {
                    if try file.read(into: &pending, count: max(size - pending.count, size / 4)) == 0 {
                        atEnd = true
                    }
                } catch {
                    failure = error
                    atEnd = true
                }
            }
            let cut = pending.withUnsafeBufferPointer {
                PieceCutter.cut($0, atEnd: atEnd, longest: PGNLanguageServer.largestWorkspaceFile)
            }
            guard let cut else {
                if atEnd { return nil }
                continue
            }
            let bytes = Array(pending[..<cut.end])
            pending.removeFirst(cut.end)
            let piece = Piece(bytes: bytes, offset: offset, firstLine: line)
            offset += bytes.count
            line += Self.lineBreaks(bytes)
            return piece
        }
    }

    /// The line breaks of a text (LF, CRLF, a lone CR).
    static func lineBreaks(_ bytes: [UInt8]) -> Int {
        var count = 0
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            while i < b.count {
                if b[i] == 0x0A {
                    count += 1
                } else if b[i] == 0x0D {
                    if i + 1 < b.count && b[i + 1] == 0x0A { i += 1 }
                    count += 1
                }
                i += 1
            }
        }
        return count
    }
}
