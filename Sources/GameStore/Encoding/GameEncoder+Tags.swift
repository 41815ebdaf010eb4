import ChessCore
import Foundation
import PGN

extension GameEncoder {
    /// The tags of one game as they are read. Each column's value goes into the game; the
    /// `Tags` column's text (`EncodedGame.otherTagBytes`) gathers the tags no column holds,
    /// those a column would give back otherwise than written, and `[Name]` for a tag the game
    /// lacks though a column would give one.
    struct TagReading {
        let text: Text
        /// The `Tags` column's text: tag pairs, one a line, in UTF-8.
        var kept: [UInt8] = []
        var variant: String?
        var fen: (pair: TagPair, value: String)?
        var date: (pair: TagPair, value: String)?
        var setUp: TagPair?
        var utcDate: String?
        var result: (pair: TagPair, value: String)?
        var hasIncompleteTag = false

        init(_ text: Text) { self.text = text }

        /// Reads the tags of `syntax`: the values of the columns each gives alone go into
        /// `game`, those that need more (`Date`, `Result`, `FEN`, `SetUp`, `Variant`) are noted
        /// for the steps after, and the tags no column holds are kept.
        mutating func read(_ syntax: GameSyntax, into game: inout EncodedGame, scratch: inout [UInt8]) {
            let bytes = text.bytes
            for tag in syntax.tags {
                guard let valueRange = tag.valueRange else { continue }
                let name = UnsafeBufferPointer(rebasing: bytes[tag.nameRange])
                guard let field = TagField(name) else {
                    if TagField.isSetUp(name) {
                        // Given back from the FEN column, when it says what the tag says.
                        setUp = tag
                    } else if !name.isEmpty {
                        // A tag with no name is not a tag.
                        hasIncompleteTag = hasIncompleteTag || TagField.isIncomplete(name)
                        keep(tag, scratch: &scratch)
                    }
                    continue
                }
                let value = text.value(valueRange, scratch: &scratch)
                switch field {
                case .event: game.event = value
                case .site: game.site = value
                case .date: date = (tag, value)
                case .utcDate:
                    utcDate = value
                    // Kept as it is: the date column holds it only when there is no `Date`.
                    keep(tag, scratch: &scratch)
                case .utcTime: game.utcTime = value
                case .round: game.round = value
                case .white: game.white = value
                case .black: game.black = value
                case .whiteElo:
                    game.whiteElo = TagColumns.elo(value)
                    if !TagColumns.eloWrittenBack(value) { keep(tag, scratch: &scratch) }
                case .blackElo:
                    game.blackElo = TagColumns.elo(value)
                    if !TagColumns.eloWrittenBack(value) { keep(tag, scratch: &scratch) }
                case .result:
                    result = (tag, value)
                case .timeControl: game.timeControl = value
                case .eco: game.eco = value
                case .fen: fen = (tag, value)
                case .variant:
                    variant = value
                    // The column gives back only `Chess960`, and only for a Chess960 start.
                    keep(tag, scratch: &scratch)
                }
            }
        }

        /// The `Date` column, from `Date` or else `UTCDate`; the `Date` tag kept when the column
        /// does not give it back.
        mutating func setDate(of game: inout EncodedGame, scratch: inout [UInt8]) {
            game.date = TagColumns.date(date?.value, utcDate: utcDate)
            if let date {
                if game.date != date.value || !TagColumns.dateWrittenBack(date.value) {
                    keep(date.pair, scratch: &scratch)
                }
            } else if game.date != nil {
                keepAbsent("Date")
            }
        }

        /// The `Result` column, from the tag or else from the termination `marker`; the tag kept
        /// when the column does not give it back.
        mutating func setResult(of game: inout EncodedGame, marker: GameResult?, scratch: inout [UInt8]) {
            if let result {
                game.result = TagColumns.result(result.value)
                if !TagColumns.isDecided(game.result!), let marker, marker != .unknown {
                    // `[Result "*"]` over a finished game: the column holds what the marker says.
                    game.result = marker.text
                }
                if game.result != result.value { keep(result.pair, scratch: &scratch) }
            } else if let marker {
                game.result = marker.text
            }
        }

