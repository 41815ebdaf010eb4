import ChessCore
import Foundation
import GRDB
import TestSupport
import XCTest

@testable import GameStore

/// The signatures a search reads before a game's moves, and the counts the opening tree gives:
/// neither may drop a game that reaches the position, or count one twice.
final class GameSignatureTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory() }
    override func tearDown() { folder.cleanUp() }

    func position(_ moves: String, from start: Position = .startingPosition) throws -> Position {
        var position = start
        for word in moves.split(separator: " ") where !(word.first?.isNumber ?? true) {
            position.play(try XCTUnwrap(position.move(san: String(word)), "\(word) after \(position.fen)"))
        }
        return position
    }

    func codes(_ moves: String) throws -> [UInt8] {
        var position = Position.startingPosition
        var codes: [UInt8] = []
        for word in moves.split(separator: " ") where !(word.first?.isNumber ?? true) {
            let move = try XCTUnwrap(position.move(san: String(word)))
            Moves2.append(move, chess960: false, to: &codes)
            position.play(move)
        }
        return codes
    }

    func testDeparturesAreThePawnsInTheOrderTheyLeftHome() throws {
        let moves = "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 c6"
        let end = try position(moves)
        let signature = try codes(moves).withUnsafeBytes {
            GameSignature(codes: $0, fen: nil, final: ReplayMaterial(end).packed)
        }
        XCTAssertTrue(signature.ordered)
        // e2 (4), d7 (8 + 3), d2 (3), c7 (8 + 2).
        XCTAssertEqual(signature.departures, 4 | 11 << 4 | 3 << 8 | 10 << 12)
        XCTAssertEqual(signature.afterTree, 0, "8 plies: no position after the tree's")
        let afterE4 = SignatureTarget(ReplayMaterial(try position("1. e4")))
        XCTAssertTrue(afterE4.mayMatch(signature))
        XCTAssertFalse(SignatureTarget(ReplayMaterial(try position("1. d4"))).mayMatch(signature))
        // d7 left before d2: a position with d2 gone and d7 at home is never reached.
        XCTAssertFalse(SignatureTarget(ReplayMaterial(try position("1. e4 e6 2. d4"))).mayMatch(signature))
        XCTAssertTrue(SignatureTarget(ReplayMaterial(try position("1. e4 d5 2. Nc3"))).mayMatch(signature))
        // From a FEN: no order, the material only.
        let fromFEN = try codes("1. e4").withUnsafeBytes {
            GameSignature(codes: $0, fen: Position.startingPosition.fen, final: ReplayMaterial(end).packed)
        }
        XCTAssertFalse(fromFEN.ordered)
        var bytes: [UInt8] = []
        signature.append(id: 42, to: &bytes)
        fromFEN.append(id: 7, to: &bytes)
        XCTAssertEqual(bytes.count, 2 * GameSignature.size)
        bytes.withUnsafeBytes {
            XCTAssertTrue(GameSignature.read($0.baseAddress!, 0) == (42, signature))
            XCTAssertTrue(GameSignature.read($0.baseAddress!, GameSignature.size) == (7, fromFEN))
        }
    }

    func testLateMaterialsKeepOneBoundForEachSetOfPawnsAtHome() throws {
        let start = ReplayMaterial(Position.startingPosition).packed
        let afterE4 = ReplayMaterial(try position("1. e4")).packed
        let afterD4 = ReplayMaterial(try position("1. d4")).packed
        XCTAssertEqual(LateMaterials.merged([afterE4], [afterD4]), [afterE4, afterD4].sorted())
        XCTAssertEqual(LateMaterials.merged([afterE4, afterD4], [afterE4]), [afterE4, afterD4].sorted())
        // The same pawns at home: the one with more material is the bound.
        let exchanged = ReplayMaterial(try position("1. e4 d5 2. exd5")).packed
        let afterD5 = ReplayMaterial(try position("1. e4 d5")).packed
        XCTAssertEqual(LateMaterials.merged([exchanged], [afterD5]), [afterD5])
        XCTAssertEqual(LateMaterials.merged([afterD5], [exchanged]), [afterD5])
        XCTAssertEqual(LateMaterials.values(LateMaterials.blob([afterE4, afterD4])), [afterE4, afterD4])
        XCTAssertTrue(LateMaterials.mayReach([start], ReplayMaterial(try position("1. e4"))))
        XCTAssertFalse(LateMaterials.mayReach([afterE4], ReplayMaterial(try position("1. d4"))))
    }

    /// The bounds kept let through every position that one of the materials may reach, in
    /// whatever order and flushes they come, with one bound for each set of pawns at home.
    func testLateMaterialsLetThroughEveryPositionAMaterialMayReach() {
        var random = SystemRandomNumberGenerator()
        func material() -> ReplayMaterial {
            ReplayMaterial(
                whitePieces: .random(in: 8...16, using: &random), blackPieces: .random(in: 8...16, using: &random),
                whitePawns: .random(in: 4...8, using: &random), blackPawns: .random(in: 4...8, using: &random),
                whiteHome: .random(in: 0...255, using: &random) | 0xF0,
                blackHome: .random(in: 0...255, using: &random) | 0x0F)
        }
        var letThrough = 0
        for _ in 0..<100 {
            let first = Set((0..<Int.random(in: 0...40, using: &random)).map { _ in material().packed })
            let second = Set((0..<Int.random(in: 0...400, using: &random)).map { _ in material().packed })
            let all = first.union(second)
            let kept = LateMaterials.merged(LateMaterials.merged([], first), second)
            XCTAssertEqual(kept, LateMaterials.merged([], all))
            XCTAssertEqual(kept, kept.sorted())
            let homes = kept.map { GameSignature.home(ReplayMaterial(packed: $0)) }
            XCTAssertEqual(Set(homes).count, kept.count)
            XCTAssertEqual(Set(homes), Set(all.map { GameSignature.home(ReplayMaterial(packed: $0)) }))
            for _ in 0..<50 {
                let target = material()
                if all.contains(where: { ReplayMaterial(packed: $0).mayReach(target) }) {
                    XCTAssertTrue(LateMaterials.mayReach(kept, target))
                    letThrough += 1
                }
            }
        }
        XCTAssertGreaterThan(letThrough, 0)
    }

    /// The import works a game's signature out as it plays the mainline: the same as a replay
    /// of the stored moves gives, for every game of the corpus.
    func testTheEncodersSignatureIsTheStoredMovesReplayed() throws {
        var games = 0
        var ordered = 0
        var late = 0
        for path in SharedMaterial.files(under: "corpus", suffix: ".pgn") {
            for result in GameEncoder.encode(bytes: try SharedMaterial.bytes(path)) {
                guard case .success(let game) = result else { continue }
                let signature = try XCTUnwrap(game.signature)
                let replayed = game.moves2.withUnsafeBytes {
                    GameSignature(codes: $0, fen: game.fen, final: game.finalMaterial)
                }
                XCTAssertEqual(signature, replayed, "\(path), game \(game.index)")
                games += 1
                if signature.ordered && signature.departures != 0 { ordered += 1 }
                if signature.afterTree != 0 { late += 1 }
            }
        }
        XCTAssertGreaterThan(games, 1000)
        XCTAssertGreaterThan(ordered, 1000)
        XCTAssertGreaterThan(late, 100)
    }

    /// A game that reaches a position of the tree first after the tree's plies is counted
    /// beside the tree's games.
    func testTreeCountsAddTheGamesThatComeLate() throws {
        let shuffles = String(repeating: "Nf3 Nf6 Ng1 Ng8 ", count: 10)
        let texts = ["1. e4 e5 *", "1. e4 c5 *", "\(shuffles) e4 e5 *", "1. d4 d5 *", "1. d4 d5 2. c4 *"]
        let database = try GameDatabase(path: folder.path("late.db3"))
        _ = try database.store(games: texts.enumerated().map { GameSource(text: $1, index: $0) })
        let afterE4 = try position("1. e4")
        XCTAssertEqual(try database.treeCount(afterE4)?.games, 2)
        XCTAssertEqual(try database.treeCount(afterE4)?.late, true)
        XCTAssertEqual(try database.scan(for: afterE4, plies: .max, afterTree: true).map(\.id), [3])
        let (total, first) = try database.search(afterE4, limit: 2)
        XCTAssertEqual(total, 3)
        XCTAssertEqual(first, [PositionMatch(gameID: 1, ply: 1), PositionMatch(gameID: 2, ply: 1)])
        XCTAssertEqual(try database.games(reaching: afterE4).map(\.ply), [1, 1, 41])
        // The game of knight moves has all its material after 40 plies: it may come late to
        // any position, and the scan counts.
        XCTAssertEqual(try database.treeCount(try position("1. d4 d5"))?.late, true)
        XCTAssertEqual(try database.search(try position("1. d4 d5"), limit: 0).total, 2)
        // Without it, no game can come late: the tree's count alone.
        let short = try GameDatabase(path: folder.path("short.db3"))
        _ = try short.store(games: texts.enumerated().filter { $0.offset != 2 }.map { GameSource(text: $1, index: $0) })
        XCTAssertEqual(try short.treeCount(try position("1. d4 d5"))?.late, false)
        XCTAssertEqual(try short.search(try position("1. d4 d5"), limit: 1).total, 2)
    }

    /// Every position of the corpus's games (and one move off them): the search with its
    /// signatures and tree counts finds what replaying every game, unfiltered, finds.
    func testThePrefilterNeverDropsAGameThatReachesThePosition() throws {
        let path = folder.path("corpus.db3")
        let database = try GameDatabase(path: path)
        _ = try database.importPGN(path: SharedMaterial.url("corpus/lichess/lichess_db_100k.pgn").path)
        _ = try database.importPGN(path: SharedMaterial.url("corpus/pgn-lsp/position-keys.pgn").path)
        let rows = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT GameID, Moves, FEN FROM PositionMoves ORDER BY GameID").map {
                (id: $0[0] as Int64, codes: [UInt8]($0[1] as Data), fen: $0[2] as String?)
            }
        }
        XCTAssertGreaterThan(rows.count, 30)
        /// Every game whose mainline reaches `target`, replayed to its end with no filter.
        func reference(_ target: Position) throws -> [PositionMatch] {
            try rows.compactMap { row in
                let replay = MovesReplay()
                replay.reset(to: try row.fen.map { try Position(fen: $0) } ?? .startingPosition)
                for ply in 0...(row.codes.count / 2) {
                    if replay.hash == target.hash { return PositionMatch(gameID: row.id, ply: ply) }
                    guard ply < row.codes.count / 2,
                        replay.play(UInt16(row.codes[2 * ply]) | UInt16(row.codes[2 * ply + 1]) << 8)
                    else { break }
                }
                return nil
            }
        }
        var targets: [Position] = []
        for row in rows.prefix(40) {
            var position = try row.fen.map { try Position(fen: $0) } ?? .startingPosition
            var ply = 0
            for move in Moves2.decode(row.codes, from: position) ?? [] {
                if ply % 5 == 0 || ply == 1 { targets.append(position) }
                if ply % 7 == 3, let other = position.legalMoves.last { targets.append(position.playing(other)) }
                position.play(move)
                ply += 1
            }
            targets.append(position)
        }
        var inTree = 0
        for target in targets {
            let expected = try reference(target)
            XCTAssertEqual(try database.games(reaching: target), expected, target.fen)
            let (total, first) = try database.search(target, limit: 3)
            XCTAssertEqual(total, expected.count, target.fen)
            XCTAssertEqual(first, Array(expected.prefix(3)), target.fen)
            if try database.treeCount(target) != nil { inTree += 1 }
        }
        XCTAssertGreaterThan(inTree, 20, "counts from the tree were checked too")
    }
}
