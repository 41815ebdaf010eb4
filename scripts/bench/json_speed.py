#!/usr/bin/env python3
"""The server's own JSON reader and writer against Foundation's: reading the `didOpen` message
of the 100 MB file (the 1 MB lichess file 100 times), and writing an array of 50 M integers;
the median of three runs of each (`pgn-lsp json-benchmark`, a hidden subcommand).

Usage: scripts/bench/json_speed.py [--copies N] [--integers N] [--runs N] [BINARY]
(default: the release build; build first: swift build -c release)
"""
import argparse
import subprocess

from common import PGN_LSP, big_lichess_file


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--integers", type=int, default=50_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("binary", nargs="?", default=str(PGN_LSP))
    args = parser.parse_args()
    path = big_lichess_file(args.copies)
    subprocess.run([args.binary, "json-benchmark", str(path), "--integers", str(args.integers),
                    "--runs", str(args.runs)], check=True)


if __name__ == "__main__":
    main()
