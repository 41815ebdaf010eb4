"""Differential test of the explorer's filters (`pgn-lsp explore --player --color --since --until
--min-elo --max-elo --speed`) against python-chess: the lichess file, with every third game given
to one player, imported; for each filter, the games python-chess keeps by the same rules are
replayed, and the counts and next moves after 0-3 plies of the most played line must be those
the command prints (games, results, each move's games and results)."""
import json
import subprocess

import chess
import chess.pgn
import pytest

from conftest import binary, shared


def speed(time_control):
    text = (time_control or "").strip()
    if not text or text == "?":
        return None
    if text == "-" or "/" in text:
        return "correspondence"
    base, _, increment = text.partition("+")
    try:
        estimate = int(base) + 40 * int(increment or 0)
    except ValueError:
        return None
    for limit, name in ((30, "ultraBullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid")):
        if estimate < limit:
            return name
    return "classical"


def elo(headers, side):
    try:
        return int(headers.get(f"{side}Elo", ""))
    except ValueError:
        return 0


def kept(game, options):
    h = game.headers
    if "--player" in options:
        sides = {"white": ["White"], "black": ["Black"]}.get(options.get("--color"), ["White", "Black"])
        if not any(h.get(side) == "Test Player" for side in sides):
            return False
    date = h.get("Date", "")
    if "--since" in options and date < options["--since"]:
        return False
    if "--until" in options and date > options["--until"] + ".99.99"[len(options["--until"]) - 4:]:
        return False
    if "--min-elo" in options or "--max-elo" in options:
        white, black = elo(h, "White"), elo(h, "Black")
        if white <= 0 or black <= 0:
            return False
        if "--min-elo" in options and white + black < 2 * int(options["--min-elo"]):
            return False
        if "--max-elo" in options and white + black > 2 * int(options["--max-elo"]):
            return False
    if "--speed" in options and speed(h.get("TimeControl")) != options["--speed"]:
        return False
    return True


def counts(games, line):
    """(games, [white, draw, black], {san: games}) of the games whose mainline passes the position
    after `line` within 40 plies (once a game)."""
    board = chess.Board()
    for san in line:
        board.push_san(san)
    target = board.epd(en_passant="legal")
    total, results, moves = 0, [0, 0, 0], {}
    for game in games:
        position = game.board()
        mainline = list(game.mainline_moves())
        for ply in range(min(len(mainline), 40) + 1):
            if position.epd(en_passant="legal") == target:
                total += 1
                result = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}.get(game.headers.get("Result"))
                if result is not None:
                    results[result] += 1
                if ply < len(mainline):
                    san = position.san(mainline[ply])
                    moves[san] = moves.get(san, 0) + 1
                break
            if ply < len(mainline):
                position.push(mainline[ply])
    return total, results, moves


FILTERS = [
    {"--player": "test player"},
    {"--player": "test player", "--color": "black"},
    {"--speed": "blitz"},
    {"--speed": "bullet", "--min-elo": "1800"},
    {"--min-elo": "1500", "--max-elo": "2000"},
    {"--since": "2025.05.01", "--until": "2025.05"},
]


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    folder = tmp_path_factory.mktemp("filters")
    games = []
    with open(shared("corpus/lichess/lichess_db_1000k.pgn"), encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    for k, game in enumerate(games):
        if k % 3 == 0:
            game.headers["White" if k % 2 == 0 else "Black"] = "Test Player"
    source = folder / "games.pgn"
    source.write_text("\n\n".join(str(game) for game in games) + "\n")
    db = folder / "games.ocgdb.db3"
    subprocess.run([str(binary()), "import", "--db", str(db), str(source)], check=True, capture_output=True)
    return db, games


@pytest.mark.parametrize("options", FILTERS, ids=lambda o: " ".join(f"{k} {v}" for k, v in o.items()))
def test_filtered_counts_agree_with_python_chess(database, options):
    db, games = database
    chosen = [game for game in games if kept(game, options)]
    assert chosen, options
    line = []
    for _ in range(4):
        total, results, moves = counts(chosen, line)
        args = [str(binary()), "explore", "--db", str(db), "--format", "json", "--moves", " ".join(line)]
        for key, value in options.items():
            args += [key, value]
        made = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert made.returncode == (0 if total else 1), made.stderr
        answer = json.loads(made.stdout)
        assert (answer["games"], [answer["whiteWins"], answer["draws"], answer["blackWins"]]) == (total, results), \
            (options, line)
        assert {move["san"]: move["games"] for move in answer["moves"]} == moves, (options, line)
        if not moves:
            break
        line.append(max(moves, key=lambda san: (moves[san], san)))


def test_a_player_no_game_has_is_said_with_the_closest_names(database):
    db, _ = database
    made = subprocess.run([str(binary()), "explore", "--db", str(db), "--player", "test playr"],
                          capture_output=True, text=True)
    assert made.returncode == 1
    assert "no game of a player named test playr; did you mean: Test Player" in made.stderr
    made = subprocess.run([str(binary()), "explore", "--db", str(db), "--color", "white"],
                          capture_output=True, text=True)
    assert made.returncode == 64 and "--color goes with --player" in made.stderr
