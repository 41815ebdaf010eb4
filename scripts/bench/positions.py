#!/usr/bin/env python3
"""The position index at scale: what it adds to an import, the explorer's answer, and the search
for every game that reaches a position, beside ocgdb's `-q "fen[…]"` on the same database.

Usage: scripts/bench/positions.py [--games 1m] [--inputs synthetic,corpus] [--ocgdb PATH]
                                  [--explorer-positions 1000] [--search-positions 8]
                                  [--ocgdb-positions 3] [--conditions quiet,busy] [--db-dir DIR]

Inputs (made once and kept in /tmp, never downloaded):
- `synthetic`: `pgn-lsp bench-games --count N` — distinct games whose openings share a tree
  as real games do, each one leaving the others' paths one by one (no comments);
- `corpus`: `scale_corpus.py` — the 1 MB lichess file repeated with Zipf-spread names, its
  moves and clock comments unchanged (every movetext comes back once per copy).

For each input: `pgn-lsp import` into a new database with the index and without
(`--no-position-index`), interleaved, with wall time, peak resident and anonymous memory and the
file's size; then, on the database with the index, the explorer's answer (tree lookup, single
games found in the keys, the best games' names — a hover's share of the work) for positions
after 0–40 plies of the input's games and positions no game reaches, timed inside the process
(median and p99); then `pgn-lsp search` for positions after 1–60 plies and the last position of
a game (wall time of the whole command and its count), and ocgdb's query for the first of them
and the last on the same file (its count and wall time). Positions are picked with python-chess (a test dependency), from a fixed seed.
"""
import argparse
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import PGN_LSP, Competitor, measure, measure_memory, percentile  # noqa: E402
import scale_corpus  # noqa: E402


def synthetic_input(games):
    path = pathlib.Path(f"/tmp/pgn-lsp-bench-positions-{games}.pgn")
    if not path.exists() or path.stat().st_size == 0:
        partial = path.with_suffix(".partial")
        with open(partial, "wb") as out:
            subprocess.run([str(PGN_LSP), "bench-games", "--count", str(games)], stdout=out, check=True)
        partial.rename(path)
    return path


def corpus_input(games):
    return pathlib.Path(scale_corpus.scale_file(games)[0])


