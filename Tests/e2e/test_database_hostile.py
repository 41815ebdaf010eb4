"""Databases that must not be damaged: another program's SQLite file, a file that is not SQLite,
a device, a path with a NUL character, two imports creating the same new file at once, a game
with a hundred thousand tags, and an import killed before its end, whose position index must not
answer as if it were up to date (nor one that runs, as if it had ended). Files are compared byte for byte, never opened with SQLite
before the comparison (opening a file in WAL mode makes files beside it)."""
import json
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import time

import pytest

from conftest import ROOT, binary, run
from lsp_client import LSPClient

SAMPLE = (ROOT / "samples" / "sample.pgn").read_text()


def foreign_database(path):
    """Another program's database: its own tables, in WAL mode."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE bookmarks (id INTEGER PRIMARY KEY, url TEXT)")
    db.execute("CREATE TABLE visits (bookmark INTEGER, time TEXT)")
    db.execute("INSERT INTO bookmarks (url) VALUES ('https://example.org')")
    db.commit()
    db.close()


def snapshot(path):
    return path.read_bytes(), sorted(p.name for p in path.parent.iterdir())


def in_wal_mode(path):
    header = path.read_bytes()[:20]
    return header[18] == 2 and header[19] == 2


def start_in(tmp_path, settings):
    client = LSPClient()
    client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                                  "initializationOptions": {"pgn": settings}})
    client.notify("initialized", {})
    return client


def save_error(tmp_path, settings):
    """The error message of a save with these settings (the file saved is not written to disk)."""
    client = start_in(tmp_path, settings)
    try:
        uri = (tmp_path / "sample.pgn").as_uri()
        client.open(uri, SAMPLE)
        answer = client.response(client.request_async("workspace/executeCommand",
                                                      {"command": "pgn.saveGame", "arguments": [uri, 0]}))
        assert "error" in answer, answer
        return answer["error"]["message"]
    finally:
        client.close()


def test_import_refuses_another_programs_database_and_leaves_it_unchanged(tmp_path):
    games = tmp_path / "games.pgn"
    games.write_text(SAMPLE)
    data = tmp_path / "data"
    data.mkdir()
    target = data / "browser.sqlite"
    foreign_database(target)
    before = snapshot(target)
    result = run(["import", "--db", str(target), str(games)], check=False)
    assert result.returncode != 0
    assert f"{target} is a SQLite database of another program" in result.stderr, result.stderr
    assert "bookmarks, visits and no Games or Info table" in result.stderr, result.stderr
    assert snapshot(target) == before
    assert in_wal_mode(target)
    # Its data is still there.
    assert sqlite3.connect(target).execute("SELECT url FROM bookmarks").fetchall() == [("https://example.org",)]


def test_the_editor_refuses_another_programs_database(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    target = data / "notes.db3"
    foreign_database(target)
    before = snapshot(target)
    message = save_error(tmp_path, {"database": {"path": str(target)}})
    assert "is a SQLite database of another program" in message, message
    assert snapshot(target) == before
    assert in_wal_mode(target)


def test_files_that_are_not_sqlite_are_refused_untouched(tmp_path):
    games = tmp_path / "games.pgn"
    games.write_text(SAMPLE)
    for name, content in [("notes.db3", b"my notes, not a database\n"), ("noise.db3", bytes(range(256)) * 16)]:
        folder = tmp_path / name.split(".")[0]
        folder.mkdir()
        target = folder / name
        target.write_bytes(content)
        result = run(["import", "--db", str(target), str(games)], check=False)
        assert result.returncode != 0
        assert "the file is not SQLite" in result.stderr, result.stderr
        assert snapshot(target) == (content, [name])


def test_an_empty_file_becomes_a_database(tmp_path):
    games = tmp_path / "games.pgn"
    games.write_text(SAMPLE)
    target = tmp_path / "empty.db3"
    target.write_bytes(b"")
    assert run(["import", "--db", str(target), str(games)]).stdout.endswith("3 stored, 0 duplicates, 0 refused\n")


def test_a_device_is_refused(tmp_path):
    games = tmp_path / "games.pgn"
    games.write_text(SAMPLE)
    result = run(["import", "--db", "/dev/null", str(games)], check=False)
    assert result.returncode != 0
    assert "/dev/null is not a game database this program can write: it is a device" in result.stderr, result.stderr
    assert not pathlib.Path("/dev/null-journal").exists()


def test_a_database_path_setting_with_a_nul_character_is_refused(tmp_path):
    for setting in ["games\u0000.db3", str(tmp_path / "games\u0000.db3")]:
        message = save_error(tmp_path, {"database": {"path": setting}})
        assert "NUL character" in message, message
        assert list(tmp_path.iterdir()) == [], "no file made under a cut or altered name"


def test_two_imports_creating_the_same_new_database_both_succeed(tmp_path):
    games = tmp_path / "games.pgn"
    games.write_text(SAMPLE)
    for attempt in range(6):
        target = tmp_path / f"new-{attempt}.db3"
        processes = [subprocess.Popen([str(binary()), "import", "--db", str(target), str(games)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outputs = [process.communicate(timeout=60) for process in processes]
        for process, (out, err) in zip(processes, outputs):
            assert process.returncode == 0, err
        counts = [re.search(r"(\d+) stored, (\d+) duplicates, 0 refused", out).groups() for out, _ in outputs]
        assert sum(int(stored) for stored, _ in counts) == 3, outputs
        assert sum(int(duplicates) for _, duplicates in counts) == 3, outputs
        with sqlite3.connect(target) as db:
            assert db.execute("SELECT COUNT(*) FROM Games").fetchone() == (3,)


def test_a_game_with_a_hundred_thousand_tags_is_imported(tmp_path):
    games = tmp_path / "tags.pgn"
    with open(games, "w") as handle:
        for k in range(100_000):
            handle.write(f'[Tag{k} "{k}"]\n')
        handle.write('[White "Ann"]\n[Black "Bob"]\n\n1. e4 e5 *\n')
    target = tmp_path / "tags.db3"
    result = subprocess.run([str(binary()), "import", "--db", str(target), str(games)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("1 stored, 0 duplicates, 0 refused\n")
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT w.Name, b.Name, g.PlyCount FROM Games g JOIN Players w ON w.ID = g.WhiteID "
                          "JOIN Players b ON b.ID = g.BlackID").fetchall() == [("Ann", "Bob", 2)]


# Imports caught while they add games to the position index --------------------------------------

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
UPDATING = "the database's position index is being updated by an import"
INTERRUPTED = "the database's position index is out of date (an import stopped before it had finished adding " \
              "games to it)"


@pytest.fixture(scope="module")
def many_games(tmp_path_factory):
    """60,000 distinct games (`pgn-lsp bench-games`): an import that takes long enough to be caught."""
    path = tmp_path_factory.mktemp("many-games") / "games.pgn"
    with open(path, "wb") as out:
        subprocess.run([str(binary()), "bench-games", "--count", "60000"], stdout=out, check=True)
    return path


def check_index(db):
    result = run(["index", "--check", "--db", str(db)], check=False)
    return result.returncode, result.stdout


def json_answer(command, db, *args):
    result = run([command, "--db", str(db), *args, "--format", "json"], check=False)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout), result.stderr


class PausedImport:
    """`pgn-lsp import` into a new file, reading the games from a pipe that this test fills: it
    is given four pieces' worth of text (the import reads 2 MiB at a time, and commits its first
    transaction after four pieces), then waits for more between two of its transactions, while
    this test holds the write lock as another program would. What readers see next does not
    depend on timing. `finish` gives it the rest of the games."""

    FIRST = 4 * (2 << 20)

    def __init__(self, db, games):
        for suffix in ("", "-journal", "-pgn-lsp-import"):
            pathlib.Path(f"{db}{suffix}").unlink(missing_ok=True)
        self.games = games.read_bytes()
        assert len(self.games) > 2 * self.FIRST
        self.process = subprocess.Popen(
            [str(binary()), "import", "--busy-timeout", "300", "--db", str(db), "/dev/stdin"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.process.stdin.write(self.games[:self.FIRST])
        self.process.stdin.flush()
        deadline = time.monotonic() + 300
        while True:
            assert self.process.poll() is None, self.process.communicate()
            assert time.monotonic() < deadline
            if UPDATING in check_index(db)[1]:
                # Taken once the import's open transaction, if any, has committed.
                self.lock = sqlite3.connect(db, timeout=300, isolation_level=None)
                self.lock.execute("BEGIN IMMEDIATE")
                self.stored = self.lock.execute("SELECT COUNT(*) FROM Games").fetchone()[0]
                if self.stored > 0:
                    return
                self.resume()
            time.sleep(0.01)

    def resume(self):
        self.lock.execute("ROLLBACK")
        self.lock.close()

    def finish(self):
        """The rest of the games, then the end of the input: the import's output and errors."""
        out, err = self.process.communicate(self.games[self.FIRST:], timeout=600)
        return out.decode(), err.decode()


