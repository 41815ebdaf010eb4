"""The command-line tool on input and output that are not what it expects: folders, devices,
unreadable files, file names that are not UTF-8, text with no game in it, endless problems,
and output files that are links, FIFOs, the input itself, or on a full disk. Each ends with a
clear message and exit status, within bounded time and memory, and loses no file."""
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from conftest import ROOT, binary

SAMPLE = ROOT / "samples" / "sample.pgn"
MISTAKES = ROOT / "samples" / "mistakes.pgn"
FAKE_ENGINE = ROOT / "Tests" / "Fixtures" / "fake-engine"


def run(args, stdin=None, timeout=60, **kwargs):
    """Runs pgn-lsp with `args` (str or bytes); `stdin` is an open file or None."""
    return subprocess.run([binary(), *args], stdin=stdin if stdin is not None else subprocess.DEVNULL,
                          capture_output=True, timeout=timeout, **kwargs)


# Started from a small Python process: a child started from this one (vfork, then exec) counts
# this process's own peak as its `ru_maxrss`, which grows with the tests run before.
SPAWN_AND_MEASURE = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as peak:
    peak.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(args, stdin_path: pathlib.Path, timeout=120):
    """Runs pgn-lsp reading `stdin_path`; returns (exit status, stdout, peak resident KB)."""
    peak = stdin_path.parent / "peak.txt"
    with open(stdin_path, "rb") as stdin, open(stdin_path.parent / "out.txt", "w+b") as out:
        child = subprocess.Popen([sys.executable, "-c", SPAWN_AND_MEASURE, str(peak), binary(), *args], stdin=stdin,
                                 stdout=out, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                child.kill()
                child.wait()
                pytest.fail(f"{args} still running after {timeout} s")
            time.sleep(0.05)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return child.returncode, out.read().decode(), int(peak.read_text())


# MARK: check: what cannot be read


def test_check_reports_a_folder_and_checks_the_other_files(tmp_path):
    result = run(["check", str(tmp_path), str(MISTAKES)])
    assert result.returncode == 2
    assert f"cannot read {tmp_path}: Is a directory" in result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith(f"{MISTAKES}:10:31: error: Illegal move Nf3")
    assert lines[-1] == "2 games, 2 errors, 0 warnings"


def test_check_reports_a_folder_on_standard_input(tmp_path):
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        result = run(["check", "-"], stdin=folder)
    finally:
        os.close(folder)
    assert result.returncode == 2
    assert "cannot read <stdin>: Is a directory" in result.stderr.decode()
    assert result.stdout.decode() == "0 games, 0 errors, 0 warnings\n"


def test_check_reports_a_file_that_fails_to_read_in_json():
    # Reading /proc/self/mem from its start fails with EIO.
    result = run(["check", "--format", "json", "/proc/self/mem", str(SAMPLE)])
    assert result.returncode == 2
    assert "cannot read /proc/self/mem: Input/output error" in result.stderr.decode()
    reports = json.loads(result.stdout)
    assert reports[0] == {"path": "/proc/self/mem", "diagnostics": [], "games": 0, "openings": [],
                          "error": "cannot read /proc/self/mem: Input/output error"}
    assert reports[1]["games"] == 3


def test_check_opens_a_file_name_that_is_not_utf8(tmp_path):
    name = os.fsencode(tmp_path) + b"/game\xff.pgn"
    with open(name, "wb") as file:
        file.write(MISTAKES.read_bytes())
    result = run([b"check", name])
    assert result.returncode == 1, result.stderr
    assert result.stdout.decode().splitlines()[-1] == "2 games, 2 errors, 0 warnings"


def test_check_reports_a_full_standard_output():
    with open("/dev/full", "wb") as full:
        result = subprocess.run([binary(), "check", str(SAMPLE)], stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert result.returncode == 2
    assert b"cannot write to standard output: No space left on device" in result.stderr


def test_positions_reports_a_full_standard_output():
    with open("/dev/full", "wb") as full:
        result = subprocess.run([binary(), "positions"], input=b"8/8/8/8/8/8/8/K6k w - - 0 1\n", stdout=full,
                                stderr=subprocess.PIPE, timeout=60)
    assert result.returncode == 1
    assert b"cannot write to standard output: No space left on device" in result.stderr


# MARK: check: text with no game boundary, and endless problems


def test_text_with_no_game_start_is_cut_and_memory_stays_bounded(tmp_path):
    # 48 MB of one-letter lines (no game ever starts), then a game: the text is cut at 4 MB,
    # the rest is skipped up to the game, whose lines are still counted exactly.
    junk_lines = 24 << 20
    path = tmp_path / "endless.pgn"
    with open(path, "wb") as file:
        file.write(b"x\n" * junk_lines)
        file.write(MISTAKES.read_bytes())
    try:
        status, output, peak_kb = run_measured(["check", "-"], path)
    finally:
        path.unlink()
    assert status == 1
    lines = output.splitlines()
    assert lines[-4] == (f"<stdin>:{(4 << 20) // 2 + 1}:1: error: No game starts in 4 MB: this text is too long "
                         "to be one game; what follows is not checked up to the next game [syntax]")
    assert lines[-3].startswith(f"<stdin>:{junk_lines + 10}:31: error: Illegal move Nf3")
    # The letters before the cut are words no move: one note (a warning), not one per line.
    assert lines[-1] == "3 games, 3 errors, 2 warnings"
    # Before the cut, such text was kept whole: about 2 GB for these 48 MB.
    assert peak_kb < 400_000, f"peak {peak_kb} KB"


def test_nul_bytes_are_checked_quickly_with_a_bounded_report(tmp_path):
    path = tmp_path / "nul.pgn"
    path.write_bytes(b"\0" * 200_000 + b"\n" + b"] \x01\n" * 200)
    result = run(["check", str(path)], timeout=30)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    # A run of stray bytes is one problem; past 100 outside games, one line counts the rest.
    assert lines[0] == f"{path}:1:1: error: Unexpected characters [syntax]"
    assert len(lines) == 102
    assert lines[100] == f"{path}:51:3: error: 301 more problems outside games from here on are not shown [syntax]"
    assert lines[101] == "0 games, 401 errors, 0 warnings"


def test_problems_of_one_game_are_capped(tmp_path):
    path = tmp_path / "brackets.pgn"
    path.write_text('[Event "x"]\n\n1. e4 ' + "] " * 150 + "e5 *\n\n" + MISTAKES.read_text())
    result = run(["check", "--format", "json", str(path)])
    assert result.returncode == 1
    [report] = json.loads(result.stdout)
    first_game = [d for d in report["diagnostics"] if d["game"] == 1]
    # A missing-tag information and 99 of the 150 errors are shown, then what is left.
    assert len(first_game) == 101
    assert first_game[0]["code"] == "missing-tag"
    assert first_game[-1]["message"] == "51 more problems in this game from here on are not shown"
    assert first_game[-1]["column"] == 7 + 2 * 99
    # The next games are reported as before.
    assert [d["code"] for d in report["diagnostics"] if d["game"] != 1] == ["illegal-move", "ambiguous-move"]
    text = run(["check", str(path)]).stdout.decode().splitlines()
    assert text[-1] == "3 games, 152 errors, 0 warnings"


# MARK: export --output and review --annotate


@pytest.fixture
def database(tmp_path) -> pathlib.Path:
    path = tmp_path / "games.db3"
    result = run(["import", "--db", str(path), str(SAMPLE)])
    assert result.returncode == 0, result.stderr
    return path


def export(database, *args):
    return run(["export", "--db", str(database), *map(str, args)])


def test_export_never_writes_over_its_database(database, tmp_path):
    before = database.read_bytes()
    (tmp_path / "link.db3").symlink_to(database)
    os.link(database, tmp_path / "hard.db3")
    for target in [database, tmp_path / "link.db3", tmp_path / "hard.db3", tmp_path / "." / "games.db3"]:
        result = export(database, "--output", target, "--force")
        assert result.returncode == 1
        assert f"{target} is the database: name another file" in result.stderr.decode()
    assert database.read_bytes() == before
    assert export(database).stdout.decode().count("[Event ") == 3


def test_export_replaces_an_existing_file_only_with_force(database, tmp_path):
    out = tmp_path / "out.pgn"
    out.write_text("keep me\n")
    out.chmod(0o640)
    result = export(database, "--output", out)
    assert result.returncode == 1
    assert f"{out} already exists: use --force to replace it" in result.stderr.decode()
    assert out.read_text() == "keep me\n"
    result = export(database, "--output", out, "--force")
    assert result.returncode == 0, result.stderr
    assert out.read_text().count("[Event ") == 3
    assert out.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.db3", "out.pgn"]


def test_export_writes_through_a_symbolic_link_and_to_standard_output(database, tmp_path):
    target = tmp_path / "target.pgn"
    target.write_text("old\n")
    link = tmp_path / "link.pgn"
    link.symlink_to(target)
    result = export(database, "--output", link, "--force")
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert target.read_text().count("[Event ") == 3
    dangling = tmp_path / "dangling.pgn"
    dangling.symlink_to(tmp_path / "missing" / "file.pgn")
    result = export(database, "--output", dangling, "--force")
    assert result.returncode == 1
    assert f"cannot follow the symbolic link {dangling}" in result.stderr.decode()
    assert dangling.is_symlink()
    result = export(database, "--output", "-")
    assert result.returncode == 0
    assert result.stdout.decode().count("[Event ") == 3
    assert not (pathlib.Path.cwd() / "-").exists()


def test_export_refuses_fifos_devices_and_folders(database, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target, message in [(fifo, "is not a regular file"), ("/dev/null", "is not a regular file"),
                            (tmp_path, "is a folder")]:
        result = export(database, "--output", target, "--force")
        assert result.returncode == 1
        assert f"{target} {message}" in result.stderr.decode()
    assert fifo.is_fifo()
    assert pathlib.Path("/dev/null").is_char_device()
    result = export(database, "--output", tmp_path / "missing" / "out.pgn")
    assert result.returncode == 1
    assert f"cannot write {tmp_path / 'missing' / 'out.pgn'}: No such file or directory" in result.stderr.decode()


def test_export_to_a_full_standard_output_fails_cleanly(database):
    with open("/dev/full", "wb") as full:
        result = subprocess.run([binary(), "export", "--db", str(database)], stdout=full,
                                stderr=subprocess.PIPE, timeout=60)
    assert result.returncode == 1
    assert b"cannot write standard output: No space left on device" in result.stderr


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KB tmpfs (needs root and permission to mount)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_export_onto_a_full_disk_keeps_the_old_file(tiny_disk, tmp_path):
    # About 100 KB of PGN into 64 KB.
    big = tmp_path / "big.pgn"
    games = [f'[Event "{k}"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n' for k in range(2000)]
    big.write_text("".join(games))
    db = tmp_path / "big.db3"
    assert run(["import", "--db", str(db), str(big)]).returncode == 0
    out = tiny_disk / "out.pgn"
    out.write_text("the old file\n")
    result = export(db, "--output", out, "--force")
    assert result.returncode == 1
    assert f"cannot write {out}: No space left on device" in result.stderr.decode()
    assert out.read_text() == "the old file\n"
    assert [p.name for p in tiny_disk.iterdir()] == ["out.pgn"]


def test_review_never_annotates_over_its_input_or_a_fifo(tmp_path):
    game = tmp_path / "game.pgn"
    game.write_text(MISTAKES.read_text())
    link = tmp_path / "link.pgn"
    link.symlink_to(game)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target, message in [(game, "is the file being reviewed"), (link, "is the file being reviewed"),
                            (fifo, "is not a regular file")]:
        result = run(["review", str(game), "--engine", str(FAKE_ENGINE), "--depth", "1", "--annotate", str(target)])
        assert result.returncode == 1
        assert f"{target} {message}" in result.stderr.decode()
    assert game.read_text() == MISTAKES.read_text()
    assert fifo.is_fifo()


def test_review_replaces_an_earlier_annotation(tmp_path):
    game = tmp_path / "game.pgn"
    game.write_text('[Event "x"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n')
    out = tmp_path / "annotated.pgn"
    out.write_text("an earlier annotation\n")
    result = run(["review", str(game), "--engine", str(FAKE_ENGINE), "--depth", "1", "--annotate", str(out)],
                 env={**os.environ, "FAKE_ENGINE_MODE": "normal"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert out.read_text().startswith('[Event "x"]')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["annotated.pgn", "game.pgn"]


def test_an_import_onto_a_full_disk_leaves_no_empty_database(tiny_disk, tmp_path):
    big = tmp_path / "big.pgn"
    games = [f'[Event "{k}"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n' for k in range(2000)]
    big.write_text("".join(games))
    result = run(["import", "--db", str(tiny_disk / "new.db3"), str(big)])
    assert result.returncode != 0
    assert b"No space left on device" in result.stderr or b"full" in result.stderr, result.stderr
    assert list(tiny_disk.iterdir()) == []


def test_an_import_that_stores_no_game_leaves_no_database(tmp_path):
    db = tmp_path / "new.db3"
    result = run(["import", "--db", str(db), str(tmp_path / "missing.pgn")])
    assert result.returncode != 0
    assert b"missing.pgn" in result.stderr
    assert not db.exists()
    # A database that was there before the import stays, even without games.
    assert run(["import", "--db", str(db), str(SAMPLE)]).returncode == 0
    assert run(["import", "--db", str(db), str(tmp_path / "missing.pgn")]).returncode != 0
    assert db.exists()


@pytest.mark.parametrize("count", ["9223372036854775807", "2147483648"])
def test_bench_games_starts_writing_at_once_for_any_count(count, tmp_path):
    # The first 100 games of a count of any size, read from the start of its output.
    child = subprocess.Popen([binary(), "bench-games", "--count", count], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    try:
        head = child.stdout.read(200_000)
        status = pathlib.Path(f"/proc/{child.pid}/status").read_text()
        peak_kb = int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1])
        assert peak_kb < 200_000, f"{peak_kb} KB before the first games"
    finally:
        child.kill()
        child.wait()
    assert head.count(b"[Event ") >= 100, child.stderr.read()[-2000:]


def test_bench_games_refuses_a_negative_count():
    result = run(["bench-games", "--count=-1"])
    assert result.returncode != 0
    assert b"--count must be 0 or more" in result.stderr
