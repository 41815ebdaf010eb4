import ChessCore
import PGN

/// How a tag's text becomes the value of its column, in one place for the import, which keeps
/// in the `Tags` column every tag whose column does not give its text back, and the export,
/// which takes such a kept tag while its column still holds what the tag gives (another
/// program may have changed the column since).
///
/// The `Tags` column also marks a tag the game did not have but an export would write from a
/// column, by its name alone: `[Date]` (the date column filled from `UTCDate`), `[SetUp]` (a
/// FEN without `SetUp "1"`), `[Variant]` (a Chess960 start without a `Variant` tag).
enum TagColumns {
    /// A rating tag: digits (spaces around allowed), `-` for unrated (0); anything else is nil.
    static func elo(_ text: String) -> Int? {
        let trimmed = text.trimmingASCIISpaces
        if trimmed == "-" { return 0 }
        guard !trimmed.isEmpty, trimmed.utf8.count <= 9, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        return Int(trimmed)
    }

    /// How an export writes a rating column: `-` for 0.
    static func eloText(_ elo: some BinaryInteger) -> String { elo == 0 ? "-" : String(elo) }

    /// Whether an export gives a rating tag back as written (`2500`, `-`; not `?`, `0`, `02500`).
    static func eloWrittenBack(_ text: String) -> Bool {
        if text == "-" { return true }
        let utf8 = text.utf8
        guard let first = utf8.first, first >= 0x31 && first <= 0x39, utf8.count <= 9 else { return false }
        return utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The `Result` column of a Result tag: the four results as PGN writes them (`1/2` and
    /// `½-½` are draws), anything else as written; a tag that decides nothing (`*`) gives way
    /// to a termination marker that does.
    static func result(_ text: String) -> String {
        // As written, most of the time.
        if text == "1-0" || text == "0-1" || text == "1/2-1/2" || text == "*" { return text }
        switch text.trimmingASCIISpaces {
        case "1-0": return "1-0"
        case "0-1": return "0-1"
        case "1/2-1/2", "1/2", "½-½": return "1/2-1/2"
        case "*": return "*"
        default: return text
        }
    }

    /// Whether a `Result` column says who won or that it was drawn.
    static func isDecided(_ result: String) -> Bool { result == "1-0" || result == "0-1" || result == "1/2-1/2" }

    /// The `Date` column: the Date tag, or `UTCDate` when the game has no date (no tag, or an
    /// empty one).
    static func date(_ date: String?, utcDate: String?) -> String? {
        if let date, !date.isEmpty { return date }
        return utcDate ?? date
    }

    /// Whether an export gives a Date tag back as written (it writes `-` as `.`).
    static func dateWrittenBack(_ text: String) -> Bool { !text.utf8.contains(0x2D) }

    /// The `FEN` column of a FEN tag whose game starts at `start`: the tag trimmed, nil for the
    /// standard start position.
    static func fen(_ text: String, start: Position) -> String? {
        start != .startingPosition || start.isChess960 ? text.trimmingASCIISpaces : nil
    }

    /// The `FEN` column a kept FEN tag gives, read again (for the export's check).
    static func fen(_ text: String) -> String? {
        guard let position = try? Position(fen: text.trimmingASCIISpaces) else { return text.trimmingASCIISpaces }
        return fen(text, start: position)
    }

    /// `[Name]`: a tag the game did not have.
    static func absent(_ name: String) -> String { "[\(name)]" }

    /// The lines of a `Tags` column: tag pairs, and names alone for the tags a game did not have
    /// (value nil). Lines that are neither are skipped.
    static func read(_ text: String) -> [(name: String, value: String?)] {
        var result: [(name: String, value: String?)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("["), line.hasSuffix("]"), !line.contains("\""), !line.contains(" ") {
                let name = line.dropFirst().dropLast()
                if !name.isEmpty { result.append((String(name), nil)) }
                continue
            }
            for pair in PGNWriter.tagPairs(String(line)) { result.append((pair.name, pair.value)) }
        }
        return result
    }
}