def test_readers_see_an_import_that_runs_and_answer_from_the_games_it_stored_so_far(tmp_path, many_games):
    db = tmp_path / "games.db3"
    paused = PausedImport(db, many_games)
    try:
        # Paused after its first transaction, the rest of its games not read yet.
        assert 0 < paused.stored < 60000
        assert check_index(db) == (1, f"{db}: {UPDATING}; the import brings it up to date at its end\n")
        # Its games are counted as far as they are stored, the opening tree's counts included
        # (which the import builds at its end): the games' moves are replayed.
        note = f"{UPDATING}: the answer covers the games stored so far\n"
        searched, stderr = json_answer("search", db, "--fen", START, "--limit", "0")
        assert (searched["total"], stderr) == (paused.stored, note)
        explored, stderr = json_answer("explore", db)
        assert (explored["games"], stderr) == (paused.stored, note)
        # `index` leaves it to the import.
        built = run(["index", "--db", str(db)], check=False)
        assert (built.returncode, built.stderr) == (1, f"{db}: {UPDATING}; the import brings it up to date at its end\n")
    finally:
        paused.resume()
    out, err = paused.finish()
    assert paused.process.returncode == 0, err
    assert "60,000 stored" in out, out
    assert check_index(db) == (0, f"{db}: the database's position index is up to date\n")
    assert not (tmp_path / "games.db3-pgn-lsp-import").exists()
    searched, stderr = json_answer("search", db, "--fen", START, "--limit", "0")
    assert (searched["total"], stderr) == (60000, "")
    explored, stderr = json_answer("explore", db)
    assert (explored["games"], stderr) == (60000, "")


