#!/usr/bin/env python3
"""Hover latency on the 1 MB lichess file, over pipes, without the engine: the board as text
(a client named Neovim) and as a picture (a client named Visual Studio Code, which gets the SVG
image in base64), for each binary given. Then the same on a copy of the file in which every
piece move carries a comment that marks two squares and draws two arrows (`--marked`).
The variants take turns, `--rounds` times `--requests` hovers each (a new server per round),
so that a busy machine slows them alike; p50 and p99 are over all their hovers, with the mean
size of the answer. A first hover in a game replays it (about 40% of the first pass); the same
hovers asked again ("again") find its positions kept, and show the cost of the answer itself.

With `--database FILE` (an OCGDB database with its position index, `pgn.database.path`) each
hover also carries the explorer's section: the games of that database that reached the
position, their results, the moves played next and the best-rated game (`--text-only` leaves
out the picture and the marked file).

Usage: scripts/bench/hover.py [--requests N] [--rounds N] [--database FILE] [--text-only] [BINARY...]
(default: the release build; name two binaries to compare a build before a change with one after)
"""
import argparse
import json
import os
import random
import re
import time

from common import LICHESS_1M, PGN_LSP, percentile, position, shared
from lsp_client import LSPClient

CLIENTS = {"text": {"name": "Neovim", "version": "0.11.4"},
           "picture": {"name": "Visual Studio Code", "version": "1.96.0"}}
MARKS = " {[%csl Gd4,Re5][%cal Ge2e4,Bb1c3]}"


def hover_round(binary, client_info, text, requests, seed, database=None):
    os.environ["PGN_LSP"] = str(binary)
    client = LSPClient()
    try:
        options = {"pgn": {"engine": {"hoverMs": 0}}}
        if database:
            options["pgn"]["database"] = {"path": str(database)}
        client.initialize(options=options, client_info=client_info)
        uri = "file:///bench/hover.pgn"
        client.open(uri, text)
        client.diagnostics(uri, version=1)
        rng = random.Random(seed)
        moves = [i for i in range(len(text) - 4)
                 if text[i] == " " and text[i + 1] in "NBRQK" and text[i + 2] in "abcdefghx"]
        places = [position(text, rng.choice(moves) + 2) for _ in range(requests)]
        timings, again, sizes = [], [], []
        for times in (timings, again):
            for at in places:
                t0 = time.perf_counter()
                result = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
                times.append(time.perf_counter() - t0)
                sizes.append(len(json.dumps(result)))
        client.shutdown()
        return timings, again, sizes
    finally:
        client.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database", default=None)
    parser.add_argument("--text-only", action="store_true")
    parser.add_argument("binaries", nargs="*")
    args = parser.parse_args()
    binaries = args.binaries or [str(PGN_LSP)]

    plain = shared(LICHESS_1M).read_text()
    marked = re.sub(r"( [NBRQK][a-hx][a-h1-8x=+#]*)", lambda m: m.group(1) + MARKS, plain)
    texts = {"1 MB": plain, f"marked ({len(marked) / 1e6:.1f} MB)": marked}
    if args.text_only:
        texts = {"1 MB": plain}
    clients = ["text"] if args.text_only else list(CLIENTS)
    variants = [(b, c, t) for t in texts for b in binaries for c in clients]
    results = {v: ([], [], []) for v in variants}
    for round_ in range(args.rounds):
        for variant in variants:
            binary, client, text = variant
            for kept, new in zip(results[variant], hover_round(binary, CLIENTS[client], texts[text], args.requests,
                                                               seed=round_, database=args.database)):
                kept.extend(new)

    def ms(values):
        return f"{percentile(values, 50) * 1000:.2f} / {percentile(values, 99) * 1000:.2f} ms"

    print("| file | binary | client | hover p50 / p99 | again: p50 / p99 | answer (mean) |")
    print("|---|---|---|---|---|---|")
    for (binary, client, text), (timings, again, sizes) in results.items():
        print(f"| {text} | `{binary}` | {client} ({CLIENTS[client]['name']}) | {ms(timings)} | {ms(again)} | "
              f"{sum(sizes) / len(sizes) / 1024:.1f} KB |")


if __name__ == "__main__":
    main()
