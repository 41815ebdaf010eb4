"""Differential test of opening names against python-chess.

pgn-lsp names a game by lichess's list of openings (built into it from the list's TSV files,
CC0): the name of the last position of the mainline that the list names, positions compared as
EPD (FEN without the clocks; an en-passant square only where a capture there is legal). Here
python-chess replays every line of the list and every corpus game by the same rule, and
`pgn-lsp check --format json` must give every game the same opening.
"""
import io
import json
import re

import chess
import chess.pgn
import pytest

from conftest import ROOT, SHARED, run, shared_files
from test_pgn_replay import DIFFERENCES

DATA = ROOT / "Sources" / "PGN" / "Openings" / "OpeningData.swift"
FOLDERS = ["lichess", "collections", "pgn-extract", "python-chess", "scid", "chess-library", "pychess", "pgn-lsp"]
FILES = [(f"{folder}/{name}", path) for folder in FOLDERS for name, path in shared_files(f"corpus/{folder}")]


def embedded_lines():
    lines = DATA.read_text().split("\n")
    first = next(i for i, line in enumerate(lines) if line.endswith('#"""')) + 1
    last = next(i for i, line in enumerate(lines) if line.strip() == '"""#')
    # The literal's lines are indented as its closing delimiter is: Swift strips that much.
    indent = len(lines[last]) - len(lines[last].lstrip())
    return [line[indent:] for line in lines[first:last]]


def book():
    """EPD → (eco, name), the first line of the list that reaches a position naming it."""
    named = {}
    for line in embedded_lines():
        eco, name, moves = line.split("\t")
        board = chess.Board()
        for word in moves.split():
            if not re.fullmatch(r"\d+\.", word):
                board.push_san(word)
        named.setdefault(board.epd(), (eco, name))
    return named


BOOK = None


def classify(game):
    """The opening of a python-chess game: the last named position of its mainline, the start
    position included."""
    global BOOK
    BOOK = BOOK or book()
    board = game.board()
    found = BOOK.get(board.epd())
    for move in game.mainline_moves():
        board.push(move)
        found = BOOK.get(board.epd(), found)
    return found


def test_the_built_in_list_is_lichess_list():
    folder = SHARED / "data" / "chess-openings"
    if not folder.exists():
        pytest.skip(f"needs data/chess-openings of the shared folder (lichess-org/chess-openings, CC0): not in {SHARED}")
    lines = []
    for name in "abcde":
        lines += (folder / f"{name}.tsv").read_text().rstrip("\n").split("\n")[1:]
    assert embedded_lines() == lines
    assert len(lines) == 3807


@pytest.mark.parametrize("name,path", FILES, ids=[name for name, _ in FILES])
def test_every_game_gets_the_opening_python_chess_gives(name, path):
    difference = DIFFERENCES.get(path.name)
    if difference == "variant" or (isinstance(difference, tuple) and difference[0] == "split"):
        pytest.skip(f"python-chess and pgn-lsp read this file's games differently (test_pgn_replay.py: {difference})")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    report = json.loads(run(["check", "--format", "json", str(path)], check=False).stdout)[0]
    ours = report["openings"]
    theirs = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        theirs.append(game)
    if len(theirs) != len(ours):
        # python-chess also reads a game out of text with no tags and no moves (a comment before
        # the first game, the end of a file); pgn-lsp does not.
        theirs = [g for g in theirs if g.mainline_moves() or any(v not in ("?", "????.??.??", "*") for v in g.headers.values())]
    if len(theirs) != len(ours):
        pytest.skip(f"python-chess reads {len(theirs)} games and pgn-lsp {len(ours)} (see test_pgn_replay.py)")
    compared = 0
    for number, (game, opening) in enumerate(zip(theirs, ours), start=1):
        # Games python-chess could not replay whole, and variants, are compared by the replay tests.
        if game.errors or game.headers.get("Variant", "Standard").lower() not in ("standard", "chess960", "from position"):
            continue
        expected = classify(game)
        got = (opening["eco"], opening["name"]) if opening else None
        assert got == expected, f"game {number}"
        compared += 1
    if compared == 0 and theirs:
        pytest.skip("no game of this file does python-chess replay whole as standard chess")
