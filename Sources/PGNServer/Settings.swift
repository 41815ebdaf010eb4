import Engine
import Foundation
import GameStore
import LanguageServer
import PGN

/// The server's settings (`schemas/settings.schema.json`), with their defaults.
struct Settings: Sendable, Hashable {
    var inlayNAGs = true
    var inlayClocks = true
    /// The engine's evaluation beside every reviewed move, not only beside its judgements.
    var inlayEvaluations = false
    var missingTags = true
    var nonCanonicalNotation = true
    var openingTags = true
    var twinGames = true
    var nameVariants = true
    var inlayOpening = true
    var lineLength = 80
    var inlayReview = true
    var reviewDiagnostics = true
    /// The engine: path, threads, hash, lines, WDL. Never from a document.
    var engine = EngineConfiguration()
    var engineProcesses = 2
    /// The time an engine may think during a hover; 0 leaves the engine out of hovers.
    var hoverMilliseconds = 300
    var reviewDepth = 12
    /// Time per position in a review, instead of a depth, when above 0.
    var reviewMovetime = 0
    var reviewPresetName = "lichess"
    var reviewThresholds = (inaccuracy: 5.0, mistake: 10.0, blunder: 20.0)
    /// Empty: `games.ocgdb.db3` in the workspace folder.
    var databasePath = ""
    var databaseMoves = MovesContent.full
    /// Databases the explorer reads besides `databasePath`, never written.
    var databaseReferences: [String] = []
    /// The novelty hint ("N" after the first mainline move the databases do not hold).
    var inlayNovelty = true
    /// Whether a move's hover draws the board as a picture or as text.
    var boardImage = BoardImage.auto
    /// Which side of the board a move's hover shows at the bottom.
    var boardOrientation = BoardOrientation.white
    /// With `boardOrientation` `player`: the player whose side is at the bottom in their games.
    var boardPlayer = ""
    /// Repertoire gaps against the databases: whether, within how many plies, and the share
    /// (percent) and number of the databases' games a reply needs.
    var repertoireGaps = true
    var repertoireDepth = 16
    var repertoireMinShare = 5.0
    var repertoireMinGames = 20
    /// The player's repertoire files (paths or patterns) for each side, and the player whose
    /// games are followed through them (empty: `boardPlayer`).
    var repertoireWhite: [String] = []
    var repertoireBlack: [String] = []
    var repertoirePlayer = ""

    /// Which games of the databases the explorer counts (`explorer.*`; empty: all).
    var explorerFilter = ExplorerFilter()

    /// The name the repertoire hints follow.
    var repertoirePlayerName: String { repertoirePlayer.isEmpty ? boardPlayer : repertoirePlayer }

    var reviewPreset: ReviewPreset {
        guard reviewPresetName == "custom" else { return ReviewPreset(name: reviewPresetName) ?? .lichess }
        return .custom(
            inaccuracy: reviewThresholds.inaccuracy, mistake: reviewThresholds.mistake,
            blunder: reviewThresholds.blunder)
    }

    var reviewLimit: SearchLimit {
        reviewMovetime > 0 ? .movetime(.milliseconds(reviewMovetime)) : .depth(reviewDepth)
    }

    static func == (lhs: Settings, rhs: Settings) -> Bool { lhs.key == rhs.key }
    func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// Every value, for equality and the diagnostics' result ids.
    private var key: String {
        "\(inlayNAGs) \(inlayClocks) \(inlayEvaluations) \(missingTags) \(nonCanonicalNotation) \(openingTags) \(twinGames) \(nameVariants) \(inlayOpening) \(lineLength) \(inlayReview) "
            + "\(reviewDiagnostics) \(engine) \(engineProcesses) \(hoverMilliseconds) \(reviewDepth) \(reviewMovetime) "
            + "\(reviewPresetName) \(reviewThresholds) \(databasePath) \(databaseMoves) \(boardImage) \(databaseReferences) \(inlayNovelty) "
            + "\(boardOrientation) \(boardPlayer) \(repertoireGaps) \(repertoireDepth) \(repertoireMinShare) \(repertoireMinGames) \(repertoireWhite) \(repertoireBlack) \(repertoirePlayer) \(explorerFilter)"
    }

