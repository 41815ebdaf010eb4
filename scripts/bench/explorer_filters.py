#!/usr/bin/env python3
"""The explorer with filters on a million games: the time to count a filter's games (once per
filter) and each answer after it, beside the unfiltered explorer's answer on the same positions.

Usage: scripts/bench/explorer_filters.py [--games 1000000] [--positions 1000]

Input (made once and kept in /tmp, never downloaded): `scale_corpus.py`'s file of N games (the
lichess file repeated with Zipf-drawn names, its dates, ratings and time controls) imported with
`--no-comment-rows`. Positions: after 0–12 plies of the file's games, from a fixed seed. Each
filter runs as `pgn-lsp explore --timing-file` (the answers timed inside the process): the busiest
player, that player as White, a rating range, a speed with a rating range.
"""
import argparse
import json
import pathlib
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import LICHESS_1M, PGN_LSP, percentile, shared  # noqa: E402
import scale_corpus  # noqa: E402


def database(games):
    db = pathlib.Path(f"/tmp/pgn-lsp-bench-filters-{games}.db3")
    if not db.exists():
        source = scale_corpus.scale_file(games)[0]
        partial = db.with_suffix(".partial.db3")
        partial.unlink(missing_ok=True)
        subprocess.run([str(PGN_LSP), "import", "--no-comment-rows", "--db", str(partial), str(source)], check=True,
                       stdout=subprocess.DEVNULL)
        partial.rename(db)
    return db


def lines(count, seed=20261130):
    import chess.pgn

    games = []
    with open(shared(LICHESS_1M), encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append([move.uci() for move in game.mainline_moves()])
    rng = random.Random(seed)
    return [" ".join(rng.choice(games)[:rng.randint(0, 12)]) for _ in range(count)]


def run(db, positions, options):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write("\n".join(positions) + "\n")
    made = subprocess.run([str(PGN_LSP), "explore", "--db", str(db), "--timing-file", handle.name, *options],
                          capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in made.stdout.splitlines()]
    built = next((row for row in rows if "built" in row), None)
    answers = [row["micros"] / 1000 for row in rows if "moves" in row]
    return built, answers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--positions", type=int, default=1000)
    args = parser.parse_args()
    db = database(args.games)
    connection = sqlite3.connect(db)
    (player_id, player_games), = connection.execute(
        "SELECT id, COUNT(*) FROM (SELECT WhiteID AS id FROM Games UNION ALL SELECT BlackID FROM Games) "
        "GROUP BY id ORDER BY COUNT(*) DESC LIMIT 1").fetchall()
    (player,), = connection.execute("SELECT Name FROM Players WHERE ID = ?", (player_id,)).fetchall()
    positions = lines(args.positions)
    filters = [
        ("none", []),
        (f"player {player} ({player_games:,} games)", ["--player", player]),
        ("the same as White", ["--player", player, "--color", "white"]),
        ("average rating 2300-2500", ["--min-elo", "2300", "--max-elo", "2500"]),
        ("blitz, average rating 2000-2100", ["--speed", "blitz", "--min-elo", "2000", "--max-elo", "2100"]),
    ]
    print(f"{args.games:,} games, {len(positions)} positions (after 0-12 plies)")
    print("| filter | games kept | counted in | answer p50 / p99 / max |")
    print("|---|---|---|---|")
    for name, options in filters:
        built, answers = run(db, positions, options)
        kept = f"{built['built']:,}" if built else "all"
        took = f"{built['micros'] / 1e6:.3f} s" if built else "—"
        print(f"| {name} | {kept} | {took} | {statistics.median(answers):.3f} / {percentile(answers, 99):.3f} / "
              f"{max(answers):.3f} ms |")


if __name__ == "__main__":
    main()
