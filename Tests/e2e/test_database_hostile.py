"""Databases that must not be damaged: another program's SQLite file, a file that is not SQLite,
a device, a path with a NUL character, two imports creating the same new file at once, and a
game with a hundred thousand tags. Files are compared byte for byte, never opened with SQLite
before the comparison (opening a file in WAL mode makes files beside it)."""
import pathlib
import re
import sqlite3
import subprocess

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