    /// Reads the `pgn` section; returns the settings and the keys it did not know.
    static func read(_ json: JSONValue, over base: Settings = Settings()) -> (Settings, unknown: [String]) {
        var settings = base
        var unknown: [String] = []
        guard let members = json.objectValue else { return (settings, json.isNull ? [] : ["(not an object)"]) }
        // Emacs's eglot sends a false written `nil` as null: null is false.
        func bool(_ value: JSONValue, _ path: String, _ apply: (Bool) -> Void) {
            if let flag = value.boolValue ?? (value.isNull ? false : nil) {
                apply(flag)
            } else {
                unknown.append("\(path) (expected true or false)")
            }
        }
        func int(_ value: JSONValue, _ path: String, _ bounds: ClosedRange<Int>, _ apply: (Int) -> Void) {
            if let n = value.intValue, bounds.contains(n) {
                apply(n)
            } else {
                unknown.append("\(path) (expected an integer from \(bounds.lowerBound) to \(bounds.upperBound))")
            }
        }
        func percent(_ value: JSONValue, _ path: String, _ apply: (Double) -> Void) {
            let number = value.doubleValue ?? value.intValue.map(Double.init)
            if let number, number > 0, number <= 100 {
                apply(number)
            } else {
                unknown.append("\(path) (expected a number of Win% points above 0, at most 100)")
            }
        }
        /// A string; null is the empty one.
        func text(_ value: JSONValue, _ path: String, _ apply: (String) -> Void) {
            if let text = value.stringValue ?? (value.isNull ? "" : nil) {
                apply(text)
            } else {
                unknown.append("\(path) (expected a string)")
            }
        }
        /// One of the names of an enumeration's cases.
        func choice<Choice: RawRepresentable<String>>(
            _ value: JSONValue, _ path: String, _ expected: String, _ apply: (Choice) -> Void
        ) {
            if let name = value.stringValue, let chosen = Choice(rawValue: name) {
                apply(chosen)
            } else {
                unknown.append("\(path) (expected \(expected))")
            }
        }
        for (section, value) in members {
            guard let inner = value.objectValue else {
                unknown.append(section)
                continue
            }
            for (key, value) in inner {
                let path = "\(section).\(key)"
                switch path {
                case "inlayHints.nags": bool(value, path) { settings.inlayNAGs = $0 }
                case "inlayHints.clocks": bool(value, path) { settings.inlayClocks = $0 }
                case "inlayHints.evaluations": bool(value, path) { settings.inlayEvaluations = $0 }
                case "diagnostics.missingTags": bool(value, path) { settings.missingTags = $0 }
                case "diagnostics.nonCanonicalNotation": bool(value, path) { settings.nonCanonicalNotation = $0 }
                case "diagnostics.openingTags": bool(value, path) { settings.openingTags = $0 }
                case "diagnostics.twins": bool(value, path) { settings.twinGames = $0 }
                case "diagnostics.nameVariants": bool(value, path) { settings.nameVariants = $0 }
                case "inlayHints.opening": bool(value, path) { settings.inlayOpening = $0 }
                case "inlayHints.novelty": bool(value, path) { settings.inlayNovelty = $0 }
                case "format.lineLength":
                    if let n = value.intValue, (40...255).contains(n) {
                        settings.lineLength = n
                    } else {
                        unknown.append("\(path) (expected an integer from 40 to 255)")
                    }
                case "inlayHints.review": bool(value, path) { settings.inlayReview = $0 }
                case "diagnostics.review": bool(value, path) { settings.reviewDiagnostics = $0 }
                case "engine.path":
                    if let text = value.stringValue {
                        settings.engine.path = text.isEmpty ? nil : text
                    } else if value.isNull {
                        settings.engine.path = nil
                    } else {
                        unknown.append("\(path) (expected a string)")
                    }
                case "engine.threads": int(value, path, 1...1024) { settings.engine.threads = $0 }
                case "engine.hash": int(value, path, 1...65536) { settings.engine.hashMegabytes = $0 }
                case "engine.multiPV": int(value, path, 1...10) { settings.engine.multiPV = $0 }
                case "engine.showWDL": bool(value, path) { settings.engine.showWDL = $0 }
                case "engine.processes": int(value, path, 1...64) { settings.engineProcesses = $0 }
                case "engine.hoverMs": int(value, path, 0...60000) { settings.hoverMilliseconds = $0 }
                case "review.depth": int(value, path, 1...60) { settings.reviewDepth = $0 }
                case "review.movetime": int(value, path, 0...600_000) { settings.reviewMovetime = $0 }
                case "review.preset":
                    if let name = value.stringValue, name == "custom" || ReviewPreset(name: name) != nil {
                        settings.reviewPresetName = name
                    } else {
                        unknown.append("\(path) (expected lichess, chesscom, encroissant or custom)")
                    }
                case "review.inaccuracy": percent(value, path) { settings.reviewThresholds.inaccuracy = $0 }
                case "review.mistake": percent(value, path) { settings.reviewThresholds.mistake = $0 }
                case "review.blunder": percent(value, path) { settings.reviewThresholds.blunder = $0 }
                case "database.path":
                    if let text = value.stringValue {
                        settings.databasePath = text
                    } else {
                        unknown.append("\(path) (expected a string)")
                    }
                case "database.references":
                    let paths = value.arrayValue?.compactMap(\.stringValue)
                    if let paths, paths.count == value.arrayValue?.count, paths.count <= 64 {
                        settings.databaseReferences = paths
                    } else if value.isNull {
                        settings.databaseReferences = []
                    } else {
                        unknown.append("\(path) (expected an array of at most 64 paths)")
                    }
                case "database.moves":
                    choice(value, path, "full or mainline") { settings.databaseMoves = $0 }
                case "hover.boardImage":
                    choice(value, path, "auto, always or never") { settings.boardImage = $0 }
                case "board.orientation":
                    choice(value, path, "white, black, sideToMove or player") { settings.boardOrientation = $0 }
                case "board.player": text(value, path) { settings.boardPlayer = $0 }
                case "repertoire.gaps": bool(value, path) { settings.repertoireGaps = $0 }
                case "repertoire.depth": int(value, path, 1...60) { settings.repertoireDepth = $0 }
                case "repertoire.minGames": int(value, path, 1...1_000_000_000) { settings.repertoireMinGames = $0 }
                case "repertoire.minShare":
                    if let number = value.doubleValue ?? value.intValue.map(Double.init), number > 0, number <= 100 {
                        settings.repertoireMinShare = number
                    } else {
                        unknown.append("\(path) (expected a percentage above 0, at most 100)")
                    }
                case "repertoire.white", "repertoire.black":
                    let paths = value.arrayValue?.compactMap(\.stringValue)
                    if let paths, paths.count == value.arrayValue?.count, paths.count <= 64 {
                        if key == "white" { settings.repertoireWhite = paths } else { settings.repertoireBlack = paths }
                    } else if value.isNull {
                        if key == "white" { settings.repertoireWhite = [] } else { settings.repertoireBlack = [] }
                    } else {
                        unknown.append("\(path) (expected an array of at most 64 paths or patterns)")
                    }
                case "repertoire.player": text(value, path) { settings.repertoirePlayer = $0 }
                case "explorer.player": text(value, path) { settings.explorerFilter.player = $0.isEmpty ? nil : $0 }
                case "explorer.color":
                    text(value, path) { color in
                        switch color.lowercased() {
                        case "": settings.explorerFilter.color = nil
                        case "white": settings.explorerFilter.color = .white
                        case "black": settings.explorerFilter.color = .black
                        default: unknown.append("\(path) (expected white, black or \"\")")
                        }
                    }
                case "explorer.since": text(value, path) { settings.explorerFilter.since = $0.isEmpty ? nil : $0 }
                case "explorer.until": text(value, path) { settings.explorerFilter.until = $0.isEmpty ? nil : $0 }
                case "explorer.minElo":
                    int(value, path, 0...4000) { settings.explorerFilter.minElo = $0 == 0 ? nil : $0 }
                case "explorer.maxElo":
                    int(value, path, 0...4000) { settings.explorerFilter.maxElo = $0 == 0 ? nil : $0 }
                case "explorer.speed":
                    text(value, path) { name in
                        if name.isEmpty {
                            settings.explorerFilter.speed = nil
                        } else if let speed = ExplorerFilter.Speed(rawValue: name) {
                            settings.explorerFilter.speed = speed
                        } else {
                            unknown.append(
                                "\(path) (expected ultraBullet, bullet, blitz, rapid, classical, correspondence or \"\")"
                            )
                        }
                    }
                case "server.path":
                    // The editor's business (which executable to start): accepted, not used here.
                    if value.stringValue == nil { unknown.append("\(path) (expected a string)") }
                default: unknown.append(path)
                }
            }
        }
        return (settings, unknown)
    }

