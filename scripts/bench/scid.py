#!/usr/bin/env python3
"""pgn-lsp beside Scid: import, position search and reading a large file, in the same runs.

Usage: scripts/bench/scid.py [--sizes 44k,1m] [--import-runs 3] [--search-runs 7] [--check-runs 5]
                             [--baseline PATH] [--busy] [--tkscid /usr/games/tkscid] [--folder DIR]

Scid (Debian's `scid` 4.7, `apt-get install scid`; for this benchmark only) is scripted through
its `tkscid` interpreter: `sc_base create` and `sc_base import` into a new SCID4 base; for a
position, `sc_game new`, `sc_move addSan` for each move, then `sc_filter search BASE FILTER
board Exact 0 0 -filter AND` (the exact position in the games' mainlines), `sc_filter count`
and `sc_base gameslist` for the first 50 games. pgn-lsp: `import --db` into a new file (as it
imports by default, and with `--no-comment-rows`: each comment kept once, as Scid keeps it), and
`search --db --fen --limit 50 --format json`. Whole-process wall time and peak resident memory,
pgn-lsp and Scid alternated run by run, medians; Scid's own time for its search (inside the
interpreter, the base already open) and pgn-lsp's (`seconds` of its answer) beside them.

Inputs (`scale_corpus.py`, made once under /tmp): the 1 MB lichess file repeated with a
distinct Round per copy, at each size; `check` and Scid's import of the 100 MB file (the same
file a hundred times), on both cores and on one (`taskset -c 0`). The searches run on the
bases of the largest size; each tool's count and first 50 games are compared.

`--baseline PATH`: an earlier pgn-lsp too, with a database of its own (imported by it). `--busy`:
the searches and the reading again beside one CPU-bound process.
"""
import argparse
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import PGN_LSP, Competitor, big_lichess_file, measure, measure_memory, shared, LICHESS_1M  # noqa: E402
import scale_corpus  # noqa: E402

