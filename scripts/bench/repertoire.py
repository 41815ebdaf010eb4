#!/usr/bin/env python3
"""Repertoires against a reference database: the coverage gaps of a repertoire of about 2,000
positions when the file is opened and after each edit, and `pgn-lsp repertoire check` on 10,000
games.

Usage: scripts/bench/repertoire.py [--games 1000000] [--positions 2000] [--edits 20] [--busy]

Inputs (made once and kept in /tmp, never downloaded): the reference is `pgn-lsp bench-games
--count N` imported into a database (its position index built by the import); the repertoire is
White's, made with python-chess from the first 14 plies of the reference's games, one move of
White's per position (the first met) and every reply of Black's, until it holds the positions
asked for. The server is told `database.path` and `repertoire.minGames` 1 (every reply of 5% or
more is looked at); the timings run from the end of the `didOpen` (or `didChange`) to the pushed
diagnostics that hold the gaps. Then `repertoire check` follows 10,000 games of the lichess file
(repeated, half of them given to one player as White, half as Black) through the repertoire.
"""
import argparse
import io
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import LICHESS_1M, PGN_LSP, shared  # noqa: E402
from lsp_client import LSPClient  # noqa: E402
from positions import synthetic_input  # noqa: E402


def reference(games):
    pgn = synthetic_input(games)
    db = pathlib.Path(f"/tmp/pgn-lsp-bench-repertoire-{games}.db3")
    if not db.exists():
        partial = db.with_suffix(".partial.db3")
        partial.unlink(missing_ok=True)
        subprocess.run([str(PGN_LSP), "import", "--no-comment-rows", "--db", str(partial), str(pgn)], check=True,
                       stdout=subprocess.DEVNULL)
        partial.rename(db)
    return pgn, db


def repertoire(pgn, positions, plies=14):
    """White's repertoire from the reference's games: one White move per position, every reply."""
    import chess
    import chess.pgn

    root = chess.pgn.Game()
    root.headers.clear()
    root.headers["Event"] = "White repertoire"
    root.headers["Orientation"] = "white"
    count = 1
    with open(pgn, encoding="utf-8") as handle:
        while count < positions and (game := chess.pgn.read_game(handle)) is not None:
            node = root
            for move in list(game.mainline_moves())[:plies]:
                if node.has_variation(move):
                    node = node.variation(move)
                    continue
                if node.board().turn == chess.WHITE and node.variations:
                    break  # White plays one move here already
                node = node.add_variation(move)
                count += 1
                if count >= positions:
                    break
    return str(root) + "\n", count


def wait_gaps(client, uri, version):
    while True:
        message = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                  and m["params"]["uri"] == uri, timeout=600)
        params = message["params"]
        if params.get("version") == version:
            return [d for d in params["diagnostics"] if d.get("code") == "repertoire-gap"]


def editor(db, text, edits):
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pgn-lsp-bench-repertoire-"))
    client = LSPClient(command=[str(PGN_LSP), "serve"])
    client.request("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": {},
                                  "initializationOptions": {"pgn": {"database": {"path": str(db)},
                                                                    "engine": {"hoverMs": 0},
                                                                    "repertoire": {"minGames": 1}}}})
    client.notify("initialized", {})
    uri = (folder / "repertoire.pgn").as_uri()
    started = time.perf_counter()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "pgn", "version": 1,
                                                            "text": text}})
    gaps = wait_gaps(client, uri, 1)
    opened = time.perf_counter() - started
    lines = text.split("\n")
    line = next(i for i, l in enumerate(lines) if l.startswith("1."))
    times = []
    for k in range(edits):
        typed = k % 2 == 0
        change = {"range": {"start": {"line": line, "character": len(lines[line])},
                            "end": {"line": line, "character": len(lines[line]) + (0 if typed else 1)}},
                  "text": " " if typed else ""}
        started = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": k + 2},
                                                 "contentChanges": [change]})
        wait_gaps(client, uri, k + 2)
        times.append(time.perf_counter() - started)
    client.request("shutdown")
    client.notify("exit")
    return opened, times, len(gaps)


def check(text, games):
    import chess.pgn

    lichess = shared(LICHESS_1M).read_text()
    played = []
    handle = io.StringIO(lichess)
    base = []
    while (game := chess.pgn.read_game(handle)) is not None:
        base.append(game)
    for k in range(games):
        game = base[k % len(base)]
        game.headers["White" if k % 2 == 0 else "Black"] = "Bench Player"
        game.headers["Round"] = str(k)
        played.append(str(game))
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pgn-lsp-bench-repertoire-check-"))
    (folder / "repertoire.pgn").write_text(text)
    (folder / "games.pgn").write_text("\n\n".join(played) + "\n")
    started = time.perf_counter()
    made = subprocess.run([str(PGN_LSP), "repertoire", "check", "--repertoire", str(folder / "repertoire.pgn"),
                           "--color", "white", "--player", "bench player", str(folder / "games.pgn")],
                          capture_output=True, text=True)
    return time.perf_counter() - started, made.returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--check-games", type=int, default=10_000)
    parser.add_argument("--busy", action="store_true")
    args = parser.parse_args()
    pgn, db = reference(args.games)
    text, positions = repertoire(pgn, args.positions)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        opened, edits, gaps = editor(db, text, args.edits)
        checked, status = check(text, args.check_games)
    finally:
        if busy:
            busy.kill()
    print(f"reference: {args.games:,} games; repertoire: {positions:,} positions; {gaps} gaps")
    print(f"  gaps when opened                 {opened:.3f} s")
    print(f"  gaps after an edit (median, p95) {statistics.median(edits) * 1000:.1f} / "
          f"{sorted(edits)[int(0.95 * (len(edits) - 1))] * 1000:.1f} ms")
    print(f"  repertoire check, {args.check_games:,} games   {checked:.3f} s (exit {status})")


if __name__ == "__main__":
    main()
