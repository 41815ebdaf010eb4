"""The database as a reference, through the real server over pipes: the explorer in the hover
(markdown and plain text), completion ordered by the games, the novelty hint and its code action,
references and `fen:` workspace symbols that open database games as files, and databases that
cannot answer (no index, not a database, locked, corrupt, an import running or stopped)."""
import contextlib
import fcntl
import os
import pathlib
import sqlite3
import time
import urllib.parse

import pytest

from conftest import run
from lsp_client import LSPClient
from test_lsp_features import pos

# After 1. e4: three games (e5 twice, c5 once); after 1. e4 e5 2. Nf3 Nc6: three, the last by
# another move order.
REFERENCE_GAMES = """[Event "Ref"]
[White "Anand"]
[Black "Botvinnik"]
[Result "1-0"]
[WhiteElo "2800"]
[BlackElo "2700"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "Ref"]
[White "Carlsen"]
[Black "Ding"]
[Result "1/2-1/2"]
[WhiteElo "2600"]
[BlackElo "2650"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 1/2-1/2

[Event "Ref"]
[White "Euwe"]
[Black "Fischer"]
[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1

[Event "Ref"]
[White "Ivanchuk"]
[Black "Jobava"]
[Result "1-0"]
[WhiteElo "2900"]
[BlackElo "2850"]

1. Nf3 Nc6 2. e4 e5 1-0
"""

# 3... Nf6 leaves the databases.
MINE = '[White "Me"]\n[Black "You"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O *\n'


def make_database(path: pathlib.Path, games: str = REFERENCE_GAMES):
    source = path.with_suffix(".pgn.txt")
    source.write_text(games)
    run(["import", "--db", str(path), str(source)])
    source.unlink()


def start(folder: pathlib.Path, settings=None, capabilities=None, client_info=None):
    client = LSPClient()
    caps = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                             "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": []}}}},
            "workspace": {"applyEdit": True}}
    caps.update(capabilities or {})
    client.request("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": caps,
                                  "initializationOptions": {"pgn": settings or {}},
                                  **({"clientInfo": client_info} if client_info else {})})
    client.notify("initialized", {})
    return client


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    folder = tmp_path / "games"
    folder.mkdir()
    make_database(folder / "games.ocgdb.db3")
    # The database games' files go to a cache folder of the test's own.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return folder


@contextlib.contextmanager
def session(folder, settings=None, capabilities=None, text=MINE):
    """A server started in `folder` with `text` open as mine.pgn: the client and the document's URI."""
    client = start(folder, settings, capabilities)
    try:
        yield client, open_mine(client, folder, text)
    finally:
        client.close()


def open_mine(client, folder, text=MINE):
    uri = (folder / "mine.pgn").as_uri()
    client.open(uri, text)
    client.diagnostics(uri)
    return uri


def hover(client, uri, needle, text=MINE):
    answer = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": pos(text, needle)})
    return answer["contents"]


def test_hover_in_markdown_adds_the_explorer_to_the_moves_hover(workspace):
    with session(workspace) as (client, uri):
        contents = hover(client, uri, "e4")
        assert contents["kind"] == "markdown"
        value = contents["value"]
        assert value.startswith("**1. e4** — White") and "FEN `" in value
        assert "  \n**Explorer** — 3 games reached this position (games.ocgdb.db3)  \n" in value
        assert "White wins 33% · draws 33% · Black wins 33%" in value
        assert "Next (games, White's score): `1... e5` 2 (75%) · `1... c5` 1 (0%)" in value
        assert "Best-rated game: Anand (2800) – Botvinnik (2700), Ref, 1-0 (games.ocgdb.db3)" in value
        # A transposition counts: 1. Nf3 Nc6 2. e4 e5.
        value = hover(client, uri, "Nc6")["value"]
        assert "3 games reached this position" in value and "Ivanchuk (2900) – Jobava (2850)" in value


def test_hover_in_plain_text_for_a_client_without_markdown(workspace):
    with session(workspace, capabilities={"textDocument": {"hover": {"contentFormat": ["plaintext"]}}}) as (client, uri):
        contents = hover(client, uri, "e4")
        assert contents["kind"] == "plaintext"
        assert "Explorer — 3 games reached this position (games.ocgdb.db3)" in contents["value"]
        assert "Next (games, White's score): 1... e5 2 (75%) · 1... c5 1 (0%)" in contents["value"]
        assert "**" not in contents["value"] and "`" not in contents["value"]


