#!/usr/bin/env python3
"""Perft speed of pgn-lsp beside Stockfish (`go perft N`, one thread), in the same run.

Usage: scripts/bench/perft.py [--runs N]   (build first: swift build -c release)
Prints a Markdown table of medians for BENCHMARKS.md.
"""
import argparse
import pathlib
import re
import shutil
import statistics
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PGN_LSP = ROOT / ".build" / "release" / "pgn-lsp"
CASES = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 119_060_324),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193_690_690),
]


def stockfish_binary():
    return shutil.which("stockfish") or "/usr/games/stockfish"


def time_pgn_lsp(fen, depth, expected):
    start = time.perf_counter()
    out = subprocess.run([str(PGN_LSP), "perft", "--fen", fen, "--depth", str(depth)],
                         capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    assert int(out.split()[-1]) == expected, out
    return elapsed


def time_stockfish(fen, depth, expected):
    commands = f"setoption name Threads value 1\nposition fen {fen}\ngo perft {depth}\nquit\n"
    start = time.perf_counter()
    out = subprocess.run([stockfish_binary()], input=commands, capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    nodes = int(re.search(r"Nodes searched: (\d+)", out).group(1))
    assert nodes == expected, out
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print("| position | depth | nodes | pgn-lsp median s | pgn-lsp Mnodes/s | Stockfish median s "
          "| Stockfish Mnodes/s | speed vs Stockfish |")
    print("|---|---|---|---|---|---|---|---|")
    for name, fen, depth, expected in CASES:
        ours, theirs = [], []
        for _ in range(args.runs):  # interleaved, so that noise hits both alike
            ours.append(time_pgn_lsp(fen, depth, expected))
            theirs.append(time_stockfish(fen, depth, expected))
        o, t = statistics.median(ours), statistics.median(theirs)
        print(f"| {name} | {depth} | {expected:,} | {o:.3f} | {expected / o / 1e6:.0f} | {t:.3f} "
              f"| {expected / t / 1e6:.0f} | {t / o:.2f}× |")


if __name__ == "__main__":
    main()
