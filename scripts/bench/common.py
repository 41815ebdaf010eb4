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

# $PGN_LSP names another binary (a copy, say, that a build running meanwhile cannot replace).
PGN_LSP = pathlib.Path(os.environ.get("PGN_LSP") or ROOT / ".build" / "release" / "pgn-lsp")
# The 1 MB lichess file every benchmark reads.
LICHESS_1M = "corpus/lichess/lichess_db_1000k.pgn"


def percentile(values, p):
    """The p-th percentile of values, by the nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def position(text, index):
    """The LSP position of a character index of text (columns in characters: ASCII text)."""
    line = text.count("\n", 0, index)
    return {"line": line, "character": index - (text.rfind("\n", 0, index) + 1)}


def keystroke(line, k):
    """The change of keystroke `k` at the start of `line`: a space typed, removed at the next one."""
    typed = k % 2 == 0
    return {"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0 if typed else 1}},
            "text": " " if typed else ""}


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


def _status_kb(pid):
    """VmHWM, VmRSS, RssAnon, RssFile of a live process in kB (empty when it has exited)."""
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                name, _, value = line.partition(":")
                if name in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                    fields[name] = int(value.split()[0])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return fields


def _smaps_kb(pid, files):
    """Resident kB of a live process's mappings: of each path in `files` (a path also counts
    its `-journal`), of anonymous memory (heap, stacks, unnamed), and of every other file."""
    totals = dict.fromkeys(files, 0)
    totals["anonymous"] = 0
    totals["other files"] = 0
    current = None
    try:
        with open(f"/proc/{pid}/smaps") as handle:
            for line in handle:
                first = line.split(None, 1)[0]
                if "-" in first and not first.endswith(":"):
                    parts = line.split(None, 5)
                    path = parts[5].strip() if len(parts) > 5 else ""
                    current = next((f for f in files if path == f or path.startswith(f + "-")), None)
                    if current is None:
                        current = "other files" if path.startswith("/") else "anonymous"
                elif first == "Rss:" and current is not None:
                    totals[current] += int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return {}
    return totals


def measure_memory(args, files=(), interval=0.05, smaps_every=5, stdout=None, cwd=None):
    """Runs a command, polling its memory every `interval` seconds. Returns a dict: wall seconds,
    exit status, peak resident MB (the larger of VmHWM and the kernel's ru_maxrss), peaks of
    RssAnon and RssFile, and, read from /proc/PID/smaps every `smaps_every` polls, the peak
    resident MB of each path in `files` mapped into the process (the input, the database), of
    anonymous mappings and of other files (libraries)."""
    files = [str(f) for f in files]
    peaks = {"VmHWM": 0, "RssAnon": 0, "RssFile": 0}
    mapped = {}
    timeline = []  # (seconds, RssAnon kB, RssFile kB, resident kB of each of `files`)
    anon_peak_at = 0.0
    start = time.perf_counter()
    process = subprocess.Popen(args, stdout=stdout or subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    polls = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        now = time.perf_counter() - start
        status_kb = _status_kb(process.pid)
        if status_kb.get("RssAnon", 0) > peaks["RssAnon"]:
            anon_peak_at = now
        for name, value in status_kb.items():
            if name in peaks:
                peaks[name] = max(peaks[name], value)
        if polls % smaps_every == 0:
            smaps = _smaps_kb(process.pid, files)
            for name, value in smaps.items():
                mapped[name] = max(mapped.get(name, 0), value)
            if status_kb:
                timeline.append((round(now, 2), status_kb.get("RssAnon", 0), status_kb.get("RssFile", 0),
                                 *(smaps.get(f, 0) for f in files)))
        polls += 1
        time.sleep(interval)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return {
        "seconds": elapsed,
        "status": process.returncode,
        "rss": max(peaks["VmHWM"], usage.ru_maxrss) / 1024,
        "anon": peaks["RssAnon"] / 1024,
        "file": peaks["RssFile"] / 1024,
        "mapped": {name: kb / 1024 for name, kb in mapped.items()},
        # When RssAnon reached its peak, as a share of the wall time; and the samples.
        "anon_peak_at": anon_peak_at / elapsed if elapsed else 0.0,
        "timeline": timeline,
    }


class Competitor:
    """One CPU-bound process (a Python busy loop) for as long as the `with` block runs."""

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.2)  # let it start spinning
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()
        return False
