"""`pgn-lsp index`, `search` and `explore` as a user runs them: exit statuses, the messages of
bad input (a FEN, moves, a file that is missing or not a database), --limit, the PGN output
read back by python-chess, and an index that another program's writes made out of date."""
import io
import json
import re
import shutil
import sqlite3

import chess
import chess.pgn
import pytest

from conftest import run, shared

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"
NOWHERE = "4k3/8/8/8/8/8/8/4K2R w K -"
USAGE_ERROR = 64  # what ArgumentParser exits with for an error of the arguments or the files


@pytest.fixture(scope="module")
def lichess(tmp_path_factory):
    """The 1 MB lichess file (438 games) imported with its index, and python-chess's games."""
    source = shared("corpus/lichess/lichess_db_1000k.pgn")
    db = tmp_path_factory.mktemp("position-cli") / "lichess.db3"
    run(["import", "--db", str(db), str(source)])
    games = []
    with open(source, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return db, games


def reaching(games, fen: str) -> list[int]:
    """The IDs (from 1, file order) of the games whose mainline reaches the position of `fen`."""
    key = chess.Board(fen)._transposition_key()
    found = []
    for number, game in enumerate(games, 1):
        board = game.board()
        keys = {board._transposition_key()}
        for move in game.mainline_moves():
            board.push(move)
            keys.add(board._transposition_key())
        if key in keys:
            found.append(number)
    return found


def error(result) -> str:
    """The first line of what a failed command wrote (ArgumentParser adds its usage after it)."""
    return result.stderr.splitlines()[0]


def test_search_exit_statuses_text_and_limit(lichess):
    db, games = lichess
    expected = reaching(games, AFTER_E4_E5 + " 0 1")
    found = run(["search", "--db", str(db), "--fen", AFTER_E4_E5, "--limit", "3"])
    lines = found.stdout.splitlines()
    assert lines[0].startswith(f"{len(expected)} games reach {AFTER_E4_E5} (") and lines[0].endswith(
        "s), the first 3:"), lines[0]
    assert [line.split()[0] for line in lines[1:]] == [f"#{k}" for k in expected[:3]]
    assert all(line.split()[1:3] == ["ply", "2"] for line in lines[1:])
    # --limit 0: the count alone; the JSON's total counts all games whatever the limit.
    alone = run(["search", "--db", str(db), "--fen", AFTER_E4_E5, "--limit", "0"]).stdout
    assert alone.startswith(f"{len(expected)} games reach {AFTER_E4_E5} (") and alone.endswith(" s)\n"), alone
    answer = json.loads(run(["search", "--db", str(db), "--fen", AFTER_E4_E5, "--format", "json",
                             "--limit", "5"]).stdout)
    assert answer["total"] == len(expected) and [g["id"] for g in answer["games"]] == expected[:5]
    assert answer["fen"] == AFTER_E4_E5 and answer["games"][0]["white"] == games[expected[0] - 1].headers["White"]
    # The default limit is 50.
    many = json.loads(run(["search", "--db", str(db), "--fen", START, "--format", "json"]).stdout)
    assert many["total"] == len(games) and len(many["games"]) == 50
    # No game: exit status 1, with the count.
    none = run(["search", "--db", str(db), "--fen", NOWHERE], check=False)
    assert none.returncode == 1 and none.stdout.startswith(f"0 games reach {NOWHERE} (")
    assert json.loads(run(["search", "--db", str(db), "--fen", NOWHERE, "--format", "json"], check=False).stdout)[
        "total"] == 0
    negative = run(["search", "--db", str(db), "--fen", START, "--limit=-1"], check=False)
    assert negative.returncode == USAGE_ERROR and error(negative) == "Error: --limit must be 0 or more"


def test_search_as_pgn_gives_games_python_chess_reads_back(lichess):
    db, games = lichess
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    expected = reaching(games, fen)
    result = run(["search", "--db", str(db), "--fen", fen, "--format", "pgn", "--limit", "7"])
    assert result.stderr == f"{len(expected)} games reach {' '.join(fen.split()[:4])}\n"
    handle = io.StringIO(result.stdout)
    read = []
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors
        read.append(game)
    assert [g.headers["Site"] for g in read] == [games[k - 1].headers["Site"] for k in expected[:7]]
    for game in read:
        original = games[[g.headers["Site"] for g in games].index(game.headers["Site"])]
        assert list(game.mainline_moves()) == list(original.mainline_moves())
    none = run(["search", "--db", str(db), "--fen", NOWHERE, "--format", "pgn"], check=False)
    assert none.returncode == 1 and none.stdout == "" and none.stderr == f"0 games reach {NOWHERE}\n"


def test_a_partial_fen_is_completed_and_a_bad_one_named(lichess):
    db, games = lichess
    board_only = json.loads(run(["search", "--db", str(db), "--fen", START.split()[0], "--format", "json",
                                 "--limit", "0"]).stdout)
    assert board_only["fen"] == START and board_only["total"] == len(games)
    black = json.loads(run(["search", "--db", str(db), "--fen", "4k2r/8/8/8/8/8/8/R3K3 b", "--format", "json"],
                           check=False).stdout)
    assert black["fen"] == "4k2r/8/8/8/8/8/8/R3K3 b Qk -"
    for fen, message in [
        ("bad fen", "Error: --fen: FEN piece placement, character 2: unexpected character 'a'"),
        (START.replace(" -", " e3"), "Error: --fen: FEN en-passant square, character 52: en-passant square e3 is "
                                     "impossible: it must be on rank 6 with White to move"),
        ("rnbqkbnr/pppppppp/8/8 w", None),
    ]:
        for command in ("search", "explore"):
            result = run([command, "--db", str(db), "--fen", fen], check=False)
            assert result.returncode == USAGE_ERROR and result.stdout == "", (command, fen)
            assert error(result).startswith("Error: --fen: FEN "), result.stderr
            if message:
                assert error(result) == message


def explore_json(db, *args):
    result = run(["explore", "--db", str(db), "--format", "json", *args], check=False)
    return result.returncode, json.loads(result.stdout)


def test_explore_moves_and_their_errors(lichess):
    db, games = lichess
    text = run(["explore", "--db", str(db), "--moves", "1.e4 e5 2. Nf3"]).stdout.splitlines()
    after = chess.Board()
    for san in ["e4", "e5", "Nf3"]:
        after.push_san(san)
    count = len(reaching(games, after.fen()))
    assert text[0] == " ".join(after.fen().split()[:4])
    assert text[1].startswith(f"{count} games: ")
    assert text[3].split() == ["move", "games", "share", "white", "/", "draw", "/", "black", "white", "score",
                               "best", "rated", "game"]
    # Castling in --moves, and move numbers glued to the moves or for Black.
    castled = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O"]:
        castled.push_san(san)
    status, answer = explore_json(db, "--moves", "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O")
    assert answer["fen"] == " ".join(castled.fen().split()[:4])
    assert (status, answer["games"]) == ((0, len(reaching(games, castled.fen()))) if answer["games"] else (1, 0))
    status, answer = explore_json(db, "--moves", "1. e4 1... e5")
    assert status == 0 and answer["games"] == len(reaching(games, AFTER_E4_E5 + " 0 2")) > 0
    for moves, message in [
        ("1. e4 e5 2. Ke3", 'Error: --moves: "Ke3" is not a legal move after 1. e4 e5'),
        ("e5", 'Error: --moves: "e5" is not a legal move after the start'),
        ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O-O", 'Error: --moves: "O-O-O" is not a legal move after '
                                                              "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6"),
    ]:
        result = run(["explore", "--db", str(db), "--moves", moves], check=False)
        assert result.returncode == USAGE_ERROR and result.stdout == "" and error(result) == message
    # From a FEN, and a position no game reached: exit status 1.
    deep = run(["explore", "--db", str(db), "--fen", NOWHERE, "--moves", "1. Rh8+"], check=False)
    assert deep.returncode == 1
    assert deep.stdout == "4k2R/8/8/8/8/8/8/4K3 b - -\nno game of the database reaches this position\n"
    status = run(["explore", "--db", str(db), "--fen", NOWHERE, "--format", "json"], check=False)
    assert status.returncode == 1 and json.loads(status.stdout)["games"] == 0


