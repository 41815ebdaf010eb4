"""End to end in a real editor: a headless Neovim (Debian's 0.7.2 in CI) starts the built
server through its own LSP client, opens a PGN with an illegal move, and shows what a user
sees: the diagnostic at its line and column, a hover with the FEN, and inlay hints."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, binary

SCRIPT = r"""
local out = {}
local file, result = os.getenv("PGN_FILE"), os.getenv("PGN_RESULT")
vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ name = "pgn-lsp", cmd = { os.getenv("PGN_LSP") },
  root_dir = vim.fn.fnamemodify(file, ":h") })
vim.lsp.buf_attach_client(buf, id)
out.attached = vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message,
    severity = d.severity, code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) })
end
local uri = vim.uri_from_bufnr(buf)
local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover",
  { textDocument = { uri = uri }, position = { line = 8, character = 3 } }, 5000)
out.hover = hover and hover[id] and hover[id].result and hover[id].result.contents.value or vim.NIL
local hints = vim.lsp.buf_request_sync(buf, "textDocument/inlayHint",
  { textDocument = { uri = uri }, range = { start = { line = 0, character = 0 }, ["end"] = { line = 200, character = 0 } } },
  5000)
out.hints = {}
for _, h in ipairs(hints and hints[id] and hints[id].result or {}) do table.insert(out.hints, h.label) end
vim.fn.writefile({ vim.fn.json_encode(out) }, result)
vim.cmd("qall!")
"""


def test_neovim_shows_diagnostics_hover_and_inlay_hints(tmp_path):
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.fail("Neovim is not installed: apt-get install neovim (scripts/bootstrap does)")
    pgn = tmp_path / "games.pgn"
    pgn.write_text((ROOT / "samples" / "mistakes.pgn").read_text() + "\n" + (ROOT / "samples" / "sample.pgn").read_text())
    script = tmp_path / "test.lua"
    script.write_text(SCRIPT)
    result = tmp_path / "result.json"
    env = dict(os.environ, PGN_FILE=str(pgn), PGN_RESULT=str(result), PGN_LSP=str(binary()))
    subprocess.run([nvim, "--headless", "--clean", "-u", str(script)], env=env, timeout=60, check=True,
                   stdin=subprocess.DEVNULL, capture_output=True)
    seen = json.loads(result.read_text())
    assert seen["attached"]
    illegal = [d for d in seen["diagnostics"] if d["severity"] == 1]
    assert illegal[0] == {"lnum": 9, "col": 30, "end_col": 33, "severity": 1, "code": "illegal-move",
                          "message": "Illegal move Nf3 (White to move): no white knight can move to f3"}
    assert "FEN after the move: `rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1`" in seen["hover"]
    assert seen["hints"][:4] == ["?!", "?", "!", "!!"]