    /// Whether a diagnostic is wanted under these settings.
    func wants(_ diagnostic: Diagnostic) -> Bool {
        switch diagnostic.code {
        case .missingTag where diagnostic.severity == .information: return missingTags
        case .nonCanonicalSAN: return nonCanonicalNotation
        case .openingTags: return openingTags
        case .twinGame: return twinGames
        case .nameVariant: return nameVariants
        case .repertoireGap, .repertoireTransposition: return repertoireGaps
        default: return true
        }
    }
}

/// `hover.boardImage`: how a move's hover shows the position after it.
enum BoardImage: String, Sendable, Hashable {
    /// A picture for the clients known to show markdown images (VS Code and the editors built
    /// on it) when they take markdown hovers; the text board for the others.
    case auto
    /// A picture for every client that takes markdown hovers.
    case always
    /// The text board for every client.
    case never
}

/// `board.orientation`: the side at the bottom of a move's board, in text and picture.
enum BoardOrientation: String, Sendable, Hashable {
    /// White at the bottom, as a printed diagram (the default).
    case white
    /// Black at the bottom.
    case black
    /// The side to move after the move at the bottom: the board turns with every half-move.
    case sideToMove
    /// The side of `board.player` in games where that player plays (by the `White` and `Black`
    /// tags, names compared as the name-variant check compares them); White elsewhere.
    case player
}

