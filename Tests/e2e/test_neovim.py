"""End to end: a real headless Neovim loads the plugin in editors/nvim the way a user does and talks
to pgn-lsp through Neovim's own LSP client (diagnostics, hover, inlay hints, settings, commands)."""
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import time

import pytest

from conftest import ROOT, binary
from editor_fixtures import FIXABLE, MARKED, NEOVIMS, run_neovim_script
from test_lsp_explorer import MINE, REFERENCE_GAMES, make_database

PLUGIN = ROOT / "editors" / "nvim"


# Runs after startup (VimEnter, nested so that :edit fires the filetype autocommands), records
# what Neovim saw in a JSON file and quits.
PRELUDE = r"""
local env = function(name) return (assert(os.getenv(name), name)) end
local dir, out_path = env("PGN_NVIM_DIR"), env("PGN_NVIM_OUT")
local out = { attached = 0, configuration = {}, notifications = {} }

local function finish(err)
  if err then out.error = tostring(err) end
  vim.fn.writefile({ vim.fn.json_encode(out) }, out_path)
  vim.cmd("qall!")
end

local function start()
  vim.opt.rtp:prepend(env("PGN_NVIM_PLUGIN"))

  -- Record Neovim's answers to the server's workspace/configuration requests.
  local configuration = vim.lsp.handlers["workspace/configuration"]
  vim.lsp.handlers["workspace/configuration"] = function(...)
    local answer = configuration(...)
    table.insert(out.configuration, answer)
    return answer
  end
  local notify = vim.notify
  vim.notify = function(message, level, ...)
    table.insert(out.notifications, { message = tostring(message), level = level })
    return notify(message, level, ...)
  end

  require("pgn_lsp").setup({
    cmd = { env("PGN_LSP_BIN") },
    settings = vim.fn.json_decode(env("PGN_NVIM_SETTINGS")),
    on_attach = function(client, bufnr) out.attached = out.attached + 1; out.client_name = client.name end,
  })
end
local started, start_error = xpcall(start, debug.traceback)
if not started then finish(start_error) end

local function open(name)
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/" .. name))
  return vim.api.nvim_get_current_buf()
end

-- Waits until the server is attached to the buffer (up to 5 s).
local function wait_client(bufnr)
  return vim.wait(5000, function() return require("pgn_lsp").client(bufnr) ~= nil end, 20)
end

local function wait_diagnostics(bufnr, code)
  return vim.wait(10000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if code == nil or d.code == code then return true end
    end
    return false
  end, 20)
end

local function results(responses)
  local list = {}
  for _, response in pairs(responses or {}) do
    if response.error then table.insert(list, { error = response.error.message }) end
    if response.result ~= nil then table.insert(list, response.result) end
  end
  return list
end

-- The buffer's diagnostics of one code, as the tests compare them.
local function diagnostics_with(bufnr, code)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == code then
      table.insert(found, { lnum = d.lnum, col = d.col, message = d.message, severity = d.severity })
    end
  end
  return found
end

-- The code actions at a place of the buffer, with no diagnostics in the context.
local function actions_at(bufnr, line, character)
  local here = { line = line, character = character }
  return results(vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction",
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, range = { start = here, ["end"] = here },
      context = { diagnostics = {} } }, 5000))[1] or {}
end

-- The buffer's code lenses, as vim.lsp.codelens asks for them.
local function lenses_of(bufnr)
  return results(vim.lsp.buf_request_sync(bufnr, "textDocument/codeLens",
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, 5000))[1] or {}
end

"""