def test_a_cached_hover_is_fast(workspace):
    with session(workspace) as (client, uri):
        hover(client, uri, "Nf3")
        times = []
        for _ in range(50):
            started = time.perf_counter()
            hover(client, uri, "Nf3")
            times.append(time.perf_counter() - started)
        times.sort()
        # Over pipes, with the board and the answer's JSON: well under the 50 ms a person notices.
        assert times[len(times) // 2] < 0.05, times


def test_reference_databases_add_up_and_are_never_written(workspace, tmp_path):
    masters = tmp_path / "masters.db3"
    make_database(masters, '[White "Kasparov"]\n[Black "Karpov"]\n[Result "1/2-1/2"]\n[WhiteElo "2851"]\n'
                           '[BlackElo "2780"]\n\n1. e4 c5 2. Nf3 d6 3. d4 1/2-1/2\n')
    noindex = tmp_path / "noindex.db3"
    make_database(noindex)
    run(["index", "--db", str(noindex), "--remove"])
    before = {path: path.read_bytes() for path in (masters, noindex)}
    with session(workspace, {"database": {"references": [str(masters), str(noindex), str(tmp_path / "gone.db3")]}}) as (client, uri):
        value = hover(client, uri, "e4")["value"]
        assert "**Explorer** — 4 games reached this position (games.ocgdb.db3, masters.db3)" in value, value
        assert "Kasparov (2851) – Karpov (2780), 1/2-1/2 (masters.db3)" in value, value
        assert (f"Note: noindex.db3: the database has no position index; build it with "
                f"`pgn-lsp index --db {noindex}`") in value, value
        assert "gone.db3" not in value
        assert {path: path.read_bytes() for path in (masters, noindex)} == before


def test_the_own_database_without_index_is_indexed_in_the_background(workspace):
    run(["index", "--db", str(workspace / "games.ocgdb.db3"), "--remove"])
    with session(workspace) as (client, uri):
        value = hover(client, uri, "e4")["value"]
        assert "building its position index" in value or "3 games reached" in value, value
        deadline = time.monotonic() + 20
        while "3 games reached" not in value and time.monotonic() < deadline:
            time.sleep(0.05)
            value = hover(client, uri, "e4")["value"]
        assert "3 games reached this position" in value, value
        built = lambda m: m.get("method") == "window/logMessage" and "built the position index of" in m["params"]["message"]
        if not any(built(n) for n in client.notifications):
            client.wait_for(built)
        assert run(["index", "--db", str(workspace / "games.ocgdb.db3"), "--check"]).returncode == 0


def test_completion_puts_the_played_moves_first_with_their_figures(workspace):
    with session(workspace, text='[White "Me"]\n\n1. e4 e5 2. \n') as (client, uri):
        answer = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                            "position": {"line": 2, "character": 12}})
        items = sorted(answer["items"], key=lambda item: item["sortText"])
        assert [(i["label"], i["detail"]) for i in items[:1]] == [("Nf3", "2 games · 75% white score")]
        assert len(items) == 29 and items[1]["detail"].startswith("white ")


def hints(client, uri):
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 10, "character": 0}}
    return client.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": whole})


def test_the_novelty_hint_and_its_code_action(workspace):
    with session(workspace) as (client, uri):
        (novelty,) = [h for h in hints(client, uri) if h["label"] == "N"]
        assert novelty["position"] == pos(MINE, "Nf6", delta=3)
        assert novelty["tooltip"].startswith("Novelty: no game of the databases reached the position after 3... Nf6. "
                                             "Last known position: after 3. Bb5 (")
        assert novelty["tooltip"].endswith("reached in 1 game.")
        at = pos(MINE, "Nf6")
        actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                             "range": {"start": at, "end": at},
                                                             "context": {"diagnostics": []}})
        (mark,) = [a for a in actions if a["title"] == "Mark as novelty ($146)"]
        end = pos(MINE, "Nf6", delta=3)
        assert mark["edit"]["changes"][uri] == [{"range": {"start": end, "end": end}, "newText": " $146"}]


