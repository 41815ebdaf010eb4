import Foundation
import LanguageServer
import PGN

extension PGNLanguageServer {
    /// Inlay hints: the glyph of each NAG (`$4` → `??`), the time each move took beside its
    /// `[%clk]` (the clock itself is written there), the review's judgements, the game's
    /// opening at the end of the line where it was reached (never among the moves), and "N"
    /// after the move that leaves the databases (`Novelty.swift`), and in the games of
    /// `repertoire.player`, where each left the player's repertoire (`RepertoireFiles.swift`),
    /// each kind switchable in the settings.
    func registerInlayHints() {
        server.capabilities.features["inlayHintProvider"] = true
        server.registerRequest("textDocument/inlayHint") { [self] params, context in
            let (document, analysis, wanted) = try await rangeParams(params, context, screen: .inlayHint).parts
            let settings = currentSettings
            // Written as text, and bounded: Neovim asks for the whole document's hints, which in
            // a 100 MB file of online games are millions of clocks.
            var text = JSONText(capacity: 4096)
            text.raw("[")
            var count = 0
            var line = 0
            func hint(_ offset: Int, _ label: String, tooltip: String) {
                let position = document.position(of: offset, encoding: context.positionEncoding, fromLine: &line)
                text.raw(count == 0 ? "{" : ",{")
                text.raw("\"kind\":")
                text.integer(InlayHintKind.parameter.rawValue)
                text.raw(",\"label\":")
                text.string(label)
                text.raw(",\"paddingLeft\":true,\"position\":")
                text.position(position)
                text.raw(",\"tooltip\":")
                text.string(tooltip)
                text.raw("}")
                count += 1
            }
            let shown = Array(
                analysis.games.lazy.filter { $0.range.overlaps(wanted) || $0.range.upperBound == wanted.lowerBound }
                    .prefix(Self.hintedGames))
            let novelties = await novelties(shown, uri: document.uri, context)
            let repertoires = settingsRepertoires(settings, context.session, context.documents).repertoires
            let player = NameKey(settings.repertoirePlayerName)
            for game in shown {
                try context.checkCancellation()
                let a = game.analysis
                if !repertoires.isEmpty, !player.words.isEmpty,
                    let left = repertoireHint(game, repertoires, player: player),
                    wanted.contains(left.offset) || wanted.upperBound == left.offset
                {
                    hint(left.offset, left.label, tooltip: left.tooltip)
                }
                if let novelty = novelties[game.start], let mark = Self.noveltyHint(novelty, game),
                    wanted.contains(mark.offset) || wanted.upperBound == mark.offset
                {
                    hint(mark.offset, mark.label, tooltip: mark.tooltip)
                }
                // At the end of its line, after the hints of that line.
                var openingHint: (offset: Int, label: String, tooltip: String)?
                if settings.inlayOpening, let opening = Self.openingHint(game) {
                    let line = a.source.line(of: opening.offset - game.start)
                    let end = game.start + a.source.lineEnd(line)
                    if wanted.contains(end) || wanted.upperBound == end {
                        openingHint = (end, opening.label, opening.tooltip)
                    }
                }
                defer {
                    if let openingHint { hint(openingHint.offset, openingHint.label, tooltip: openingHint.tooltip) }
                }
                for review in reviewHints(game, in: wanted) {
                    hint(review.offset, review.label, tooltip: review.tooltip)
                }
                var clocks = MoveClocks(a)
                for node in a.syntax.nodes {
                    let end = node.range.upperBound + game.start
                    // Nodes after the range give no hint; comments before it are read only for
                    // the mainline's clocks.
                    if end > wanted.upperBound { break }
                    let inRange = wanted.contains(end) || wanted.upperBound == end
                    let read = node.kind == .comment && (inRange || (settings.inlayClocks && clocks.inMainline))
                    let commands = read ? CommentCommand.parse(a.source.string(node.range)) : []
                    let spent = clocks.read(node, commands.map(\.command))
                    guard inRange else { continue }
                    switch node.kind {
                    case .nag where settings.inlayNAGs && node.value >= 0:
                        // A suffix annotation already shows its glyph.
                        let written = a.source.string(node.range)
                        if written.hasPrefix("$"), let glyph = NAGMeanings.glyph(node.value) {
                            hint(end, glyph, tooltip: NAGMeanings.meaning(node.value) ?? "")
                        }
                    case .comment:
                        for (command, _) in commands {
                            switch command {
                            case .clock(let seconds) where settings.inlayClocks:
                                // The clock is written beside: the hint is the time the move took.
                                guard let spent else { break }
                                hint(
                                    end, "⏱ " + MoveClocks.durationText(spent),
                                    tooltip:
                                        "Time the move took (clock \(CommentCommand.clockText(seconds)) after it)")
                            default: break
                            }
                        }
                    default: break
                    }
                }
            }
            text.raw("]")
            return text.json
        }
    }