# Positions by their moves from the start (SAN). The deep ones come from a real game of the
# corpus (the first with at least 80 plies), so that each copy of it reaches them.
OPENINGS = [
    ("1 ply: 1. e4", "e4"),
    ("4 plies: 1. e4 e5 2. Nf3 Nc6", "e4 e5 Nf3 Nc6"),
    ("8 plies: King's Indian", "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6"),
    ("14 plies: Najdorf, 6. Be3 e5 7. Nb3 Be6", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3 Be6"),
]
DEEP_PLIES = [20, 30, 40, 60]

IMPORT_TCL = """
set base [sc_base create SCID4 [lindex $argv 0]]
set result [sc_base import $base [lindex $argv 1]]
sc_base close $base
puts "games [lindex $result 0]"
exit
"""

SEARCH_TCL = """
set base [sc_base open SCID4 [lindex $argv 0]]
sc_game new
foreach move [lrange $argv 1 end] { sc_move addSan $move }
set filter [sc_filter new $base]
set start [clock microseconds]
sc_filter search $base $filter board Exact 0 0 -filter AND
set count [sc_filter count $base $filter]
set listed [sc_base gameslist $base 0 50 $filter N+]
set elapsed [expr {[clock microseconds] - $start}]
set first {}
foreach item $listed { if {[regexp {^([0-9]+)_[0-9]+$} $item -> number]} { lappend first $number } }
puts "count $count"
puts "seconds [expr {$elapsed / 1e6}]"
puts "first $first"
exit
"""


def deep_positions():
    import chess.pgn

    with open(shared(LICHESS_1M), encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            moves = list(game.mainline_moves())
            if len(moves) >= 80:
                break
    board = chess.Board()
    sans = []
    for move in moves[:max(DEEP_PLIES)]:
        sans.append(board.san(move))
        board.push(move)
    return [(f"{plies} plies of a game of the corpus", " ".join(sans[:plies])) for plies in DEEP_PLIES]


def fen_after(sans):
    import chess

    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return " ".join(board.fen().split()[:4])


def median(values):
    return statistics.median(values) if values else float("nan")


def run_pair(first, second, runs, busy=False):
    """Runs two command makers alternated (first, second; then second, first …): the samples of each."""
    samples = ([], [])
    for run in range(runs):
        order = (0, 1) if run % 2 == 0 else (1, 0)
        for which in order:
            with (Competitor() if busy else _Quiet()):
                samples[which].append((first, second)[which]())
    return samples


class _Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def scid_import(tkscid, script, base, pgn, prefix=()):
    for path in base.parent.glob(base.name + ".*"):
        path.unlink()
    with tempfile.TemporaryFile() as out:
        sample = measure_memory([*prefix, tkscid, script, str(base), str(pgn)], stdout=out)
        out.seek(0)
        sample["games"] = int(re.search(rb"games (\d+)", out.read()).group(1))
    return sample


def lsp_import(binary, db, pgn, extra=()):
    for suffix in ("", "-journal"):
        pathlib.Path(str(db) + suffix).unlink(missing_ok=True)
    return measure_memory([str(binary), "import", *extra, "--db", str(db), str(pgn)], files=[pgn, db])


def timed(args):
    """A short command timed by waiting for it (`measure_memory` polls every 50 ms): wall
    seconds, peak resident MB, standard output."""
    seconds, rss, out, _ = measure(args)
    return {"seconds": seconds, "rss": rss}, out


def scid_search(tkscid, script, base, sans):
    sample, out = timed([tkscid, script, str(base), *sans.split()])
    text = out.decode()
    sample["count"] = int(re.search(r"count (\d+)", text).group(1))
    sample["inside"] = float(re.search(r"seconds ([\d.e-]+)", text).group(1))
    sample["first"] = [int(n) for n in re.search(r"first ?(.*)", text).group(1).split()]
    return sample


def lsp_search(binary, db, fen):
    sample, out = timed([str(binary), "search", "--db", str(db), "--fen", fen, "--limit", "50", "--format", "json"])
    answer = json.loads(out)
    sample["count"] = answer["total"]
    sample["first"] = [game["id"] for game in answer["games"]]
    sample["inside"] = answer["seconds"]
    return sample


def row(*cells):
    print("| " + " | ".join(str(cell) for cell in cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="44k,1m")
    parser.add_argument("--import-runs", type=int, default=3, help="0: search the databases of an earlier run")
    parser.add_argument("--search-runs", type=int, default=7)
    parser.add_argument("--check-runs", type=int, default=5)
    parser.add_argument("--baseline", help="an earlier pgn-lsp binary, measured beside")
    parser.add_argument("--busy", action="store_true", help="searches and reading again beside a busy process")
    parser.add_argument("--tkscid", default=shutil.which("tkscid") or "/usr/games/tkscid")
    parser.add_argument("--folder", default=None, help="where the databases go (default: a new temporary folder)")
    args = parser.parse_args()
    if not pathlib.Path(args.tkscid).exists():
        sys.exit("tkscid not found: apt-get install scid")
    folder = pathlib.Path(args.folder or tempfile.mkdtemp(prefix="pgn-lsp-scid-"))
    folder.mkdir(parents=True, exist_ok=True)
    import_tcl = folder / "import.tcl"
    import_tcl.write_text(IMPORT_TCL)
    search_tcl = folder / "search.tcl"
    search_tcl.write_text(SEARCH_TCL)
    tools = [("pgn-lsp", PGN_LSP)] + ([("before", pathlib.Path(args.baseline))] if args.baseline else [])

    if args.import_runs == 0:
        print("(no import: the databases of an earlier run in --folder)")
    else:
        print(f"## Import ({args.import_runs} runs, medians)\n")
        row("games", "tool", "median s", "games/s", "peak RSS MB", "vs Scid")
        print("|---|---|---|---|---|---|")
    sizes = [scale_corpus.parse_size(size) for size in args.sizes.split(",")]
    for size in sizes if args.import_runs else []:
        pgn, games = scale_corpus.scale_file(size)
        base = folder / f"scid-{size}"
        scid = None
        # pgn-lsp as it imports by default, and with each comment kept once (in the `Moves`
        # blob), as Scid keeps it, without the `Comments` table's row per comment.
        variants = [(name, binary, ()) for name, binary in tools] + [
            ("pgn-lsp", PGN_LSP, ("--no-comment-rows",))]
        for name, binary, extra in variants:
            db = folder / (f"{name}-{size}.db3" if not extra else f"{name}-{size}-no-comment-rows.db3")
            mine, theirs = run_pair(
                lambda: lsp_import(binary, db, pgn, extra),
                lambda: scid_import(args.tkscid, str(import_tcl), base, pgn), args.import_runs)
            scid = (scid or []) + theirs
            seconds = median([s["seconds"] for s in mine])
            label = "pgn-lsp import" + (f" ({name})" if name != "pgn-lsp" else "") + (" " + " ".join(extra) if extra else "")
            row(f"{games:,}", label, f"{seconds:.2f}",
                f"{games / seconds:,.0f}", f"{max(s['rss'] for s in mine):.0f}",
                f"{seconds / median([s['seconds'] for s in theirs]):.2f}")
        seconds = median([s["seconds"] for s in scid])
        row(f"{scid[0]['games']:,}", "Scid sc_base import", f"{seconds:.2f}", f"{scid[0]['games'] / seconds:,.0f}",
            f"{max(s['rss'] for s in scid):.0f}", "1")

    largest = max(sizes)
    base = folder / f"scid-{largest}"
    positions = OPENINGS + deep_positions()
    for condition in ["quiet"] + (["busy"] if args.busy else []):
        print(f"\n## Search on {largest:,} games, {condition} ({args.search_runs} runs, medians; count and first 50)\n")
        row("position", "games (pgn-lsp / Scid)", "same first 50", "pgn-lsp s",
            *(["before s"] if args.baseline else []), "Scid s", "pgn-lsp / Scid", "pgn-lsp inside s",
            "Scid inside s", "pgn-lsp MB", "Scid MB")
        print("|---|---|---|---|" + ("---|" if args.baseline else "") + "---|---|---|---|---|---|")
        for label, sans in positions:
            fen = fen_after(sans)
            results = {}
            for name, binary in tools:
                db = folder / f"{name}-{largest}.db3"
                lsp_search(binary, db, fen)  # the page cache warmed
                mine, theirs = run_pair(
                    lambda: lsp_search(binary, db, fen),
                    lambda: scid_search(args.tkscid, str(search_tcl), base, sans), args.search_runs,
                    busy=condition == "busy")
                results[name] = (mine, theirs)
            mine, theirs = results["pgn-lsp"]
            scid_all = theirs + (results["before"][1] if args.baseline else [])
            lsp_s, scid_s = median([s["seconds"] for s in mine]), median([s["seconds"] for s in scid_all])
            row(label, f"{mine[0]['count']:,} / {theirs[0]['count']:,}",
                "yes" if mine[0]["first"] == theirs[0]["first"] else "no", f"{lsp_s:.3f}",
                *([f"{median([s['seconds'] for s in results['before'][0]]):.3f}"] if args.baseline else []),
                f"{scid_s:.3f}", f"{lsp_s / scid_s:.2f}", f"{median([s['inside'] for s in mine]):.4f}",
                f"{median([s['inside'] for s in scid_all]):.3f}",
                f"{max(s['rss'] for s in mine):.0f}", f"{max(s['rss'] for s in scid_all):.0f}")

        if args.check_runs == 0:
            continue
        print(f"\n## Reading 100 MB, {condition} ({args.check_runs} runs, medians)\n")
        row("cores", "pgn-lsp check s", "Scid import s", "ratio", "pgn-lsp MB", "Scid MB")
        print("|---|---|---|---|---|---|")
        big = big_lichess_file(100)
        check_base = folder / "scid-check"
        for cores, prefix in (("2", []), ("1", ["taskset", "-c", "0"])):
            mine, theirs = run_pair(
                lambda: measure_memory(prefix + [str(PGN_LSP), "check", str(big)], files=[big]),
                lambda: scid_import(args.tkscid, str(import_tcl), check_base, big, prefix),
                args.check_runs, busy=condition == "busy")
            for path in folder.glob("scid-check.*"):
                path.unlink()
            lsp_s, scid_s = median([s["seconds"] for s in mine]), median([s["seconds"] for s in theirs])
            row(cores, f"{lsp_s:.2f}", f"{scid_s:.2f}", f"{lsp_s / scid_s:.2f}",
                f"{max(s['rss'] for s in mine):.0f}", f"{max(s['rss'] for s in theirs):.0f}")
    print(f"\nDatabases kept in {folder}")


if __name__ == "__main__":
    main()