# What the default run does and records.
DEFAULT_RUN = r"""
local function run()
  -- (a) diagnostics of the file with mistakes
  local bufnr = open("mistakes.pgn")
  out.filetype = vim.bo[bufnr].filetype
  out.diagnostics_arrived = wait_diagnostics(bufnr, "illegal-move")
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      code = d.code, message = d.message, severity = d.severity })
  end
  out.commands = {}
  for _, name in ipairs({ "PgnFixAll", "PgnReviewGame", "PgnReviewFile", "PgnSaveGame", "PgnSaveAllGames",
                          "PgnAnnotate", "PgnFillOpeningTags", "PgnFillAllOpeningTags", "PgnCheckRepertoire",
                          "PgnExplorerFilter" }) do
    out.commands[name] = vim.fn.exists(":" .. name)
  end

  -- (b) hover on 1. e4 (0-based line 8, character 3)
  local uri = vim.uri_from_bufnr(bufnr)
  -- The first hover starts the engine and says so; a later one has its figures.
  for _ = 1, 50 do
    out.hover = results(vim.lsp.buf_request_sync(bufnr, "textDocument/hover",
      { textDocument = { uri = uri }, position = { line = 8, character = 3 } }, 5000))
    out.hovers = (out.hovers or 0) + 1
    local first = out.hover[1]
    if not (first and first.contents and first.contents.value:find("starting…", 1, true)) then break end
    vim.wait(200)
  end

  -- :PgnReviewGame on a game with a blunder: review diagnostics, then inlay hints with glyphs.
  bufnr = open("blunder.pgn")
  wait_diagnostics(bufnr, nil)
  vim.api.nvim_win_set_cursor(0, { 9, 40 })
  vim.cmd("PgnReviewGame")
  out.review_arrived = wait_diagnostics(bufnr, "review-blunder")
  out.review_diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if tostring(d.code):find("^review%-") then
      table.insert(out.review_diagnostics, { lnum = d.lnum, col = d.col, code = d.code, message = d.message })
    end
  end
  out.review_hints = results(vim.lsp.buf_request_sync(bufnr, "textDocument/inlayHint",
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = 0, character = 0 }, ["end"] = { line = 20, character = 0 } } }, 5000))
  -- The code action "Save game to database", as a user picks it: a row in the database.
  local params = vim.fn.has("nvim-0.11") == 1 and vim.lsp.util.make_range_params(0, "utf-16")
    or vim.lsp.util.make_range_params()
  params.context = { diagnostics = {} }
  local actions = results(vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 5000))[1] or {}
  for _, action in ipairs(actions) do
    if action.title == "Save game to database" then
      out.saved = results(vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand", action.command, 10000))[1]
    end
  end

  -- :PgnAnnotate writes the review into the buffer (workspace/applyEdit).
  vim.cmd("PgnAnnotate")
  vim.wait(10000, function() return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n"):find("%[%%eval") ~= nil end, 20)
  out.annotated = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")

  -- (c) inlay hints of the clean sample, from the same client
  bufnr = open("sample.pgn")
  wait_client(bufnr)
  out.clients = #(vim.lsp.get_clients or vim.lsp.get_active_clients)()
  local last = vim.api.nvim_buf_line_count(bufnr)
  out.inlay_hints = results(vim.lsp.buf_request_sync(bufnr, "textDocument/inlayHint",
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = 0, character = 0 }, ["end"] = { line = last, character = 0 } } }, 5000))

  -- (d) hover on a move whose comment marks squares and draws arrows (2. Nf3, line 8, character 12):
  -- Neovim shows no images, so the board is text, with the marks listed under it.
  bufnr = open("marks.pgn")
  wait_client(bufnr)
  out.marks_hover = results(vim.lsp.buf_request_sync(bufnr, "textDocument/hover",
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 8, character = 12 } }, 5000))

  -- :PgnFixAll rewrites 0-0 as O-O through workspace/applyEdit
  bufnr = open("fixable.pgn")
  out.fixable_diagnostics = wait_diagnostics(bufnr, nil)
  vim.cmd("PgnFixAll")
  vim.wait(5000, function() return vim.api.nvim_buf_get_lines(bufnr, 8, 9, false)[1]:find("O-O") ~= nil end, 20)
  out.fixed_line = vim.api.nvim_buf_get_lines(bufnr, 8, 9, false)[1]
  -- Again: nothing is left that is safe to fix, and the server says so (window/showMessage).
  vim.cmd("PgnFixAll")
  vim.wait(5000, function() return vim.fn.execute("messages"):find("nothing to fix safely") ~= nil end, 20)
  out.nothing_to_fix = vim.fn.execute("messages")
  out.attached_before_rename = out.attached

  -- Rename a player (prepareRename, then rename) on the White value of club.pgn: Neovim takes
  -- no change annotations, so the edit is the name as written in this buffer; club-2.pgn, a
  -- workspace file that is not open, is left alone, and a message says so.
  bufnr = open("club.pgn")
  wait_diagnostics(bufnr, nil)
  wait_client(bufnr)
  vim.api.nvim_win_set_cursor(0, { 2, 10 })
  vim.lsp.buf.rename("Carlsen, Magnus Øen")
  vim.wait(10000, function() return vim.api.nvim_buf_get_lines(bufnr, 1, 2, false)[1]:find("Øen") ~= nil end, 20)
  out.renamed = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  -- What the server showed (window/showMessage), which Neovim echoes.
  out.rename_messages = vim.fn.execute("messages")
  local other = vim.fn.bufnr(dir .. "/club-2.pgn")
  out.renamed_elsewhere = other > 0 and vim.api.nvim_buf_get_lines(other, 0, -1, false) or {}

  -- :PgnFillAllOpeningTags adds the ECO and Opening tags (workspace/applyEdit).
  vim.cmd("PgnFillAllOpeningTags")
  vim.wait(10000, function() return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n"):find("%[ECO") ~= nil end, 20)
  out.filled = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)

  -- A broadcast's earlier copy: a twin-game diagnostic on its first tag.
  bufnr = open("twins.pgn")
  out.twins_arrived = wait_diagnostics(bufnr, "twin-game")
  out.twins = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == "twin-game" then table.insert(out.twins, { lnum = d.lnum, message = d.message }) end
  end

  -- A name written another way: a name-variant hint, and its fix applied from the code actions.
  bufnr = open("names.pgn")
  out.names_arrived = wait_diagnostics(bufnr, "name-variant")
  out.name_hints = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == "name-variant" then
      table.insert(out.name_hints, { lnum = d.lnum, message = d.message, severity = d.severity })
    end
  end
  local name_params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 10, character = 9 }, ["end"] = { line = 10, character = 9 } },
    context = { diagnostics = {}, only = { "quickfix" } } }
  local name_actions = results(vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", name_params, 5000))[1] or {}
  for _, action in ipairs(name_actions) do
    if action.title == "Write “Firouzja, Alireza”" and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
    end
  end
  out.names_fixed = vim.api.nvim_buf_get_lines(bufnr, 10, 11, false)[1]

  -- A broadcast's earlier copy of a game of another file of the workspace (not open): a
  -- twin-game diagnostic whose related information opens the other file at the game.
  bufnr = open("broadcast.pgn")
  out.elsewhere_arrived = wait_diagnostics(bufnr, "twin-game")
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == "twin-game" then
      local lsp = d.user_data and d.user_data.lsp or {}
      local related = (lsp.relatedInformation or {})[1]
      out.elsewhere = { lnum = d.lnum, message = d.message }
      if related then
        local other = vim.uri_to_bufnr(related.location.uri)
        vim.fn.bufload(other)
        out.elsewhere.related_line = vim.api.nvim_buf_get_lines(other, related.location.range.start.line,
          related.location.range.start.line + 1, false)[1]
        out.elsewhere.related_file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(other), ":t")
      end
    end
  end
  -- Keeping the finished game: the copy's extra tag is added to twic.pgn, the copy removed here.
  local merge_params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 1 }, ["end"] = { line = 0, character = 1 } },
    context = { diagnostics = {}, only = { "quickfix" } } }
  local merge_actions = results(vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", merge_params, 5000))[1] or {}
  for _, action in ipairs(merge_actions) do
    if action.title == "Keep the longer copy, merging their tags" and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
    end
  end
  out.merged_here = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  out.merged_there = vim.api.nvim_buf_get_lines(vim.fn.bufnr(dir .. "/twic.pgn"), 0, -1, false)
end

"""

EPILOGUE = r"""
vim.api.nvim_create_autocmd("VimEnter", { nested = true, callback = function()
  local ok, err = xpcall(run, debug.traceback)
  finish(not ok and err or nil)
end })
"""

INIT = PRELUDE + DEFAULT_RUN + EPILOGUE


# Carlsen's name three ways: a client without change annotations gets the rename of the first
# only, in the open buffer; the second (the same name written without the space), the name in
# club-2.pgn (not open) and the initial are left alone.
CLUB = '[Event "Club"]\n[White "Carlsen, Magnus"]\n[Black "Carlsen,Magnus"]\n\n1. e4 e5 *\n'
CLUB_2 = '[Event "Club"]\n[White "Emil"]\n[Black "Carlsen, Magnus"]\n\n1. d4 *\n\n[White "Carlsen, M."]\n\n1. c4 *\n'


# Not Carlsen: the rename above looks at every file of the workspace.
NAMES = ('[White "Firouzja, Alireza"]\n[Black "Anna"]\n\n1. e4 *\n\n[White "Anna"]\n[Black "Firouzja, Alireza"]\n\n1. d4 *\n\n'
         '[White "Firouzja,Alireza"]\n[Black "Anna"]\n\n1. c4 *\n')


# A game of twic.pgn and the broadcast's earlier copy of it in another file.
TWIC = ('[Event "Tata Steel"]\n[White "Gukesh D"]\n[Black "Praggnanandhaa R"]\n[Date "2025.02.02"]\n[Round "13"]\n\n'
        '1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1/2-1/2\n')
BROADCAST = ('[Annotator "Broadcast"]\n[White "Gukesh D"]\n[Black "Praggnanandhaa R"]\n[Date "2025.02.02"]\n[Round "13"]\n\n'
             '1. e4 e5 2. Nf3 Nc6 *\n')


