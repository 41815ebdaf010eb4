"""What every Python test shares (Tests/oracle, the differential tests, and Tests/e2e, the end-to-end
ones), and the benchmark scripts too: the one locator of test material (`shared`, `find_shared`,
`shared_files`) and the binary under test."""
from __future__ import annotations

import functools
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The project's copies of the shared folder's CC0 and MIT files, by the same paths, and the files
# written for the tests (corpus/pgn-lsp).
FIXTURES = ROOT / "Tests" / "Fixtures"
# The shared folder: $PGN_SHARED, else ../shared beside the project. Its GPL files (and those
# without a stated licence) are not copied into the project.
SHARED = pathlib.Path(os.environ.get("PGN_SHARED") or ROOT.parent / "shared")


def find_shared(relative: str) -> pathlib.Path | None:
    """The file at `relative` (its path in the shared folder, e.g. corpus/lichess/lichess_db_10k.pgn):
    the project's copy, else the shared folder's file, else None."""
    for base in (FIXTURES, SHARED):
        if (base / relative).exists():
            return base / relative
    return None


def shared(relative: str) -> pathlib.Path:
    """The file at `relative`, as `find_shared` finds it; skips the test when neither has it."""
    found = find_shared(relative)
    if found is None:
        # Tests/Fixtures/shared-only.tsv: where the files the project does not copy come from.
        rows = [line.split("\t") for line in (FIXTURES / "shared-only.tsv").read_text().splitlines()
                if not line.startswith("#")]
        origin = next((row[1] for row in rows if len(row) == 2 and relative.startswith(row[0])),
                      "see the shared folder's README")
        pytest.skip(f"needs {relative} of the shared folder ({origin}; not copied into the project): "
                    f"found neither in {FIXTURES} nor in {SHARED}")
    return found


def shared_files(folder: str, pattern: str = "*.pgn") -> list[tuple[str, pathlib.Path]]:
    """(path relative to `folder`, file) of every file under `folder` matching `pattern`, from the
    project's copies and the shared folder (a path both have, once: the project's), sorted."""
    found: dict[str, pathlib.Path] = {}
    for base in (SHARED, FIXTURES):
        for path in (base / folder).rglob(pattern):
            found[str(path.relative_to(base / folder))] = path
    return sorted(found.items())


def binary() -> pathlib.Path:
    """The pgn-lsp executable under test: $PGN_LSP, else the release build."""
    override = os.environ.get("PGN_LSP")
    path = pathlib.Path(override) if override else ROOT / ".build" / "release" / "pgn-lsp"
    if not path.exists():
        pytest.fail(f"{path} does not exist: run `swift build -c release` first")
    return path


@pytest.fixture(scope="session")
def pgn_lsp() -> pathlib.Path:
    return binary()


def run(args, stdin: str = "", check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary()), *args], input=stdin, capture_output=True, text=True, check=check)


def ocgdb_binary() -> pathlib.Path:
    """ocgdb, built once by the script beside its source (into /tmp/ocgdb, where later runs find
    it); the test is skipped where it cannot be built."""
    built = subprocess.run([str(shared("peers/ocgdb/build"))], capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"ocgdb cannot be built here: {built.stderr[-300:]}")
    return pathlib.Path(built.stdout.strip())


def ocgdb_create(source: pathlib.Path, db: pathlib.Path, option: str = "moves2") -> subprocess.CompletedProcess:
    """ocgdb's `-create` of `db` from `source` on one thread. ocgdb itself dies of SIGBUS on about
    one run in eight of this command (seen on its own, outside any test): a run killed by a
    signal is tried again, from an empty file."""
    for _ in range(6):
        db.unlink(missing_ok=True)
        made = subprocess.run([str(ocgdb_binary()), "-create", "-pgn", str(source), "-db", str(db), "-cpu", "1",
                               "-o", option], capture_output=True, timeout=120)
        if made.returncode >= 0:
            break
    return made


@functools.cache
def packaged(repo: pathlib.Path = ROOT) -> pathlib.Path:
    """The release tarball of `repo`, made once a session by its `scripts/package --no-build` (into
    repo/dist) from the binary of repo/.build/release, which scripts/test has just built."""
    made = subprocess.run([str(repo / "scripts" / "package"), "--no-build"], cwd=repo, capture_output=True,
                          text=True, timeout=300)
    if made.returncode != 0:
        pytest.fail(f"scripts/package --no-build failed (exit {made.returncode}):\n{made.stdout}{made.stderr}")
    return repo / made.stdout.strip()
