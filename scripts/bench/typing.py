#!/usr/bin/env python3
"""Typing in the 1 MB lichess file (or in it repeated, `--copies 100`: 100 MB), as an editor asks
around each keystroke. One character is
typed (and, at the next keystroke, removed) at several places of the file; after each
`didChange` the client sends what VS Code sends — document symbols, semantic tokens,
folding ranges, inlay hints for the 60 visible lines, code lenses and pulled diagnostics — or
what Neovim 0.11 sends (pushed diagnostics, semantic tokens, inlay hints for the window).
The requests after an edit are sent together, as editors do, and each is timed from its own
sending; semantic tokens are asked as a delta of the previous answer where the server offers it.
Reports each request's p50/p95 over the keystrokes, and the server's CPU time per keystroke.

With `--workspace N` the document is in a workspace folder that also holds N other files (the
1 MB file with other rounds: no twins) and an exact copy of the 1 MB file, so that every game of
its first copy has a twin in another file, which the server finds after each edit.

Usage: scripts/bench/typing.py [--keystrokes N] [--copies N] [--busy] [--workspace N] [BINARY...]
(default: the release build; --busy runs a CPU-bound process beside it)
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import LICHESS_1M, ROOT, keystroke, percentile, shared
from lsp_client import LSPClient

# What VS Code's language client announces for these requests (vscode-languageclient 9).
VSCODE = {
    "textDocument": {
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
        "diagnostic": {"dynamicRegistration": False},
        "foldingRange": {"dynamicRegistration": True, "rangeLimit": 5000, "lineFoldingOnly": True,
                         "foldingRangeKind": {"valueSet": ["comment", "imports", "region"]},
                         "foldingRange": {"collapsedText": False}},
        "codeLens": {"dynamicRegistration": True},
        "semanticTokens": {"requests": {"range": True, "full": {"delta": True}}, "tokenTypes": [],
                           "tokenModifiers": [], "formats": ["relative"]},
    },
    "workspace": {"applyEdit": True, "diagnostics": {"refreshSupport": True}, "codeLens": {"refreshSupport": True},
                  "foldingRange": {"refreshSupport": True}},
}
# Neovim 0.11 asks for the whole file's tokens only, never a range.
NEOVIM = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                           "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                           "diagnostic": {"dynamicRegistration": False},
                           "semanticTokens": {"requests": {"range": False, "full": {"delta": True}},
                                              "tokenTypes": [], "tokenModifiers": [], "formats": ["relative"]}}}


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TimedClient(LSPClient):
    """Stamps each message with the time its header arrived: the server has answered then, and
    with its size. (A whole-document answer of a 100 MB file is megabytes of JSON; the time this
    client takes to read and parse it, after the server sent it, is not the server's. An answer
    larger than `LARGE` is not parsed at all: its id and `resultId` are read from its ends, so
    that parsing one answer — which holds Python's lock — never delays reading the next.)"""

    LARGE = 1 << 20

    def _read(self):
        for arrived, body in self.frames():
            message = self.summary(body) if len(body) > self.LARGE else json.loads(body)
            if isinstance(message, dict):
                message["_arrived"] = arrived
                message["_size"] = len(body)
            self.messages.put(message)
        self.messages.put(None)

    @staticmethod
    def summary(body):
        head = re.match(rb'\{"id":(\d+),', body)
        if not head:
            return json.loads(body)
        result_id = re.search(rb'"resultId":"([^"]*)"\}\}$', body[-200:])
        return {"id": int(head.group(1)), "result": {"resultId": result_id.group(1).decode()} if result_id else {}}


def typing(binary, text, client_kind, keystrokes, workspace=None):
    os.environ["PGN_LSP"] = str(binary)
    client = TimedClient()
    capabilities = VSCODE if client_kind == "VS Code" else NEOVIM
    result = client.initialize(encodings=("utf-16",), capabilities=capabilities,
                               options={"pgn": {"engine": {"hoverMs": 0}}},
                               root_uri=workspace.as_uri() if workspace else None)
    tokens_provider = result["capabilities"].get("semanticTokensProvider", {})
    delta = isinstance(tokens_provider.get("full"), dict) and tokens_provider["full"].get("delta")
    uri = (workspace / "typing.pgn").as_uri() if workspace else "file:///bench/typing.pgn"
    client.open(uri, text)
    if workspace:
        time.sleep(3)  # the workspace's files are read in the background
    document = {"textDocument": {"uri": uri}}
    lines = text.split("\n")
    # Places to type: the start of movetext lines spread over the file.
    places = [i for i, line in enumerate(lines) if line.startswith("1. ")]
    places = [places[k * len(places) // 8] for k in range(8)]
    times = {}
    cpu = []
    sizes = []
    version = 1
    pid = client.process.pid
    client.request("textDocument/documentSymbol", document, timeout=600)
    tokens = client.request("textDocument/semanticTokens/full", document, timeout=600)
    # `null` for a file whose whole tokens a client that asks no range does not get.
    result_id = (tokens or {}).get("resultId")
    first_cpu = cpu_seconds(pid)
    for k in range(keystrokes):
        line = places[k % len(places)]
        version += 1
        start_cpu = cpu_seconds(pid)
        change = keystroke(line, k)
        started = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [change]})
        visible = {**document, "range": {"start": {"line": max(0, line - 30), "character": 0},
                                         "end": {"line": line + 30, "character": 0}}}
        if delta and result_id:
            tokens_request = ("semantic tokens (delta)", "textDocument/semanticTokens/full/delta",
                              {**document, "previousResultId": result_id})
        else:
            tokens_request = ("semantic tokens (full)", "textDocument/semanticTokens/full", document)
        if client_kind == "VS Code":
            requests = [("diagnostics", "textDocument/diagnostic", document),
                        ("document symbols", "textDocument/documentSymbol", document),
                        tokens_request,
                        ("folding ranges", "textDocument/foldingRange", document),
                        ("inlay hints (60 lines)", "textDocument/inlayHint", visible),
                        ("code lenses", "textDocument/codeLens", document)]
        else:
            requests = [tokens_request, ("inlay hints (60 lines)", "textDocument/inlayHint", visible)]
        # Sent together, as an editor does: each is timed from its own sending to its answer.
        pending = {}
        received = 0
        for name, method, params in requests:
            pending[client.request_async(method, params)] = (name, time.perf_counter())
        waiting_for_push = client_kind != "VS Code"
        while pending or waiting_for_push:
            message = client.wait_for(
                lambda m: ("id" in m and "method" not in m and m["id"] in pending)
                or (m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version),
                timeout=600)
            if "id" in message:
                name, sent = pending.pop(message["id"])
                received += message["_size"]
                if "error" not in message:
                    times.setdefault(name, []).append(message["_arrived"] - sent)
                    if name.startswith("semantic tokens"):
                        result_id = (message["result"] or {}).get("resultId")
            else:
                waiting_for_push = False
                times.setdefault("edit → pushed diagnostics", []).append(message["_arrived"] - started)
        cpu.append(cpu_seconds(pid) - start_cpu)
        sizes.append(received)
    # Clock ticks are 10 ms: the mean over every keystroke is the finer figure.
    times["mean CPU"] = (cpu_seconds(pid) - first_cpu) / keystrokes
    times["answer bytes"] = statistics.median(sizes)
    times["peak RSS"] = next(int(line.split()[1]) for line in open(f"/proc/{pid}/status")
                             if line.startswith("VmHWM:")) / 1024
    client.shutdown()
    client.close()
    return times, cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keystrokes", type=int, default=100)
    parser.add_argument("--copies", type=int, default=1,
                        help="the 1 MB file this many times over (100: the 100 MB document)")
    parser.add_argument("--busy", action="store_true", help="with a CPU-bound process running beside")
    parser.add_argument("--workspace", type=int, default=0,
                        help="a workspace folder with this many other files and an exact copy of the 1 MB file")
    parser.add_argument("binaries", nargs="*", default=[str(ROOT / ".build" / "release" / "pgn-lsp")])
    args = parser.parse_args()
    one = shared(LICHESS_1M).read_text()
    text = one * args.copies
    workspace = None
    if args.workspace:
        workspace = pathlib.Path(tempfile.mkdtemp(prefix="pgn-lsp-typing-"))
        (workspace / "copy.pgn").write_text(one)
        for k in range(args.workspace):
            (workspace / f"other-{k}.pgn").write_text(re.sub(r'\[Round "[^"]*"\]', f'[Round "w{k}"]', one))
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    print("| client | binary | request | p50 | p95 |")
    print("|---|---|---|---|---|")
    for client_kind in ("VS Code", "Neovim 0.11"):
        for binary in args.binaries:
            times, cpu = typing(binary, text, client_kind, args.keystrokes, workspace)
            mean = times.pop("mean CPU")
            peak = times.pop("peak RSS")
            answered = times.pop("answer bytes")
            for name, values in times.items():
                print(f"| {client_kind} | {binary} | {name} | {statistics.median(values) * 1000:.1f} ms | "
                      f"{percentile(values, 95) * 1000:.1f} ms |")
            print(f"| {client_kind} | {binary} | server CPU per keystroke | {statistics.median(cpu) * 1000:.0f} ms | "
                  f"{percentile(cpu, 95) * 1000:.0f} ms | mean {mean * 1000:.1f} ms; server peak RSS {peak:.0f} MB; "
                  f"answers {answered / 1e6:.2f} MB per keystroke (median)", flush=True)
    if busy:
        busy.kill()
    if workspace:
        shutil.rmtree(workspace)


if __name__ == "__main__":
    main()