def test_the_novelty_action_as_a_command_for_a_client_without_literals(workspace):
    with session(workspace, capabilities={"textDocument": {}}) as (client, uri):
        at = pos(MINE, "Nf6")
        actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                             "range": {"start": at, "end": at},
                                                             "context": {"diagnostics": []}})
        (mark,) = [a for a in actions if a["title"] == "Mark as novelty ($146)"]
        assert mark["command"] == "pgn.applyEdit"
        client.request("workspace/executeCommand", mark)
        edit = next(r for r in client.server_requests if r["method"] == "workspace/applyEdit")
        assert edit["params"]["edit"]["changes"][uri][0]["newText"] == " $146"


def test_the_novelty_hint_can_be_switched_off(workspace):
    with session(workspace, {"inlayHints": {"novelty": False}}) as (client, uri):
        assert [h for h in hints(client, uri) if h["label"] == "N"] == []


def file_line(location) -> str:
    path = urllib.parse.unquote(urllib.parse.urlparse(location["uri"]).path)
    return pathlib.Path(path).read_text().split("\n")[location["range"]["start"]["line"]]


def test_references_give_workspace_moves_and_database_games_as_files(workspace, tmp_path):
    (workspace / "club.pgn").write_text('[White "Club"]\n\n1. Nf3 Nc6 2. e4 e5 *\n')
    with session(workspace) as (client, uri):
        found = client.request("textDocument/references", {"textDocument": {"uri": uri},
                                                            "position": pos(MINE, "Nc6"),
                                                            "context": {"includeDeclaration": True}})
        cache = (tmp_path / "cache" / "pgn-lsp" / "positions").as_uri()
        workspace_found = [f for f in found if not f["uri"].startswith(cache)]
        assert [(pathlib.Path(f["uri"]).name, f["range"]["start"]["line"]) for f in workspace_found] == [
            ("mine.pgn", 3), ("club.pgn", 2)]
        database = [f for f in found if f["uri"].startswith(cache)]
        # Each game on a line of its own, as lichess's explorer lists games, at the move that
        # reaches the position (a location has no label: clients show the line).
        assert [file_line(f) for f in database] == [
            "{Anand (2800) – Botvinnik (2700), 1-0, Ref} 2... Nc6 3. Bb5 a6 1-0",
            "{Carlsen (2600) – Ding (2650), ½-½, Ref} 2... Nc6 3. Bc4 Bc5 1/2-1/2",
            "{Ivanchuk (2900) – Jobava (2850), 1-0, Ref} 2... e5 1-0"]
        for f in database:
            start, end = f["range"]["start"], f["range"]["end"]
            assert start["line"] == end["line"]
            assert file_line(f)[start["character"]:end["character"]] in ("Nc6", "e5"), f
        # The file reads as PGN without a problem.
        path = urllib.parse.unquote(urllib.parse.urlparse(database[0]["uri"]).path)
        assert run(["check", path]).returncode == 0


def test_without_xdg_cache_home_the_games_go_to_the_cache_of_home(workspace, tmp_path, monkeypatch):
    # An editor in a sandbox gives the server a HOME of its own: the files go there, where the
    # editor may open them, not to the account's home folder.
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with session(workspace) as (client, uri):
        found = client.request("textDocument/references", {"textDocument": {"uri": uri},
                                                            "position": pos(MINE, "Nc6"),
                                                            "context": {"includeDeclaration": False}})
    folder = (tmp_path / "home" / ".cache" / "pgn-lsp" / "positions").as_uri()
    database = [f for f in found if f["uri"].startswith(folder)]
    assert len(database) == 3, found
    assert file_line(database[0]).startswith("{Anand (2800) – Botvinnik (2700), 1-0, Ref} 2... Nc6")


def test_fen_workspace_symbols_and_a_query_that_is_not_a_position(workspace):
    with session(workspace) as (client, _):
        found = client.request("workspace/symbol", {"query": "fen:rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w"})
        assert [(s["name"], s["containerName"]) for s in found] == [("Euwe – Fischer, 0-1, Ref", "games.ocgdb.db3")]
        assert file_line(found[0]["location"]) == "{Euwe – Fischer, 0-1, Ref} 1... c5 2. Nf3 d6 0-1"
        assert client.request("workspace/symbol", {"query": "fen: rnbqkbnr/pppppppp w"}) == []
        logged = [n["params"]["message"] for n in client.notifications if n.get("method") == "window/logMessage"]
        assert any(m.startswith("pgn-lsp: fen: rnbqkbnr/pppppppp w is not a position: ") for m in logged), logged
        # Other queries are names as before.
        assert [s["name"] for s in client.request("workspace/symbol", {"query": "you"})] == ["You"]