def test_an_import_killed_before_its_end_leaves_the_index_out_of_date_whatever_process_has_its_id(
        tmp_path, many_games):
    db = tmp_path / "games.db3"
    paused = PausedImport(db, many_games)
    paused.process.kill()
    paused.process.communicate()
    paused.resume()
    # Its lock file stays beside the database; nothing holds it.
    assert (tmp_path / "games.db3-pgn-lsp-import").exists()
    fix = f"; build it with: pgn-lsp index --db {db}\n"
    assert check_index(db) == (1, f"{db}: {INTERRUPTED}{fix}")
    # The state names processes that run, as a killed import's ID once reused would: this test,
    # its parent, the first process. None is taken for an import.
    for process in (os.getpid(), os.getppid(), 1):
        with sqlite3.connect(db) as connection:
            connection.execute("UPDATE PositionIndexState SET Updater = ?", (process,))
        assert check_index(db) == (1, f"{db}: {INTERRUPTED}{fix}")
    # Another program removes half of the games. What the answers must be: those of a copy whose
    # index is built again.
    before = tmp_path / "before.db3"
    shutil.copy(db, before)
    run(["index", "--db", str(before)])
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM Games WHERE ID % 2 = 0")
    after = tmp_path / "after.db3"
    shutil.copy(db, after)
    run(["index", "--db", str(after)])
    truth = json_answer("search", after, "--fen", AFTER_E4, "--limit", "100000")[0]
    assert truth["total"] < json_answer("search", before, "--fen", AFTER_E4, "--limit", "0")[0]["total"]
    answer, stderr = json_answer("search", db, "--fen", AFTER_E4, "--limit", "100000")
    assert stderr.startswith(f"{INTERRUPTED}: building it\n"), stderr
    assert answer["games"] == truth["games"] and answer["total"] == truth["total"]
    assert check_index(db) == (0, f"{db}: the database's position index is up to date\n")
    assert not (tmp_path / "games.db3-pgn-lsp-import").exists()
    assert json_answer("explore", db, "--moves", "1. e4") == json_answer("explore", after, "--moves", "1. e4")