def sample_positions(path, explorer_count, search_count, seed=20261126):
    """Lines of UCI moves to positions after 0–40 plies of games read from the start of the file
    (explorer), some to positions no game reaches, and FENs after 1–60 plies and at a game's end
    for the search."""
    import chess.pgn

    rng = random.Random(seed)
    explorer, search = [], []
    with open(path, encoding="utf-8", errors="replace") as handle:
        games = []
        while len(games) < max(200, explorer_count // 4):
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            games.append(list(game.mainline_moves()))
    for k in range(explorer_count):
        moves = games[k % len(games)]
        board = chess.Board()
        plies = rng.randint(0, min(40, len(moves)))
        for move in moves[:plies]:
            board.push(move)
        if k % 10 == 9:
            # A position no game reaches (most likely): a random legal move more.
            legal = list(board.legal_moves)
            if legal:
                board.push(rng.choice(legal))
        explorer.append(" ".join(move.uci() for move in board.move_stack))
    # Deep positions too: a search replays each game until it can no longer reach the position,
    # longest for the middlegame and the last position of a game.
    for plies in [1, 2, 4, 8, 16, 30, 60, "end"][:search_count]:
        wanted = 80 if plies == "end" else plies
        moves = next(m for m in games[rng.randrange(len(games)):] + games if len(m) >= wanted)
        board = chess.Board()
        for move in moves[:len(moves) if plies == "end" else plies]:
            board.push(move)
        search.append((plies if plies != "end" else f"end ({len(moves)})", " ".join(board.fen().split()[:4])))
    return explorer, search


def import_runs(path, folder, runs):
    results = {"index": [], "no index": []}
    for run in range(runs):
        for name in (["index", "no index"] if run % 2 == 0 else ["no index", "index"]):
            db = folder / f"{name.replace(' ', '-')}.db3"
            for suffix in ("", "-journal"):
                pathlib.Path(str(db) + suffix).unlink(missing_ok=True)
            args = [str(PGN_LSP), "import", "--no-comment-rows", "--db", str(db), str(path)]
            if name == "no index":
                args.insert(2, "--no-position-index")
            sample = measure_memory(args, files=[path, db])
            sample["size"] = db.stat().st_size / 1e6
            results[name].append(sample)
    return results


def explorer_times(db, lines, busy):
    with tempfile.NamedTemporaryFile("w", suffix=".lines", delete=False) as handle:
        handle.write("\n".join(lines) + "\n")
    try:
        # One run to warm the page cache, one measured.
        for attempt in range(2):
            context = Competitor() if busy else _Nothing()
            with context:
                out = subprocess.run(
                    [str(PGN_LSP), "explore", "--db", str(db), "--timing-file", handle.name],
                    capture_output=True, check=True).stdout
        lines = [json.loads(line) for line in out.decode().splitlines()]
    finally:
        os.unlink(handle.name)
    micros = [line["micros"] for line in lines]
    known = sum(1 for line in lines if line["games"] > 0)
    return {"median_ms": statistics.median(micros) / 1000, "p99_ms": percentile(micros, 99) / 1000,
            "max_ms": max(micros) / 1000, "positions": len(lines), "known": known}


def search_times(db, positions, busy, ocgdb, ocgdb_positions):
    rows = []
    for k, (plies, fen) in enumerate(positions):
        context = Competitor() if busy else _Nothing()
        with context:
            measure([str(PGN_LSP), "search", "--db", str(db), "--fen", fen, "--limit", "0"])  # warm
            wall, rss, out, status = measure(
                [str(PGN_LSP), "search", "--db", str(db), "--fen", fen, "--limit", "0", "--format", "json"])
            found = json.loads(out)["total"] if status in (0, 1) else None
            row = {"plies": plies, "fen": fen, "seconds": wall, "games": found, "rss": rss}
            if ocgdb and ocgdb_positions > 0 and (k < ocgdb_positions - 1 or k == len(positions) - 1):
                start = time.perf_counter()
                result = subprocess.run(
                    [ocgdb, "-db", str(db), "-q", f"fen[{fen} 0 1]", "-cpu", "2"], capture_output=True, text=True)
                row["ocgdb_seconds"] = time.perf_counter() - start
                succ = [line for line in result.stdout.splitlines() if "#succ:" in line]
                row["ocgdb_games"] = int(succ[-1].split("#succ:")[1].split()[0]) if succ else None
        rows.append(row)
    return rows


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="1m")
    parser.add_argument("--inputs", default="synthetic,corpus")
    parser.add_argument("--ocgdb", default=None)
    parser.add_argument("--explorer-positions", type=int, default=1000)
    parser.add_argument("--search-positions", type=int, default=8)
    parser.add_argument("--ocgdb-positions", type=int, default=3)
    parser.add_argument("--conditions", default="quiet,busy")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--db-dir", default=None)
    args = parser.parse_args()
    games = scale_corpus.parse_size(args.games)
    folder = pathlib.Path(args.db_dir or tempfile.mkdtemp(prefix="pgn-lsp-positions-"))
    folder.mkdir(parents=True, exist_ok=True)
    report = {}
    for name in args.inputs.split(","):
        path = synthetic_input(games) if name == "synthetic" else corpus_input(games)
        explorer_fens, search_positions = sample_positions(path, args.explorer_positions, args.search_positions)
        (folder / name).mkdir(exist_ok=True)
        imports = import_runs(path, folder / name, args.runs)
        db = folder / name / "index.db3"
        entry = {"input": str(path), "imports": {}, "explorer": {}, "search": {}}
        for kind, samples in imports.items():
            entry["imports"][kind] = {
                "seconds": statistics.median(s["seconds"] for s in samples),
                "rss": max(s["rss"] for s in samples), "anon": max(s["anon"] for s in samples),
                "size": samples[0]["size"]}
        for condition in args.conditions.split(","):
            busy = condition == "busy"
            entry["explorer"][condition] = explorer_times(db, explorer_fens, busy)
            entry["search"][condition] = search_times(
                db, search_positions, busy, args.ocgdb, args.ocgdb_positions if not busy else 0)
        report[name] = entry
        print(json.dumps({name: entry}, indent=1), flush=True)
    for name, entry in report.items():
        index, plain = entry["imports"]["index"], entry["imports"]["no index"]
        print(f"\n## {name}, {games:,} games ({entry['input']})")
        print("| import | seconds | peak RSS MB | anon MB | file MB |\n|---|---|---|---|---|")
        for kind in ("no index", "index"):
            row = entry["imports"][kind]
            print(f"| {kind} | {row['seconds']:.1f} | {row['rss']:.0f} | {row['anon']:.0f} | {row['size']:.0f} |")
        print(f"index adds {index['seconds'] / plain['seconds'] - 1:+.0%} time, "
              f"{index['size'] / plain['size'] - 1:+.0%} size")
        for condition, row in entry["explorer"].items():
            print(f"explorer ({condition}): {row['positions']} positions ({row['known']} known), "
                  f"median {row['median_ms']:.2f} ms, p99 {row['p99_ms']:.2f} ms, max {row['max_ms']:.2f} ms")
        for condition, rows in entry["search"].items():
            print(f"\nsearch ({condition}):\n| plies | games | pgn-lsp s | ocgdb games | ocgdb s | ratio |\n|---|---|---|---|---|---|")
            for row in rows:
                ratio = f"{row['ocgdb_seconds'] / row['seconds']:.0f}×" if "ocgdb_seconds" in row else ""
                print(f"| {row['plies']} | {row['games']} | {row['seconds']:.3f} | {row.get('ocgdb_games', '')} | "
                      f"{row.get('ocgdb_seconds', 0):.1f} | {ratio} |")


if __name__ == "__main__":
    main()
