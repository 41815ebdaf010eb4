#!/usr/bin/env python3
"""Documents whose lines are long, in UTF-16 (VS Code's only position encoding): the 1 MB
lichess file written on one line, 180 KB of `$1 ` on one line, and 40 KB of NUL bytes. For
each, the time from opening to the first diagnostics, then semantic tokens, inlay hints and
document symbols of the whole document, over pipes as an editor asks for them. A request that
takes longer than --limit seconds is reported as `> limit`, and the server is ended.

Usage: scripts/bench/long_line.py [--limit S] [--runs N] [BINARY...]
(default: the release build; build first: swift build -c release)
"""
import argparse
import os
import statistics
import time

from common import LICHESS_1M, ROOT, shared
from lsp_client import LSPClient


def documents():
    lichess = shared(LICHESS_1M).read_text()
    return [
        ("1 MB lichess file on one line", lichess.replace("\r\n", " ").replace("\n", " ")),
        ("180 KB of `$1 ` on one line", "[Event \"x\"] 1. e4 " + "$1 " * 60_000 + "*"),
        ("40 KB of NUL bytes", "\0" * 40_000),
    ]


def measure(binary, text, limit):
    """Seconds to first diagnostics and for each whole-document request; None past the limit."""
    os.environ["PGN_LSP"] = str(binary)
    client = LSPClient()
    times = {}
    try:
        client.initialize(encodings=("utf-16",), options={"pgn": {"engine": {"hoverMs": 0}}})
        uri = "file:///bench/long.pgn"
        start = time.perf_counter()
        client.open(uri, text)
        try:
            client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=limit)
            times["diagnostics"] = time.perf_counter() - start
        except Exception:
            times["diagnostics"] = None
            return times
        document = {"textDocument": {"uri": uri}}
        whole = {**document, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}}
        for name, method, params in [
            ("semantic tokens", "textDocument/semanticTokens/full", document),
            ("inlay hints", "textDocument/inlayHint", whole),
            ("document symbols", "textDocument/documentSymbol", document),
        ]:
            start = time.perf_counter()
            try:
                client.request(method, params, timeout=limit)
                times[name] = time.perf_counter() - start
            except Exception:
                times[name] = None
                return times
        client.shutdown()
    finally:
        client.close()
    return times


def show(seconds, limit):
    if seconds is None:
        return f"> {limit:g} s"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("binaries", nargs="*", default=[str(ROOT / ".build" / "release" / "pgn-lsp")])
    args = parser.parse_args()
    columns = ["diagnostics", "semantic tokens", "inlay hints", "document symbols"]
    print("| document | binary | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for label, text in documents():
        results = {binary: [] for binary in args.binaries}
        # Binaries alternate run by run, so both meet the same machine.
        for _ in range(args.runs):
            for binary in args.binaries:
                results[binary].append(measure(binary, text, args.limit))
        for binary, runs in results.items():
            cells = []
            for column in columns:
                values = [run.get(column) for run in runs if column in run]
                if not values or any(v is None for v in values):
                    cells.append(show(None, args.limit) if values else "—")
                else:
                    cells.append(show(statistics.median(values), args.limit))
            print(f"| {label} | {binary} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
