#!/usr/bin/env python3
"""`pgn-lsp check` on the 1 MB lichess file concatenated to 100 MB, beside pgn-extract
(`-r -s --quiet`, Debian package) and python-chess reading every game, in the same run.

Usage: scripts/bench/check.py [--runs N] [--python-runs N]   (build first: swift build -c release)
Prints a Markdown table of medians (MB/s, games/s, peak memory) for BENCHMARKS.md.
"""
import argparse
import shutil
import statistics
import sys

from common import PGN_LSP, big_lichess_file, measure

PYTHON_READER = """
import sys, chess.pgn
games = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
    while chess.pgn.read_game(handle) is not None:
        games += 1
print(games)
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python-runs", type=int, default=1)
    args = parser.parse_args()
    path = big_lichess_file()
    size_mb = path.stat().st_size / 1e6
    games = 43_800
    pgn_extract = shutil.which("pgn-extract") or "/usr/games/pgn-extract"
    tools = {
        "pgn-lsp check": ([str(PGN_LSP), "check", str(path)], args.runs),
        "pgn-extract -r -s --quiet": ([pgn_extract, "-r", "-s", "--quiet", str(path)], args.runs),
        "python-chess read_game": ([sys.executable, "-c", PYTHON_READER, str(path)], args.python_runs),
    }
    results = {name: [] for name in tools}
    for run in range(max(runs for _, runs in tools.values())):
        for name, (command, runs) in tools.items():
            if run < runs:
                seconds, peak, _, _ = measure(command)
                results[name].append((seconds, peak))
    print(f"File: {path.name}, {size_mb:.1f} MB, {games:,} games.\n")
    print("| tool | runs | median s | MB/s | games/s | peak memory MB |")
    print("|---|---|---|---|---|---|")
    for name, samples in results.items():
        seconds = statistics.median(s for s, _ in samples)
        peak = statistics.median(p for _, p in samples)
        print(f"| {name} | {len(samples)} | {seconds:.2f} | {size_mb / seconds:.1f} | {games / seconds:,.0f} "
              f"| {peak:.0f} |")


if __name__ == "__main__":
    main()
