#!/usr/bin/env python3
"""A tournament download of 1 MB as The Week in Chess writes one: TWIC's seventeen tags (long
player names as "Surname, Given", event, site, titles, ratings, FIDE ids, ECO, opening and
variation), no comments, a game per round and board. The games are the 1 MB lichess file's,
three times over with other rounds (1,314 games, none a twin of another), their clocks taken
out. Measures the size of the outline (`textDocument/documentSymbol`, hierarchical, as VS Code
asks) against the text, and a hover sent in the same instant as an edit (a space typed at the
start of a movetext line and removed at the next keystroke, `--keystrokes` times), p50 and p95.

Usage: scripts/bench/twic.py [--keystrokes N] [BINARY...]
(default: the release build)
"""
import argparse
import json
import os
import random
import re
import time

from common import LICHESS_1M, PGN_LSP, keystroke, percentile, shared
from lsp_client import LSPClient

PLAYERS = [
    "Abdusattorov, Nodirbek", "Praggnanandhaa, Rameshbabu", "Gukesh, Dommaraju", "Caruana, Fabiano",
    "Nepomniachtchi, Ian", "Firouzja, Alireza", "Giri, Anish", "Van Foreest, Jorden",
    "Maghsoodloo, Parham", "Vachier-Lagrave, Maxime", "Mamedyarov, Shakhriyar", "Rapport, Richard",
    "Keymer, Vincent", "Erigaisi, Arjun",
]


def twic_text():
    """The 1 MB TWIC-style text."""
    games = re.split(r"\n\n(?=\[Event )", shared(LICHESS_1M).read_text())
    chosen = random.Random(7)
    out = []
    for i, game in enumerate(games * 3):
        head, _, moves = game.partition("\n\n")
        result = re.search(r'\[Result "([^"]*)"\]', head)
        moves = re.sub(r"\{[^}]*\}", "", moves)
        moves = re.sub(r"\d+\.\.\. ", "", moves)
        moves = re.sub(r"  +", " ", moves).strip()
        white, black = chosen.sample(PLAYERS, 2)
        tags = {
            "Event": "87th Tata Steel Masters 2025", "Site": "Wijk aan Zee NED",
            "Date": f"2025.01.{18 + i % 10:02d}", "Round": f"{i // 7 + 1}.{i % 7 + 1}",
            "White": white, "Black": black, "Result": result.group(1) if result else "*",
            "WhiteTitle": "GM", "BlackTitle": "GM", "WhiteElo": str(2700 + i % 80),
            "BlackElo": str(2690 + i % 70), "ECO": "C65", "Opening": "Ruy Lopez",
            "Variation": "Berlin defence", "WhiteFideId": str(14204118 + i),
            "BlackFideId": str(25059530 + i), "EventDate": "2025.01.18",
        }
        out.append("".join(f'[{name} "{value}"]\n' for name, value in tags.items()) + "\n" + moves + "\n")
    return "\n".join(out)


def measure(binary, text, keystrokes):
    os.environ["PGN_LSP"] = str(binary)
    uri = "file:///tmp/twic1580.pgn"
    client = LSPClient()
    try:
        client.initialize(
            capabilities={"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                                           "hover": {"contentFormat": ["markdown"]}}},
            options={"pgn": {"engine": {"hoverMs": 0}}})
        client.open(uri, text)
        client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=60)
        outline = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        size = len(json.dumps(outline, separators=(",", ":"), ensure_ascii=False).encode())
        lines = text.split("\n")
        places = [i for i, line in enumerate(lines) if line.startswith("1. ")]
        times = []
        for k in range(keystrokes):
            line = places[(k * 37) % len(places)]
            change = keystroke(line, k)
            sent = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": k + 2},
                                                     "contentChanges": [change]})
            hover = client.request_async("textDocument/hover", {"textDocument": {"uri": uri},
                                                                "position": {"line": line, "character": 4}})
            answer = client.response(hover, timeout=30)
            times.append(time.perf_counter() - sent)
            assert answer.get("result"), answer
        return len(outline), size, times
    finally:
        client.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keystrokes", type=int, default=200)
    parser.add_argument("binaries", nargs="*", default=[str(PGN_LSP)])
    args = parser.parse_args()
    text = twic_text()
    length = len(text.encode())
    print(f"TWIC-style file: {length / 1e6:.2f} MB")
    for binary in args.binaries:
        games, size, times = measure(binary, text, args.keystrokes)
        print(f"{binary}: {games} games; outline {size / 1e6:.3f} MB ({size / length:.2f} of the text); "
              f"a hover sent with an edit p50 {percentile(times, 50) * 1e3:.1f} ms, "
              f"p95 {percentile(times, 95) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
