#!/usr/bin/env python3
"""Typing in the 1 MB lichess file, as an editor asks around each keystroke. One character is
typed (and, at the next keystroke, removed) at several places of the file; after each
`didChange` the client sends what VS Code sends — document symbols, semantic tokens,
folding ranges, inlay hints for the 60 visible lines, code lenses and pulled diagnostics — or
what Neovim 0.11 sends (pushed diagnostics, semantic tokens, inlay hints for the window).
Reports each request's p50/p95 over the keystrokes, and the server's CPU time per keystroke.

Usage: scripts/bench/typing.py [--keystrokes N] [BINARY...]   (default: the release build)
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "Tests" / "oracle"))
from common import SHARED  # noqa: E402
import conftest  # noqa: E402
from lsp_client import LSPClient  # noqa: E402

VSCODE = {
    "textDocument": {
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
        "diagnostic": {"dynamicRegistration": False},
    },
    "workspace": {"applyEdit": True, "diagnostics": {"refreshSupport": True}},
}
NEOVIM = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                           "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                           "diagnostic": {"dynamicRegistration": False}}}


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def typing(binary, text, client_kind, keystrokes):
    os.environ["PGN_LSP"] = str(binary)
    client = LSPClient()
    capabilities = VSCODE if client_kind == "VS Code" else NEOVIM
    client.initialize(encodings=("utf-16",), capabilities=capabilities,
                      options={"pgn": {"engine": {"hoverMs": 0}}})
    uri = "file:///bench/typing.pgn"
    client.open(uri, text)
    document = {"textDocument": {"uri": uri}}
    lines = text.split("\n")
    # Places to type: the start of movetext lines spread over the file.
    places = [i for i, line in enumerate(lines) if line.startswith("1. ")]
    places = [places[k * len(places) // 8] for k in range(8)]
    times = {}
    cpu = []
    version = 1
    pid = client.process.pid
    client.request("textDocument/documentSymbol", document, timeout=120)
    for k in range(keystrokes):
        line = places[k % len(places)]
        version += 1
        start_cpu = cpu_seconds(pid)
        typed = k % 2 == 0
        change = {"range": {"start": {"line": line, "character": 0},
                            "end": {"line": line, "character": 0 if typed else 1}},
                  "text": " " if typed else ""}
        started = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [change]})
        visible = {**document, "range": {"start": {"line": max(0, line - 30), "character": 0},
                                         "end": {"line": line + 30, "character": 0}}}
        if client_kind == "VS Code":
            requests = [("diagnostics", "textDocument/diagnostic", document),
                        ("document symbols", "textDocument/documentSymbol", document),
                        ("semantic tokens", "textDocument/semanticTokens/full", document),
                        ("folding ranges", "textDocument/foldingRange", document),
                        ("inlay hints (60 lines)", "textDocument/inlayHint", visible),
                        ("code lenses", "textDocument/codeLens", document)]
        else:
            client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"].get("version") == version, timeout=120)
            times.setdefault("edit → pushed diagnostics", []).append(time.perf_counter() - started)
            requests = [("semantic tokens", "textDocument/semanticTokens/full", document),
                        ("inlay hints (60 lines)", "textDocument/inlayHint", visible)]
        for name, method, params in requests:
            begun = time.perf_counter()
            answer = client.response(client.request_async(method, params), timeout=120)
            if "error" not in answer:
                times.setdefault(name, []).append(time.perf_counter() - begun)
        cpu.append(cpu_seconds(pid) - start_cpu)
    client.shutdown()
    client.close()
    return times, cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keystrokes", type=int, default=100)
    parser.add_argument("binaries", nargs="*", default=[str(conftest.ROOT / ".build" / "release" / "pgn-lsp")])
    args = parser.parse_args()
    text = (SHARED / "corpus" / "lichess" / "lichess_db_1000k.pgn").read_text()
    print("| client | binary | request | p50 | p95 |")
    print("|---|---|---|---|---|")
    for client_kind in ("VS Code", "Neovim 0.11"):
        for binary in args.binaries:
            times, cpu = typing(binary, text, client_kind, args.keystrokes)
            for name, values in times.items():
                print(f"| {client_kind} | {binary} | {name} | {statistics.median(values) * 1000:.1f} ms | "
                      f"{percentile(values, 95) * 1000:.1f} ms |")
            print(f"| {client_kind} | {binary} | server CPU per keystroke | {statistics.median(cpu) * 1000:.0f} ms | "
                  f"{percentile(cpu, 95) * 1000:.0f} ms |", flush=True)


if __name__ == "__main__":
    main()
