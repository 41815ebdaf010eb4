import ChessCore
import Foundation
import GRDB
import GameStore

/// A database of a few games with its position index, made once; each input changes a copy.
let fuzzIndexTemplate: String = {
    let folder = NSTemporaryDirectory() + "pgn-lsp-fuzz-index-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/template.db3"
    let games = [
        "[WhiteElo \"2700\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n",
        "[BlackElo \"2500\"]\n[Result \"0-1\"]\n\n1. e4 c5 2. Nf3 d6 0-1\n",
        "[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 1/2-1/2\n",
    ]
    let database = try! GameDatabase(path: path)
    _ = try! database.store(games: games.enumerated().map { GameSource(text: $1, index: $0) })
    return path
}()

/// The columns an input may change: the index's tables, and the columns of `Games` it reads.
let fuzzIndexColumns: [(table: String, column: String, key: String)] = [
    ("PositionTree", "Games", "Position"), ("PositionTree", "WhiteWins", "Position"),
    ("PositionTree", "Draws", "Position"), ("PositionTree", "BlackWins", "Position"),
    ("PositionTree", "BestGame", "Position"), ("PositionTree", "BestElo", "Position"),
    ("PositionTree", "Next", "Position"), ("PositionMoves", "GameID", "GameID"),
    ("PositionMoves", "Moves", "GameID"), ("PositionMoves", "Final", "GameID"), ("PositionMoves", "FEN", "GameID"),
    ("PositionIndexState", "SingleBlocks", "rowid"), ("PositionSingles", "Bits", "Block"),
    ("Games", "WhiteElo", "ID"), ("Games", "BlackElo", "ID"), ("Games", "Result", "ID"),
]

/// Rows of the position index as a file from elsewhere may hold them. Each 10 bytes of the
/// input change one value: the column (byte 0, its high bits the value's type), the row
/// (byte 1), the value (bytes 2–9: an integer, a real, text, a blob, or null). Whatever the
/// file holds, the explorer and the search answer or throw, with every count in its bounds.
func fuzzIndexRows(_ bytes: [UInt8]) {
    let path = NSTemporaryDirectory() + "pgn-lsp-fuzz-index-\(getpid())/input.db3"
    unlink(path)
    try! FileManager.default.copyItem(atPath: fuzzIndexTemplate, toPath: path)
    var changes = 0
    try? DatabaseQueue(path: path).write { db in
        var offset = 0
        while offset + 10 <= bytes.count && changes < 64 {
            let chunk = Array(bytes[offset..<offset + 10])
            offset += 10
            changes += 1
            let (table, column, key) = fuzzIndexColumns[Int(chunk[0] & 0x3F) % fuzzIndexColumns.count]
            let raw = chunk[2...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let value: DatabaseValue
            switch chunk[0] >> 6 {
            case 0: value = Int64(bitPattern: raw).databaseValue
            case 1: value = Double(bitPattern: raw).databaseValue
            case 2: value = String(decoding: chunk[2...], as: UTF8.self).databaseValue
            default: value = raw & 1 == 0 ? .null : Data(chunk[2...]).databaseValue
            }
            try? db.execute(
                sql: """
                    UPDATE \(table) SET \(column) = ? WHERE \(key) = \
                    (SELECT \(key) FROM \(table) ORDER BY \(key) LIMIT 1 OFFSET \(chunk[1] % 32))
                    """, arguments: [value])
        }
        // The state says the index is current, as a file made to look so would.
        try? db.execute(sql: "UPDATE PositionIndexState SET Edits = 0")
    }
    guard let database = try? GameDatabase(path: path, options: .init(readOnly: true)) else { return }
    var position = Position.startingPosition
    var line: [Position] = []
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"] {
        if let answer = try? database.explore(position, line: line) {
            let limit = ExplorerAnswer.largestCount
            for count in [answer.games, answer.whiteWins, answer.draws, answer.blackWins, answer.ended] {
                precondition((0...limit).contains(count))
            }
            for continuation in answer.continuations {
                precondition((0...limit).contains(continuation.games))
                precondition(continuation.bestElo.map { (0...PositionIndex.largestElo).contains($0) } ?? true)
            }
            _ = try? database.summaries(ids: answer.continuations.compactMap(\.bestGame))
        }
        line.append(position)
        position.play(position.move(san: san)!)
    }
    _ = try? database.games(reaching: position)
}