@pytest.mark.parametrize("command", [["search", "--fen", START], ["explore"], ["index"], ["index", "--check"],
                                     ["index", "--remove"]])
def test_a_missing_file_or_one_that_is_no_database_is_an_error_and_stays_as_it_was(tmp_path, command):
    missing = tmp_path / "typo.db3"
    result = run([command[0], "--db", str(missing), *command[1:]], check=False)
    assert result.returncode == USAGE_ERROR and result.stdout == ""
    assert error(result) == f"Error: {missing} is not a game database this program can write: the file does not exist"
    assert not missing.exists(), "no new file for a mistyped path"
    notes = tmp_path / "notes.db3"
    notes.write_text("not a database\n")
    result = run([command[0], "--db", str(notes), *command[1:]], check=False)
    assert result.returncode == USAGE_ERROR
    assert error(result) == f"Error: {notes} is not a game database this program can write: the file is not SQLite"
    assert notes.read_text() == "not a database\n"
    other = tmp_path / "other.db3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE Notes (Text TEXT)")
    before = other.read_bytes()
    result = run([command[0], "--db", str(other), *command[1:]], check=False)
    assert result.returncode == USAGE_ERROR
    # Refused before anything is said of building an index: by the reader first, unless the
    # command writes.
    if command[0] != "index" or command[1:] == ["--check"]:
        assert error(result) == f"Error: {other} is not a game database this program can write: it has no Games table"
    else:
        assert result.stderr.startswith(f"Error: {other} is a SQLite database of another program, left unchanged"), \
            result.stderr
    assert other.read_bytes() == before


