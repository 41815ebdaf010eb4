"""Shared fixtures for the tests that compare pgn-lsp with python-chess as an oracle."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


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
