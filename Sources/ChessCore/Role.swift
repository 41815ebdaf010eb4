/// The kind of a piece, without its colour.
public enum Role: UInt8, Sendable, Hashable, CaseIterable {
    case pawn = 0
    case knight = 1
    case bishop = 2
    case rook = 3
    case queen = 4
    case king = 5

    /// The upper-case SAN letter (`N`, `B`, `R`, `Q`, `K`); pawns have none.
    public var sanLetter: Character? {
        switch self {
        case .pawn: return nil
        case .knight: return "N"
        case .bishop: return "B"
        case .rook: return "R"
        case .queen: return "Q"
        case .king: return "K"
        }
    }

    /// The lower-case letter used in FEN for a black piece and in UCI for promotions.
    public var letter: Character {
        switch self {
        case .pawn: return "p"
        case .knight: return "n"
        case .bishop: return "b"
        case .rook: return "r"
        case .queen: return "q"
        case .king: return "k"
        }
    }

    /// The role named by an ASCII letter of either case (`n`, `N`, …), or nil.
    @inlinable public init?(ascii byte: UInt8) {
        switch byte | 0x20 {
        case 0x70: self = .pawn
        case 0x6E: self = .knight
        case 0x62: self = .bishop
        case 0x72: self = .rook
        case 0x71: self = .queen
        case 0x6B: self = .king
        default: return nil
        }
    }

    /// The role named by a letter of either case (`n`, `N`, …), or nil.
    public init?(letter: Character) {
        switch letter {
        case "p", "P": self = .pawn
        case "n", "N": self = .knight
        case "b", "B": self = .bishop
        case "r", "R": self = .rook
        case "q", "Q": self = .queen
        case "k", "K": self = .king
        default: return nil
        }
    }

    /// The word a chess player uses: "knight", "queen", …
    public var name: String {
        switch self {
        case .pawn: return "pawn"
        case .knight: return "knight"
        case .bishop: return "bishop"
        case .rook: return "rook"
        case .queen: return "queen"
        case .king: return "king"
        }
    }

    /// Conventional material value in pawns (king counts 0).
    public var value: Int {
        switch self {
        case .pawn: return 1
        case .knight, .bishop: return 3
        case .rook: return 5
        case .queen: return 9
        case .king: return 0
        }
    }
}

/// A piece: a role and a colour.
public struct Piece: Sendable, Hashable {
    public var color: Color
    public var role: Role

    @inlinable public init(color: Color, role: Role) {
        self.color = color
        self.role = role
    }

    /// The FEN character: upper case for White, lower case for Black.
    public var fenCharacter: Character {
        color == .white ? Character(role.letter.uppercased()) : role.letter
    }

    /// The piece named by a FEN character, or nil.
    public init?(fenCharacter: Character) {
        guard let role = Role(letter: fenCharacter) else { return nil }
        self.role = role
        self.color = fenCharacter.isUppercase ? .white : .black
    }

    /// The Unicode chess symbol (♔…♟).
    public var symbol: Character {
        let white: [Character] = ["♙", "♘", "♗", "♖", "♕", "♔"]
        let black: [Character] = ["♟", "♞", "♝", "♜", "♛", "♚"]
        return color == .white ? white[Int(role.rawValue)] : black[Int(role.rawValue)]
    }
}

extension Piece: CustomStringConvertible {
    public var description: String { "\(color == .white ? "white" : "black") \(role.name)" }
}
