/// What each Numeric Annotation Glyph means: the PGN standard's table (0–139), the common
/// extension (140–146), and the symbols ChessBase writes (238–245).
public enum NAGMeanings {
    /// The meaning in words, or nil for a value no table defines.
    public static func meaning(_ value: Int) -> String? {
        if let fixed = fixedMeanings[value] { return fixed.meaning }
        // 22–139 come in pairs: the even value for White, the odd for Black.
        if (22...139).contains(value) {
            let side = value % 2 == 0 ? "White" : "Black"
            let phrase = pairedPhrases[(value - 22) / 2]
            return "\(side) \(phrase)"
        }
        return nil
    }

    /// The symbol readers print for the NAG (`!`, `⩲`, `∞`, …), or nil when it has none.
    public static func glyph(_ value: Int) -> String? {
        if let fixed = fixedMeanings[value], let glyph = fixed.glyph { return glyph }
        return pairedGlyphs[value]
    }

    /// The NAG a suffix annotation stands for: `!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6.
    public static func value(ofSuffix suffix: String) -> Int? {
        switch suffix {
        case "!": return 1
        case "?": return 2
        case "!!": return 3
        case "??": return 4
        case "!?": return 5
        case "?!": return 6
        default: return nil
        }
    }

    private static let fixedMeanings: [Int: (meaning: String, glyph: String?)] = [
        0: ("null annotation", nil),
        1: ("good move", "!"),
        2: ("poor move", "?"),
        3: ("very good move", "!!"),
        4: ("very poor move (blunder)", "??"),
        5: ("speculative move", "!?"),
        6: ("questionable move", "?!"),
        7: ("forced move (all others lose quickly)", "□"),
        8: ("singular move (no reasonable alternatives)", nil),
        9: ("worst move", nil),
        10: ("drawish position", "="),
        11: ("equal chances, quiet position", "="),
        12: ("equal chances, active position", "="),
        13: ("unclear position", "∞"),
        14: ("White has a slight advantage", "⩲"),
        15: ("Black has a slight advantage", "⩱"),
        16: ("White has a moderate advantage", "±"),
        17: ("Black has a moderate advantage", "∓"),
        18: ("White has a decisive advantage", "+−"),
        19: ("Black has a decisive advantage", "−+"),
        20: ("White has a crushing advantage (Black should resign)", "+−"),
        21: ("Black has a crushing advantage (White should resign)", "−+"),
        140: ("with the idea", "∆"),
        141: ("aimed against", "∇"),
        142: ("better is", "⌓"),
        143: ("worse is", "<="),
        144: ("equivalent is", "=="),
        145: ("editorial comment", "RR"),
        146: ("novelty", "N"),
        238: ("space advantage", "○"),
        239: ("file", "⇔"),
        240: ("diagonal", "⇗"),
        241: ("centre", "⊞"),
        242: ("kingside", "⟫"),
        243: ("queenside", "⟪"),
        244: ("weak point", "✕"),
        245: ("ending", "⊥"),
    ]

    /// Phrases for 22/23, 24/25, …, 138/139 in order.
    private static let pairedPhrases: [String] = [
        "is in zugzwang",
        "has a slight space advantage", "has a moderate space advantage", "has a decisive space advantage",
        "has a slight time (development) advantage", "has a moderate time (development) advantage",
        "has a decisive time (development) advantage",
        "has the initiative", "has a lasting initiative", "has the attack",
        "has insufficient compensation for material deficit", "has sufficient compensation for material deficit",
        "has more than adequate compensation for material deficit",
        "has a slight center control advantage", "has a moderate center control advantage",
        "has a decisive center control advantage",
        "has a slight kingside control advantage", "has a moderate kingside control advantage",
        "has a decisive kingside control advantage",
        "has a slight queenside control advantage", "has a moderate queenside control advantage",
        "has a decisive queenside control advantage",
        "has a vulnerable first rank", "has a well protected first rank",
        "has a poorly protected king", "has a well protected king",
        "has a poorly placed king", "has a well placed king",
        "has a very weak pawn structure", "has a moderately weak pawn structure",
        "has a moderately strong pawn structure", "has a very strong pawn structure",
        "has poor knight placement", "has good knight placement",
        "has poor bishop placement", "has good bishop placement",
        "has poor rook placement", "has good rook placement",
        "has poor queen placement", "has good queen placement",
        "has poor piece coordination", "has good piece coordination",
        "has played the opening very poorly", "has played the opening poorly",
        "has played the opening well", "has played the opening very well",
        "has played the middlegame very poorly", "has played the middlegame poorly",
        "has played the middlegame well", "has played the middlegame very well",
        "has played the ending very poorly", "has played the ending poorly",
        "has played the ending well", "has played the ending very well",
        "has slight counterplay", "has moderate counterplay", "has decisive counterplay",
        "has moderate time control pressure", "has severe time control pressure",
    ]

    private static let pairedGlyphs: [Int: String] = [
        22: "⨀", 23: "⨀", 26: "○", 27: "○", 32: "⟳", 33: "⟳", 36: "↑", 37: "↑", 40: "→", 41: "→",
        44: "=/∞", 45: "=/∞", 132: "⇆", 133: "⇆", 138: "⨁", 139: "⨁",
    ]
}