TWINS = ('[White "Anna"]\n[Black "Boris"]\n[Date "2024.01.05"]\n[Round "1"]\n\n1. e4 e5 *\n\n'
         '[White "Anna"]\n[Black "Boris"]\n[Date "2024.01.05"]\n[Round "1"]\n\n1. e4 e5 2. Nf3 1-0\n')


# The explorer: hover on 1. e4 of a game whose 3... Nf6 leaves the database, the "N" inlay hint as
# Neovim keeps it (0.10 and later), and references on 2... Nc6 jumped to through the quickfix list:
# the database game's file opens at the move, on the line that names the game.
EXPLORER_RUN = r"""
local function run()
  local bufnr = open("mine.pgn")
  wait_diagnostics(bufnr, nil)
  wait_client(bufnr)
  local uri = vim.uri_from_bufnr(bufnr)
  out.hover = results(vim.lsp.buf_request_sync(bufnr, "textDocument/hover",
    { textDocument = { uri = uri }, position = { line = 3, character = 3 } }, 5000))

  if vim.lsp.inlay_hint and vim.lsp.inlay_hint.get then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
    vim.wait(10000, function() return #vim.lsp.inlay_hint.get({ bufnr = bufnr }) > 0 end, 20)
    out.hints = {}
    for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
      local hint = item.inlay_hint
      local label = hint.label
      if type(label) ~= "string" then
        local parts = {}
        for _, part in ipairs(label) do table.insert(parts, part.value) end
        label = table.concat(parts)
      end
      local tooltip = type(hint.tooltip) == "table" and hint.tooltip.value or hint.tooltip
      table.insert(out.hints, { label = label, line = hint.position.line, character = hint.position.character,
                                tooltip = tooltip })
    end
  end

  -- References on 2... Nc6 (line 4, 0-based column 16) into the quickfix list, as :lua
  -- vim.lsp.buf.references() makes it, then :cc to the first database game.
  vim.api.nvim_win_set_cursor(0, { 4, 16 })
  local params = vim.fn.has("nvim-0.11") == 1 and vim.lsp.util.make_position_params(0, "utf-16")
    or vim.lsp.util.make_position_params()
  params.context = { includeDeclaration = true }
  local locations = results(vim.lsp.buf_request_sync(bufnr, "textDocument/references", params, 10000))[1] or {}
  local items = vim.lsp.util.locations_to_items(locations, "utf-16")
  vim.fn.setqflist({}, " ", { title = "References", items = items })
  out.references = {}
  local target
  for index, item in ipairs(items) do
    table.insert(out.references, { filename = item.filename, lnum = item.lnum, col = item.col, text = item.text })
    if target == nil and item.filename:find("pgn%-lsp/positions/") then target = index end
  end
  if target then
    vim.cmd("cc " .. target)
    out.jumped_file = vim.api.nvim_buf_get_name(0)
    out.jumped_line = vim.api.nvim_win_get_cursor(0)[1]
    out.jumped_text = vim.api.nvim_get_current_line()
    out.jumped_filetype = vim.bo.filetype
  end
end

"""

EXPLORER_INIT = PRELUDE + EXPLORER_RUN + EPILOGUE

def prepare_explorer(work: pathlib.Path):
    make_database(work / "games.ocgdb.db3")
    (work / "mine.pgn").write_text(MINE)


