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

Scale mode, with `--sizes` (e.g. `--sizes 44k,220k,1m,4m`): inputs of that many games made by
scale_corpus.py (the 1 MB file repeated, players, events and sites drawn from Zipf-like pools,
a Round per copy; made under --input-dir and kept for the next run). For each size, each
repetition and each condition (`--conditions quiet,busy`: busy runs one CPU-bound process
beside every command, started before it and killed after), interleaved, each repetition
starting with another program (pgn-lsp, the baseline, ocgdb in turn):
- `pgn-lsp import --no-comment-rows` into a new database, then into the same database again
  (every game a duplicate), then `pgn-lsp export --output` of the database;
- the same three runs of the `--baseline` build, labelled "before:";
- `ocgdb -create -o moves -cpu 2` into a new database (with --ocgdb); with --ocgdb-indexes, then
  the format's seven search indexes on `Games` built in ocgdb's database (Python's sqlite3, the
  system's SQLite, with the page cache and sorting threads that pgn-lsp's import uses for them),
  timed as a row of its own in the same condition: ocgdb builds none, pgn-lsp builds them (and
  `GamesIdentity`) at the end of its import; a last table adds the two up beside pgn-lsp;
- at the largest size only, once per condition, `pgn-lsp import` with comment rows.
Memory is polled every 50 ms from /proc/PID/status (peak VmHWM, RssAnon, RssFile) and every
250 ms from /proc/PID/smaps (resident pages of the input file, of the database file and of
anonymous mappings). Repetitions: --repeat (sizes under 1M, default 3) and --repeat-large (1M
and over, default 1); medians. --delete-inputs removes each input of 1M games or more once
its size is done; --no-export and --no-comment-rows-run leave those runs out (they are the
longest at 4M); --timeline-dir DIR writes each run's memory samples (every 250 ms: RssAnon,
RssFile, resident pages of the input and of the database) as CSV, to see in which phase the
peak falls. The 1-minute load average before each run is printed beside it (other work on
the machine shows there).

    scripts/bench/import.py --sizes 44k,220k,1m --conditions quiet,busy --ocgdb PATH
"""
import argparse
import os
import pathlib
import re
import statistics
import tempfile

from common import LICHESS_1M, PGN_LSP, ROOT, Competitor, big_lichess_file, measure, measure_memory, shared

GAMES = 43_800

LSP_IMPORT = "pgn-lsp import --no-comment-rows"
OCGDB_IMPORT = "ocgdb -o moves -cpu 2"
OCGDB_INDEXES = "ocgdb: the format's seven search indexes, afterwards"


def search_indexes():
    """The format's indexes that serve searches, as `schemas/ocgdb.sql` creates them: all but
    `GamesIdentity`, which pgn-lsp's duplicate check reads (the import's `searchIndexes`)."""
    lines = (ROOT / "schemas" / "ocgdb.sql").read_text().splitlines()
    return [line for line in lines
            if line.startswith("CREATE INDEX ") and not line.startswith("CREATE INDEX GamesIdentity ")]


# Runs the statements given after the database's path as pgn-lsp's import builds its indexes:
# one transaction, a 4 MB page cache, SQLite's sorting helper threads.
SEARCH_INDEXES_SCRIPT = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size = -4096")
db.execute(f"PRAGMA threads = {min(8, max(1, os.cpu_count() or 1))}")
db.execute("BEGIN")
for statement in sys.argv[2:]:
    db.execute(statement)
db.execute("COMMIT")
"""


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
    parser.add_argument("--sizes", default=None, help="scale mode: input sizes in games, e.g. 44k,220k,1m,4m")
    parser.add_argument("--conditions", default="quiet,busy", help="scale mode: quiet, busy or both")
    parser.add_argument("--repeat", type=int, default=3, help="scale mode: runs at sizes under 1M")
    parser.add_argument("--repeat-large", type=int, default=1, help="scale mode: runs at 1M games and over")
    parser.add_argument("--input-dir", default="/tmp", help="scale mode: where the inputs are made and kept")
    parser.add_argument("--no-export", action="store_true", help="scale mode: leave out pgn-lsp export")
    parser.add_argument("--no-comment-rows-run", action="store_true",
                        help="scale mode: leave out the import with comment rows at the largest size")
    parser.add_argument("--timeline-dir", default=None,
                        help="scale mode: write each run's memory samples there as CSV")
    parser.add_argument("--ocgdb-indexes", action="store_true",
                        help="scale mode: after each ocgdb run, time the format's seven indexes on its database")
    parser.add_argument("--delete-inputs", action="store_true",
                        help="scale mode: delete inputs of 1M games and more once measured")
    args = parser.parse_args()
    if args.sizes:
        scale(args)
        return
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


