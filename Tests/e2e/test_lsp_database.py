"""Saving games from the editor into an OCGDB database, read back with Python's sqlite3."""
import sqlite3
import time

from conftest import ROOT
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


def test_a_game_with_an_illegal_move_is_refused_with_its_reason(tmp_path):
    target = tmp_path / "mine.db3"
    client = start_in(tmp_path, {"database": {"path": str(target)}})
    try:
        uri = (tmp_path / "mistakes.pgn").as_uri()
        client.open(uri, MISTAKES)
        result = client.request("workspace/executeCommand", {"command": "pgn.saveAllGames", "arguments": [uri]})
        assert result["path"] == str(target)
        assert result["stored"] == 0 and len(result["refused"]) == 2
        assert "illegal move" in result["refused"][0].lower() and "Nf3" in result["refused"][0]
        warning = [n for n in client.notifications if n["method"] == "window/showMessage"][-1]["params"]
        assert warning["type"] == 2 and "2 refused: game 1" in warning["message"]
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
