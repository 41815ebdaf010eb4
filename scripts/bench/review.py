#!/usr/bin/env python3
"""Game review benchmark: an 80-ply game analysed at depth 12, position by position.

Compares, in the same run and on the same game:
  - `pgn-lsp review` with two engine processes of one thread each (its default here);
  - `pgn-lsp review` with one engine process of two threads;
  - a python-chess `chess.engine` loop (one Stockfish, two threads) analysing the same positions;
and measures hover latency over LSP: cold (the engine thinks for pgn.engine.hoverMs) and
cached (the same hover again). Prints a Markdown table; medians of --runs runs.
"""
import argparse
import json
import statistics
import tempfile
import time

import chess
import chess.engine
import chess.pgn

from common import LICHESS_1M, PGN_LSP, measure, shared

from lsp_client import LSPClient

STOCKFISH = "/usr/games/stockfish"


def game_with_plies(plies):
    """The first lichess game of the corpus with exactly `plies` mainline plies, as PGN text."""
    with open(shared(LICHESS_1M)) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if len(list(game.mainline_moves())) == plies:
                return game
    raise SystemExit(f"no game of {plies} plies")


def python_chess_review(game, depth):
    """The loop a python-chess user writes: analyse every position of the mainline."""
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 2, "Hash": 16})
        board = game.board()
        scores = [engine.analyse(board, chess.engine.Limit(depth=depth))["score"]]
        for move in game.mainline_moves():
            board.push(move)
            if board.is_game_over():
                continue
            scores.append(engine.analyse(board, chess.engine.Limit(depth=depth))["score"])
    return scores


def hover_latencies(path, text, runs):
    cold, cached = [], []
    uri = "file://" + str(path)
    lines = text.split("\n")
    # Positions of the first `runs` White moves of the movetext.
    movetext_line = next(i for i, line in enumerate(lines) if line.startswith("1. "))
    words = lines[movetext_line].split(" ")
    columns, column = [], 0
    for word in words:
        if word and word[0].isalpha():
            columns.append(column)
        column += len(word) + 1
    client = LSPClient()
    try:
        client.initialize(options={"pgn": {"engine": {"path": STOCKFISH, "hoverMs": 300}}})
        client.open(uri, text)
        client.diagnostics(uri)
        for column in columns[:runs]:
            params = {"textDocument": {"uri": uri}, "position": {"line": movetext_line, "character": column + 1}}
            start = time.perf_counter()
            result = client.request("textDocument/hover", params)
            cold.append(time.perf_counter() - start)
            assert "**Engine**" in result["contents"]["value"]
            start = time.perf_counter()
            client.request("textDocument/hover", params)
            cached.append(time.perf_counter() - start)
    finally:
        client.close()
    return cold, cached


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--depth", type=int, default=12)
    args = parser.parse_args()
    game = game_with_plies(80)
    text = str(game) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as handle:
        handle.write(text)
        path = handle.name
    variants = {
        "pgn-lsp review, 2 engines × 1 thread": ["--engines", "2", "--threads", "1"],
        "pgn-lsp review, 1 engine × 2 threads": ["--engines", "1", "--threads", "2"],
    }
    times = {name: [] for name in variants}
    times["python-chess chess.engine loop, 1 engine × 2 threads"] = []
    for _ in range(args.runs):
        for name, extra in variants.items():
            elapsed, _, out, status = measure([str(PGN_LSP), "review", path, "--depth", str(args.depth),
                                               "--format", "json", "--engine", STOCKFISH, *extra])
            assert status == 0 and len(json.loads(out)[0]["moves"]) == 80
            times[name].append(elapsed)
        start = time.perf_counter()
        python_chess_review(game, args.depth)
        times["python-chess chess.engine loop, 1 engine × 2 threads"].append(time.perf_counter() - start)
    reference = statistics.median(times["python-chess chess.engine loop, 1 engine × 2 threads"])
    print(f"Review of an 80-ply game at depth {args.depth} ({game.headers['White']} – {game.headers['Black']}), "
          f"median of {args.runs} runs:\n")
    print("| how | median | min | max | vs python-chess |")
    print("|---|---|---|---|---|")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median:.2f} s | {min(values):.2f} s | {max(values):.2f} s | {reference / median:.2f}× |")
    cold, cached = hover_latencies(path, text, 20)
    print(f"\nHover on a move with `engine.hoverMs` 300 (20 moves): cold median {statistics.median(cold) * 1000:.0f} ms, "
          f"max {max(cold) * 1000:.0f} ms; cached median {statistics.median(cached) * 1000:.1f} ms, "
          f"max {max(cached) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