def test_index_statuses_build_and_remove(lichess, tmp_path):
    db, games = lichess
    plain = tmp_path / "plain.db3"
    source = shared("corpus/lichess/lichess_db_1000k.pgn")
    run(["import", "--no-position-index", "--db", str(plain), str(source)])

    def check(path):
        result = run(["index", "--db", str(path), "--check"], check=False)
        return result.returncode, result.stdout

    assert check(db) == (0, f"{db}: the database's position index is up to date\n")
    assert check(plain) == (1, f"{plain}: the database has no position index; build it with: pgn-lsp index --db {plain}\n")
    built = run(["index", "--db", str(plain)])
    assert built.stdout.startswith(f"{plain}: {len(games)} games indexed in ") and built.stdout.endswith(" s\n")
    assert check(plain)[0] == 0
    # The index made by `index` answers as the one made by import.
    for fen in [START, AFTER_E4_E5]:
        assert run(["search", "--db", str(plain), "--fen", fen, "--format", "json", "--limit", "1000"]).stdout \
            .split('"seconds"')[0] == \
            run(["search", "--db", str(db), "--fen", fen, "--format", "json", "--limit", "1000"]).stdout \
            .split('"seconds"')[0]
    with sqlite3.connect(plain) as connection:
        connection.execute("UPDATE PositionIndexState SET Version = Version + 1")
    assert check(plain) == (1, f"{plain}: the database's position index is out of date (made by another version "
                               f"of pgn-lsp); build it with: pgn-lsp index --db {plain}\n")
    assert run(["index", "--db", str(plain), "--remove"]).stdout == f"{plain}: position index removed\n"
    assert check(plain) == (1, f"{plain}: the database has no position index; build it with: pgn-lsp index --db {plain}\n")
    with sqlite3.connect(plain) as connection:
        assert connection.execute("SELECT name FROM sqlite_master WHERE name LIKE 'Position%'").fetchall() == []
    # A search on a file without the index builds it first and says so.
    result = run(["search", "--db", str(plain), "--fen", START, "--limit", "0"])
    assert result.stderr == f"the database has no position index: building it\n{len(games)} games indexed\n"
    assert check(plain)[0] == 0


def test_the_index_changed_behind_its_back_is_noticed_and_built_again(lichess, tmp_path):
    built, games = lichess
    db = tmp_path / "changed.db3"
    shutil.copy(built, db)

    def answers():
        searched = run(["search", "--db", str(db), "--fen", AFTER_E4_E5, "--format", "json", "--limit", "1000"])
        explored = run(["explore", "--db", str(db), "--moves", "1. e4", "--format", "json"])
        return json.loads(searched.stdout)["games"], json.loads(explored.stdout), searched.stderr + explored.stderr

    def check():
        result = run(["index", "--db", str(db), "--check"], check=False)
        return result.returncode, result.stdout

    searched, explored, notes = answers()
    assert [game["id"] for game in searched] == reaching(games, AFTER_E4_E5) and notes == ""
    # Rows of the index's own tables deleted or changed with SQL: the triggers on them count it.
    own_tables = re.compile(rf"{re.escape(str(db))}: the database's position index is out of date \(\d+ changes? to "
                            rf"its own tables by another program\); build it with: pgn-lsp index --db {re.escape(str(db))}\n")
    for statement in ["DELETE FROM PositionTree WHERE Games > 20", "UPDATE PositionTree SET Games = Games * 2",
                      "UPDATE PositionMoves SET Moves = X'' WHERE GameID % 2 = 0",
                      "DELETE FROM PositionMoves WHERE GameID > 100"]:
        with sqlite3.connect(db) as connection:
            connection.execute(statement)
        status, output = check()
        assert status == 1 and own_tables.fullmatch(output), (statement, output)
        assert answers()[:2] == (searched, explored), statement
        assert check()[0] == 0
    # Games removed by a program that dropped the trigger that counts it, and made it again.
    removed = reaching(games, AFTER_E4_E5)[::2]
    with sqlite3.connect(db) as connection:
        trigger = connection.execute("SELECT sql FROM sqlite_master WHERE name = 'PositionIndexGameRemoved'").fetchone()[0]
        connection.execute("DROP TRIGGER PositionIndexGameRemoved")
        connection.execute(f"DELETE FROM Games WHERE ID IN ({', '.join(map(str, removed))})")
        connection.execute(trigger)
    assert check() == (1, f"{db}: the database's position index is out of date (games added or removed by another "
                          f"program that wrote with the triggers turned off: {len(games) - len(removed)} games now, "
                          f"{len(games)} in the index); build it with: pgn-lsp index --db {db}\n")
    searched_now, _, notes = answers()
    assert [game["id"] for game in searched_now] == [id for id in reaching(games, AFTER_E4_E5) if id not in removed]
    assert "games added or removed by another program that wrote with the triggers turned off" in notes
    assert check()[0] == 0
