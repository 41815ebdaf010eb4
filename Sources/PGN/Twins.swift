import Foundation

/// What tells two games apart when looking for twins: the same game twice in a file, or one
/// copy's mainline the start of the other's (as broadcast and TWIC files give a game while it
/// is being played and again when it is over).
///
/// Two games are twins when they have the same players (`NameKey`: spacing, case, commas and
/// accents do not count), date, round (`?`, `-` and none are one value) and start position,
/// and the mainline of one is the mainline of the other or its start. The mainline is compared
/// as written, move by move, without check marks and annotation glyphs. A game with no move,
/// or naming neither player, is nobody's twin.
public struct TwinKey: Sendable, Hashable {
    /// Players, date, round and start position, hashed.
    public let identity: Int
    /// `prefixes[i]`: a hash of the first `i + 1` mainline moves.
    public let prefixes: [UInt32]

    public var plies: Int { prefixes.count }

    /// A key kept elsewhere in parts (`check` keeps the prefixes of a file's games in one array).
    public init(identity: Int, prefixes: [UInt32]) {
        self.identity = identity
        self.prefixes = prefixes
    }

    public init?(_ replay: GameReplay) {
        var prefixes: [UInt32] = []
        guard let identity = Self.identity(of: replay), Self.appendPrefixes(of: replay, to: &prefixes) > 0 else {
            return nil
        }
        self.identity = identity
        // Kept as long as the game's document is open: without the room the appends left.
        self.prefixes = prefixes.withoutRoom()
    }

    /// Players, date, round and start position, hashed; nil for a game that names neither player.
    public static func identity(of replay: GameReplay) -> Int? {
        func tag(_ name: String) -> String {
            guard let value = replay.tagValue(name) else { return "" }
            let utf8 = value.utf8
            let trimmed =
                utf8.first == 0x20 || utf8.last == 0x20 ? value.trimmingCharacters(in: .whitespaces) : value
            return trimmed.utf8.count == 1 && (trimmed.utf8.first == 0x3F || trimmed.utf8.first == 0x2D) ? "" : trimmed
        }
        let (white, black) = (tag("White"), tag("Black"))
        // A name of separators only has no word: no player named.
        func named(_ name: String) -> Bool {
            name.utf8.contains { !($0 == 0x2C || $0 == 0x2E || $0 == 0x20 || (0x09...0x0D).contains($0)) }
        }
        guard named(white) || named(black) else { return nil }
        var hasher = Hasher()
        NameKey.hash(white, into: &hasher)
        hasher.combine(UInt8(0xFE))
        NameKey.hash(black, into: &hasher)
        let date = tag("Date")
        hasher.combine(date.isEmpty ? tag("UTCDate") : date)
        hasher.combine(tag("Round"))
        hasher.combine(tag("FEN"))
        return hasher.finalize()
    }

    /// Appends to `pool` a hash of each prefix of the game's mainline (the moves as written,
    /// without `+`, `#`, `!` and `?`); returns how many (the plies).
    @discardableResult
    public static func appendPrefixes(of replay: GameReplay, to pool: inout [UInt32]) -> Int {
        var hash: UInt32 = 2_166_136_261
        var depth = 0
        var plies = 0
        replay.source.bytes.withUnsafeBufferPointer { bytes in
            for node in replay.syntax.nodes {
                switch node.kind {
                case .variationStart: depth += 1
                case .variationEnd: depth = max(0, depth - 1)
                case .move where depth == 0:
                    var upper = node.range.upperBound - replay.base
                    let lower = node.range.lowerBound - replay.base
                    // `+`, `#`, `!` and `?` at the end say nothing about which move it is.
                    while upper > lower {
                        let last = bytes[upper - 1]
                        guard last == 0x2B || last == 0x23 || last == 0x21 || last == 0x3F else { break }
                        upper -= 1
                    }
                    for byte in bytes[lower..<upper] { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
                    hash = (hash ^ 0x20) &* 16_777_619
                    pool.append(hash)
                    plies += 1
                default: break
                }
            }
        }
        return plies
    }

    /// Whether this game's mainline is `other`'s or its start.
    public func isStart(of other: TwinKey) -> Bool {
        identity == other.identity && plies <= other.plies && other.prefixes[plies - 1] == prefixes[plies - 1]
    }
}

/// The twins among games: which game each copy copies.
public enum Twins {
    public struct Pair: Sendable, Hashable {
        /// The copy: an exact copy after the first, or a game whose mainline is the start of
        /// another's.
        public let copy: Int
        /// The game to keep: the longest game whose mainline starts with the copy's (the
        /// first of them).
        public let kept: Int
        /// Whether the kept game goes on where the copy stops.
        public var isShorter: Bool

        public init(copy: Int, kept: Int, isShorter: Bool) {
            self.copy = copy
            self.kept = kept
            self.isShorter = isShorter
        }
    }

