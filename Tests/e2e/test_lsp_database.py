"""Saving games from the editor into an OCGDB database, read back with Python's sqlite3."""
import os
import re
import sqlite3
import time

from conftest import ROOT, run
from lsp_client import LSPClient
from test_lsp_features import pos

SAMPLE = (ROOT / "samples" / "sample.pgn").read_text()
MISTAKES = (ROOT / "samples" / "mistakes.pgn").read_text()


def start_in(tmp_path, settings=None):
    client = LSPClient()
    capabilities = {"window": {"workDoneProgress": True},
                    "textDocument": {"codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": []}}}}}
    params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": capabilities,
              "initializationOptions": {"pgn": settings or {}}}
    client.request("initialize", params)
    client.notify("initialized", {})
    return client


def games(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT g.ID, w.Name, b.Name, e.Name, g.Result, g.PlyCount FROM Games g "
                          "JOIN Players w ON w.ID = g.WhiteID JOIN Players b ON b.ID = g.BlackID "
                          "JOIN Events e ON e.ID = g.EventID ORDER BY g.ID").fetchall()


def test_save_game_code_action_and_save_all(tmp_path):
    client = start_in(tmp_path)
    try:
        uri = (tmp_path / "sample.pgn").as_uri()
        (tmp_path / "sample.pgn").write_text(SAMPLE)
        client.open(uri, SAMPLE)
        client.diagnostics(uri)
        at = pos(SAMPLE, "Nxb5")
        actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                             "range": {"start": at, "end": at},
                                                             "context": {"diagnostics": []}})
        titles = [a["title"] for a in actions]
        assert "Save game to database" in titles and "Save all games in the file to database" in titles
        save = next(a for a in actions if a["title"] == "Save game to database")
        result = client.request("workspace/executeCommand", save["command"])
        database = tmp_path / "games.ocgdb.db3"
        assert result["path"] == str(database) and result["stored"] == 1
        rows = games(database)
        assert len(rows) == 1
        _, white, black, event, outcome, plies = rows[0]
        assert (white, event, outcome) == ("Paul Morphy", "Paris Opera", "1-0")
        message = [n for n in client.notifications if n["method"] == "window/showMessage"][-1]["params"]["message"]
        assert message.startswith("pgn-lsp: Saved 1 game to ")

        # All games: the one already there is not stored twice.
        everything = next(a for a in actions if a["title"] == "Save all games in the file to database")
        assert everything["kind"] == "source.saveAllGames.pgn"
        result = client.request("workspace/executeCommand", everything["command"])
        assert (result["stored"], result["duplicates"], result["refused"]) == (2, 1, [])
        assert len(games(database)) == 3
        message = [n for n in client.notifications if n["method"] == "window/showMessage"][-1]["params"]["message"]
        assert "Saved 2 games" in message and "1 already in the database" in message
        # Progress for more than one game.
        assert any(n["method"] == "$/progress" and n["params"]["value"]["kind"] == "end" for n in client.notifications)
        # Journal mode DELETE: no WAL left behind.
        with sqlite3.connect(database) as db:
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        client.close()


def test_a_game_with_an_illegal_move_is_stored_up_to_it_and_said_so(tmp_path):
    target = tmp_path / "mine.db3"
    client = start_in(tmp_path, {"database": {"path": str(target)}})
    try:
        uri = (tmp_path / "mistakes.pgn").as_uri()
        client.open(uri, MISTAKES)
        result = client.request("workspace/executeCommand", {"command": "pgn.saveAllGames", "arguments": [uri]})
        assert result["path"] == str(target)
        assert (result["stored"], result["refused"], result["incomplete"]) == (2, [], 2)
        assert result["changed"][0].startswith("game 1 (incomplete), illegal move ") and "Nf3" in result["changed"][0]
        warning = [n for n in client.notifications if n["method"] == "window/showMessage"][-1]["params"]
        assert warning["type"] == 2, warning
        assert "Saved 2 games" in warning["message"] and "(2 with changes, 2 of them incomplete: game 1" in warning["message"]
        # The moves before the illegal one are stored, the rest kept for an export to give back.
        assert all(plies > 0 for *_, plies in games(target))
        exported = run(["export", "--db", str(target)]).stdout
        assert "[Incomplete " in exported and "Nf3" in exported
    finally:
        client.close()


def fixture(name):
    return ROOT / "Tests" / "Fixtures" / "corpus" / "pgn-lsp" / name


def rows(path):
    """Every stored column of every game but its ID, the names joined in, and its comment rows."""
    with sqlite3.connect(path) as db:
        games_ = db.execute(
            "SELECT e.Name, s.Name, w.Name, b.Name, g.Date, g.UTCTime, g.Round, g.WhiteElo, g.BlackElo, "
            "g.WhiteMaterial, g.BlackMaterial, g.Result, g.TimeControl, g.ECO, g.PlyCount, g.FEN, g.Moves, g.PawnHome, "
            "g.Moves2, g.Tags FROM Games g JOIN Players w ON w.ID = g.WhiteID JOIN Players b ON b.ID = g.BlackID "
            "JOIN Events e ON e.ID = g.EventID JOIN Sites s ON s.ID = g.SiteID ORDER BY g.ID").fetchall()
        comments = db.execute("SELECT Ply, Comment FROM Comments ORDER BY ID").fetchall()
    return games_, comments