@pytest.fixture(scope="module", params=["0.7", "0.11"])
def explorer_run(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("nvim-explorer")
    seen = run_neovim(folder, {"engine": {"hoverMs": 0}}, request.param, init=EXPLORER_INIT,
                      prepare=prepare_explorer, env_extra={"XDG_CACHE_HOME": str(folder / "cache")})
    seen["version"] = request.param
    seen["cache"] = str(folder / "cache")
    return seen


def test_explorer_hover_in_neovim(explorer_run):
    (hover,) = explorer_run["hover"]
    value = hover["contents"]["value"]
    assert value.startswith("**1. e4** — White"), value
    assert "**Explorer** — 3 games reached this position (games.ocgdb.db3)" in value, value
    assert "Next (games, White's score): `1... e5` 2 (75%) · `1... c5` 1 (0%)" in value, value
    assert "Best-rated game: Anand (2800) – Botvinnik (2700), Ref, 1-0 (games.ocgdb.db3)" in value, value


def test_the_explorer_filter_in_neovim_0_11(tmp_path):
    seen = run_neovim(tmp_path, {"engine": {"hoverMs": 0}, "explorer": {"player": "carlsen"}}, "0.11",
                      init=EXPLORER_INIT, prepare=prepare_explorer,
                      env_extra={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    (hover,) = seen["hover"]
    value = hover["contents"]["value"]
    assert "**Explorer** — 1 game reached this position (games.ocgdb.db3; games of carlsen)" in value, value


# :PgnExplorerFilter as a user types it, then a hover on 1. e4; then the filter cleared.
FILTER_RUN = r"""
local function run()
  local bufnr = open("mine.pgn")
  wait_diagnostics(bufnr, nil)
  wait_client(bufnr)
  local function said(text)
    return vim.wait(5000, function()
      for _, n in ipairs(out.notifications) do if n.message:find(text, 1, true) then return true end end
      return false
    end, 20)
  end
  local function hover()
    return results(vim.lsp.buf_request_sync(bufnr, "textDocument/hover",
      { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 3, character = 3 } }, 5000))
  end
  vim.cmd("PgnExplorerFilter player=carlsen color=white")
  out.set = said("the explorer counts games of carlsen as White")
  out.filtered = hover()
  vim.cmd("PgnExplorerFilter")
  out.cleared = said("the explorer counts every game")
  out.all = hover()
end
"""


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_the_explorer_filter_command_in_neovim(tmp_path, version):
    seen = run_neovim(tmp_path, {"engine": {"hoverMs": 0}}, version, init=PRELUDE + FILTER_RUN + EPILOGUE,
                      prepare=prepare_explorer, env_extra={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert seen.get("error") is None, seen.get("error")
    assert seen["set"] and seen["cleared"], seen["notifications"]
    assert "1 game reached this position (games.ocgdb.db3; games of carlsen as White)" in \
        seen["filtered"][0]["contents"]["value"]
    assert "3 games reached this position (games.ocgdb.db3)" in seen["all"][0]["contents"]["value"]


def test_references_jump_to_the_database_game_in_neovim(explorer_run):
    references = explorer_run["references"]
    mine = str(pathlib.Path(explorer_run["cache"]).parent / "files" / "mine.pgn")
    assert [(r["lnum"], r["text"]) for r in references if r["filename"] == mine] == [(4, MINE.split("\n")[3])]
    # The quickfix list reads as lichess's explorer lists games: players, ratings, result, event.
    database = [r["text"] for r in references if "pgn-lsp/positions/" in r["filename"]]
    assert database == [
        "{Anand (2800) – Botvinnik (2700), 1-0, Ref} 2... Nc6 3. Bb5 a6 1-0",
        "{Carlsen (2600) – Ding (2650), ½-½, Ref} 2... Nc6 3. Bc4 Bc5 1/2-1/2",
        "{Ivanchuk (2900) – Jobava (2850), 1-0, Ref} 2... e5 1-0"], references
    assert explorer_run["jumped_file"].startswith(explorer_run["cache"] + "/pgn-lsp/positions/"), explorer_run
    assert explorer_run["jumped_file"].endswith(".pgn")
    # :cc opens the first game by ID, Anand's, at the move that reaches the position.
    assert explorer_run["jumped_text"] == database[0], explorer_run
    assert explorer_run["jumped_filetype"] == "pgn"


def test_the_novelty_inlay_hint_in_neovim_0_11(explorer_run):
    if explorer_run["version"] != "0.11":
        pytest.skip("Neovim 0.7 has no inlay hints")
    novelty = [hint for hint in explorer_run["hints"] if hint["label"].strip() == "N"]
    assert [(hint["line"], hint["character"]) for hint in novelty] == [(3, MINE.split("\n")[3].index("Nf6") + 3)]
    assert novelty[0]["tooltip"].startswith("Novelty: no game of the databases reached the position after 3... Nf6.")
    assert novelty[0]["tooltip"].endswith("reached in 1 game.")


# A White repertoire against the explorer's database (test_lsp_explorer's five games): the gaps
# as Neovim shows them, the quick fix on 1. e4 applied as a user picks it, and the hint in a game
# of the player's where it left the repertoire (the settings name the file and the player).
REPERTOIRE = '[Event "e4"]\n[Orientation "white"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n'
REPERTOIRE_RUN = r"""
local function run()
  local bufnr = open("repertoire.pgn")
  out.gaps_arrived = wait_diagnostics(bufnr, "repertoire-gap")
  out.gaps = diagnostics_with(bufnr, "repertoire-gap")
  table.sort(out.gaps, function(a, b) return a.col < b.col end)
  for _, action in ipairs(actions_at(bufnr, 3, 3)) do
    -- The fix with the databases' answer (the engine's runs a command).
    if out.fix_title == nil and action.edit and action.title and action.title:find("^Prepare") then
      out.fix_title = action.title
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
    end
  end
  out.line = vim.api.nvim_buf_get_lines(bufnr, 3, 4, false)[1]
  -- The code lenses above the repertoire game, as vim.lsp.codelens asks for them.
  out.lenses = {}
  for _, lens in ipairs(lenses_of(bufnr)) do
    if lens.command and lens.command.command:find("Repertoire") then table.insert(out.lenses, lens.command.title) end
  end

  -- A game of the player's, against the repertoire file the settings name.
  local games = open("played.pgn")
  wait_diagnostics(games, nil)
  out.played_hints = {}
  local hints = results(vim.lsp.buf_request_sync(games, "textDocument/inlayHint",
    { textDocument = { uri = vim.uri_from_bufnr(games) },
      range = { start = { line = 0, character = 0 }, ["end"] = { line = 5, character = 0 } } }, 5000))[1] or {}
  for _, hint in ipairs(hints) do
    if type(hint.label) == "string" and hint.label:find("repertoire", 1, true) then
      table.insert(out.played_hints, { line = hint.position.line, label = hint.label, tooltip = hint.tooltip })
    end
  end
end
"""


def prepare_repertoire(work: pathlib.Path):
    make_database(work / "games.ocgdb.db3")
    (work / "repertoire.pgn").write_text(REPERTOIRE)
    (work / "played.pgn").write_text('[White "Carlsen, Magnus"]\n[Black "Other"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1-0\n')


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_repertoire_gaps_and_their_fix_in_neovim(tmp_path, version):
    settings = {"engine": {"hoverMs": 0},
                "repertoire": {"minGames": 1, "white": ["repertoire.pgn"], "player": "carlsen"}}
    seen = run_neovim(tmp_path, settings, version,
                      init=PRELUDE + REPERTOIRE_RUN + EPILOGUE, prepare=prepare_repertoire)
    assert seen.get("error") is None, seen.get("error")
    assert seen["gaps_arrived"], seen
    assert [(gap["lnum"], gap["col"], gap["message"]) for gap in seen["gaps"]] == [
        (3, 3, "1... c5: 33% of 3 games — not prepared; most played answer: Nf3"),
        (3, 23, "3... a6: 100% of 1 game — not prepared"),
    ], seen["gaps"]
    assert seen["gaps"][0]["severity"] == 3  # information
    assert seen["fix_title"] == "Prepare 1... c5"
    assert seen["line"] == "1. e4 e5 (1... c5 2. Nf3) 2. Nf3 Nc6 3. Bb5 *"
    # After the fix, 1... c5 2. Nf3 is prepared: of the three games after 1. e4, two leave it
    # (2... d6 after it, and 3... a6).
    assert seen["lenses"] == ["Check the repertoire with the engine",
                              "Repertoire: 33% of 3 games answered · biggest gap 2... d6 (1)"], seen["lenses"]
    # The player's game left the repertoire at 3. Bc4, where it plays 3. Bb5.
    assert seen["played_hints"] == [{
        "line": 3, "label": "⤷ repertoire: Bb5",
        "tooltip": "You left your repertoire with 3. Bc4: it plays Bb5 here (repertoire.pgn:4, e4)."}], seen


# The repertoire's other parts as Neovim shows and runs them: a reply answered by transposition (two
# more games reach 2... e5 after 1... Nc6 2. Nf3, three in all), the gap's reply prepared with the engine's answer
# (a command the server answers with workspace/applyEdit), the lens that goes to the biggest gap,
# and a sketch without players marked as Black's repertoire.
TRANSPOSED = ('[Event "Ref"]\n[White "Kasparov"]\n[Black "Karpov"]\n[Result "1-0"]\n\n1. e4 Nc6 2. Nf3 e5 3. Bb5 1-0\n\n'
              '[Event "Ref"]\n[White "Tal"]\n[Black "Petrosian"]\n[Result "0-1"]\n\n1. e4 Nc6 2. Nf3 e5 3. d4 0-1\n')
ACTIONS_RUN = r"""
local function run()
  local bufnr = open("repertoire.pgn")
  out.gaps_arrived = wait_diagnostics(bufnr, "repertoire-gap")
  out.hints = diagnostics_with(bufnr, "repertoire-transposition")
  wait_client(bufnr)
  for _, action in ipairs(actions_at(bufnr, 3, 3)) do
    if action.command and action.title:find("engine", 1, true) then
      out.engine_title = action.title
      out.engine_answer = results(vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand", action.command,
        60000))[1]
    end
  end
  out.line = vim.api.nvim_buf_get_lines(bufnr, 3, 4, false)[1]
  -- The lens's command as vim.lsp.codelens.run runs it, the cursor elsewhere.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  for _, lens in ipairs(lenses_of(bufnr)) do
    if lens.command and lens.command.command == "pgn.goToRepertoireGap" then
      out.gap_title = lens.command.title
      out.gap_place = lens.command.arguments[2]
      out.goto_answer = results(vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand", lens.command,
        5000))[1]
      out.cursor = vim.api.nvim_win_get_cursor(0)
    end
  end

  local sketch = open("sketch.pgn")
  wait_diagnostics(sketch, nil)
  out.marks = {}
  for _, action in ipairs(actions_at(sketch, 2, 3)) do
    if action.title:find("repertoire", 1, true) then
      table.insert(out.marks, action.title)
      if action.title:find("Black", 1, true) then vim.lsp.util.apply_workspace_edit(action.edit, "utf-16") end
    end
  end
  out.sketch = vim.api.nvim_buf_get_lines(sketch, 0, 3, false)
end
"""


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_the_engines_answer_the_biggest_gap_and_marking_in_neovim(tmp_path, version):
    settings = {"engine": {"path": "/usr/games/stockfish", "hoverMs": 0}, "review": {"depth": 8},
                "repertoire": {"minGames": 1}}

    def prepare(work):
        make_database(work / "games.ocgdb.db3", REFERENCE_GAMES + "\n" + TRANSPOSED)
        (work / "repertoire.pgn").write_text(REPERTOIRE.replace("1. e4 e5 2.", "1. e4 e5 (1... Nc6 2. Nf3) 2."))
        (work / "sketch.pgn").write_text('[Event "Sketch"]\n\n1. d4 d5 (1... Nf6 2. c4) 2. c4 *\n')

    seen = run_neovim(tmp_path, settings, version, init=PRELUDE + ACTIONS_RUN + EPILOGUE, prepare=prepare)
    assert seen.get("error") is None, seen.get("error")
    assert seen["gaps_arrived"], seen
    # 2... e5 after 1... Nc6 2. Nf3 reaches the mainline's position after 2... Nc6: a hint, not a gap.
    assert [(h["lnum"], h["col"], h["message"], h["severity"]) for h in seen["hints"]] == [
        (3, 22, "2... e5: 100% of 3 games — answered by transposition, line 4 (e4)", 4)], seen["hints"]
    assert seen["engine_title"] == "Prepare 1... c5 with the engine's answer", seen
    assert seen["engine_answer"] == {"applied": True}, seen
    assert re.fullmatch(r"1\. e4 e5 \(1\.\.\. c5 2\. [A-Za-z][a-z0-9x+#=]*[0-9]\+?\) \(1\.\.\. Nc6 2\. Nf3\) "
                        r"2\. Nf3 Nc6 3\. Bb5 \*", seen["line"]), seen["line"]
    # The biggest gap left, shown through window/showDocument (the plugin's own handler in 0.7).
    assert re.fullmatch(r"Repertoire: \d+% of 5 games answered · biggest gap .+", seen["gap_title"]), seen
    place = seen["gap_place"]
    assert seen["goto_answer"] == {"shown": True}, seen
    assert seen["cursor"] == [place["line"] + 1, place["character"]], seen
    assert seen["marks"] == ["Mark as White's repertoire", "Mark as Black's repertoire"], seen
    assert seen["sketch"] == ['[Event "Sketch"]', '[Orientation "black"]', ""], seen


# A White repertoire with a line that answers a position otherwise than another, and a blunder:
# the conflict shown, then the engine's check run as the lens runs it, and its warning.
CHECKED = ('[Event "Ruy"]\n[Orientation "white"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n'
           '[Event "Early queen"]\n[Orientation "white"]\n\n1. e4 Nc6 2. Nf3 e5 3. Qe2 (3. d4) 3... Nf6 4. Qb5 a6 5. Qxb7 *\n')
CHECK_RUN = r"""
local function run()
  local bufnr = open("checked.pgn")
  out.conflict_arrived = wait_diagnostics(bufnr, "repertoire-conflict")
  wait_client(bufnr)
  local uri = vim.uri_from_bufnr(bufnr)
  out.answer = results(vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand",
    { command = "pgn.reviewRepertoire", arguments = { uri } }, 60000))[1]
  out.mistake_arrived = wait_diagnostics(bufnr, "repertoire-mistake")
  out.found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if tostring(d.code):find("^repertoire%-") then
      table.insert(out.found, { code = d.code, lnum = d.lnum, col = d.col, message = d.message })
    end
  end
  table.sort(out.found, function(a, b) return a.lnum * 1000 + a.col < b.lnum * 1000 + b.col end)
end
"""


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_repertoire_conflicts_and_the_engines_check_in_neovim(tmp_path, version):
    settings = {"engine": {"path": "/usr/games/stockfish", "hoverMs": 0}, "review": {"depth": 8}}
    seen = run_neovim(tmp_path, settings, version, init=PRELUDE + CHECK_RUN + EPILOGUE,
                      prepare=lambda work: (work / "checked.pgn").write_text(CHECKED))
    assert seen.get("error") is None, seen.get("error")
    assert seen["conflict_arrived"] and seen["mistake_arrived"], seen
    assert seen["answer"]["moves"] == 8, seen["answer"]
    conflicts = [d for d in seen["found"] if d["code"] == "repertoire-conflict"]
    assert [(d["lnum"], d["message"]) for d in conflicts] == [
        (8, "3. Qe2 here, but 3. Bb5 in the same position in another line"),
        (8, "3. d4 here, but 3. Bb5 in the same position in another line")], conflicts
    mistakes = [d for d in seen["found"] if d["code"] == "repertoire-mistake"]
    assert any(d["message"].startswith("5. Qxb7: a blunder for the engine (") for d in mistakes), mistakes


# Completion as a user asks for it: <C-x><C-o> at the end of `2. Nf3` (Neovim 0.7 has it only
# because the plugin sets 'omnifunc'), then what the menu holds once the answer came.
COMPLETION_RUN = r"""
local function run()
  local bufnr = open("complete.pgn")
  wait_diagnostics(bufnr, nil)
  wait_client(bufnr)
  out.omnifunc = vim.bo[bufnr].omnifunc
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A<C-x><C-o>", true, false, true), "n", false)
end

vim.api.nvim_create_autocmd("VimEnter", { nested = true, callback = function()
  local ok, err = xpcall(run, debug.traceback)
  if not ok then finish(err) end
  -- The keys are typed once this callback returns; the menu is read when the answer came.
  local function read(tries)
    local info = vim.fn.complete_info({ "items", "mode" })
    if #info.items == 0 and tries > 0 then return vim.defer_fn(function() read(tries - 1) end, 100) end
    out.mode = vim.fn.mode()
    out.menu = {}
    for _, item in ipairs(info.items) do
      table.insert(out.menu, { word = item.word, kind = item.kind, menu = item.menu })
    end
    finish(nil)
  end
  vim.defer_fn(function() read(100) end, 100)
end })
"""

COMPLETION_INIT = PRELUDE + COMPLETION_RUN


def prepare_completion(work: pathlib.Path):
    make_database(work / "games.ocgdb.db3")
    (work / "complete.pgn").write_text('[White "Me"]\n\n1. e4 e5 2. Nf3 \n')


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_completion_lists_the_moves_a_player_looks_for_first(tmp_path, version):
    seen = run_neovim(tmp_path, {"engine": {"hoverMs": 0}}, version, init=COMPLETION_INIT, prepare=prepare_completion)
    assert seen["omnifunc"] == "v:lua.vim.lsp.omnifunc"
    assert seen["mode"] == "i"
    words = [item["word"] for item in seen["menu"]]
    assert len(words) == 29, words
    # The move of the database's games first, with its figures; then the developing moves; the
    # king's step last.
    assert words[0] == "Nc6" and seen["menu"][0]["menu"] == "2 games · 75% white score", seen["menu"][0]
    assert words[1:10] == ["Na6", "Nf6", "Nh6", "Ne7", "Ba3", "Bb4", "Bc5", "Bd6", "Be7"], words
    assert words[-1] == "Ke7", words
    assert {item["kind"] for item in seen["menu"]} == {"EnumMember"}


def run_neovim(tmp_path: pathlib.Path, settings: dict, version: str = "0.7", init: str = INIT, prepare=None,
               env_extra=None) -> dict:
    nvim = NEOVIMS.get(version)
    if nvim is None or not pathlib.Path(nvim).exists():
        pytest.fail(f"Neovim {version} is not installed: scripts/bootstrap installs it")
    out_version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    assert out_version.startswith(f"NVIM v{version}."), out_version
    work = tmp_path / "files"
    work.mkdir()
    shutil.copy(ROOT / "samples" / "mistakes.pgn", work / "mistakes.pgn")
    shutil.copy(ROOT / "samples" / "sample.pgn", work / "sample.pgn")
    shutil.copy(ROOT / "samples" / "blunder.pgn", work / "blunder.pgn")
    (work / "fixable.pgn").write_text(FIXABLE)
    (work / "club.pgn").write_text(CLUB)
    (work / "club-2.pgn").write_text(CLUB_2)
    (work / "marks.pgn").write_text(MARKED)
    (work / "twins.pgn").write_text(TWINS)
    (work / "names.pgn").write_text(NAMES)
    (work / "twic.pgn").write_text(TWIC)
    (work / "broadcast.pgn").write_text(BROADCAST)
    if prepare:
        prepare(work)
    env = dict(PGN_NVIM_DIR=str(work), PGN_NVIM_PLUGIN=str(PLUGIN), PGN_LSP_BIN=str(binary()),
               PGN_NVIM_SETTINGS=json.dumps(settings), **(env_extra or {}))
    return run_neovim_script(nvim, init, tmp_path, work, env, timeout=40)


def hint_labels(seen: dict) -> list:
    labels = []
    for hints in seen["inlay_hints"]:
        assert isinstance(hints, list), hints
        for hint in hints:
            label = hint["label"]
            labels.append(label if isinstance(label, str) else "".join(part["value"] for part in label))
    return [label.strip() for label in labels]


@pytest.fixture(scope="module", params=["0.7", "0.11"])
def default_run(request, tmp_path_factory):
    # A long hover budget for the engine: the machine running the tests may be busy.
    return run_neovim(tmp_path_factory.mktemp("nvim-default"), {"engine": {"hoverMs": 1500}}, request.param)


def test_plugin_attaches_to_pgn_buffers(default_run):
    assert default_run["filetype"] == "pgn"
    assert default_run["client_name"] == "pgn-lsp"
    assert default_run["attached_before_rename"] == 5  # five files, one on_attach each
    assert default_run["clients"] == 1  # one client for the root, reused
    assert all(exists == 2 for exists in default_run["commands"].values()), default_run["commands"]


def test_illegal_move_diagnostic(default_run):
    assert default_run["diagnostics_arrived"]
    illegal = [d for d in default_run["diagnostics"] if d["code"] == "illegal-move"]
    assert len(illegal) == 1, default_run["diagnostics"]
    d = illegal[0]
    assert (d["lnum"], d["col"]) == (9, 30)
    assert (d["end_lnum"], d["end_col"]) == (9, 33)
    assert d["message"] == "Illegal move Nf3 (White to move): no white knight can move to f3"
    assert d["severity"] == 1  # vim.diagnostic.severity.ERROR


def test_hover_gives_the_fen(default_run):
    chess = pytest.importorskip("chess")
    board = chess.Board()
    board.push_san("e4")
    (hover,) = default_run["hover"]
    assert hover["contents"]["kind"] == "markdown"
    value = hover["contents"]["value"]
    assert f"FEN `{board.fen()}`" in value
    # Stockfish's evaluation after the move, and its line, on the hover after the one that
    # started it.
    assert default_run["hovers"] >= 2
    assert re.search(r"\*\*Engine\*\* [-+]?\d+\.\d\d \(", value) and " · best line 1... " in value, value


def test_hover_gives_a_text_board_with_the_marks_listed(default_run):
    # Neovim announces itself as "Neovim": no picture, whatever its version.
    (hover,) = default_run["marks_hover"]
    assert hover["contents"]["kind"] == "markdown"
    value = hover["contents"]["value"]
    assert value.startswith("**2. Nf3** — White"), value
    assert "data:image" not in value and "<svg" not in value
    # White at the bottom, though Black is to move: rank 8 first.
    assert "```text\n8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜\n" in value, value
    assert "```\nMarked: a4 (green), b5 (red) · Arrows: e2→e4 (green)  \n" in value, value


def test_inlay_hints_show_nag_glyphs(default_run):
    assert len(default_run["inlay_hints"]) == 1, default_run["inlay_hints"]
    labels = hint_labels(default_run)
    assert "?!" in labels  # $6
    assert "?" in labels  # $2
    assert "!" in labels and "!!" in labels  # $1, $3


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_settings_reach_the_server(tmp_path, version):
    # The novelty hint off too: the game saved to the database makes 2... d6 of sample.pgn one.
    settings = {"inlayHints": {"nags": False, "opening": False, "novelty": False}}
    seen = run_neovim(tmp_path, settings, version)
    assert seen["diagnostics_arrived"]
    assert hint_labels(seen) == []
    # Neovim answers the server's workspace/configuration request with the `pgn` section.
    assert settings in [answer[0] for answer in seen["configuration"]]


def test_fix_all_command_applies_the_safe_fixes(default_run):
    assert default_run["fixable_diagnostics"]
    assert "4. O-O Nf6" in default_run["fixed_line"]


def test_fix_all_with_nothing_safe_to_fix_says_so(default_run):
    assert "pgn-lsp: nothing to fix safely in fixable.pgn" in default_run["nothing_to_fix"], default_run["nothing_to_fix"]
    assert default_run["fixed_line"].count("O-O") == 1


def test_review_command_reports_the_blunder_and_gives_inlay_hints(default_run):
    assert default_run["review_arrived"], default_run["notifications"]
    blunders = [d for d in default_run["review_diagnostics"] if d["code"] == "review-blunder"]
    blunder_text = (ROOT / "samples" / "blunder.pgn").read_text().split("\n")[8]
    assert (8, blunder_text.index("Nxf7")) in [(d["lnum"], d["col"]) for d in blunders]
    labels = []
    for hints in default_run["review_hints"]:
        labels += [h["label"] if isinstance(h["label"], str) else "".join(p["value"] for p in h["label"])
                   for h in hints]
    # The review's judgements with the engine's choice, and the opening's name.
    assert "C50 Italian Game: Blackburne-Kostić Gambit" in labels, labels
    judgements = [label for label in labels if not label.startswith("C50 ")]
    assert all(re.fullmatch(r"(\?!|\?|\?\?)( better \S+)?", label) for label in judgements), labels
    assert any(label.startswith("?? better ") for label in labels), labels


def test_annotate_command_writes_the_review_into_the_buffer(default_run):
    annotated = default_run["annotated"]
    assert '[Annotator "pgn-lsp"]' in annotated
    assert re.search(r"5\. Nxf7\?\?\s\{\[%eval -", annotated) and "Blunder." in annotated


def test_rename_reaches_the_name_as_written_in_the_open_buffer_and_says_what_it_left_out(default_run):
    renamed = default_run["renamed"]
    assert renamed[1:3] == ['[White "Carlsen, Magnus Øen"]', '[Black "Carlsen,Magnus"]'], renamed
    assert not default_run["renamed_elsewhere"], "club-2.pgn is not opened by the rename"
    messages = default_run["rename_messages"]
    assert ('left out, as this editor cannot ask to confirm them: 1 tag in 1 file that is not open, '
            '1 tag with the name written differently ("Carlsen,Magnus")') in messages, messages


def test_fill_opening_tags_command_writes_the_tags_into_the_buffer(default_run):
    filled = default_run["filled"]
    assert filled[3:5] == ['[ECO "C20"]', '[Opening "King\'s Pawn Game"]'], filled


def test_twin_games_show_as_diagnostics(default_run):
    assert default_run["twins_arrived"]
    assert default_run["twins"] == [{"lnum": 0, "message": "This game stops after 2 half-moves of game 2, which has "
                                     "the same players, date and round and goes on to 3: an earlier copy of it"}]


def test_name_variants_show_as_hints_and_their_fix_applies(default_run):
    assert default_run["names_arrived"]
    assert default_run["name_hints"] == [{"lnum": 10, "severity": 4, "message":
                                          "“Firouzja,Alireza” is written “Firouzja, Alireza” in 2 tags of this file"}]
    assert default_run["names_fixed"] == '[White "Firouzja, Alireza"]'


def test_a_copy_of_a_game_of_another_file_points_at_it(default_run):
    assert default_run["elsewhere_arrived"]
    elsewhere = default_run["elsewhere"]
    assert elsewhere["lnum"] == 0
    assert elsewhere["message"] == ("This game stops after 4 half-moves of game 1 of twic.pgn, which has the same "
                                    "players, date and round and goes on to 6: an earlier copy of it")
    assert elsewhere["related_file"] == "twic.pgn"
    assert elsewhere["related_line"] == '[Event "Tata Steel"]'
    assert default_run["merged_here"] == [""]
    assert default_run["merged_there"][:3] == ['[Event "Tata Steel"]', '[White "Gukesh D"]', '[Black "Praggnanandhaa R"]']
    assert default_run["merged_there"][5] == '[Annotator "Broadcast"]'


def test_save_game_code_action_writes_a_row_that_sqlite_reads(default_run):
    import sqlite3
    saved = default_run["saved"]
    assert saved["stored"] == 1, saved
    with sqlite3.connect(saved["path"]) as db:
        rows = db.execute("SELECT w.Name, b.Name, g.Result, g.PlyCount FROM Games g JOIN Players w ON w.ID = g.WhiteID "
                          "JOIN Players b ON b.ID = g.BlackID").fetchall()
    assert rows == [("White", "Black", "0-1", 14)]


# On the screen: Neovim in tmux, 80 columns wide, as a player sees it. Each step is a Lua call
# typed at Neovim's command line; what it records goes to a JSON file, then tmux captures the
# screen.
SCREEN_INIT = r"""
local env = function(name) return (assert(os.getenv(name), name)) end
local out = env("PGN_NVIM_OUT")
vim.opt.rtp:prepend(env("PGN_NVIM_PLUGIN"))
vim.opt.shortmess:append("I")
vim.cmd("filetype on")
require("pgn_lsp").setup({ cmd = { env("PGN_LSP_BIN") }, settings = vim.fn.json_decode(env("PGN_NVIM_SETTINGS")) })

local function write(name, value)
  vim.fn.writefile({ vim.fn.json_encode(value) }, out .. "/" .. name)
end

local function floats()
  local found = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then table.insert(found, win) end
  end
  return found
end

-- Records, once the server is attached and its diagnostics arrived, that the buffer is ready.
function PgnReady(name)
  local attached = vim.wait(10000, function() return require("pgn_lsp").client(0) ~= nil end, 20)
  vim.wait(3000, function() return #vim.diagnostic.get(0) > 0 end, 20)
  write(name, { attached = attached })
end

-- Closes the floats and puts the cursor at (line, col); the hover comes in a later call, since
-- the cursor's move closes a hover float.
function PgnCursor(name, line, col)
  for _, win in ipairs(floats()) do vim.api.nvim_win_close(win, true) end
  vim.api.nvim_win_set_cursor(0, { line, col })
  write(name, { done = true })
end

-- Hovers at the cursor as `K` does, and records the float's place, size and lines.
function PgnHover(name)
  vim.lsp.buf.hover()
  vim.wait(5000, function() return #floats() > 0 end, 20)
  vim.cmd("redraw")
  local win = floats()[1]
  if win == nil then return write(name, {}) end
  local position = vim.api.nvim_win_get_position(win)
  write(name, { row = position[1], col = position[2], width = vim.api.nvim_win_get_width(win),
                height = vim.api.nvim_win_get_height(win),
                lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false) })
end

-- Runs a command of the plugin and records when it returned.
function PgnCommand(name, command)
  vim.cmd(command)
  write(name, { done = true })
end
"""

COLUMNS, ROWS = 80, 30


class Screen:
    """Neovim `version` in a tmux session of COLUMNS × ROWS editing `name` of `files`."""

    def __init__(self, tmp_path: pathlib.Path, version: str, files: dict, name: str, settings: dict,
                 prepare=None):
        nvim = NEOVIMS.get(version)
        if nvim is None or not pathlib.Path(nvim).exists():
            pytest.fail(f"Neovim {version} is not installed: scripts/bootstrap installs it")
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed: scripts/bootstrap installs it")
        self.work = tmp_path / "files"
        self.work.mkdir()
        (self.work / ".git").mkdir()
        for file, text in files.items():
            (self.work / file).write_text(text)
        if prepare:
            prepare(self.work)
        self.out = tmp_path / "out"
        self.out.mkdir()
        init = tmp_path / "init.lua"
        init.write_text(SCREEN_INIT)
        self.session = f"pgn-screen-{os.getpid()}-{tmp_path.name}"
        env = {"PGN_NVIM_OUT": str(self.out), "PGN_NVIM_PLUGIN": str(PLUGIN), "PGN_LSP_BIN": str(binary()),
               "PGN_NVIM_SETTINGS": json.dumps(settings), "XDG_CACHE_HOME": str(tmp_path / "cache"),
               "TERM": "xterm-256color"}
        command = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        command += f" {shlex.quote(nvim)} --clean -u {shlex.quote(str(init))} {shlex.quote(name)}"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.session, "-x", str(COLUMNS), "-y", str(ROWS),
                        "-c", str(self.work), command], check=True)

    def run(self, lua: str, record: str, timeout: float = 30) -> dict:
        """Types `:lua …` and waits for the JSON file `record` it writes."""
        subprocess.run(["tmux", "send-keys", "-t", self.session, f":lua {lua}", "Enter"], check=True)
        path = self.out / record
        deadline = time.monotonic() + timeout
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert path.exists(), f"{record} was not written:\n" + "\n".join(self.capture())
        time.sleep(0.3)  # the screen drawn after the call returned
        return json.loads(path.read_text())

    def capture(self) -> list:
        text = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.session], capture_output=True, text=True,
                              check=True).stdout
        return text.split("\n")[:ROWS]

    def close(self):
        subprocess.run(["tmux", "kill-session", "-t", self.session], capture_output=True)


def float_rows(screen_rows: list, hover: dict) -> list:
    """The float's rows as the screen shows them, without the padding Neovim 0.7 puts around."""
    return [row[hover["col"]:hover["col"] + hover["width"]].strip()
            for row in screen_rows[hover["row"]:hover["row"] + hover["height"]]]


# A game of a club player, with lichess's comments, in a workspace whose database holds games
# that reached the position after 2... Nc6.
SCREEN_GAME = ('[White "Me"]\n[Black "You"]\n\n'
               '1. e4 { [%eval 0.3] [%clk 0:03:00] } e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O *\n')


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_the_hover_fits_twenty_lines_of_an_eighty_column_terminal(tmp_path, version):
    screen = Screen(tmp_path, version, {"mine.pgn": SCREEN_GAME}, "mine.pgn", {"engine": {"hoverMs": 1000}},
                    prepare=lambda work: make_database(work / "games.ocgdb.db3"))
    try:
        assert screen.run("PgnReady('ready.json')", "ready.json")["attached"]
        column = SCREEN_GAME.split("\n")[3].index("Nc6")
        # The first hover starts the engine and says so; the next one has its figures.
        screen.run(f"PgnCursor('cursor.json', 4, {column})", "cursor.json")
        first = screen.run("PgnHover('first.json')", "first.json")
        first_rows = float_rows(screen.capture(), first)
        time.sleep(3)
        screen.run(f"PgnCursor('again.json', 4, {column})", "again.json")
        second = screen.run("PgnHover('second.json')", "second.json")
        rows = screen.capture()
        second_rows = float_rows(rows, second)
    finally:
        screen.close()
    for hover, shown in ((first, first_rows), (second, second_rows)):
        assert hover, "no hover float"
        # The whole hover is on the screen, in 20 rows at most, none wider than the terminal.
        assert hover["height"] <= 20 and hover["width"] <= COLUMNS, (hover, shown)
        assert len(hover["lines"]) <= 20, hover["lines"]
        text = "\n".join(shown)
        assert "2... Nc6" in shown[0], shown
        assert "Opening: C44 King's Knight Opening: Normal Variation" in text or "C44" in text, shown
        # The board, White at the bottom, and the explorer's figures under it.
        assert any(row.startswith("8 ♜ · ♝ ♛ ♚ ♝ ♞ ♜") for row in shown), shown
        assert any(row.startswith("a b c d e f g h") for row in shown), shown
        assert "Explorer" in text and "3 games reached this position" in text, shown
        assert "Next (games, White's score):" in text, shown
    assert "Engine starting…" in "\n".join(first_rows), first_rows
    engine = [row for row in second_rows if row.startswith("Engine ")]
    assert engine and re.match(r"Engine [-+]?\d+\.\d\d \((at (least|most), )?depth \d+\) · ", engine[0]), second_rows
    # The move, then the engine, then the opening, then the board.
    order = [next(i for i, row in enumerate(second_rows) if needle in row)
             for needle in ("2... Nc6", "Engine ", "Opening", "8 ♜")]
    assert order == sorted(order), second_rows


def test_the_review_s_hints_appear_when_it_finishes_in_neovim_0_11(tmp_path):
    blunder = (ROOT / "samples" / "blunder.pgn").read_text()
    screen = Screen(tmp_path, "0.11", {"blunder.pgn": blunder}, "blunder.pgn",
                    {"engine": {"hoverMs": 0}, "review": {"depth": 8}})
    try:
        assert screen.run("PgnReady('ready.json')", "ready.json")["attached"]
        before = "\n".join(screen.capture())
        screen.run("vim.api.nvim_win_set_cursor(0, {9, 40}); PgnCommand('review.json', 'PgnReviewGame')",
                   "review.json")
        # The review runs; its hints are drawn when the server asks for them again
        # (workspace/inlayHint/refresh), without touching the buffer. Its message (two lines at
        # 80 columns) waits for Enter, as a player gives it.
        deadline = time.monotonic() + 30
        shown = before
        while "better" not in shown and time.monotonic() < deadline:
            time.sleep(0.2)
            shown = "\n".join(screen.capture())
            if "Press ENTER" in shown:
                subprocess.run(["tmux", "send-keys", "-t", screen.session, "Enter"], check=True)
        rows = screen.capture()
    finally:
        screen.close()
    assert "better" not in before
    # The movetext line wraps: its rows joined, without the sign column (a row ending at a space
    # is captured without it, so the space may be missing where the line wrapped).
    movetext = "".join(row[2:] for row in rows[8:12])
    assert re.search(r"Nxf7 ?\?\? ?better ?\S+", movetext), "\n".join(rows)