    /// The games of a range whose hints are given, from its start: a screen shows a few, and a
    /// whole document of tens of thousands would take the client seconds to read (the hints of
    /// the rest come when the client asks for the lines that show them).
    static let hintedGames = 200
}

/// The time each mainline move took, from the `[%clk]` after it and the one after the same
/// side's move before, plus the increment of the `TimeControl` tag (`180+2`): what lichess
/// shows beside each move.
struct MoveClocks {
    private let increment: Double
    private var depth = 0
    /// The side of the last mainline move (0 White, 1 Black), and each side's last clock.
    private var side: Int
    private var last: [Double?] = [nil, nil]

    /// Whether the nodes read so far leave the next one in the mainline.
    var inMainline: Bool { depth == 0 }

    init(_ game: GameAnalysis) {
        let tags = game.tagReplay
        let control = tags.tag("TimeControl").flatMap { tags.value(of: $0) } ?? ""
        increment = Self.increment(control)
        // The side before the first move: the first mainline move flips it.
        side = game.start.position?.turn == .black ? 0 : 1
    }

    /// Follows the nodes in order; for a mainline comment with a clock, the seconds the move
    /// before it took (nil for a side's first clock, and for a clock that went up by more
    /// than the increment).
    mutating func read(_ node: MovetextNode, _ commands: [CommentCommand]) -> Double? {
        switch node.kind {
        case .variationStart: depth += 1
        case .variationEnd: depth = max(0, depth - 1)
        case .move where depth == 0: side = 1 - side
        case .comment where depth == 0:
            for case .clock(let seconds) in commands {
                defer { last[side] = seconds }
                guard let before = last[side], before + increment >= seconds else { return nil }
                return before + increment - seconds
            }
        default: break
        }
        return nil
    }

    /// The increment of a `TimeControl` tag (`180+2` → 2), bounded where it is read: 0 without
    /// one, and for one that is not a number of seconds from 0 to a day (`60+1e300`), which
    /// no clock gives.
    static func increment(_ control: String) -> Double {
        guard let text = control.split(separator: "+").dropFirst().first, text.utf8.count <= 12,
            let seconds = Double(text), seconds.isFinite, (0...largestIncrement).contains(seconds)
        else { return 0 }
        return seconds
    }

    /// The largest increment read from a `TimeControl` tag: a day (correspondence chess has
    /// days per move, written `1/86400`, not as an increment).
    static let largestIncrement: Double = 86_400

    /// `42 s`, `1 min 5 s`, `2 h 3 min` (times longer than the longest clock read as it).
    static func durationText(_ seconds: Double) -> String {
        let seconds = seconds.isFinite ? min(max(seconds, 0), CommentCommand.maximumSeconds) : 0
        let whole = Int(seconds.rounded())
        if seconds < 10 && seconds != seconds.rounded() { return "\((seconds * 10).rounded() / 10) s" }
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min" + (whole % 60 == 0 ? "" : " \(whole % 60) s") }
        return "\(whole / 3600) h" + (whole / 60 % 60 == 0 ? "" : " \(whole / 60 % 60) min")
    }
}
