#!/usr/bin/env python3
"""Opening a large file in the editor: the 1 MB lichess file repeated `--copies` times (100:
100 MB, 1000: 1 GB), opened as an editor opens it. Right after `didOpen` the client asks what
the first screen needs, as VS Code and Neovim 0.11 do: semantic tokens for lines 0–60
(`semanticTokens/range`), inlay hints and folding ranges, and a hover on the first move; then
the whole file's semantic tokens; and it waits for the first full diagnostics (pushed). Then
keystrokes, each followed by the delta of the semantic tokens (with the latest `resultId`,
then with the one before it, as a client that missed an answer asks) and a hover sent in the
same instant. Each first answer is timed from the end of the client's writing of `didOpen`, each
later one from its own sending;
`pgn-lsp check` reads the same file in the same run.

Usage: scripts/bench/open.py [--copies N] [--runs N] [--busy] [BINARY]
"""
import argparse
import importlib.util
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

from common import LICHESS_1M, PGN_LSP, keystroke, shared

# The typing benchmark's client: it stamps each answer with its arrival and does not parse a
# large one. (Loaded by path: the file's name is also a module of Python's.)
_spec = importlib.util.spec_from_file_location("typing_benchmark", pathlib.Path(__file__).with_name("typing.py"))
_typing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_typing)
TimedClient = _typing.TimedClient

CAPABILITIES = {
    "textDocument": {
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "semanticTokens": {"requests": {"range": True, "full": {"delta": True}},
                           "tokenTypes": [], "tokenModifiers": [], "formats": ["relative"]},
        "publishDiagnostics": {"versionSupport": True},
    },
    "window": {"workDoneProgress": True},
}


def peak_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def check_once(binary, path):
    """`pgn-lsp check` on the file: wall seconds and peak memory (VmHWM, polled: the kernel's
    ru_maxrss of a child forked from this process counts this process's pages)."""
    start = time.perf_counter()
    process = subprocess.Popen([str(binary), "check", str(path)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    peak = 0.0
    while process.poll() is None:
        try:
            peak = max(peak, peak_mb(process.pid))
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.01)
    process.wait()
    return time.perf_counter() - start, peak


def open_once(binary, path: pathlib.Path, keystrokes: int):
    os.environ["PGN_LSP"] = str(binary)
    text = path.read_text()
    client = TimedClient()
    client.initialize(encodings=("utf-16",), capabilities=CAPABILITIES, options={"pgn": {"engine": {"hoverMs": 0}}})
    uri = path.as_uri()
    document = {"textDocument": {"uri": uri}}
    screen = {**document, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 60, "character": 0}}}
    first_move = text.split("\n").index(next(line for line in text.split("\n") if line.startswith("1. ")))
    figures = {}
    sending = time.perf_counter()
    client.open(uri, text)
    # From here on the server has the message but for the pipe's last 64 KB: the time the
    # client took to write it is its own.
    opened = time.perf_counter()
    figures["didOpen written by the client"] = opened - sending
    pending = {
        client.request_async("textDocument/semanticTokens/range", screen): "screen: semantic tokens",
        client.request_async("textDocument/inlayHint", screen): "screen: inlay hints",
        client.request_async("textDocument/hover", {**document, "position": {"line": first_move, "character": 3}}):
            "screen: hover",
        client.request_async("textDocument/foldingRange", document): "folding ranges",
        client.request_async("textDocument/semanticTokens/full", document): "semantic tokens (full)",
    }
    result_ids = []
    sizes = {}
    diagnosed = False
    while pending or not diagnosed:
        message = client.wait_for(lambda m: ("id" in m and "method" not in m and m["id"] in pending)
                                  or m.get("method") == "textDocument/publishDiagnostics", timeout=1200)
        if "id" in message:
            name = pending.pop(message["id"])
            figures[name] = message["_arrived"] - opened
            sizes[name] = message["_size"]
            if name == "semantic tokens (full)":
                result_ids.append(message["result"].get("resultId"))
        elif message["params"]["uri"] == uri and not diagnosed:
            diagnosed = True
            figures["first diagnostics"] = message["_arrived"] - opened
    figures["peak RSS after opening (MB)"] = peak_mb(client.process.pid)
    lines = text.split("\n")
    places = [i for i, line in enumerate(lines) if line.startswith("1. ")]
    places = [places[k * len(places) // 8] for k in range(8)]
    deltas, stale, hovers, delta_sizes = [], [], [], []
    for k in range(keystrokes):
        line = places[k % len(places)]
        change = keystroke(line, k)
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": k + 2},
                                                 "contentChanges": [change]})
        hover = client.request_async("textDocument/hover",
                                     {**document, "position": {"line": line + 1, "character": 3}})
        previous = result_ids[-2] if len(result_ids) >= 2 and k % 4 == 3 else result_ids[-1]
        delta = client.request_async("textDocument/semanticTokens/full/delta",
                                     {**document, "previousResultId": previous})
        # The two answers come in either order.
        waiting = {hover, delta}
        while waiting:
            message = client.wait_for(lambda m: m.get("id") in waiting and "method" not in m, timeout=1200)
            id_ = message["id"]
            waiting.discard(id_)
            if id_ == hover:
                hovers.append(message["_arrived"] - sent)
            else:
                (stale if previous != result_ids[-1] else deltas).append(message["_arrived"] - sent)
                delta_sizes.append(message["_size"])
                result_ids.append(message["result"].get("resultId"))
    if deltas:
        figures["delta after a keystroke"] = statistics.median(deltas)
        figures["delta from an older result"] = statistics.median(stale) if stale else float("nan")
        figures["delta size (KB)"] = statistics.median(delta_sizes) / 1024
        figures["hover beside an edit"] = statistics.median(hovers)
    figures["full tokens size (MB)"] = sizes.get("semantic tokens (full)", 0) / 1e6
    figures["peak RSS (MB)"] = peak_mb(client.process.pid)
    client.shutdown()
    client.close()
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keystrokes", type=int, default=8)
    parser.add_argument("--busy", action="store_true", help="with a CPU-bound process running beside")
    parser.add_argument("binary", nargs="?", default=str(PGN_LSP))
    args = parser.parse_args()
    one = shared(LICHESS_1M).read_bytes()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pgn-lsp-open-"))
    path = folder / f"lichess-x{args.copies}.pgn"
    with open(path, "wb") as out:
        for _ in range(args.copies):
            out.write(one)
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if args.busy else None
    try:
        runs = [open_once(args.binary, path, args.keystrokes) for _ in range(args.runs)]
        checks = [check_once(args.binary, path) for _ in range(args.runs)]
    finally:
        if busy:
            busy.kill()
        path.unlink()
        folder.rmdir()
    size = len(one) * args.copies / 1e6
    print(f"{size:.1f} MB, {args.runs} runs{', busy' if args.busy else ''}: medians")
    for name in runs[0]:
        values = [run[name] for run in runs if name in run]
        unit = "" if name.endswith("B)") else " s"
        print(f"  {name:32} {statistics.median(values):10.3f}{unit}")
    print(f"  {'pgn-lsp check':32} {statistics.median(c[0] for c in checks):10.3f} s, "
          f"{statistics.median(c[1] for c in checks):.0f} MB")


if __name__ == "__main__":
    main()
