#!/usr/bin/env python3
"""The explorer with filters on a million games: the time to count a filter's games (once per
filter) and each answer after it, beside the unfiltered explorer's answer on the same positions.

Usage: scripts/bench/explorer_filters.py [--games 1000000] [--positions 1000]

Inputs (made once and kept in /tmp, never downloaded), both imported with `--no-comment-rows`:
- lichess-like: `scale_corpus.py`'s file of N games (the lichess file repeated with Zipf-drawn
  names, its dates, ratings and time controls), and 10,074 more (the file 23 times) in which
  `Prepared Opponent` has White or Black in turn: a player with ten thousand games. Positions:
  after 0–12 plies of the file's games.
- distinct: `bench-games`' N distinct games (`positions.py`), dated 1990–2025 and rated
  1200–2799, as in `repertoire.py`. Positions: after 0–30 plies of its first games.
Each filter runs as `pgn-lsp explore --timing-file` (the answers timed inside the process; the
first waits for the count).
"""
import argparse
import json
import pathlib
import random
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import LICHESS_1M, PGN_LSP, measure_memory, percentile, shared  # noqa: E402
import scale_corpus  # noqa: E402
from repertoire import reference  # noqa: E402

OPPONENT = "Prepared Opponent"


def opponent_games(copies=23):
    """The lichess file `copies` times, `OPPONENT` as White in even games and Black in odd ones."""
    path = pathlib.Path(f"/tmp/pgn-lsp-bench-filters-opponent-{copies}.pgn")
    if not path.exists():
        games = shared(LICHESS_1M).read_text(encoding="utf-8").split("[Event ")[1:]
        with open(path, "w", encoding="utf-8") as out:
            for copy in range(copies):
                for number, game in enumerate(games):
                    side = "White" if number % 2 == 0 else "Black"
                    game = re.sub(rf'\[{side} "[^"]*"\]', f'[{side} "{OPPONENT}"]', game, count=1)
                    game = re.sub(r'\[Round "[^"]*"\]', f'[Round "opponent {copy + 1}"]', game, count=1)
                    out.write("[Event " + game)
    return path


def lichess_database(games):
    db = pathlib.Path(f"/tmp/pgn-lsp-bench-filters-v2-{games}.db3")
    if not db.exists():
        source = scale_corpus.scale_file(games)[0]
        partial = db.with_suffix(".partial.db3")
        partial.unlink(missing_ok=True)
        subprocess.run([str(PGN_LSP), "import", "--no-comment-rows", "--db", str(partial), str(source),
                        str(opponent_games())], check=True, stdout=subprocess.DEVNULL)
        partial.rename(db)
    return db


def lines(pgn, count, games=None, plies=12, seed=20261130):
    import chess.pgn

    replayed = []
    with open(pgn, encoding="utf-8") as handle:
        while (games is None or len(replayed) < games) and (game := chess.pgn.read_game(handle)) is not None:
            replayed.append([move.uci() for move in game.mainline_moves()])
    rng = random.Random(seed)
    return [" ".join(rng.choice(replayed)[:rng.randint(0, plies)]) for _ in range(count)]


def run(db, positions, options):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write("\n".join(positions) + "\n")
    with tempfile.NamedTemporaryFile("w+", suffix=".jsonl") as out:
        sample = measure_memory([str(PGN_LSP), "explore", "--db", str(db), "--timing-file", handle.name, *options],
                                stdout=out)
        out.seek(0)
        rows = [json.loads(line) for line in out.read().splitlines()]
    built = next((row for row in rows if "built" in row), None)
    answers = [row["micros"] / 1000 for row in rows if "moves" in row]
    return built, answers, sample["rss"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--positions", type=int, default=1000)
    args = parser.parse_args()
    lichess = lichess_database(args.games)
    pgn, distinct = reference(args.games)
    sets = [
        (f"lichess-like, {args.games:,} games + 10,074", lichess, lines(shared(LICHESS_1M), args.positions), [
            ("none", []),
            (f"player {OPPONENT}", ["--player", OPPONENT]),
            ("the same as White", ["--player", OPPONENT, "--color", "white"]),
            ("average rating 2300-2500", ["--min-elo", "2300", "--max-elo", "2500"]),
            ("average rating 1500-2000", ["--min-elo", "1500", "--max-elo", "2000"]),
            ("blitz, average rating 2000-2100", ["--speed", "blitz", "--min-elo", "2000", "--max-elo", "2100"]),
        ]),
        (f"distinct, {args.games:,} games", distinct, lines(pgn, args.positions, games=2000, plies=30), [
            ("none", []),
            ("one year (2010)", ["--since", "2010", "--until", "2010"]),
            ("ten years (2000-2009)", ["--since", "2000", "--until", "2009"]),
            ("average rating 1800-2200", ["--min-elo", "1800", "--max-elo", "2200"]),
            ("every game (since 1900)", ["--since", "1900"]),
        ]),
    ]
    for name, db, positions, filters in sets:
        print(f"\n{name}, {len(positions)} positions")
        print("| filter | games kept | counted in | answer p50 / p99 / max | peak MB |")
        print("|---|---|---|---|---|")
        for label, options in filters:
            built, answers, peak = run(db, positions, options)
            kept = f"{built['built']:,}" if built else "all"
            took = f"{built['micros'] / 1e6:.3f} s" if built else "—"
            print(f"| {label} | {kept} | {took} | {statistics.median(answers):.3f} / {percentile(answers, 99):.3f} / "
                  f"{max(answers):.3f} ms | {peak:.0f} |")


if __name__ == "__main__":
    main()
