import Engine
import Foundation
import LanguageServer

/// The evaluation graph of a reviewed game: White's winning chances (Win%, so that a large
/// advantage or a mate is clamped as lichess's graph clamps it) after each move, as a line of
/// block characters for a code lens or a hover, and as a small SVG picture for the clients
/// that show images.
enum ReviewGraph {
    /// The blocks from White lost (▁) to White won (█).
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    /// The most characters a sparkline takes: longer games are drawn with each character the
    /// mean of a few moves.
    static let longest = 60

    /// White's Win% after each reviewed move.
    static func winPercents(_ review: GameReview) -> [Double] {
        review.moves.map { $0.mates ? ($0.mover == .white ? 100 : 0) : ReviewFormulas.winPercent($0.scoreAfter) }
    }

    /// `▄▅▅▃▁`: one block a move (or the mean of a few, past `longest` moves), higher when
    /// White stands better.
    static func sparkline(_ review: GameReview) -> String {
        let values = winPercents(review)
        guard !values.isEmpty else { return "" }
        let groups = (values.count + longest - 1) / longest
        var text = ""
        var start = 0
        while start < values.count {
            let part = values[start..<min(values.count, start + groups)]
            let mean = part.reduce(0, +) / Double(part.count)
            let level = min(blocks.count - 1, max(0, Int(mean / 100 * Double(blocks.count))))
            text.append(blocks[level])
            start += groups
        }
        return text
    }

    /// The graph as a picture: the area under White's Win% in white over a dark ground, the
    /// middle line, and a dot on each inaccuracy (yellow), mistake (orange) and blunder (red).
    static func svg(_ review: GameReview) -> String {
        let values = winPercents(review)
        let width = 320, height = 80
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">\
            <rect width="\(width)" height="\(height)" fill="#3a3a3a"/>
            """
        guard !values.isEmpty else { return svg + "</svg>" }
        let step = Double(width) / Double(max(1, values.count))
        func y(_ value: Double) -> Int { Int((Double(height) * (1 - value / 100)).rounded()) }
        var d = "M0 \(height)L0 \(y(50))"
        for (k, value) in values.enumerated() {
            d += "L\(Int((Double(k + 1) * step).rounded())) \(y(value))"
        }
        d += "L\(width) \(height)z"
        svg += "<path fill=\"#f0f0f0\" d=\"\(d)\"/>"
        svg += "<path stroke=\"#888\" stroke-width=\"1\" d=\"M0 \(height / 2)h\(width)\"/>"
        for (k, move) in review.moves.enumerated() {
            guard let judgement = move.judgement else { continue }
            let color =
                switch judgement {
                case .inaccuracy: "#e6c300"
                case .mistake: "#e08a00"
                case .blunder: "#d33"
                }
            svg += "<circle cx=\"\(Int((Double(k + 1) * step).rounded()))\" cy=\"\(y(values[k]))\" r=\"4\" "
            svg += "fill=\"\(color)\"/>"
        }
        return svg + "</svg>"
    }
}

extension PGNLanguageServer {
    /// The evaluation graph of a reviewed game, for the hover on its tags: the sparkline, and
    /// with `picture` the SVG graph too. Empty when the game has no review.
    func reviewGraph(_ game: PlacedGame, picture: Bool) -> String {
        guard let stored = engines.review(of: game.analysis.text), !stored.review.moves.isEmpty else { return "" }
        let review = stored.review
        var text = "**Review** \(MarkdownText.escaped(review.playerText(of: .white))) · "
        text += "\(MarkdownText.escaped(review.playerText(of: .black)))\(MarkdownText.lineBreak)"
        text += "`\(ReviewGraph.sparkline(review))` White's chances, move by move"
        if picture {
            let image = Data(ReviewGraph.svg(review).utf8).base64EncodedString()
            text += MarkdownText.lineBreak + "![The evaluation graph](data:image/svg+xml;base64,\(image))"
        }
        return text
    }
}