def scale(args):
    from scale_corpus import parse_size, scale_file

    sizes = [parse_size(size) for size in args.sizes.split(",")]
    conditions = [c.strip() for c in args.conditions.split(",")]
    assert set(conditions) <= {"quiet", "busy"}, conditions
    rows = {}  # (size, command, condition) -> list of samples
    order = []
    inputs = {}
    for size in sizes:
        path, games = scale_file(size, args.input_dir)
        path = path.resolve()
        inputs[size] = (path, games)
        runs = args.repeat if size < 1_000_000 else args.repeat_large
        with tempfile.TemporaryDirectory(dir=args.db_dir) as folder:
            folder = pathlib.Path(folder)
            db = folder / "scale.db3"
            ocgdb_db = folder / "scale.ocgdb.db3"
            out = folder / "export.pgn"
            log = folder / "stdout.txt"

            def run(name, condition, target, command, files, fresh=True):
                if fresh:
                    for extra in ("", "-journal", "-wal", "-shm"):
                        pathlib.Path(str(target) + extra).unlink(missing_ok=True)
                # The last run's database (gigabytes at 1M games) is written to the disk first:
                # otherwise the system writes it during this run, which then pays for it.
                os.sync()
                load = os.getloadavg()[0]
                with open(log, "wb") as stdout:
                    if condition == "busy":
                        with Competitor():
                            sample = measure_memory(command, files=files, stdout=stdout)
                    else:
                        sample = measure_memory(command, files=files, stdout=stdout)
                sample["load"] = load
                sample["out"] = log.read_text(errors="replace").strip().splitlines()[-1:] or [""]
                # ocgdb sometimes crashes on its way out, after its last message: counted.
                finished = name.startswith("ocgdb") and sample["out"][0].strip() == "Completed!"
                assert sample["status"] in (0, 1) or finished, f"{name}: exit status {sample['status']}: {sample['out']}"
                sample["db"] = target.stat().st_size / 1e6 if target.exists() and target != out else None
                key = (size, name, condition)
                if key not in rows:
                    rows[key] = []
                    order.append(key)
                rows[key].append(sample)
                mapped = sample["mapped"]
                if args.timeline_dir:
                    slug = re.sub(r"[^a-z0-9]+", "-", f"{games} {condition} {name}".lower()).strip("-")
                    csv = pathlib.Path(args.timeline_dir) / f"{slug}-{len(rows[key])}.csv"
                    csv.parent.mkdir(parents=True, exist_ok=True)
                    header = "seconds,anon_kB,file_kB," + ",".join(pathlib.Path(f).name + "_kB" for f in files)
                    csv.write_text(header + "\n" + "\n".join(",".join(map(str, row)) for row in sample["timeline"]))
                print(f"  {games:>9,} {condition:5} {name}: {sample['seconds']:.2f} s (load {load:.1f} before), {sample['rss']:.0f} MB rss, "
                      f"{sample['anon']:.0f} MB anon (peak at {sample['anon_peak_at']:.0%} of the run), input {mapped.get(str(path), 0):.0f} MB, "
                      f"db {mapped.get(str(target), 0):.0f} MB; {sample['out'][0]}", flush=True)

            ocgdb = None
            if args.ocgdb:
                ocgdb = [args.ocgdb, "-create", "-pgn", str(path), "-db", str(ocgdb_db), "-cpu", "2", "-o", "moves"]
            def lsp_runs(binary, prefix, condition):
                files = [path, db]
                command = [str(binary), "import", "--no-comment-rows", "--db", str(db), str(path)]
                run(prefix + LSP_IMPORT, condition, db, command, files)
                run(prefix + "pgn-lsp import again (all duplicates)", condition, db, command, files, fresh=False)
                if not args.no_export:
                    run(prefix + "pgn-lsp export", condition, db,
                        [str(binary), "export", "--db", str(db), "--output", str(out), "--force"],
                        [db, out], fresh=False)
                    out.unlink(missing_ok=True)
                db.unlink(missing_ok=True)

            for repetition in range(runs):
                for condition in conditions:
                    # Each repetition starts with another program, so that none always runs first.
                    steps = ["pgn-lsp", "baseline", "ocgdb"]
                    shift = repetition % len(steps)
                    for step in steps[shift:] + steps[:shift]:
                        if step == "ocgdb" and ocgdb:
                            # ocgdb now and then dies of SIGBUS before its end: such a run is
                            # reported and made again (three tries).
                            for attempt in range(3):
                                try:
                                    run(OCGDB_IMPORT, condition, ocgdb_db, ocgdb, [path, ocgdb_db])
                                    break
                                except AssertionError as failure:
                                    print(f"  ocgdb failed ({failure}), try {attempt + 1} of 3", flush=True)
                                    if attempt == 2:
                                        raise
                            if args.ocgdb_indexes:
                                run(OCGDB_INDEXES, condition, ocgdb_db,
                                    ["python3", "-c", SEARCH_INDEXES_SCRIPT, str(ocgdb_db), *search_indexes()],
                                    [ocgdb_db], fresh=False)
                            ocgdb_db.unlink(missing_ok=True)
                        elif step == "baseline" and args.baseline:
                            lsp_runs(args.baseline, "before: ", condition)
                        elif step == "pgn-lsp":
                            lsp_runs(PGN_LSP, "", condition)
                    if size == sizes[-1] and repetition == 0 and not args.no_comment_rows_run:
                        run("pgn-lsp import (comment rows)", condition, db,
                            [str(PGN_LSP), "import", "--db", str(db), str(path)], [path, db])
                        db.unlink(missing_ok=True)
        if args.delete_inputs and size >= 1_000_000:
            path.unlink(missing_ok=True)
            path.with_suffix(".meta.json").unlink(missing_ok=True)

    print("\nInputs: " + "; ".join(f"{games:,} games ({path.name}{', deleted' if not path.exists() else ''})"
                                  for path, games in inputs.values()))
    print("Memory: peak resident (VmHWM) and peak RssAnon / RssFile of /proc/PID/status, polled every 50 ms; "
          "input and database: peak resident pages of those files' mappings (/proc/PID/smaps, every 250 ms). "
          "Medians of the runs.\n")
    print("| games | command | condition | runs | median s | games/s | peak RSS MB | peak anon MB "
          "| peak file MB | input mapped MB | database mapped MB | database MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def median(samples, get):
        values = [v for v in map(get, samples) if v is not None]
        return statistics.median(values) if values else None

    for key in order:
        size, name, condition = key
        samples = rows[key]
        path, games = inputs[size]
        seconds = median(samples, lambda s: s["seconds"])
        database = median(samples, lambda s: s["db"])
        cells = [f"{games:,}", name, condition, str(len(samples)), f"{seconds:.2f}", f"{games / seconds:,.0f}"]
        for get in (lambda s: s["rss"], lambda s: s["anon"], lambda s: s["file"],
                    lambda s: s["mapped"].get(str(path), 0.0),
                    lambda s: max((v for k, v in s["mapped"].items() if k.endswith(".db3")), default=0.0)):
            cells.append(f"{median(samples, get):.0f}")
        cells.append("" if database is None or "export" in name else f"{database:,.0f}")
        print("| " + " | ".join(cells) + " |")
    print("\nEvery run, seconds (the 1-minute load average before it):\n")
    for key in order:
        size, name, condition = key
        print(f"- {inputs[size][1]:,} {name}, {condition}: "
              + " ".join(f"{s['seconds']:.2f} (load {s['load']:.1f})" for s in rows[key]))
    if args.ocgdb_indexes:
        print("\nocgdb with the format's search indexes (each ocgdb run plus the index build after it), "
              "and its time over pgn-lsp's (medians):\n")
        print("| games | condition | pgn-lsp s | ocgdb s | ocgdb + indexes s | ocgdb / pgn-lsp | (ocgdb + indexes) / pgn-lsp |")
        print("|---|---|---|---|---|---|---|")
        for size in sizes:
            for condition in conditions:
                lsp = rows.get((size, LSP_IMPORT, condition))
                alone = rows.get((size, OCGDB_IMPORT, condition))
                extra = rows.get((size, OCGDB_INDEXES, condition))
                if not (lsp and alone and extra):
                    continue
                ours = statistics.median(s["seconds"] for s in lsp)
                theirs = statistics.median(s["seconds"] for s in alone)
                both = statistics.median(a["seconds"] + b["seconds"] for a, b in zip(alone, extra))
                print(f"| {inputs[size][1]:,} | {condition} | {ours:.2f} | {theirs:.2f} | {both:.2f} "
                      f"| {theirs / ours:.2f} | {both / ours:.2f} |")


if __name__ == "__main__":
    main()
