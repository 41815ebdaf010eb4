"""End to end: a real headless Vim 9 with Debian's ALE runs the configuration block of
editors/vim.md (so the document is what is tested) and talks to pgn-lsp through ALE's own LSP
client: diagnostics, hover, code actions, symbol search and the engine review.

`pgn-lsp` on Vim's PATH is a small proxy that starts $PGN_LSP and records every message both ways
in exchange.jsonl, so that the tests can also check what ALE and the server said to each other."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, binary
from editor_fixtures import FIXABLE

DOC = ROOT / "editors" / "vim.md"
# Debian's vim-ale: the optional package that `packadd! ale` loads.
ALE = pathlib.Path("/usr/share/vim/vimfiles/pack/dist-bundle/opt/ale")
TIMEOUT = 50  # seconds for the whole Vim session; its driver gives up at 40 and still reports

# The same with a non-ASCII character before the fix on its line.
ACCENTED = FIXABLE.replace("1. e4 e5", "1. e4 { très bien } e5")

# Stands for `pgn-lsp` on PATH: starts the server under test and logs each message as a JSON line.
PROXY = r'''
import json, os, subprocess, sys, threading, time

start = time.monotonic()
log = open(os.environ["PGN_ALE_EXCHANGE"], "a", buffering=1)
lock = threading.Lock()
requests = {}
server = subprocess.Popen([os.environ["PGN_LSP_BIN"], *sys.argv[1:]], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE)


def frames(stream):
    while True:
        headers = {}
        while True:
            line = stream.readline()
            if not line:
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = stream.read(int(headers["content-length"]))
        if not body:
            return
        yield body


def record(side, body):
    message = json.loads(body)
    entry = {"from": side, "t": round(time.monotonic() - start, 3), "message": message}
    other = "server" if side == "client" else "client"
    with lock:
        if "id" in message and "method" in message:
            name = message["method"]
            if name == "workspace/executeCommand":
                name += " " + str((message.get("params") or {}).get("command"))
            requests[(side, json.dumps(message["id"]))] = name
        elif "id" in message:
            entry["answers"] = requests.get((other, json.dumps(message["id"])))
        log.write(json.dumps(entry) + "\n")


def pump(side, source, sink):
    try:
        for body in frames(source):
            record(side, body)
            sink.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            sink.flush()
    except (BrokenPipeError, ValueError):
        pass
    finally:
        try:
            sink.close()
        except OSError:
            pass


threading.Thread(target=pump, args=("client", sys.stdin.buffer, server.stdin), daemon=True).start()
pump("server", server.stdout, sys.stdout.buffer)
sys.exit(server.wait())
'''

# Appended to the block of editors/vim.md. Runs after startup (VimEnter, nested so that :edit fires
# the file type autocommands), drives ALE's commands as a user does, records what Vim shows in a
# JSON file and quits.
DRIVER = r'''
" ---- the test's driver, after the block of editors/vim.md
set hidden
let s:out = {'menus': []}
let s:deadline = reltimefloat(reltime()) + 40.0

function! s:Wait(ms, cond) abort
  let l:until = reltimefloat(reltime()) + a:ms / 1000.0
  if l:until > s:deadline
    let l:until = s:deadline
  endif
  while !eval(a:cond)
    if reltimefloat(reltime()) >= l:until
      return 0
    endif
    sleep 20m
  endwhile
  return 1
endfunction

function! s:Codes() abort
  return map(copy(ale#engine#GetLoclist(bufnr(''))), 'get(v:val, "code", "")')
endfunction

function! s:Items() abort
  return map(copy(ale#engine#GetLoclist(bufnr(''))), '{"lnum": v:val.lnum, "col": v:val.col,'
  \ . ' "end_lnum": get(v:val, "end_lnum", 0), "end_col": get(v:val, "end_col", 0), "type": v:val.type,'
  \ . ' "code": get(v:val, "code", ""), "text": v:val.text}')
endfunction

" The lines of the preview window, and its file type.
function! s:Preview() abort
  for l:window in range(1, winnr('$'))
    if getwinvar(l:window, '&previewwindow')
      let l:buffer = winbufnr(l:window)
      return {'filetype': getbufvar(l:buffer, '&filetype'), 'lines': getbufline(l:buffer, 1, '$')}
    endif
  endfor
  return {'filetype': '', 'lines': []}
endfunction

" Whether the server has answered a request (the proxy's log names the request each answer is for).
function! s:Answered(name) abort
  return match(readfile($PGN_ALE_EXCHANGE), '"answers": "' . a:name . '"') >= 0
endfunction

function! s:Open(name) abort
  pclose
  execute 'edit' fnameescape(s:dir . '/' . a:name)
endfunction

function! s:Linted() abort
  return getbufvar(bufnr(''), 'ale_linted', 0)
endfunction

" ALE asks which code action to apply with input(): the driver types the number of the one whose
" title matches g:pgn_pick, as a user would.
call ale#util#Mode()
function! ale#util#Input(message, value, ...) abort
  call add(s:out.menus, a:message)
  for l:line in split(a:message, "\n")
    let l:match = matchlist(l:line, '^\(\d\+\)) ' . g:pgn_pick)
    if !empty(l:match)
      return l:match[1]
    endif
  endfor
  return ''
endfunction

" Applies the code action whose title matches `pick` with the cursor on the first `text` of `line`.
function! s:CodeAction(line, text, pick) abort
  call cursor(a:line, stridx(getline(a:line), a:text) + 1)
  let g:pgn_pick = a:pick
  let l:menus = len(s:out.menus)
  ALECodeAction
  return s:Wait(5000, 'len(s:out.menus) > ' . l:menus)
endfunction

function! s:Run() abort
  let s:dir = $PGN_ALE_DIR
  let s:out.ale_3_3 = ale#Has('ale-3.3.0')
  let s:out.linters = map(ale#linter#Get('pgn'), '{"name": v:val.name, "lsp": v:val.lsp,'
  \ . ' "lsp_config": get(v:val, "lsp_config", {})}')

  " (a) diagnostics of a file with an illegal move
  call s:Open('mistakes.pgn')
  let s:out.filetype = &filetype
  let s:out.hover_mapping = maparg('K', 'n')
  let s:out.diagnostics_arrived = s:Wait(10000, 'index(s:Codes(), "illegal-move") >= 0')
  let s:out.diagnostics = s:Items()

  " (b) hover on 1. e4
  call cursor(9, 4)
  ALEHover
  let s:out.hover_arrived = s:Wait(10000, '!empty(s:Preview().lines)')
  let s:out.hover = s:Preview()

  " (c) the quick fix for 0-0
  call s:Open('fixable.pgn')
  let s:out.fixable_diagnostics_arrived = s:Wait(10000, 'index(s:Codes(), "non-canonical-san") >= 0')
  let s:out.fixable_diagnostics = s:Items()
  let s:out.fix_menu_shown = s:CodeAction(9, '0-0', 'Write O-O$')
  let s:out.fixed = s:Wait(5000, 'getline(9) =~# "O-O"')
  let s:out.fixed_line = getline(9)
  let s:out.fixed_modified = &modified
  let l:linted = s:Linted()
  silent write
  let s:out.fixed_relinted = s:Wait(5000, 's:Linted() > ' . l:linted)
  let s:out.fixed_diagnostics = s:Items()

  " Symbol search over the root: Morphy is in a file no one opened.
  ALESymbolSearch Morphy
  let s:out.symbols_arrived = s:Wait(10000, '!empty(s:Preview().lines)')
  let s:out.symbols = s:Preview()

  " The same fix on a line with a non-ASCII character before it.
  call s:Open('accented.pgn')
  let s:out.accented_diagnostics_arrived = s:Wait(10000, 'index(s:Codes(), "non-canonical-san") >= 0')
  let s:out.accented_menu_shown = s:CodeAction(9, '0-0', 'Write O-O$')
  call s:Wait(5000, 'getline(9) !~# "0-0"')
  let s:out.accented_line = getline(9)

  " The engine review, as a code action.
  call s:Open('blunder.pgn')
  call s:Wait(10000, 's:Linted() > 0')
  redir => s:echoed
  let s:out.review_menu_shown = s:CodeAction(9, 'e4', 'Review')
  let s:out.review_menu = get(s:out.menus, -1, '')
  let s:out.review_arrived = s:Wait(25000, 'index(s:Codes(), "review-blunder") >= 0')
  let s:out.review_diagnostics = s:Items()
  let s:out.review_preview = s:Preview()
  let s:out.review_ended = s:Wait(10000, 's:Answered("workspace/executeCommand pgn.reviewGame")')
  " Once reviewed, the game offers the annotation as an edit ALE applies itself.
  let s:out.annotate_menu_shown = s:CodeAction(9, 'e4', 'Annotate game with the review$')
  let s:out.annotate_menu = get(s:out.menus, -1, '')
  let s:out.annotate_ended = s:Wait(10000, 'join(getline(1, "$")) =~# "%eval"')
  let s:out.annotated = getline(1, '$')
  redir END
  let s:out.echoed = s:echoed

  " Save game to database: a command, no edit.
  let s:out.save_menu_shown = s:CodeAction(9, 'e4', 'Save game to database$')
  let s:out.saved = s:Wait(10000, 's:Answered("workspace/executeCommand pgn.saveGame")')

  " References on 2... Nc6 of fixable.pgn: the games of the root and of the database (the game
  " just saved) that reach the position, in ALE's preview window.
  call s:Open('fixable.pgn')
  call s:Wait(10000, 's:Linted() > 0')
  call cursor(9, stridx(getline(9), 'Nc6') + 1)
  ALEFindReferences
  let s:out.references_arrived = s:Wait(10000, '!empty(s:Preview().lines)')
  let s:out.references = s:Preview()
  " The same into the quickfix list, then to the database's game: its line names the game.
  pclose
  call setqflist([], 'r')
  ALEFindReferences -quickfix
  let s:out.quickfix_arrived = s:Wait(10000, '!empty(getqflist())')
  let l:items = getqflist()
  let s:out.quickfix = map(copy(l:items), '{"file": bufname(v:val.bufnr), "lnum": v:val.lnum, "col": v:val.col}')
  let l:database = indexof(l:items, {_, item -> bufname(item.bufnr) =~# "pgn-lsp/positions/"})
  if l:database >= 0
    execute 'cc' (l:database + 1)
    let s:out.jumped_line = getline('.')
    let s:out.jumped_col = col('.')
  endif
endfunction

function! s:Main() abort
  try
    call s:Run()
  catch
    let s:out.error = v:exception . ' at ' . v:throwpoint
  endtry
  silent! redir END
  let s:out.lsp_error_messages = get(g:, 'ale_lsp_error_messages', {})
  let s:out.messages = execute('messages')
  call writefile([json_encode(s:out)], $PGN_ALE_OUT)
  qall!
endfunction

autocmd VimEnter * ++nested call s:Main()
'''


def doc_block() -> str:
    """The Vim block of editors/vim.md: the one that defines the linter."""
    blocks = re.findall(r"^```vim\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)
    found = [block for block in blocks if "ale#linter#Define" in block]
    assert len(found) == 1, f"editors/vim.md should have one ```vim block with ale#linter#Define: {len(found)}"
    return found[0]


def read_exchange(path: pathlib.Path) -> list:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    vim = shutil.which("vim")
    if vim is None:
        pytest.fail("vim is not installed: scripts/bootstrap installs it (Debian packages vim and vim-ale)")
    if not (ALE / "plugin" / "ale.vim").exists():
        pytest.fail(f"ALE is not installed in {ALE}: scripts/bootstrap installs it (Debian package vim-ale)")
    version = subprocess.run([vim, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    assert version.startswith("VIM - Vi IMproved 9."), version

    tmp = tmp_path_factory.mktemp("vim-ale")
    # A project (its root has a .git) with the games Vim opens, and an archive no one opens.
    home, bin_dir, project = tmp / "home", tmp / "bin", tmp / "project"
    work, archive = project / "games", project / "archive"
    for folder in (home, bin_dir, project / ".git", work, archive):
        folder.mkdir(parents=True)
    for name in ("mistakes.pgn", "blunder.pgn"):
        shutil.copy(ROOT / "samples" / name, work / name)
    shutil.copy(ROOT / "samples" / "sample.pgn", archive / "sample.pgn")
    (work / "fixable.pgn").write_text(FIXABLE)
    (work / "accented.pgn").write_text(ACCENTED)
    proxy = bin_dir / "pgn-lsp"
    proxy.write_text(f"#!{sys.executable}\n{PROXY}")
    proxy.chmod(0o755)
    vimrc = tmp / "vimrc"
    vimrc.write_text(doc_block() + DRIVER)
    out, exchange = tmp / "out.json", tmp / "exchange.jsonl"
    env = dict(os.environ, HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               PGN_LSP_BIN=str(binary()), PGN_ALE_DIR=str(work), PGN_ALE_OUT=str(out),
               PGN_ALE_EXCHANGE=str(exchange))
    env.pop("VIMINIT", None)
    env.pop("EXINIT", None)
    # -es: silent Ex mode, which needs no terminal; -u: the vimrc above (plugins are loaded as usual).
    command = [vim, "-N", "-u", str(vimrc), "-i", "NONE", "-n", "-es"]
    try:
        proc = subprocess.run(command, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"Vim did not quit within {TIMEOUT} s:\n{timeout.stdout}\n{timeout.stderr}")
    assert out.exists(), f"Vim wrote no observations (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    seen = json.loads(out.read_text())
    seen["exchange"] = read_exchange(exchange)
    seen["work"], seen["project"] = str(work), str(project)
    assert "error" not in seen, seen["error"]
    return seen


def messages(seen: dict, side: str, method: str) -> list:
    return [e["message"] for e in seen["exchange"] if e["from"] == side and e["message"].get("method") == method]


def test_ale_starts_the_server_of_the_document(session):
    assert session["ale_3_3"] == 1
    assert session["filetype"] == "pgn"
    assert "ALEHover" in session["hover_mapping"]
    (linter,) = session["linters"]
    assert (linter["name"], linter["lsp"]) == ("pgn-lsp", "stdio")
    # One server for all the files, started once.
    assert len(messages(session, "client", "initialize")) == 1
    # lsp_config reaches the server as workspace/didChangeConfiguration, and every key is known.
    changes = messages(session, "client", "workspace/didChangeConfiguration")
    assert changes and changes[0]["params"]["settings"] == linter["lsp_config"]
    assert "pgn" in linter["lsp_config"]
    logged = [m["params"]["message"] for m in messages(session, "server", "window/logMessage")]
    assert not [line for line in logged if "unknown or invalid settings" in line], logged


def test_capabilities_ale_announces(session):
    (initialize,) = messages(session, "client", "initialize")
    capabilities = initialize["params"]["capabilities"]
    # What the server adapts to: plain-text hovers, code action literals, no edits from the server,
    # no configuration requests, no progress, UTF-16 positions (no positionEncodings).
    assert capabilities["textDocument"]["hover"]["contentFormat"] == ["plaintext"]
    assert "codeActionLiteralSupport" in capabilities["textDocument"]["codeAction"]
    assert capabilities["workspace"]["applyEdit"] is False
    assert capabilities["workspace"]["configuration"] is False
    assert "window" not in capabilities and "general" not in capabilities


def test_root_is_the_folder_with_git(session):
    (initialize,) = messages(session, "client", "initialize")
    assert initialize["params"]["rootUri"] == pathlib.Path(session["project"]).as_uri()


def test_illegal_move_diagnostic_arrives_once(session):
    assert session["diagnostics_arrived"], session["diagnostics"]
    illegal = [d for d in session["diagnostics"] if d["code"] == "illegal-move"]
    assert len(illegal) == 1, session["diagnostics"]
    d = illegal[0]
    # 1-based, as ALE keeps them: line 10, columns 31 to 33 (`Nf3`).
    assert (d["lnum"], d["col"], d["end_lnum"], d["end_col"]) == (10, 31, 10, 33)
    assert d["text"] == "Illegal move Nf3 (White to move): no white knight can move to f3"
    assert d["type"] == "E"
    ambiguous = [d for d in session["diagnostics"] if d["code"] == "ambiguous-move"]
    assert [(d["lnum"], d["col"]) for d in ambiguous] == [(20, 37)]
    assert len(session["diagnostics"]) == 2, session["diagnostics"]


def test_hover_is_plain_text_with_the_fen(session):
    chess = pytest.importorskip("chess")
    board = chess.Board()
    board.push_san("e4")
    assert session["hover_arrived"], session["messages"]
    hover = session["hover"]
    assert hover["filetype"] == "ale-preview.message"
    text = "\n".join(hover["lines"])
    assert hover["lines"][0] == "1. e4 — White"
    assert f"FEN {board.fen()}" in hover["lines"]
    # White at the bottom: rank 8 first.
    assert "8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜" in hover["lines"], hover["lines"]
    assert "**" not in text and "`" not in text
    # What the server sent: plain text, as ALE asked.
    (answer,) = [e["message"] for e in session["exchange"] if e.get("answers") == "textDocument/hover"]
    assert answer["result"]["contents"]["kind"] == "plaintext"


def test_quick_fix_through_ale_code_action(session):
    assert session["fixable_diagnostics_arrived"], session["fixable_diagnostics"]
    (zeros,) = session["fixable_diagnostics"]
    assert zeros["code"] == "non-canonical-san" and (zeros["lnum"], zeros["col"]) == (9, 35)
    assert session["fix_menu_shown"], session["menus"]
    menu = session["menus"][0].split("\n")
    assert "1) Write O-O" in menu
    assert any(line.endswith(") Fix all safe problems (1)") for line in menu), menu
    assert session["fixed"], session["fixed_line"]
    assert session["fixed_line"] == "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 *"
    assert session["fixed_modified"] == 1
    # Written and checked again: the diagnostic is gone.
    assert session["fixed_relinted"]
    assert session["fixed_diagnostics"] == []
    assert (pathlib.Path(session["work"]) / "fixable.pgn").read_text() == FIXABLE.replace("0-0", "O-O")
    # The same fix is offered on a line with a non-ASCII character (where it goes wrong: see
    # test_quick_fix_on_a_line_with_non_ascii_text).
    assert session["accented_diagnostics_arrived"] and session["accented_menu_shown"]
    assert "1) Write O-O" in session["menus"][1].split("\n")


def test_symbol_search(session):
    assert session["symbols_arrived"], session["messages"]
    assert session["symbols"]["filetype"] == "ale-preview-selection"
    sample = str(pathlib.Path(session["project"]) / "archive" / "sample.pgn")
    assert session["symbols"]["lines"] == [f"{sample}:1:1 Paul Morphy"]


def test_review_code_action_reports_the_blunder(session):
    assert session["review_menu_shown"], session["menus"]
    # ALE cannot be sent an edit: the review is a command, the annotation an edit in an action.
    assert "1) Review game" in session["review_menu"].split("\n")
    assert session["review_arrived"], session["review_diagnostics"]
    blunder_text = (ROOT / "samples" / "blunder.pgn").read_text().split("\n")[8]
    blunders = [(d["lnum"], d["col"]) for d in session["review_diagnostics"] if d["code"] == "review-blunder"]
    assert (9, blunder_text.index("Nxf7") + 1) in blunders
    # The summary (showMessage, information) is shown because of g:ale_lsp_show_message_severity.
    shown = "\n".join(session["review_preview"]["lines"]) + session["echoed"]
    assert "Review: White" in shown, shown
    assert session["review_ended"]


def test_server_answers_every_request_of_ale(session):
    requests = {json.dumps(e["message"]["id"]): e for e in session["exchange"]
                if e["from"] == "client" and "id" in e["message"] and "method" in e["message"]}
    answers = {json.dumps(e["message"]["id"]): e["message"] for e in session["exchange"]
               if e["from"] == "server" and "answers" in e}
    methods = sorted(e["message"]["method"] for e in requests.values())
    assert methods == ["initialize", "textDocument/codeAction", "textDocument/codeAction", "textDocument/codeAction",
                       "textDocument/codeAction", "textDocument/codeAction", "textDocument/hover",
                       "textDocument/references", "textDocument/references", "workspace/executeCommand",
                       "workspace/executeCommand", "workspace/symbol"], methods
    assert sorted(answers) == sorted(requests)
    errors = {json.dumps(requests[id_]["message"]): answer["error"] for id_, answer in answers.items()
              if "error" in answer}
    assert errors == {}
    # The server sends ALE no requests (ALE would answer none).
    assert [e["message"]["method"] for e in session["exchange"]
            if e["from"] == "server" and "id" in e["message"] and "method" in e["message"]] == []


def test_save_game_code_action_writes_the_database(session):
    import sqlite3
    assert session["save_menu_shown"] and session["saved"], session["menus"]
    (answer,) = [e["message"] for e in session["exchange"]
                 if e.get("answers") == "workspace/executeCommand pgn.saveGame"]
    assert "error" not in answer, answer
    database = pathlib.Path(session["project"]) / "games.ocgdb.db3"
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT w.Name, b.Name, g.Result FROM Games g JOIN Players w ON w.ID = g.WhiteID "
                          "JOIN Players b ON b.ID = g.BlackID").fetchall()
    assert rows == [("White", "Black", "0-1")]


def test_review_is_written_into_the_game(session):
    assert session["annotate_menu_shown"], session["menus"]
    assert "1) Annotate game with the review" in session["annotate_menu"].split("\n")
    assert session["annotate_ended"] and "%eval" in "\n".join(session["annotated"])


def test_quick_fix_on_a_line_with_non_ascii_text(session):
    assert session["accented_line"] == "1. e4 { très bien } e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 *"



def test_find_references_lists_the_games_that_reach_the_position(session):
    # ALE sends includeDeclaration false: the move itself is left out.
    (request,) = [m for m in messages(session, "client", "textDocument/references")
                  if m["params"]["context"] == {"includeDeclaration": False}][:1]
    assert request["params"]["position"] == {"line": 8, "character": FIXABLE.split("\n")[8].index("Nc6")}
    assert session["references_arrived"], session["messages"]
    preview = session["references"]
    assert preview["filetype"] == "ale-preview-selection"
    work = session["work"]
    listed = [line.rsplit(":", 2)[0] for line in preview["lines"]]
    # The games of the root that reach the position after 2... Nc6, and the game saved to the
    # database above, in a file of the cache of the HOME the editor gave the server.
    assert listed[:3] == [f"{work}/accented.pgn", f"{work}/blunder.pgn", f"{work}/mistakes.pgn"], preview
    (database,) = listed[3:]
    home = pathlib.Path(session["project"]).parent / "home"
    assert database.startswith(f"{home}/.cache/pgn-lsp/positions/"), database
    # ALE gives the quickfix list no text: the line jumped to names the game, at the move.
    assert session["quickfix_arrived"] and len(session["quickfix"]) == 4, session["quickfix"]
    assert session["jumped_line"].startswith("{White – Black, 0-1, Casual game} 2... Nc6"), session["jumped_line"]
    # (Vim's columns are bytes.)
    assert session["jumped_line"].encode()[session["jumped_col"] - 1:].startswith(b"Nc6")