def test_save_all_stores_exactly_what_import_stores(tmp_path):
    """Annotated analysis with null moves, short results, faults, tags as written and study
    diagrams without moves: the editor stores what `import` stores, and says the same."""
    for name in ["chessbase-analysis.pgn", "results-written-short.pgn", "faults.pgn", "tags-as-written.pgn",
                 "study-diagrams.pgn"]:
        text = fixture(name).read_text()
        imported = tmp_path / f"imported-{name}.db3"
        summary = run(["import", "--db", str(imported), str(fixture(name))]).stdout
        saved = tmp_path / f"saved-{name}.db3"
        client = start_in(tmp_path, {"database": {"path": str(saved)}})
        try:
            uri = (tmp_path / name).as_uri()
            client.open(uri, text)
            result = client.request("workspace/executeCommand", {"command": "pgn.saveAllGames", "arguments": [uri]})
        finally:
            client.close()
        assert rows(saved) == rows(imported), name
        stored = int(re.search(r"(\d+) stored", summary).group(1))
        assert (result["stored"], result["duplicates"], result["refused"]) == (stored, 0, []), name
        assert result["changed"] == re.findall(r"^  .*?: (game \d+.*)$", summary, re.M), name


def test_games_without_moves_are_saved_one_by_one_too(tmp_path):
    target = tmp_path / "studies.db3"
    client = start_in(tmp_path, {"database": {"path": str(target)}})
    try:
        text = fixture("study-diagrams.pgn").read_text()
        uri = (tmp_path / "study-diagrams.pgn").as_uri()
        client.open(uri, text)
        at = pos(text, "Lucena")
        actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": at, "end": at},
                                                             "context": {"diagnostics": []}})
        save = next(a for a in actions if a["title"] == "Save game to database")
        assert save["command"]["arguments"] == [uri, 2]
        result = client.request("workspace/executeCommand", save["command"])
        assert (result["stored"], result["changed"]) == (1, [])
        assert [row[1:] for row in games(target)] == [("Lucena position", "?", "Endgame study", "*", 0)]
    finally:
        client.close()


def test_an_unwritable_database_gives_a_clear_error(tmp_path):
    client = start_in(tmp_path, {"database": {"path": str(tmp_path / "no" / "such" / "folder" / "x.db3")}})
    try:
        uri = (tmp_path / "sample.pgn").as_uri()
        client.open(uri, SAMPLE)
        answer = client.response(client.request_async("workspace/executeCommand",
                                                      {"command": "pgn.saveGame", "arguments": [uri, 0]}))
        assert "does not exist" in answer["error"]["message"]
        # The server goes on.
        assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    finally:
        client.close()


def test_a_locked_database_makes_a_save_wait_then_fail(tmp_path):
    database = tmp_path / "games.ocgdb.db3"
    client = start_in(tmp_path)
    try:
        uri = (tmp_path / "sample.pgn").as_uri()
        client.open(uri, SAMPLE)
        client.request("workspace/executeCommand", {"command": "pgn.saveGame", "arguments": [uri, 0]})
        holder = sqlite3.connect(database, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            waiting = client.request_async("workspace/executeCommand",
                                           {"command": "pgn.saveGame", "arguments": [uri, 1]})
            # Other requests are answered while the save waits for the lock.
            started = time.monotonic()
            assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            assert time.monotonic() - started < 2
            answer = client.response(waiting, timeout=30)
            assert time.monotonic() - started > 3, "the save waited for the lock"
            assert "locked by another program" in answer["error"]["message"]
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        result = client.request("workspace/executeCommand", {"command": "pgn.saveGame", "arguments": [uri, 1]})
        assert result["stored"] == 1
    finally:
        client.close()


def test_a_database_path_under_the_home_folder_follows_home(tmp_path):
    # `~/` is the folder `$HOME` names (a sandboxed editor, a test), not the account's.
    home = tmp_path / "home"
    (home / "chess").mkdir(parents=True)
    client = LSPClient(env=dict(os.environ, HOME=str(home)))
    try:
        params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                  "initializationOptions": {"pgn": {"database": {"path": "~/chess/mine.db3"}}}}
        client.request("initialize", params)
        client.notify("initialized", {})
        uri = (tmp_path / "sample.pgn").as_uri()
        client.open(uri, SAMPLE)
        result = client.request("workspace/executeCommand", {"command": "pgn.saveAllGames", "arguments": [uri]})
        assert result["stored"] >= 1, result
        assert len(games(home / "chess" / "mine.db3")) == result["stored"]
    finally:
        client.close()
