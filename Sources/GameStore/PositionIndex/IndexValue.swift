import GRDB

/// Values read from the position index's tables, bounded where they are read: the file may
/// come from another program, and a value of another type or out of range reads as none (or as
/// the nearest bound) instead of stopping the process.
enum IndexValue {
    /// An integer column's value (or a real one that is a whole number in range); nil for
    /// null, text, blobs and other reals.
    static func integer(_ value: DatabaseValue) -> Int64? {
        Int64.fromDatabaseValue(value)
    }

    /// A count of games, from 0 to `ExplorerAnswer.largestCount`; 0 for anything but an integer.
    static func count(_ value: DatabaseValue) -> Int {
        guard let integer = integer(value) else { return 0 }
        return Int(min(max(integer, 0), Int64(ExplorerAnswer.largestCount)))
    }

    /// A rating, from 0 to `PositionIndex.largestElo`; nil for anything else.
    static func elo(_ value: DatabaseValue) -> Int? {
        guard let integer = integer(value), (0...Int64(PositionIndex.largestElo)).contains(integer) else {
            return nil
        }
        return Int(integer)
    }
}
