import ChessCore
import Foundation
import PGN

/// The colours comments mark squares and arrows with (`[%csl Ga4]`, `[%cal Re2e4]`): the four
/// letters lichess and ChessBase draw, in their colours.
public enum MarkColor: Character, Sendable, Hashable, CaseIterable {
    case green = "G"
    case red = "R"
    case yellow = "Y"
    case blue = "B"

    /// The colour of a letter, in either case; nil for a letter no board draws.
    public init?(letter: Character) {
        guard let color = MarkColor(rawValue: Character(letter.uppercased())) else { return nil }
        self = color
    }

    public var name: String {
        switch self {
        case .green: return "green"
        case .red: return "red"
        case .yellow: return "yellow"
        case .blue: return "blue"
        }
    }

    /// The colour drawn, as `#rrggbb`.
    public var hex: String {
        switch self {
        case .green: return "#15781b"
        case .red: return "#882020"
        case .yellow: return "#e68f00"
        case .blue: return "#003088"
        }
    }
}

/// What a picture of a board marks besides its pieces: the squares of the move that led to it,
/// and the squares and arrows of the move's comments.
public struct BoardMarks: Sendable, Hashable {
    /// The squares the move left and reached (for castling, the king's), highlighted.
    public var move: [Square]
    public var squares: [CommentCommand.ColoredSquare]
    public var arrows: [CommentCommand.ColoredArrow]

    public init(
        move: [Square] = [], squares: [CommentCommand.ColoredSquare] = [], arrows: [CommentCommand.ColoredArrow] = []
    ) {
        self.move = move
        self.squares = squares
        self.arrows = arrows
    }

    /// The marks of a move and of the commands of its comments (`%csl`, `%cal`; the others
    /// are left out).
    public init(move: Move?, commands: [CommentCommand]) {
        self.init()
        if let move, move.from != move.to || move.isCastle {
            self.move = [move.from, move.kingDestination]
        }
        // Each square and each arrow once, the first colour given: a board has 64 squares and
        // 4,032 arrows, however long the comment.
        var markedSquares = Set<Square>()
        var drawnArrows = Set<[Square]>()
        for command in commands {
            switch command {
            case .squares(let marked):
                squares += marked.filter { markedSquares.insert($0.square).inserted }
            case .arrows(let drawn):
                arrows += drawn.filter {
                    drawnArrows.count < Self.mostArrows && drawnArrows.insert([$0.from, $0.to]).inserted
                }
            default: break
            }
        }
    }

    /// The most arrows drawn on one board.
    static let mostArrows = 64

    /// The comment's marks in words, for a board in text:
    /// `Marked: a4 (green), b5 (red) · Arrows: e2→e4 (green)`; empty when there are none.
    public var summary: String {
        func color(_ letter: Character) -> String {
            MarkColor(letter: letter)?.name ?? "colour \(MarkdownText.code(String(letter)))"
        }
        func list(_ items: [String]) -> String {
            let more = items.count - Self.listed
            return items.prefix(Self.listed).joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
        }
        var parts: [String] = []
        if !squares.isEmpty {
            parts.append("Marked: " + list(squares.map { "\($0.square) (\(color($0.color)))" }))
        }
        if !arrows.isEmpty {
            parts.append("Arrows: " + list(arrows.map { "\($0.from)→\($0.to) (\(color($0.color)))" }))
        }
        return parts.joined(separator: " · ")
    }

    /// How many squares, and how many arrows, the summary lists.
    static let listed = 16
}

/// A board as an SVG picture: the position, seen from one side, with coordinates, the move's
/// squares highlighted, the comment's squares tinted and its arrows drawn in their colours.
/// The pieces are the picture's own outlines (no font, no network), so that every renderer
/// draws them alike; the picture stays under 8 KB.
///
/// Geometry: a square is 100 units, the board 800, drawn at 320 pixels. On screen, column
/// 0 is the left and row 0 the top.
public enum BoardPicture {
    /// The size the picture asks to be shown at, in pixels.
    public static let pixels = 320
    /// The light and dark squares.
    public static let lightSquare = "#f0d9b5"
    public static let darkSquare = "#b58863"
    /// The move's squares: this colour at `moveOpacity` over the square.
    public static let moveColor = "#9bc700"
    public static let moveOpacity = "0.41"
    /// A `%csl` square: its colour at this opacity over the square.
    public static let squareOpacity = "0.6"
    /// A `%cal` arrow: its colour at this opacity over the board and pieces.
    public static let arrowOpacity = "0.8"