extension PGNLanguageServer {
    var currentSettings: Settings { settings.withLock { $0 } }

    func registerSettings() {
        server.onInitialize { [self] params, _ in
            if let options = params.initializationOptions {
                // The client hears of unknown keys once `initialized` arrives: nothing but the
                // answer may reach it during `initialize`.
                // `positionEncoding` is the server core's (see `initialize`), not a setting.
                var settings = options["pgn"] ?? options
                if options["pgn"] == nil, case .object(var members) = options {
                    members["positionEncoding"] = nil
                    settings = .object(members)
                }
                let unknown = apply(settings, source: "initializationOptions", log: false)
                pendingWarnings.withLock { $0 += unknown }
            }
        }
        server.registerNotification("workspace/didChangeConfiguration") { [self] params, context in
            if let pgn = params["settings"]?["pgn"] {
                applyAndRepublish(pgn, source: "workspace/didChangeConfiguration", context)
            } else if context.session.clientCapabilities.supportsConfiguration {
                Task { await pullConfiguration(context) }
            }
        }
        server.registerNotification("initialized") { [self] _, context in
            let warnings = pendingWarnings.withLock { warnings in
                defer { warnings = [] }
                return warnings
            }
            for warning in warnings { server.log(.warning, warning) }
            if context.session.clientCapabilities.supportsConfiguration {
                Task { await pullConfiguration(context) }
            }
        }
    }

    /// Applies settings; returns the warning about unknown keys (logged unless `log` is false).
    @discardableResult
    func apply(_ json: JSONValue, source: String, log: Bool = true) -> [String] {
        let unknown = settings.withLock { current in
            let result = Settings.read(json, over: current)
            current = result.0
            return result.unknown
        }
        explorer.filter.withLock { $0 = currentSettings.explorerFilter }
        guard !unknown.isEmpty else { return [] }
        let warning = "pgn-lsp: unknown or invalid settings in \(source): \(unknown.sorted().joined(separator: ", "))"
        if log { server.log(.warning, warning) }
        return [warning]
    }

    func pullConfiguration(_ context: NotificationContext) async {
        guard
            let answer = try? await server.sendRequest(
                "workspace/configuration", params: ["items": [["section": "pgn"]]]),
            let first = answer.arrayValue?.first, !first.isNull
        else { return }
        applyAndRepublish(first, source: "workspace/configuration", context)
    }

    /// Applies settings, and sends the diagnostics again if settings they depend on changed
    /// (a client that sends its settings and answers the server's request for them gets its
    /// diagnostics once).
    func applyAndRepublish(_ json: JSONValue, source: String, _ context: NotificationContext) {
        let before = currentSettings
        apply(json, source: source)
        let after = currentSettings
        let shown = { (s: Settings) in
            [
                s.missingTags, s.nonCanonicalNotation, s.openingTags, s.twinGames, s.nameVariants,
                s.reviewDiagnostics,
            ]
        }
        // The repertoire's gaps and conflicts come from its settings, the explorer's filter and the databases.
        let repertoire = { (s: Settings) in
            "\(s.repertoireGaps) \(s.repertoireDepth) \(s.repertoireMinShare) \(s.repertoireMinGames) \(s.repertoireWhite) "
                + "\(s.repertoireBlack) \(s.explorerFilter) \(s.databasePath) \(s.databaseReferences)"
        }
        if before.explorerFilter != after.explorerFilter, !after.explorerFilter.isEmpty {
            countFilteredGames(for: context.documents.uris, context.session)
        }
        if shown(before) != shown(after) || repertoire(before) != repertoire(after) {
            Task { await republishAll(context) }
        }
    }
}