    /// Games with more twins than this are left alone: a file that has the same game a
    /// thousand times is made that way on purpose.
    public static let largestGroup = 64

    /// The twins among `keys` (by the games' order), sorted by copy.
    public static func find(_ keys: [TwinKey?]) -> [Pair] {
        find(identities: keys.map { $0?.identity }) { keys[$0]! }
    }

    /// The twins among games known by their keys' identities (nil: no key), sorted by copy;
    /// `key` gives the whole key of a game that shares its identity with another. Only the
    /// identities are looked at for most games: an editor runs this after every edit.
    public static func find(identities: [Int?], key: (Int) -> TwinKey) -> [Pair] {
        find(identities: identities, counts: counts(identities), key: key)
    }

    /// How many games have each identity.
    public static func counts(_ identities: [Int?]) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        counts.reserveCapacity(identities.count)
        for identity in identities { if let identity { counts[identity, default: 0] += 1 } }
        return counts
    }

    /// `find(identities:key:)` with the identities' `counts` made already.
    public static func find(identities: [Int?], counts: [Int: Int], key: (Int) -> TwinKey) -> [Pair] {
        // Most games have no twin: gather only the identities seen twice.
        var groups: [Int: [Int]] = [:]
        for (index, identity) in identities.enumerated() {
            guard let identity, let count = counts[identity], count > 1, count <= largestGroup else { continue }
            groups[identity, default: []].append(index)
        }
        var pairs: [Pair] = []
        for members in groups.values {
            let keys = members.map(key)
            for (m, copy) in members.enumerated() {
                var kept: Int?
                for (o, other) in members.enumerated() where other != copy {
                    // An equal game is kept when it comes first; a longer one wherever it is.
                    guard keys[m].isStart(of: keys[o]), keys[o].plies > keys[m].plies || other < copy else { continue }
                    if let best = kept, keys[best].plies >= keys[o].plies { continue }
                    kept = o
                }
                if let kept {
                    pairs.append(Pair(copy: copy, kept: members[kept], isShorter: keys[kept].plies > keys[m].plies))
                }
            }
        }
        return pairs.sorted { $0.copy < $1.copy }
    }
}

extension Twins {
    /// What the diagnostic on a copy says; `kept` names the game kept (`game 3`, `game 3 of a.pgn`).
    public static func message(isShorter: Bool, kept: String, copyPlies: Int, keptPlies: Int) -> String {
        isShorter
            ? "This game stops after \(copyPlies) half-moves of \(kept), which has the same players, date and round and goes on to \(keptPlies): an earlier copy of it"
            : "This game is a copy of \(kept): the same players, date, round and moves"
    }

    /// What the fix that keeps the other copy inserts after its last tag: the tag pairs the copy
    /// has and the kept game lacks, each on a line of its own; nil when there is none.
    public static func mergedTags(from copy: GameReplay, into kept: GameReplay) -> String? {
        let missing = copy.syntax.tags.compactMap { tag -> String? in
            let name = copy.text(tag.nameRange)
            guard kept.tag(name) == nil, let value = copy.value(of: tag) else { return nil }
            return PGNWriter.tagPair(name: name, value: value)
        }
        return missing.isEmpty ? nil : "\n" + missing.joined(separator: "\n")
    }

    /// The title of that fix.
    public static func mergeTitle(isShorter: Bool) -> String {
        isShorter ? "Keep the longer copy, merging their tags" : "Keep the first copy, merging their tags"
    }

    /// Of the games `others` (keys), the one `key`'s game copies: the longest whose mainline
    /// starts with its own, the first of them; equal games count only when `equalCounts` says
    /// so of the other game.
    public static func kept<Other>(
        by key: TwinKey, among others: [Other], key otherKey: (Other) -> TwinKey, equalCounts: (Other) -> Bool
    ) -> Other? {
        var kept: Other?
        for other in others {
            let theirs = otherKey(other)
            guard key.isStart(of: theirs), theirs.plies > key.plies || equalCounts(other) else { continue }
            if let best = kept, otherKey(best).plies >= theirs.plies { continue }
            kept = other
        }
        return kept
    }

    /// The `twin-game` diagnostic of a copy, on `copyLabel` (its first tag), pointing at
    /// `keptLabel`; games counted from 0, as in `Diagnostic.game`.
    public static func diagnostic(
        _ pair: Pair, copyLabel: Range<Int>, keptLabel: Range<Int>, copyPlies: Int, keptPlies: Int
    ) -> Diagnostic {
        let kept = "game \(pair.kept + 1)"
        let message = Self.message(isShorter: pair.isShorter, kept: kept, copyPlies: copyPlies, keptPlies: keptPlies)
        var diagnostic = Diagnostic(.twinGame, .information, message, range: copyLabel, game: pair.copy)
        diagnostic.related = [
            Diagnostic.Related(
                range: keptLabel, message: pair.isShorter ? "the longer copy, \(kept)" : "the first copy, \(kept)")
        ]
        return diagnostic
    }
}