    /// The most arrows a picture draws, so that it stays under `maximumBytes` whatever the
    /// comment (annotators draw a few).
    public static let maximumArrows = 16
    /// The most bytes a picture takes, before base64: a board full of pieces, every square
    /// marked and `maximumArrows` arrows stay under it.
    public static let maximumBytes = 8 * 1024

    /// The picture of `position` seen from `side` (`side`'s pieces at the bottom), with `marks`.
    public static func svg(_ position: Position, marks: BoardMarks = BoardMarks(), from side: Color) -> String {
        var svg = emptyBoard
        func place(_ square: Square) -> (x: Int, y: Int) {
            side == .white ? (square.file * 100, (7 - square.rank) * 100) : ((7 - square.file) * 100, square.rank * 100)
        }
        func squarePath(_ squares: [Square]) -> String {
            squares.map { square in
                let (x, y) = place(square)
                return "M\(x) \(y)h100v100h-100z"
            }.joined()
        }
        if !marks.move.isEmpty {
            svg += "<path fill=\"\(moveColor)\" fill-opacity=\"\(moveOpacity)\" d=\"\(squarePath(marks.move))\"/>"
        }
        // A square marked twice takes its last colour (of those a board draws).
        var colorOf: [Square: MarkColor] = [:]
        for mark in marks.squares {
            if let color = MarkColor(letter: mark.color) { colorOf[mark.square] = color }
        }
        for color in MarkColor.allCases {
            let squares = Square.all.filter { colorOf[$0] == color }
            guard !squares.isEmpty else { continue }
            svg += "<path fill=\"\(color.hex)\" fill-opacity=\"\(squareOpacity)\" d=\"\(squarePath(squares))\"/>"
        }
        svg += side == .white ? coordinatesFromWhite : coordinatesFromBlack
        for color in [Color.white, .black] {
            svg +=
                color == .white
                ? "<g fill=\"#fff\" stroke=\"#000\" stroke-width=\"3\" stroke-linejoin=\"round\">"
                : "<g fill=\"#000\" stroke=\"#000\" stroke-width=\"3\" stroke-linejoin=\"round\">"
            for square in position.pieces(color) {
                guard let piece = position.piece(at: square) else { continue }
                let (x, y) = place(square)
                svg += "<use href=\"#\(piece.role.letter)\" x=\"\(x)\" y=\"\(y)\"/>"
            }
            svg += "</g>"
        }
        // An arrow drawn twice takes its last colour; the first `maximumArrows` are drawn.
        var arrows: [(from: Square, to: Square, color: MarkColor)] = []
        for arrow in marks.arrows {
            guard let color = MarkColor(letter: arrow.color) else { continue }
            if let same = arrows.firstIndex(where: { $0.from == arrow.from && $0.to == arrow.to }) {
                arrows[same].color = color
            } else if arrows.count < maximumArrows {
                arrows.append((arrow.from, arrow.to, color))
            }
        }
        for arrow in arrows {
            svg += self.arrow(from: place(arrow.from), to: place(arrow.to), color: arrow.color)
        }
        return svg + "</svg>"
    }

