import ArgumentParser
import ChessCore
import Foundation
import LanguageServer
import PGN

struct RepertoireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repertoire",
        abstract: "Opening repertoires: where played games left them.",
        subcommands: [RepertoireCheck.self])
}

struct RepertoireCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Follow a player's games through their repertoire and say where each left it.",
        discussion: """
            Each repertoire game (a chapter) is for the side its `Orientation` or \
            `ChesstempoRepertoireColour` tag names, else for --color. Every position of its \
            mainline and variations counts, however it is reached: a game that transposes into \
            a prepared position is still in the repertoire. Each game of the player (White or \
            Black matching --player as `export --player` matches) is followed through the \
            repertoire of the side they played until a move leads out of it. Prints a table per \
            line (the chapter of the last position a game reached: games, score, who left) and \
            one of the places games left it. Exits with status 1 when the player left their \
            repertoire in a game, 2 when a file cannot be read, a repertoire game names no side, \
            or no game is the player's; 0 otherwise.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Option(name: .customLong("repertoire"), help: "A repertoire PGN file (repeat for more).")
    var repertoires: [String]

    @Option(help: "The side of repertoire games without an Orientation tag: white or black.")
    var color: String?

    @Option(help: "The player whose games are followed (any case, or the start of each word).")
    var player: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Argument(help: "PGN files of played games.")
    var files: [String]

    func validate() throws {
        if let color, !["white", "black"].contains(color.lowercased()) {
            throw ValidationError("--color must be white or black, not \(color)")
        }
        if repertoires.isEmpty { throw ValidationError("give at least one --repertoire file") }
    }

    /// One game of the player, followed.
    struct Followed {
        var file: String
        var game: Int
        var white: String
        var black: String
        var color: Color
        /// The player's points, nil for a game without a result.
        var points: Double?
        var departure: RepertoireDeparture
    }

    func run() throws {
        var white = Repertoire(side: .white)
        var black = Repertoire(side: .black)
        let defaultSide: Color? = color.map { $0.lowercased() == "white" ? .white : .black }
        for path in repertoires {
            let (source, parser) = try Self.read(path)
            for (index, syntax) in parser.games.enumerated() {
                let replay = GameReplay(source: source, syntax: syntax, index: index)
                guard let side = Repertoire.side(of: replay) ?? defaultSide else {
                    writeToStandardError(
                        "pgn-lsp: game \(index + 1) of \(path) names no side (an Orientation tag); give --color\n")
                    throw ExitCode(2)
                }
                if side == .white { white.add(replay, file: path) } else { black.add(replay, file: path) }
            }
        }
        let query = NameKey(player)
        var followed: [Followed] = []
        var names: Set<String> = []
        for path in files {
            let (source, parser) = try Self.read(path)
            for (index, syntax) in parser.games.enumerated() {
                let replay = GameReplay(source: source, syntax: syntax, index: index)
                let players = (replay.tagValue("White") ?? "", replay.tagValue("Black") ?? "")
                names.formUnion([players.0, players.1])
                guard let side = Repertoire.side(of: query, in: replay) else { continue }
                let replayed = replay.run(keepMoves: true)
                guard let start = replayed.start.position else { continue }
                let mainline = replayed.moves.filter { $0.depth == 0 }
                let departure = RepertoireDeparture.follow(
                    start: start, mainline: mainline, through: side == .white ? white : black)
                let result = replay.tagValue("Result")
                let whitePoints: Double? =
                    switch result {
                    case "1-0": 1
                    case "0-1": 0
                    case "1/2-1/2": 0.5
                    default: nil
                    }
                followed.append(
                    Followed(
                        file: path, game: index + 1, white: players.0, black: players.1, color: side,
                        points: whitePoints.map { side == .white ? $0 : 1 - $0 }, departure: departure))
            }
        }
        guard !followed.isEmpty else {
            let suggestions = names.filter { !$0.isEmpty }.map { ($0, NameKey($0).distance(to: query)) }
                .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
            writeToStandardError(
                "pgn-lsp: no game of a player named \(player)"
                    + (suggestions.isEmpty ? "" : "; did you mean: \(suggestions.joined(separator: "; "))") + "\n")
            throw ExitCode(2)
        }
        let output = OutputBuffer()
        switch format {
        case .text: output.write(Self.text(followed, white: white, black: black, player: player))
        case .json: output.write(Self.json(followed, white: white, black: black))
        }
        output.flush()
        if followed.contains(where: { $0.departure.kind == .player }) { throw ExitCode(1) }
    }

    static func read(_ path: String) throws -> (SourceText, Parser) {
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            writeToStandardError("pgn-lsp: cannot read \(path)\n")
            throw ExitCode(2)
        }
        return (SourceText(bytes), bytes.withUnsafeBufferPointer { Parser($0) })
    }

    /// Where a place of a repertoire is: `file:line (chapter)`.
    static func describe(_ place: Repertoire.Place?, in repertoire: Repertoire) -> String {
        guard let place else { return "—" }
        let chapter = repertoire.chapters[place.chapter]
        let line = place.line.map { ":\($0)" } ?? " game \(chapter.game)"
        return "\(chapter.file)\(line) (\(chapter.name))"
    }

    static func score(_ games: [Followed]) -> String {
        let scored = games.compactMap(\.points)
        guard !scored.isEmpty else { return "—" }
        let points = scored.reduce(0, +)
        let shown = points == points.rounded() ? String(Int(points)) : String(points)
        return "\(shown)/\(scored.count) (\(Int((100 * points / Double(scored.count)).rounded()))%)"
    }

    static func text(_ followed: [Followed], white: Repertoire, black: Repertoire, player: String) -> String {
        func table(_ rows: [[String]]) -> String {
            var widths = [Int](repeating: 0, count: rows[0].count)
            for row in rows { for (k, cell) in row.enumerated() { widths[k] = max(widths[k], cell.count) } }
            return rows.map { row in
                row.enumerated().map { k, cell in
                    k == 0
                        ? cell.padding(toLength: widths[k], withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: widths[k] - cell.count) + cell
                }.joined(separator: "  ")
            }.joined(separator: "\n") + "\n"
        }
        var text = ""
        let asWhite = followed.filter { $0.color == .white }.count
        text += "Repertoire: White \(white.chapters.count) chapters, \(white.positions.count) positions; "
        text += "Black \(black.chapters.count) chapters, \(black.positions.count) positions\n"
        text += "Games of \(player): \(followed.count) (\(asWhite) as White, \(followed.count - asWhite) as Black)\n\n"
        // By line: the chapter of the last position reached.
        var lines: [String: [Followed]] = [:]
        var order: [String] = []
        for game in followed {
            let repertoire = game.color == .white ? white : black
            let key =
                game.departure.place.map { place in
                    let chapter = repertoire.chapters[place.chapter]
                    return "\(game.color) · \(chapter.name) (\(chapter.file) game \(chapter.game))"
                } ?? "\(game.color) · not met"
            if lines[key] == nil { order.append(key) }
            lines[key, default: []].append(game)
        }
        var rows = [["line", "games", "score", "you left", "opponent left", "line ended", "stayed"]]
        for key in order {
            let games = lines[key]!
            let count = { (kind: RepertoireDeparture.Kind) in String(games.filter { $0.departure.kind == kind }.count) }
            rows.append([
                key, String(games.count), score(games), count(.player), count(.opponent), count(.ended), count(.stayed),
            ])
        }
        text += table(rows) + "\n"
        // Where games left it.
        struct Exit: Hashable {
            var color: Color
            var kind: RepertoireDeparture.Kind
            var moveNumber: String
            var played: String
            var place: Repertoire.Place?
        }
        var exits: [Exit: [Followed]] = [:]
        var exitOrder: [Exit] = []
        for game in followed where [.player, .opponent, .ended].contains(game.departure.kind) {
            let departure = game.departure
            let exit = Exit(
                color: game.color, kind: departure.kind, moveNumber: departure.moveNumber,
                played: departure.played ?? "", place: departure.place)
            if exits[exit] == nil { exitOrder.append(exit) }
            exits[exit, default: []].append(game)
        }
        if !exitOrder.isEmpty {
            var rows = [["where", "who", "played", "repertoire", "games", "score"]]
            for exit in exitOrder {
                let games = exits[exit]!
                let repertoire = exit.color == .white ? white : black
                let who = exit.kind == .player ? "you" : exit.kind == .opponent ? "opponent" : "line ended"
                let prepared = games[0].departure.prepared.map(\.san).joined(separator: ", ")
                rows.append([
                    "\(exit.color) · \(describe(exit.place, in: repertoire)), \(exit.moveNumber)", who,
                    exit.played.isEmpty ? "—" : exit.played, prepared.isEmpty ? "—" : prepared, String(games.count),
                    score(games),
                ])
            }
            text += "Where games left the repertoire:\n" + table(rows)
        }
        return text
    }

    static func json(_ followed: [Followed], white: Repertoire, black: Repertoire) -> [UInt8] {
        let games: [JSONValue] = followed.map { game in
            let repertoire = game.color == .white ? white : black
            let departure = game.departure
            let place: JSONValue =
                departure.place.map { place in
                    let chapter = repertoire.chapters[place.chapter]
                    return [
                        "file": .string(chapter.file), "game": .integer(chapter.game),
                        "line": place.line.map { .integer($0) } ?? .null, "chapter": .string(chapter.name),
                    ]
                } ?? .null
            return [
                "file": .string(game.file), "game": .integer(game.game), "white": .string(game.white),
                "black": .string(game.black), "color": .string(game.color == .white ? "white" : "black"),
                "points": game.points.map { .double($0) } ?? .null, "kind": .string(departure.kind.rawValue),
                "ply": .integer(departure.ply), "moveNumber": .string(departure.moveNumber),
                "played": departure.played.map { .string($0) } ?? .null,
                "prepared": .array(departure.prepared.map { .string($0.san) }), "place": place,
            ]
        }
        var bytes: [UInt8] = []
        JSONValue.object(["games": .array(games)]).write(to: &bytes)
        return bytes + [0x0A]
    }
}
