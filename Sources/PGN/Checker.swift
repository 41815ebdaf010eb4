/// Checks PGN text: parses it, replays every game, and gathers every diagnostic.
public enum Checker {
    public struct Report: Sendable {
        /// Number of games found.
        public var games: Int
        /// Every diagnostic, sorted by position (at most `shownPerGame` of one game, see
        /// `check(_:base:firstGameIndex:)`).
        public var diagnostics: [Diagnostic]
        /// How many diagnostics were found but left out of `diagnostics`, by severity (the
        /// diagnostic that says how many were left out is not counted).
        public var omitted: [Diagnostic.Severity: Int] = [:]
        /// Each game's opening (`ReplayedGame.opening`), in the order of the games.
        public var openings: [Opening?] = []
        /// With `twins`: each game's `TwinKey` (nil for a game without one) as its identity and its
        /// prefixes' place in `twinPool`, and where its first tag is, in the order of the games.
        public var twins: [(identity: Int, prefixes: Range<Int>, label: Range<Int>)?] = []
        public var twinPool: [UInt32] = []

        public init(games: Int, diagnostics: [Diagnostic]) {
            self.games = games
            self.diagnostics = diagnostics
        }
    }

    /// The most diagnostics kept for one game, or for the text outside games: a text that is
    /// not PGN can have one problem per byte.
    public static let shownPerGame = 100

    /// Checks a whole text (or a piece of a file that holds whole games: `base` is its offset
    /// in the file, `firstGameIndex` the number of games before it). Past `shownPerGame`
    /// diagnostics in one game (or outside games), the rest are counted in `omitted` and one
    /// more diagnostic, where the first of them is, says how many are not shown.
    public static func check(
        _ source: SourceText, base: Int = 0, firstGameIndex: Int = 0, twins: Bool = false
    ) -> Report {
        var diagnostics: [Diagnostic] = []
        if source.encoding == .latin1 {
            let bad = firstInvalidUTF8(source.bytes)
            diagnostics.append(
                Diagnostic(
                    .encoding, .warning, "This text is not valid UTF-8; it was read as Latin-1 (ISO 8859-1)",
                    range: (base + bad)..<(base + bad + 1), game: nil))
        }
        let parser = source.bytes.withUnsafeBufferPointer {
            Parser($0, base: base, firstGameIndex: firstGameIndex)
        }
        diagnostics += parser.diagnostics
        var openings: [Opening?] = []
        openings.reserveCapacity(parser.games.count)
        var twinKeys: [(identity: Int, prefixes: Range<Int>, label: Range<Int>)?] = []
        var twinPool: [UInt32] = []
        for (i, game) in parser.games.enumerated() {
            let replayer = GameReplay(source: source, syntax: game, index: firstGameIndex + i, base: base)
            let replay = replayer.run(keepMoves: false)
            diagnostics += replay.diagnostics
            openings.append(replay.opening?.opening)
            if twins {
                // The keys' prefixes in one array: `check` keeps them to the end of the file, and
                // thousands of small arrays kept that long slow every allocation.
                let start = twinPool.count
                if let identity = TwinKey.identity(of: replayer),
                    TwinKey.appendPrefixes(of: replayer, to: &twinPool) > 0
                {
                    twinKeys.append((identity, start..<twinPool.count, game.label))
                } else {
                    twinPool.removeSubrange(start...)
                    twinKeys.append(nil)
                }
            }
        }
        diagnostics.sort { ($0.range.lowerBound, $0.severity) < ($1.range.lowerBound, $1.severity) }
        var report = limited(diagnostics, games: parser.games.count, alreadyOmitted: parser.omittedByGame)
        for (severity, count) in parser.omittedDiagnostics { report.omitted[severity, default: 0] += count }
        report.openings = openings
        report.twins = twinKeys
        report.twinPool = twinPool
        return report
    }

    /// A report that keeps the first `shownPerGame` diagnostics of each game (and of the text
    /// outside games) and replaces the others with one diagnostic that counts them.
    /// `alreadyOmitted` counts, by game, the diagnostics the parser did not keep (its own
    /// diagnostic that says so stands for one of them).
    static func limited(_ diagnostics: [Diagnostic], games: Int, alreadyOmitted: [Int?: Int] = [:]) -> Report {
        var report = Report(games: games, diagnostics: diagnostics)
        guard diagnostics.count > shownPerGame else { return report }
        report.diagnostics = []
        var shown: [Int?: Int] = [:]
        var left: [Int?: (first: Int, count: Int, severity: Diagnostic.Severity)] = [:]
        for (i, diagnostic) in diagnostics.enumerated() {
            if shown[diagnostic.game, default: 0] < shownPerGame {
                shown[diagnostic.game, default: 0] += 1
                report.diagnostics.append(diagnostic)
                continue
            }
            report.omitted[diagnostic.severity, default: 0] += 1
            if let previous = left[diagnostic.game] {
                left[diagnostic.game] = (
                    previous.first, previous.count + 1, min(previous.severity, diagnostic.severity)
                )
            } else {
                left[diagnostic.game] = (i, 1, diagnostic.severity)
            }
        }
        guard !left.isEmpty else { return report }
        for (game, left) in left {
            // The summary stands for one of the diagnostics it counts.
            report.omitted[left.severity, default: 0] -= 1
            let first = diagnostics[left.first]
            let count = left.count + max(0, (alreadyOmitted[game] ?? 0) - 1)
            guard count > 1 else {
                report.diagnostics.append(first)
                continue
            }
            let place = game == nil ? "outside games" : "in this game"
            report.diagnostics.append(
                Diagnostic(
                    first.code, left.severity, "\(count) more problems \(place) from here on are not shown",
                    range: first.range, game: game))
        }
        report.diagnostics.sort { ($0.range.lowerBound, $0.severity) < ($1.range.lowerBound, $1.severity) }
        return report
    }

    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            let length = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0
            if length == 0 || i + length > bytes.count { return i }
            if length > 1 && !SourceText.isValidUTF8(Array(bytes[i..<(i + length)])) { return i }
            i += length
        }
        return 0
    }
}