    /// The start of every picture, the same from both sides: the pieces' outlines and the squares.
    static let emptyBoard: String = {
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" viewBox="0 0 800 800">\
            <defs>\(pieceOutlines)</defs>\
            <rect width="800" height="800" fill="\(lightSquare)"/><path fill="\(darkSquare)" d="
            """
        for row in 0..<8 {
            for column in 0..<8 where (row + column) % 2 == 1 {
                svg += "M\(column * 100) \(row * 100)h100v100h-100z"
            }
        }
        return svg + "\"/>"
    }()

    static let coordinatesFromWhite = coordinates(from: .white)
    static let coordinatesFromBlack = coordinates(from: .black)

    /// Rank numbers down the left column and file letters along the bottom row, inside the
    /// squares, each in the colour of the squares of the other shade.
    static func coordinates(from side: Color) -> String {
        // On screen, a square whose row and column add up to an even number is light.
        var onLight = "", onDark = ""
        for row in 0..<8 {
            let rank = side == .white ? 8 - row : row + 1
            let text = "<text x=\"4\" y=\"\(row * 100 + 22)\">\(rank)</text>"
            if row % 2 == 0 { onLight += text } else { onDark += text }
        }
        for column in 0..<8 {
            let file = Square.fileLetter(side == .white ? column : 7 - column)
            let text = "<text x=\"\(column * 100 + 84)\" y=\"794\">\(file)</text>"
            if (column + 7) % 2 == 0 { onLight += text } else { onDark += text }
        }
        return "<g font-family=\"sans-serif\" font-size=\"20\" font-weight=\"bold\">"
            + "<g fill=\"\(darkSquare)\">\(onLight)</g><g fill=\"\(lightSquare)\">\(onDark)</g></g>"
    }

    /// An arrow from the centre of one square to the centre of another: a shaft and a head in
    /// one outline; from a square to itself, a ring.
    static func arrow(from: (x: Int, y: Int), to: (x: Int, y: Int), color: MarkColor) -> String {
        let start = (x: Double(from.x + 50), y: Double(from.y + 50))
        let tip = (x: Double(to.x + 50), y: Double(to.y + 50))
        let dx = tip.x - start.x, dy = tip.y - start.y
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0 else {
            return "<circle cx=\"\(Int(tip.x))\" cy=\"\(Int(tip.y))\" r=\"42\" fill=\"none\" stroke=\"\(color.hex)\" "
                + "stroke-width=\"8\" stroke-opacity=\"\(arrowOpacity)\"/>"
        }
        let (ux, uy) = (dx / length, dy / length)
        let (nx, ny) = (-uy, ux)
        let shaft = 10.0, head = 26.0, headLength = min(42.0, length * 0.6)
        let base = (x: tip.x - ux * headLength, y: tip.y - uy * headLength)
        let points = [
            (start.x + nx * shaft, start.y + ny * shaft), (base.x + nx * shaft, base.y + ny * shaft),
            (base.x + nx * head, base.y + ny * head), (tip.x, tip.y),
            (base.x - nx * head, base.y - ny * head), (base.x - nx * shaft, base.y - ny * shaft),
            (start.x - nx * shaft, start.y - ny * shaft),
        ]
        let d = points.map { "\(Int($0.0.rounded())) \(Int($0.1.rounded()))" }.joined(separator: " ")
        return "<path fill=\"\(color.hex)\" fill-opacity=\"\(arrowOpacity)\" d=\"M\(d)z\"/>"
    }

    /// The six pieces' outlines in a 100-unit square, named by their FEN letters (`p`, `n`,
    /// `b`, `r`, `q`, `k`), filled and stroked by the group that uses them.
    static let pieceOutlines: String = {
        let ball = "a5 5 0 1 0 10 0a5 5 0 1 0-10 0z"
        let outlines: [(name: String, path: String)] = [
            ("p", "M50 20a14 14 0 0 0-8 26c-8 4-14 16-14 40h44c0-24-6-36-14-40a14 14 0 0 0-8-26z"),
            ("n", "M28 86h48c2-30-4-52-20-64l-2-8-6 8c-14 2-22 14-28 26l-2 10 8 6 10-6 8-4c-2 10-10 18-16 32z"),
            (
                "b",
                "M44 14a6 6 0 1 0 12 0a6 6 0 1 0-12 0zM50 22c-16 12-20 26-14 40h28c6-14 2-28-14-40zM26 86c10-2 16-8 18-20h12c2 12 8 18 18 20z"
            ),
            ("r", "M26 86v-10h6l4-34h-8V18h10v8h7v-8h10v8h7v-8h10v24h-8l4 34h6v10z"),
            (
                "q",
                "M24 86H76L74 74 82 28 68 54 66 22 56 52 50 18 44 52 34 22 32 54 18 28 26 74zM13 28\(ball)M29 22\(ball)M45 18\(ball)M61 22\(ball)M77 28\(ball)"
            ),
            (
                "k",
                "M46 8h8v8h8v8h-8v28h-8V24h-8v-8h8zM26 86h48l-2-14c12-8 16-22 8-30-8-8-22-4-30 10-8-14-22-18-30-10-8 8-4 22 8 30z"
            ),
        ]
        return outlines.map { "<path id=\"\($0.name)\" d=\"\($0.path)\"/>" }.joined()
    }()

    /// The picture as a markdown image (a `data:` URI of the SVG in base64), with `title` as
    /// its alternative text.
    public static func markdownImage(_ svg: String, title: String) -> String {
        let alternative = title.replacingOccurrences(of: "]", with: ")").replacingOccurrences(of: "[", with: "(")
        return "![\(alternative)](data:image/svg+xml;base64,\(Data(svg.utf8).base64EncodedString()))"
    }
}
