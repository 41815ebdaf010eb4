"""`pgn-lsp repertoire check`: its table, its exit statuses, and what it says when it cannot work
(an unreadable file, a repertoire game with no side, a player with no game)."""
import json
import subprocess

from conftest import binary

WHITE = """[Event "Ruy Lopez"]
[ChesstempoRepertoireColour "white"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 (3... Nf6 4. O-O) 4. Ba4 *
"""

BLACK = """[Event "Nimzo-Indian"]
[Orientation "Black"]

1. d4 Nf6 2. c4 e6 3. Nc3 (3. Nf3 b6) 3... Bb4 *

[Event "English"]
[Orientation "black"]

1. c4 Nf6 2. Nc3 e6 *
"""

GAMES = """[White "Someone"]
[Black "Carlsen, Magnus"]
[Result "0-1"]

1. c4 Nf6 2. d4 e6 3. Nc3 Bb4 4. e3 O-O 0-1

[White "Carlsen, Magnus"]
[Black "Other"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 1-0

[White "Carlsen, Magnus"]
[Black "Other"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 d6 3. d4 1/2-1/2
"""


def repertoire_check(tmp_path, *args, games=GAMES, black=BLACK):
    (tmp_path / "white.pgn").write_text(WHITE)
    (tmp_path / "black.pgn").write_text(black)
    (tmp_path / "games.pgn").write_text(games)
    return subprocess.run(
        [str(binary()), "repertoire", "check", "--repertoire", str(tmp_path / "white.pgn"), "--repertoire",
         str(tmp_path / "black.pgn"), *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_the_table_says_who_left_where_and_the_status_is_1_when_the_player_did(tmp_path):
    made = repertoire_check(tmp_path, "--player", "carlsen m", "games.pgn")
    assert made.returncode == 1, made.stderr
    lines = made.stdout.splitlines()
    assert lines[1] == "Games of carlsen m: 3 (2 as White, 1 as Black)"
    (nimzo,) = [line for line in lines if line.startswith("Black · Nimzo-Indian")]
    # The first game reached the Nimzo-Indian through the English's move order.
    assert "1/1 (100%)" in nimzo and nimzo.split()[-4:] == ["0", "0", "1", "0"]
    (left,) = [line for line in lines if " you " in f" {line} " and "Bc4" in line]
    assert left.split()[-5:-2] == ["Bc4", "Bb5", "1"]
    (opponent,) = [line for line in lines if "·" in line and "opponent" in line.split()]
    assert "d6" in opponent.split() and "Nc6" in opponent.split()


def test_status_0_when_only_opponents_left_and_json(tmp_path):
    games = GAMES.split("\n\n[White \"Carlsen, Magnus\"]")[0] + "\n"
    made = repertoire_check(tmp_path, "--player", "Carlsen", "--format", "json", "games.pgn", games=games)
    assert made.returncode == 0, made.stderr
    (game,) = json.loads(made.stdout)["games"]
    assert game == {
        "file": "games.pgn", "game": 1, "white": "Someone", "black": "Carlsen, Magnus", "color": "black",
        "points": 1.0, "kind": "ended", "ply": 6, "moveNumber": "4.", "played": None, "prepared": [],
        "place": {"file": str(tmp_path / "black.pgn"), "game": 1, "line": 4, "chapter": "Nimzo-Indian"},
    }


def test_what_it_cannot_work_with_is_status_2_and_said(tmp_path):
    made = repertoire_check(tmp_path, "--player", "carlson", "games.pgn")
    assert made.returncode == 2
    assert "no game of a player named carlson; did you mean: Carlsen, Magnus" in made.stderr
    made = repertoire_check(tmp_path, "--player", "carlsen", "missing.pgn")
    assert made.returncode == 2 and "cannot read missing.pgn" in made.stderr
    no_side = BLACK.replace('[Orientation "black"]\n', "")
    made = repertoire_check(tmp_path, "--player", "carlsen", "games.pgn", black=no_side)
    assert made.returncode == 2 and "game 2 of" in made.stderr and "give --color" in made.stderr
    made = repertoire_check(tmp_path, "--player", "carlsen", "--color", "black", "games.pgn", black=no_side)
    assert made.returncode == 1, made.stderr
    made = repertoire_check(tmp_path, "--player", "carlsen", "--color", "green", "games.pgn")
    assert made.returncode == 64 and "--color must be white or black" in made.stderr
