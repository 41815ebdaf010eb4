"""Helpers shared by the benchmark scripts: timing child processes with their peak memory."""
import os
import pathlib
import subprocess
import sys
import time

# The tests' helpers: their locator of test material (the project's copy under Tests/Fixtures, else
# the shared folder's file) and the LSP client of the end-to-end tests.
sys.path[:0] = [str(pathlib.Path(__file__).resolve().parents[2] / "Tests" / folder) for folder in ("", "e2e")]
from conftest import ROOT, shared  # noqa: E402

PGN_LSP = ROOT / ".build" / "release" / "pgn-lsp"
# The 1 MB lichess file every benchmark reads.
LICHESS_1M = "corpus/lichess/lichess_db_1000k.pgn"


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
    source = shared(LICHESS_1M)
    target = pathlib.Path("/tmp") / f"pgn-lsp-bench-lichess-x{copies}.pgn"
    # A blank line between copies keeps the games apart, as in any concatenated PGN file.
    data = source.read_bytes().rstrip(b"\n") + b"\n\n"
    if not target.exists() or target.stat().st_size != len(data) * copies:
        with open(target, "wb") as handle:
            for _ in range(copies):
                handle.write(data)
    return target
