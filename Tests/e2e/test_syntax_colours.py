"""End to end: the PGN syntax file of editors/nvim colours a game in Neovim 0.7, Neovim 0.11 and
Vim 9 without the server: before its tokens come, and in a file too large for an editor that asks
for the whole file's tokens. Each piece of a game is read back as the syntax group Vim gives it."""
import json
import pathlib
import subprocess

import pytest

from conftest import ROOT
from editor_fixtures import NEOVIMS

PLUGIN = ROOT / "editors" / "nvim"

GAME = """[Event "Casual game"]
[White "Anderssen, Adolf"]
% a line escaped from the file
1. e4 {Best by test [%clk 0:03:00]} e5 2. Nf3!? $1 (2. f4 exf4) 2... Nc6 ; the usual
3. Bb5 1-0
"""

# A piece of the text, the line it is on (1-based) and the syntax group that colours it.
EXPECTED = [
    ("Event", 1, "pgnTagName"),
    ("Anderssen", 2, "pgnTagValue"),
    ("% a line", 3, "pgnEscape"),
    ("1.", 4, "pgnMoveNumber"),
    ("Best by", 4, "pgnComment"),
    ("%clk", 4, "pgnCommand"),
    ("!?", 4, "pgnNag"),
    ("$1", 4, "pgnNag"),
    ("(2.", 4, "pgnVariation"),
    ("2...", 4, "pgnMoveNumber"),
    ("; the", 4, "pgnLineComment"),
    ("1-0", 5, "pgnResult"),
]

# Vim script both editors run: the file's type and the group at the first character of each piece.
PROBE = """
let s:seen = {'filetype': &filetype, 'groups': []}
for [s:text, s:line] in %s
  let s:column = stridx(getline(s:line), s:text) + 1
  call add(s:seen.groups, synIDattr(synID(s:line, s:column, 1), 'name'))
endfor
call writefile([json_encode(s:seen)], %s)
qall!
"""


def probe(tmp_path: pathlib.Path, command: list) -> dict:
    game = tmp_path / "casual.pgn"
    game.write_text(GAME)
    out = tmp_path / "seen.json"
    pieces = json.dumps([[text, line] for text, line, _ in EXPECTED])
    script = tmp_path / "probe.vim"
    script.write_text(PROBE % (pieces, json.dumps(str(out))))
    setup = [
        "-c", f"set runtimepath^={PLUGIN}", "-c", "filetype on", "-c", "syntax on",
        "-c", "autocmd BufNewFile,BufRead *.pgn setfiletype pgn",
        "-c", f"edit {game}", "-c", f"source {script}",
    ]
    proc = subprocess.run(command + setup, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert out.exists(), f"the editor wrote nothing (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return json.loads(out.read_text())


EDITORS = {
    "nvim-0.7": lambda: [NEOVIMS["0.7"], "--headless", "--clean"],
    "nvim-0.11": lambda: [NEOVIMS["0.11"], "--headless", "--clean"],
    "vim-9": lambda: ["vim", "-N", "-u", "NONE", "-i", "NONE", "-es"],
}


@pytest.mark.parametrize("editor", EDITORS)
def test_the_syntax_file_colours_each_piece_of_a_game(tmp_path, editor):
    command = EDITORS[editor]()
    if command[0] is None or not (pathlib.Path(command[0]).exists() or command[0] == "vim"):
        pytest.fail(f"{editor} is not installed: scripts/bootstrap installs it")
    seen = probe(tmp_path, command)
    assert seen["filetype"] == "pgn"
    assert seen["groups"] == [group for _, _, group in EXPECTED], list(zip(EXPECTED, seen["groups"]))
