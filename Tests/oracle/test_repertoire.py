"""Differential test of `pgn-lsp repertoire check` against python-chess.

Two repertoires are made from the lichess corpus file with python-chess: the first ten plies of
forty games merged into one tree of nested variations for White, and of forty other games for
Black, split into chapters. Every game of the file is given to one player ("Test Player", White
in the even games, Black in the odd ones) and followed through the repertoire of their side,
here with python-chess positions (board, side to move, castling, a capturable en-passant
square: transpositions are one position) and by pgn-lsp. Both must say, for every game, who
left the repertoire, at which ply, with which move, and what the repertoire had there.
"""
import io
import json
import subprocess

import chess
import chess.pgn

from conftest import binary, shared

PLIES = 10


def key(board: chess.Board) -> str:
    return board.epd(en_passant="legal")


def read_games(path):
    games = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def chapters(sources, side, per_chapter):
    """Chapters of a repertoire: the first PLIES plies of `per_chapter` games merged into one tree
    each, with the Orientation tag of `side`."""
    result = []
    for start in range(0, len(sources), per_chapter):
        chapter = chess.pgn.Game()
        chapter.headers.clear()
        chapter.headers["Event"] = f"{side} chapter {start // per_chapter + 1}"
        chapter.headers["Orientation"] = side
        for source in sources[start:start + per_chapter]:
            node = chapter
            for move in list(source.mainline_moves())[:PLIES]:
                node = node.variation(move) if node.has_variation(move) else node.add_variation(move)
        result.append(chapter)
    return result


def positions_and_moves(repertoire):
    positions, moves = set(), {}
    for chapter in repertoire:
        board = chapter.board()
        positions.add(key(board))

        def walk(node, board):
            for child in node.variations:
                before = key(board)
                san = board.san(child.move)
                moves.setdefault(before, [])
                if san not in moves[before]:
                    moves[before].append(san)
                board.push(child.move)
                positions.add(key(board))
                walk(child, board)
                board.pop()

        walk(chapter, board)
    return positions, moves


TRANSPOSED = []


def follow(game, side, positions, moves):
    """(kind, ply, played, prepared) as `repertoire check --format json` gives them; counts the
    moves that stayed in the repertoire by transposition (not written in the position before)."""
    board = game.board()
    if key(board) not in positions:
        return ("notMet", 0, None, [])
    mainline = list(game.mainline_moves())
    for ply, move in enumerate(mainline):
        before = key(board)
        prepared = moves.get(before, [])
        san = board.san(move)
        turn = "white" if board.turn == chess.WHITE else "black"
        board.push(move)
        if key(board) in positions:
            if san not in prepared:
                TRANSPOSED.append(san)
            continue
        if not prepared:
            return ("ended", ply, None, [])
        return ("player" if turn == side else "opponent", ply, san, sorted(prepared))
    return ("stayed", len(mainline), None, sorted(moves.get(key(board), [])))


def test_where_each_game_left_the_repertoire_agrees_with_python_chess(tmp_path):
    games = read_games(shared("corpus/lichess/lichess_db_1000k.pgn"))
    white = chapters(games[:40], "white", 10)
    black = chapters(games[40:80], "black", 20)
    (tmp_path / "white.pgn").write_text("\n\n".join(str(c) for c in white) + "\n")
    (tmp_path / "black.pgn").write_text("\n\n".join(str(c) for c in black) + "\n")
    played = []
    for k, game in enumerate(games):
        game.headers["White" if k % 2 == 0 else "Black"] = "Test Player"
        played.append(str(game))
    (tmp_path / "games.pgn").write_text("\n\n".join(played) + "\n")
    made = subprocess.run(
        [str(binary()), "repertoire", "check", "--repertoire", str(tmp_path / "white.pgn"), "--repertoire",
         str(tmp_path / "black.pgn"), "--player", "test player", "--format", "json", str(tmp_path / "games.pgn")],
        capture_output=True, text=True, timeout=120)
    assert made.returncode in (0, 1), made.stderr
    answers = json.loads(made.stdout)["games"]
    assert len(answers) == len(games)
    repertoires = {"white": positions_and_moves(white), "black": positions_and_moves(black)}
    kinds = {}
    for k, (game, answer) in enumerate(zip(games, answers)):
        side = "white" if k % 2 == 0 else "black"
        assert answer["game"] == k + 1 and answer["color"] == side
        expected = follow(game, side, *repertoires[side])
        got = (answer["kind"], answer["ply"], answer["played"], sorted(answer["prepared"]))
        if expected[0] in ("ended",):
            got = got[:3] + ([],)
        assert got == expected, f"game {k + 1}"
        kinds[expected[0]] = kinds.get(expected[0], 0) + 1
    # The comparison covers every way of leaving, transpositions among the games' orders.
    assert {"player", "opponent", "ended"} <= set(kinds), kinds
    assert TRANSPOSED, "some games stay in the repertoire by transposition"
    assert made.returncode == 1, "the player left the repertoire in some games"
