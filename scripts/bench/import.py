#!/usr/bin/env python3
"""`pgn-lsp import` and `pgn-lsp export` on the 1 MB lichess file concatenated a hundred times
(43,800 games, 100 MB). Each copy gets its own Round tag, so that every game is stored (the
database keeps one copy of identical games); the plain concatenation, where all but the first
copy are duplicates, is measured too. Every import starts from a new database file.

Peers, measured in the same runs, interleaved: ocgdb (`--ocgdb PATH`, a build of
github.com/nguyenpham/ocgdb; it is not packaged, so it is never installed by this project) with
its three ways of storing moves, and another build of pgn-lsp (`--baseline PATH`) for a
before/after ratio.

Usage: scripts/bench/import.py [--runs N] [--db-dir DIR] [--ocgdb PATH] [--baseline PATH]
(build first: swift build -c release). Prints a Markdown table of medians (seconds, games/s,
peak memory) for BENCHMARKS.md.
"""
import argparse
import pathlib
import statistics
import tempfile

from common import LICHESS_1M, PGN_LSP, big_lichess_file, measure, shared

GAMES = 43_800


def distinct_lichess_file(copies=100):
    """The 1 MB lichess file `copies` times, copy k with `[Round "k"]`, made once under /tmp."""
    source = shared(LICHESS_1M)
    target = pathlib.Path("/tmp") / f"pgn-lsp-bench-lichess-distinct-x{copies}.pgn"
    data = source.read_bytes().rstrip(b"\n") + b"\n\n"
    chunks = [data.replace(b'[Round "-"]', b'[Round "%d"]' % (k + 1)) for k in range(copies)]
    if not target.exists() or target.stat().st_size != sum(map(len, chunks)):
        with open(target, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
    return target


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--db-dir", default=None, help="where the database files go (default: a temporary folder)")
    parser.add_argument("--ocgdb", default=None, help="an ocgdb binary to run beside pgn-lsp")
    parser.add_argument("--baseline", default=None, help="another pgn-lsp binary to run beside this one")
    args = parser.parse_args()
    distinct = distinct_lichess_file()
    plain = big_lichess_file()
    with tempfile.TemporaryDirectory(dir=args.db_dir) as folder:
        folder = pathlib.Path(folder)
        db = folder / "bench.db3"
        ocgdb_db = folder / "bench.ocgdb.db3"
        out = folder / "export.pgn"
        cases = {
            "pgn-lsp import (Moves, Moves2, Comments rows), the default": (
                db, [str(PGN_LSP), "import", "--db", str(db), str(distinct)]),
            "pgn-lsp import --no-comment-rows (Moves, Moves2)": (
                db, [str(PGN_LSP), "import", "--no-comment-rows", "--db", str(db), str(distinct)]),
            "pgn-lsp import --moves mainline --no-comment-rows": (
                db, [str(PGN_LSP), "import", "--moves", "mainline", "--no-comment-rows", "--db", str(db),
                     str(distinct)]),
            "pgn-lsp import, identical copies (43,362 duplicates)": (
                db, [str(PGN_LSP), "import", "--db", str(db), str(plain)]),
        }
        if args.baseline:
            cases["baseline import (Moves, Moves2, Comments rows)"] = (
                db, [args.baseline, "import", "--db", str(db), str(distinct)])
            cases["baseline import --no-comment-rows"] = (
                db, [args.baseline, "import", "--no-comment-rows", "--db", str(db), str(distinct)])
        if args.ocgdb:
            for option in ["moves", "moves2", "moves2,discardcomments"]:
                cases[f"ocgdb -o {option}"] = (ocgdb_db, [
                    args.ocgdb, "-create", "-pgn", str(distinct), "-db", str(ocgdb_db), "-cpu", "2", "-o", option])
        results = {name: [] for name in cases}
        exports = []
        sizes = {}
        for _ in range(args.runs):
            for name, (target, command) in cases.items():
                target.unlink(missing_ok=True)
                seconds, peak, _, status = measure(command)
                assert status in (0, 1), f"{name}: exit status {status}"
                results[name].append((seconds, peak))
                sizes[name] = target.stat().st_size / 1e6
                if name.startswith("pgn-lsp import (Moves, Moves2, Comments"):
                    # Export the full database while it is there.
                    seconds, peak, _, status = measure(
                        [str(PGN_LSP), "export", "--db", str(db), "--output", str(out), "--force"])
                    assert status == 0
                    exports.append((seconds, peak))
    print(f"Input: {distinct.name}, {distinct.stat().st_size / 1e6:.1f} MB, {GAMES:,} games; "
          f"{args.runs} runs, interleaved, medians.\n")
    print("| command | median s | games/s | peak memory MB | database MB |")
    print("|---|---|---|---|---|")
    for name, samples in results.items():
        seconds = statistics.median(s for s, _ in samples)
        peak = statistics.median(p for _, p in samples)
        print(f"| {name} | {seconds:.2f} | {GAMES / seconds:,.0f} | {peak:.0f} | {sizes[name]:.0f} |")
    seconds = statistics.median(s for s, _ in exports)
    peak = statistics.median(p for _, p in exports)
    print(f"| pgn-lsp export (all games, with comments) | {seconds:.2f} | {GAMES / seconds:,.0f} | {peak:.0f} | |")
    print("\nEvery run, seconds:\n")
    for name, samples in results.items():
        print(f"- {name}: " + " ".join(f"{s:.2f}" for s, _ in samples))


if __name__ == "__main__":
    main()