def test_hostile_databases_give_notes_never_a_failure(workspace, tmp_path):
    (tmp_path / "notes.db3").write_text("not a database at all")
    corrupt = tmp_path / "corrupt.db3"
    make_database(corrupt)
    data = bytearray(corrupt.read_bytes())
    for k in range(100, len(data)):
        data[k] = (k * 31) & 0xFF
    corrupt.write_bytes(bytes(data))
    references = [str(tmp_path / "notes.db3"), str(corrupt), str(tmp_path)]
    with session(workspace, {"database": {"references": references}}) as (client, uri):
        value = hover(client, uri, "e4")["value"]
        assert "3 games reached this position (games.ocgdb.db3)" in value, value
        assert "Note: notes.db3 cannot be read: " in value and "not SQLite" in value, value
        assert "Note: corrupt.db3" in value, value
        assert f"Note: {tmp_path.name} cannot be read: " in value and "folder" in value, value
        found = client.request("textDocument/references", {"textDocument": {"uri": uri}, "position": pos(MINE, "e4"),
                                                            "context": {"includeDeclaration": False}})
        assert len(found) == 3
        assert [h for h in hints(client, uri) if h["label"] == "N"] == [], "not every database answered"


def test_a_reference_an_import_updates_or_left_unfinished_gives_a_note_not_an_answer(workspace, tmp_path):
    """An import that runs holds an exclusive lock on the file beside the database, which holds the token
    it also wrote in the index's state; one killed before its end leaves its token and no lock. The
    test holds the lock here, as an import in another process would."""
    masters = tmp_path / "masters.db3"
    make_database(masters)
    token = 0x5EED_0001
    with sqlite3.connect(masters) as connection:
        connection.execute("UPDATE PositionIndexState SET Updater = ?", (token,))
    lock = open(f"{masters}-pgn-lsp-import", "w")
    lock.write(f"{token} {os.getpid()}\n")
    lock.flush()
    fcntl.flock(lock, fcntl.LOCK_EX)
    stopped = (f"Note: masters.db3: the database's position index is out of date (an import stopped before it "
               f"had finished adding games to it); build it with `pgn-lsp index --db {masters}`")
    try:
        with session(workspace, {"database": {"references": [str(masters)]}}) as (client, uri):
            value = hover(client, uri, "e4")["value"]
            assert "**Explorer** — 3 games reached this position (games.ocgdb.db3)" in value, value
            assert ("Note: masters.db3: the database's position index is being updated by an import (the explorer "
                    "answers once it is done)") in value, value
            # The import is killed: its lock goes, the database stays as it was.
            lock.close()
            value = hover(client, uri, "e4")["value"]
            assert "3 games reached this position (games.ocgdb.db3)" in value and stopped in value, value
            # Whatever process has the ID the state names (here: this test's).
            with sqlite3.connect(masters) as connection:
                connection.execute("UPDATE PositionIndexState SET Updater = ?", (os.getpid(),))
            value = hover(client, uri, "e4")["value"]
            assert "3 games reached this position (games.ocgdb.db3)" in value and stopped in value, value
    finally:
        lock.close()


def test_a_locked_database_leaves_the_hover_quick(workspace):
    with session(workspace) as (client, uri):
        holder = sqlite3.connect(workspace / "games.ocgdb.db3", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            started = time.monotonic()
            value = hover(client, uri, "Bb5")["value"]
            assert time.monotonic() - started < 3
            assert value.startswith("**3. Bb5** — White")
            assert "Note: games.ocgdb.db3 is locked by another program" in value, value
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert "1 game reached this position" in hover(client, uri, "Bb5")["value"]


def test_an_invalid_references_setting_is_reported():
    client = LSPClient()
    try:
        client.initialize(options={"pgn": {"database": {"references": "masters.db3"}}})
        warning = client.wait_for(lambda m: m.get("method") == "window/logMessage"
                                  and "database.references" in m["params"]["message"])
        assert "expected an array of at most 64 paths" in warning["params"]["message"]
    finally:
        client.close()
