"""Differential test of the PGN reader and game replay against python-chess.

For every game of the corpus files below, `pgn-lsp check --format json` and python-chess's
`read_game` must agree on which games are legal and, for the others, on the first move that
cannot be played (illegal, ambiguous or not a move at all). Deliberate differences are listed
in DIFFERENCES with their reasons.
"""
import io
import json
import re

import chess.pgn
import pytest

from conftest import run, shared_files

# The project has the lichess, chess-library and pgn-lsp files; the others come with the shared folder.
FOLDERS = ["lichess", "collections", "pgn-extract", "python-chess", "scid", "chess-library", "pychess", "pgn-lsp"]
FILES = [(f"{folder}/{name}", path) for folder in FOLDERS for name, path in shared_files(f"corpus/{folder}")]
MOVE_CODES = {"illegal-move", "ambiguous-move", "unknown-move"}

# file name → reason. Games of these files are compared only where the reason allows.
DIFFERENCES = {
    # python-chess plays crazyhouse and antichess; pgn-lsp reports the variant as unsupported
    # once and does not replay the game.
    "knightvuillaume-jannlee-zh-lichess.pgn": "variant",
    "saturs-jannlee-zh-lichess.pgn": "variant",
    "antichess-programfox.pgn": "variant",
    # Games without tags, one a line, each ended by its result: pgn-lsp reads four games (the
    # standard ends a game at its termination marker); python-chess reads one and fails on
    # the second line's Nf3 as a move of the first game.
    "test-fuzzydepth.pgn": ("split", [None] * 4),
    # Each line is `[Result "…"] e4 <result>`: pgn-lsp reads the movetext after the tag on
    # the same line, nine games; python-chess skips it and reads one game without moves.
    "test-nobadresults.pgn": ("split", [None] * 9),
    # A blank line inside the movetext (Scid writes them): python-chess ends the game there
    # and replays the rest as a new game from the start position (Nf6 is then illegal);
    # pgn-lsp reads on to the result marker: one game, every move legal.
    "res_gameLatin1.pgn": ("split", [None]),
    "latin1-blank-line.pgn": ("split", [None]),
    # A comment before the first tag, then tagged games: python-chess reads the comment as a game
    # without moves (eco.pgn's games have no names, so it is counted with the first one there);
    # pgn-lsp gives it to no game.
    "comment-before-tags.pgn": ("split", [None] * 3),
    # Games made of tags and a result only, one after another: pgn-lsp reads each game;
    # python-chess reads them as one.
    "no_moves_but_comment_followed_by_termination_marker.pgn": ("split", [None] * 2),
    "no_moves_but_game_termination_multiple_2.pgn": ("split", [None] * 3),
    # German piece letters (`2. Sf3 Sc6 3. Lb5`): pgn-lsp reports `Sf3`, which names a square
    # but is no move; python-chess finds `f3` inside it and plays a pawn, then `c6`, and stops at
    # `b5`. And a variation before any move, `(1. d4 d5) 1. e4`: python-chess plays its moves
    # in the mainline and stops at `d6`; pgn-lsp reads the mainline whole.
    "faults.pgn": ("stops", ["Nd3", "Nd7", "Bh3", "Nd4", "Sf3", None]),
}


def read_text(path):
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def python_chess_games(path):
    """Per game: the text of the first move python-chess could not play, or None.

    python-chess ends a game at a blank line that follows a comment before the first move
    (pgn-extract's files write `{ Game played … }` that way), and reads the moves after it as
    a second game without tags. pgn-lsp reads one game with a leading comment, as the standard
    says: the two python-chess games are counted as one here.
    """
    handle = io.StringIO(read_text(path))
    games = []
    previous_was_empty = False
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            break
        first = None
        for error in game.errors:
            match = re.search(r"(?:illegal|ambiguous|invalid) san: '([^']*)'", str(error))
            if match:
                first = match.group(1)
                break
        empty = first is None and game.next() is None and not game.variations
        untagged = all(game.headers.get(name) == "?" for name in ("Event", "Site", "White", "Black"))
        if previous_was_empty and untagged and games:
            games[-1] = first
        else:
            games.append(first)
        previous_was_empty = empty
    return games


def pgn_lsp_games(path):
    """Per game: the text of the first move pgn-lsp reports as unplayable, or None."""
    result = run(["check", "--format", "json", str(path)], check=False)
    assert result.returncode in (0, 1), result.stderr
    [report] = json.loads(result.stdout)
    lines = read_text(path).replace("\r\n", "\n").split("\n")
    firsts = [None] * report["games"]
    for d in sorted(report["diagnostics"], key=lambda d: (d["line"], d["column"])):
        if d["code"] in MOVE_CODES and d.get("game") and firsts[d["game"] - 1] is None:
            assert d["line"] == d["endLine"], d
            firsts[d["game"] - 1] = lines[d["line"] - 1][d["column"] - 1:d["endColumn"] - 1]
    variants = {d["game"] for d in report["diagnostics"] if d["code"] == "unsupported-variant"}
    return firsts, variants


@pytest.mark.parametrize("path", [path for _, path in FILES], ids=[name for name, _ in FILES])
def test_same_games_legal_and_same_first_illegal_move(path):
    theirs = python_chess_games(path)
    ours, variants = pgn_lsp_games(path)
    reason = DIFFERENCES.get(path.name)
    if isinstance(reason, tuple):
        # python-chess reads these files differently (see DIFFERENCES): pgn-lsp must read the
        # games the file holds and report exactly the unplayable moves listed there.
        kind, expected = reason
        assert (len(theirs) != len(ours)) if kind == "split" else (theirs != ours)
        assert ours == expected
        return
    assert len(ours) == len(theirs), f"{len(ours)} games, python-chess reads {len(theirs)}"
    compared = 0
    for index, (mine, other) in enumerate(zip(ours, theirs), start=1):
        if reason == "variant" and index in variants:
            continue
        assert mine == other, f"game {index}: pgn-lsp stops at {mine!r}, python-chess at {other!r}"
        compared += 1
    assert compared > 0 or reason == "variant"
