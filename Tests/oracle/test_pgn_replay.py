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

from conftest import SHARED, run

FOLDERS = ["lichess", "collections", "pgn-extract", "python-chess", "scid"]
FILES = sorted(p for folder in FOLDERS for p in (SHARED / "corpus" / folder).rglob("*.pgn"))
MOVE_CODES = {"illegal-move", "ambiguous-move", "unknown-move"}

# file name → reason. Games of these files are compared only where the reason allows.
DIFFERENCES = {
    # python-chess plays crazyhouse and antichess; pgn-lsp reports the variant as unsupported
    # once and does not replay the game.
    "knightvuillaume-jannlee-zh-lichess.pgn": "variant",
    "saturs-jannlee-zh-lichess.pgn": "variant",
    "antichess-programfox.pgn": "variant",
}


def read_text(path):
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def python_chess_games(path):
    """Per game: the text of the first move python-chess could not play, or None."""
    handle = io.StringIO(read_text(path))
    games = []
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
        games.append(first)
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


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_same_games_legal_and_same_first_illegal_move(path):
    theirs = python_chess_games(path)
    ours, variants = pgn_lsp_games(path)
    assert len(ours) == len(theirs), f"{len(ours)} games, python-chess reads {len(theirs)}"
    reason = DIFFERENCES.get(path.name)
    compared = 0
    for index, (mine, other) in enumerate(zip(ours, theirs), start=1):
        if reason == "variant" and index in variants:
            continue
        assert mine == other, f"game {index}: pgn-lsp stops at {mine!r}, python-chess at {other!r}"
        compared += 1
    assert compared > 0 or reason == "variant"
