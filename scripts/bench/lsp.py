#!/usr/bin/env python3
"""The language server spoken to over pipes, as an editor does: open the 1 MB lichess file
(time to first diagnostics), one-character edits in its middle that break a move and repair
it (time to the new diagnostics), hover and completion latency, and a 100 MB file (time to
diagnostics, the same edits, peak memory).

Usage: scripts/bench/lsp.py [--edits N] [--requests N] [--big-edits N]   (build first: swift build -c release;
$PGN_LSP names another binary)
"""
import argparse
import random
import statistics
import time

from common import LICHESS_1M, big_lichess_file, percentile, position, shared
from lsp_client import LSPClient


def peak_memory_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_and_wait(client, uri, text):
    start = time.perf_counter()
    client.open(uri, text, version=1)
    diagnostics = client.diagnostics(uri, version=1)
    return time.perf_counter() - start, diagnostics


def break_and_repair(client, uri, text, edits, version=1):
    """One-character edits of a move in the middle of the text (`Nc6` → `Nc5` → `Nc6` …); the time
    from each `didChange` to its diagnostics."""
    middle = text.index(" Nc6 ", len(text) // 2) + 1
    end = position(text, middle + 3)
    start = position(text, middle + 2)
    timings = []
    for k in range(edits):
        version += 1
        new = "5" if k % 2 == 0 else "6"  # Nc5 is illegal here; Nc6 is the move played
        t0 = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"range": {"start": start, "end": end}, "text": new}]})
        diagnostics = client.diagnostics(uri, version=version)
        timings.append(time.perf_counter() - t0)
        errors = [d for d in diagnostics if d["severity"] == 1]
        assert bool(errors) == (new == "5"), (k, errors[:1])
    return timings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--big-edits", type=int, default=20)
    args = parser.parse_args()
    rows = []

    text = shared(LICHESS_1M).read_text()
    client = LSPClient()
    # Hover without the engine: its time is pgn.engine.hoverMs by design (scripts/bench/review.py).
    client.initialize(options={"pgn": {"engine": {"hoverMs": 0}}})
    uri = "file:///bench/lichess.pgn"
    seconds, _ = open_and_wait(client, uri, text)
    rows.append(("open 1 MB (438 games): first diagnostics", f"{seconds * 1000:.0f} ms"))

    timings = break_and_repair(client, uri, text, args.edits)
    rows.append((f"edit that breaks / repairs a move ({args.edits} edits): median", f"{statistics.median(timings) * 1000:.1f} ms"))
    rows.append(("  p95", f"{percentile(timings, 95) * 1000:.1f} ms"))

    rng = random.Random(1)
    moves = [i for i in range(len(text) - 4) if text[i] == " " and text[i + 1] in "NBRQK" and text[i + 2] in "abcdefghx"]
    hover, completion = [], []
    for _ in range(args.requests):
        at = position(text, rng.choice(moves) + 2)
        t0 = time.perf_counter()
        client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
        hover.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": at})
        completion.append(time.perf_counter() - t0)
    rows.append((f"hover ({args.requests}): p50 / p99", f"{percentile(hover, 50) * 1000:.2f} / {percentile(hover, 99) * 1000:.2f} ms"))
    rows.append((f"completion ({args.requests}): p50 / p99",
                 f"{percentile(completion, 50) * 1000:.2f} / {percentile(completion, 99) * 1000:.2f} ms"))
    client.shutdown()

    big = big_lichess_file().read_text()
    client = LSPClient()
    client.initialize()
    seconds, _ = open_and_wait(client, "file:///bench/big.pgn", big)
    rows.append(("open 100 MB (43,800 games): first diagnostics", f"{seconds:.2f} s"))
    timings = break_and_repair(client, "file:///bench/big.pgn", big, args.big_edits)
    rows.append((f"edit in 100 MB that breaks / repairs a move ({args.big_edits} edits): median",
                 f"{statistics.median(timings) * 1000:.1f} ms"))
    rows.append(("  p95", f"{percentile(timings, 95) * 1000:.1f} ms"))
    rows.append(("  peak memory of the server", f"{peak_memory_mb(client.process.pid):.0f} MB"))
    client.shutdown()

    print("| measure | value |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