        /// The start position that the `Variant` and `FEN` tags give, and the `FEN` column; the
        /// game is refused when there is none.
        mutating func start(
            of game: inout EncodedGame, index: Int, scratch: inout [UInt8]
        ) throws(RefusedGame) -> Position {
            let start = GameStart(variantTag: variant, fenTag: fen?.value)
            if case .unsupported(let name) = start.variant {
                throw RefusedGame(index: index, reason: "unsupported variant \"\(name)\"")
            }
            if let error = start.fenError {
                throw RefusedGame(index: index, reason: "invalid FEN: \(error.description)")
            }
            guard let startPosition = start.position else {
                throw RefusedGame(index: index, reason: "no start position")
            }
            if let fen {
                game.fen = TagColumns.fen(fen.value, start: startPosition)
                if game.fen != fen.value { keep(fen.pair, scratch: &scratch) }
            }
            // An export writes `SetUp "1"` with a FEN, `Variant "Chess960"` for a Chess960 start.
            if let setUp {
                if game.fen == nil || text.value(setUp.valueRange!, scratch: &scratch) != "1" {
                    keep(setUp, scratch: &scratch)
                }
            } else if game.fen != nil {
                keepAbsent("SetUp")
            }
            if variant == nil && startPosition.isChess960 && game.fen != nil { keepAbsent("Variant") }
            return startPosition
        }

        /// The `Incomplete` tag of a game whose mainline stops before its movetext does, unless
        /// the game has one.
        mutating func keepIncomplete(_ reason: String) {
            guard !hasIncompleteTag else { return }
            // Any program that reads the exported game shows the tag: its moves stop early.
            startLine()
            kept.append(
                contentsOf: PGNWriter.tagPair(
                    name: "Incomplete", value: "\(reason): the moves from there are kept as a comment"
                ).utf8)
        }

        /// A tag pair for the `Tags` column: its bytes as written when they are a tag pair on
        /// one line in UTF-8, else written again from its name and value.
        mutating func keep(_ tag: TagPair, scratch: inout [UInt8]) {
            guard let valueRange = tag.valueRange else { return }
            startLine()
            let bytes = text.bytes
            let raw = UnsafeBufferPointer(rebasing: bytes[tag.range])
            if !text.latin1, raw.first == 0x5B, raw.last == 0x5D, !raw.contains(0x0A), !raw.contains(0x0D),
                valueRange.count >= 2,
                PGNWriter.tagValueContent(bytes, valueRange).upperBound == valueRange.upperBound - 1
            {
                kept.append(contentsOf: raw)
            } else {
                kept.append(
                    contentsOf: PGNWriter.tagPair(
                        name: text.string(tag.nameRange), value: text.value(valueRange, scratch: &scratch)
                    ).utf8)
            }
        }

        /// `[Name]` in the `Tags` column: the game has no such tag, though a column would give one.
        mutating func keepAbsent(_ name: String) {
            startLine()
            kept.append(contentsOf: TagColumns.absent(name).utf8)
        }

        /// A line break before the next tag pair, after those kept.
        private mutating func startLine() {
            if !kept.isEmpty { kept.append(0x0A) }
        }
    }

    /// The tags that give a column its value, known by their name's bytes.
    enum TagField {
        case event, site, date, utcDate, utcTime, round, white, black, whiteElo, blackElo, result, timeControl
        case eco, fen, variant

        static let names: [(StaticString, TagField)] = [
            ("Event", .event), ("Site", .site), ("Date", .date), ("UTCDate", .utcDate), ("UTCTime", .utcTime),
            ("Round", .round), ("White", .white), ("Black", .black), ("WhiteElo", .whiteElo),
            ("BlackElo", .blackElo), ("Result", .result), ("TimeControl", .timeControl), ("ECO", .eco),
            ("FEN", .fen), ("Variant", .variant),
        ]

        static func isSetUp(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
            name.count == 5 && name.elementsEqual("SetUp".utf8)
        }

        static func isIncomplete(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
            name.count == 10 && name.elementsEqual("Incomplete".utf8)
        }

        init?(_ name: UnsafeBufferPointer<UInt8>) {
            for (literal, field) in TagField.names
            where literal.utf8CodeUnitCount == name.count
                && memcmp(literal.utf8Start, name.baseAddress!, name.count) == 0
            {
                self = field
                return
            }
            return nil
        }
    }
}
