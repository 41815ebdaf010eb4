"""Helpers shared by the benchmark scripts: timing child processes with their peak memory."""
import os
import pathlib
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
PGN_LSP = ROOT / ".build" / "release" / "pgn-lsp"


def measure(args, stdin=None, cwd=None):
    """Runs a command; returns (wall seconds, peak resident memory in MB, stdout bytes)."""
    start = time.perf_counter()
    process = subprocess.Popen(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss / 1024, out, process.returncode


def big_lichess_file(copies=100):
    """The 1 MB lichess file concatenated `copies` times, made once under /tmp."""
    source = SHARED / "corpus" / "lichess" / "lichess_db_1000k.pgn"
    target = pathlib.Path("/tmp") / f"pgn-lsp-bench-lichess-x{copies}.pgn"
    # A blank line between copies keeps the games apart, as in any concatenated PGN file.
    data = source.read_bytes().rstrip(b"\n") + b"\n\n"
    if not target.exists() or target.stat().st_size != len(data) * copies:
        with open(target, "wb") as handle:
            for _ in range(copies):
                handle.write(data)
    return target
