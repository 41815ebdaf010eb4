import LanguageServer

/// The games of a document's new version matched with those of an earlier one that have the
/// same analysis (an edit leaves every other game's analysis as it was). Told by comparing
/// references in document order, without reading the analyses: the games of a 100 MB document
/// are 44,000 objects scattered in memory, and reading each costs a cache miss (the outline
/// took 40 ms a keystroke so).
struct GameAlignment: Sendable {
    /// For each new game, the index of the earlier game with the same analysis, or nil.
    let earlier: [Int?]
    /// The new games that have no earlier one.
    let unmatched: [Int]

    /// `old` (nil: no earlier answer, no game matched) is kept by the caller while this is
    /// used: its games' analyses are alive, so that a reference compared is never one of a
    /// freed object.
    init(_ new: [PlacedGame], from old: [PlacedGame]?) {
        guard let old else {
            earlier = Array(repeating: nil, count: new.count)
            unmatched = Array(new.indices)
            return
        }
        var earlier: [Int?] = []
        earlier.reserveCapacity(new.count)
        var unmatched: [Int] = []
        // Where the walk is among the old games: a game is looked for among the next few, and
        // else in an index of every old game (made at the first game not found so).
        var cursor = 0
        var index: [ObjectIdentifier: Int]?
        // Games are read in place, by their fields: a copy of one would retain its analysis.
        for j in new.indices {
            let id = new[j].analysisID
            var found: Int?
            for k in cursor..<min(cursor + 4, old.count) where old[k].analysisID == id {
                found = k
                break
            }
            if found == nil {
                if index == nil {
                    var all: [ObjectIdentifier: Int] = [:]
                    all.reserveCapacity(old.count)
                    for k in old.indices { all[old[k].analysisID] = k }
                    index = all
                }
                if let k = index?[id], k >= cursor { found = k }
            }
            if let found { cursor = found + 1 } else { unmatched.append(j) }
            earlier.append(found)
        }
        self.earlier = earlier
        self.unmatched = unmatched
    }
}

/// What a whole-document request kept of its last answer for each open document, to answer
/// the next version's games that an edit left alone from it (`GameAlignment`).
final class KeptAnswers<Value: Sendable>: Sendable {
    private let answers = Locked([DocumentURI: Value]())

    init() {}

    subscript(uri: DocumentURI) -> Value? {
        get { answers.withLock { $0[uri] } }
        set { answers.withLock { $0[uri] = newValue } }
    }

    /// The document's value, which is kept no more.
    func take(_ uri: DocumentURI) -> Value? { answers.withLock { $0.removeValue(forKey: uri) } }

    func forget(_ uri: DocumentURI) { answers.withLock { _ = $0.removeValue(forKey: uri) } }
}
