"""End to end: a real Emacs 28 with eglot (Debian's `emacs-nox` and `elpa-eglot`) starts with the
init code of editors/emacs.md, as a user's Emacs does from a fresh HOME, and talks to pgn-lsp
through eglot itself: Flymake diagnostics, ElDoc hover, a quick fix through eglot's code action
menu, `eglot-format-buffer`, and the settings of `eglot-workspace-configuration`.

How Emacs is started: `emacs --batch` still loads the site start files (Debian's
/etc/emacs/site-start.d, and site-lisp/subdirs.el, which puts /usr/share/emacs/site-lisp/elpa/eglot-*
on `load-path`, so `(require 'eglot)` works), but it reads no init file and does not activate the
installed packages: startup.el does both only when `init-file-user' is set, which batch mode
leaves nil. Without package activation eglot's autoloads are missing and the doc's hook fails with
(void-function eglot-ensure). `--user ''` names the current user: Emacs then activates the packages
(elpa-eglot is in `package-directory-list') and loads ~/.emacs.d/init.el from $HOME, in the same
order as an interactive start. Batch mode has no command loop and no redisplay: after opening a
file the driver runs `post-command-hook' (where eglot 1.9's `eglot-ensure' connects) and
`window-configuration-change-hook' (where Flymake starts in a buffer that is shown), as they would
after C-x C-f in an interactive Emacs."""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import ROOT, binary
from editor_fixtures import FIXABLE, game
from test_lsp_explorer import MINE, make_database

DOC = ROOT / "editors" / "emacs.md"
TIMEOUT = 60


# A legal game laid out badly: tags run together, moves without spaces, ragged lines.
MESSY = """[Event "Messy"]  [Site "?"]
[Date "????.??.??"][Round "?"]
  [White "A"] [Black "B"]
[Result "*"]
1.e4    e5 2.Nf3
Nc6   3.Bb5
  a6 *
"""

# Annotations that become inlay hints: a NAG and two clocks of White's (the second one's hint is
# the time the move took), and an evaluation. The doc's settings ask for NAGs and clocks, not
# the review's evaluations.
ANNOTATED = game("1. e4 $1 { [%eval 0.25] [%clk 0:05:00] } e5 2. Nf3 { [%clk 0:04:50] } *")

DRIVER = r"""
;;; -*- lexical-binding: t -*-
(require 'cl-lib)
(require 'jsonrpc)

(defvar pgn-test-dir (file-name-as-directory (getenv "PGN_EMACS_DIR")))
(defvar pgn-test-out (getenv "PGN_EMACS_OUT"))
(defvar pgn-test-results nil "Alist of what Emacs saw, written as JSON at the end.")
(defvar pgn-test-messages nil "Every JSON-RPC message of the session: (DIRECTION . MESSAGE).")

(defun pgn-test-put (key value) (push (cons key value) pgn-test-results))

;; Eglot logs every message to its events buffer through `jsonrpc--log-event': keep a copy as
;; JSON for the Python side (the events buffer itself is written out as text too).
(advice-add 'jsonrpc--log-event :before
            (lambda (_connection message &optional type)
              (push (cons (format "%s" (or type 'internal)) message) pgn-test-messages)))

(defun pgn-test-wait (predicate &optional seconds)
  "Let processes and timers run until PREDICATE holds or SECONDS pass; the last value of PREDICATE."
  (let ((deadline (+ (float-time) (or seconds 10))) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    value))

(defun pgn-test-open (name)
  "Visit NAME as C-x C-f does, then do what the command loop and redisplay do after it."
  (find-file (expand-file-name name pgn-test-dir))
  ;; `eglot-ensure' connects from `post-command-hook'.
  (run-hooks 'post-command-hook)
  ;; Flymake starts in a buffer eglot manages once the buffer is shown: from
  ;; `window-configuration-change-hook', which redisplay runs (there is none in batch mode).
  (with-no-warnings (run-window-configuration-change-hook))
  (unless (pgn-test-wait (lambda () (bound-and-true-p eglot--managed-mode)) 15)
    (error "Eglot does not manage %s (major mode %s)" name major-mode))
  (current-buffer))

(defun pgn-test-diagnostics ()
  (mapcar (lambda (d)
            (let ((beg (flymake-diagnostic-beg d)) (end (flymake-diagnostic-end d)))
              `((line . ,(line-number-at-pos beg)) (column . ,(save-excursion (goto-char beg) (current-column)))
                (end_line . ,(line-number-at-pos end)) (end_column . ,(save-excursion (goto-char end) (current-column)))
                (type . ,(symbol-name (flymake-diagnostic-type d))) (text . ,(flymake-diagnostic-text d)))))
          (sort (flymake-diagnostics) (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b))))))

(defun pgn-test-wait-diagnostic (regexp &optional seconds)
  "Wait for a Flymake diagnostic whose text matches REGEXP."
  (pgn-test-wait (lambda () (cl-some (lambda (d) (string-match-p regexp (flymake-diagnostic-text d)))
                                     (flymake-diagnostics)))
                 seconds))

(defun pgn-test-hover-here ()
  "The hover at point, asked through eglot's ElDoc function as ElDoc asks after a cursor move.
Also what lets Emacs 28 read messages still waiting: its jsonrpc (1.0.14) handles each message
inside the process filter, and the answer to a request Emacs waits for (formatting,
references) leaves the filter at once, so messages read together with it (diagnostics, ElDoc's
answers) wait until the server writes again. In an editor that is at the next cursor move."
  (let (hover)
    (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info ""))))
    (pgn-test-wait (lambda () hover) 15)))

(defun pgn-test-goto (line text)
  "Put point on the first TEXT of LINE (1-based)."
  (goto-char (point-min))
  (forward-line (1- line))
  (search-forward text (line-end-position))
  (goto-char (match-beginning 0)))

(defun pgn-test-run ()
  (pgn-test-put 'emacs_version emacs-version)
  (pgn-test-put 'user_init_file user-init-file)
  (pgn-test-put 'package_activated (bound-and-true-p package--activated))
  (pgn-test-put 'eglot_library (locate-library "eglot"))
  (pgn-test-put 'eglot_version
                (let ((desc (cadr (assq 'eglot package-alist))))
                  (and desc (package-version-join (package-desc-version desc)))))
  (pgn-test-put 'pgn_lsp_found (executable-find "pgn-lsp"))

  ;; (a) Flymake diagnostics of the file with mistakes
  (with-current-buffer (pgn-test-open "mistakes.pgn")
    (pgn-test-put 'major_mode (symbol-name major-mode))
    (pgn-test-put 'managed (and (bound-and-true-p eglot--managed-mode) t))
    (pgn-test-put 'flymake (and (bound-and-true-p flymake-mode) t))
    (pgn-test-put 'diagnostics_arrived (and (pgn-test-wait-diagnostic "Illegal move") t))
    (pgn-test-put 'diagnostics (vconcat (pgn-test-diagnostics)))
    (let ((server (eglot-current-server)))
      (pgn-test-put 'server_capabilities (eglot--capabilities server)))

    ;; (b) hover on 1. e4 through eglot's ElDoc function, as ElDoc calls it
    (pgn-test-goto 9 "e4")
    (pgn-test-put 'hover_word (buffer-substring (point) (+ (point) 2)))
    (pgn-test-put 'hover (pgn-test-hover-here)))

  ;; The settings: the server's inlay hints show NAGs and clocks, not evaluations (eglot 1.9 shows
  ;; no inlay hints itself: ask on eglot's connection).
  (with-current-buffer (pgn-test-open "annotated.pgn")
    (pgn-test-wait (lambda () (assoc "workspace/configuration" (pgn-test-configuration-answers))) 5)
    (pgn-test-put 'inlay_hints
                  (jsonrpc-request (eglot--current-server-or-lose) :textDocument/inlayHint
                                   (list :textDocument (eglot--TextDocumentIdentifier)
                                         :range (list :start '(:line 0 :character 0)
                                                      :end (list :line (count-lines (point-min) (point-max))
                                                                 :character 0))))))

  ;; (c) the quick fix for 0-0, picked in eglot's code action menu (M-x eglot-code-actions)
  (with-current-buffer (pgn-test-open "fixable.pgn")
    (pgn-test-put 'fixable_diagnostic_arrived (and (pgn-test-wait-diagnostic "non-canonical-san") t))
    (pgn-test-put 'fixable_diagnostics (vconcat (pgn-test-diagnostics)))
    (pgn-test-goto 9 "0-0")
    (let ((menu nil)
          (last-nonmenu-event ?\r))  ; invoked from the keyboard, so eglot asks in the minibuffer
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (prompt collection &rest _)
                   (setq menu (mapcar #'car collection))
                   (pgn-test-put 'code_action_prompt prompt)
                   (or (cl-find-if (lambda (title) (string-match-p "O-O" title)) menu) (car menu)))))
        (call-interactively #'eglot-code-actions))
      (pgn-test-put 'code_action_menu (vconcat menu)))
    (pgn-test-put 'fixed_line (buffer-substring-no-properties
                               (progn (goto-char (point-min)) (forward-line 8) (point)) (line-end-position)))
    ;; The edit reaches the server (eglot sends didChange before its next request): formatting
    ;; leaves the fixed game alone and the diagnostic goes away.
    (eglot-format-buffer)
    (pgn-test-put 'fixed_text_after_format (buffer-substring-no-properties (point-min) (point-max)))
    (save-buffer)  ; C-x C-s: didSave
    (pgn-test-goto 9 "Nf6")
    (pgn-test-put 'hover_after_fix (pgn-test-hover-here))
    (pgn-test-put 'fixed_diagnostic_gone
                  (pgn-test-wait (lambda () (not (pgn-test-wait-diagnostic "non-canonical-san" 0))))))

  ;; (d) eglot-format-buffer on a badly laid out game
  (with-current-buffer (pgn-test-open "messy.pgn")
    (pgn-test-put 'messy_before (buffer-substring-no-properties (point-min) (point-max)))
    (eglot-format-buffer)
    (pgn-test-put 'formatted (buffer-substring-no-properties (point-min) (point-max)))
    (pgn-test-put 'modified (and (buffer-modified-p) t)))

  ;; (e) M-x xref-find-references on 2... Nc6: the games of the folder and of its database that
  ;; reach the position, as xref lists them (each the line of its location).
  (with-current-buffer (pgn-test-open "mine.pgn")
    (pgn-test-goto 4 "Nc6")
    (pgn-test-put 'references
                  (vconcat
                   (mapcar (lambda (item)
                             (let ((location (xref-item-location item)))
                               `((summary . ,(substring-no-properties (xref-item-summary item)))
                                 (file . ,(xref-location-group location))
                                 (line . ,(xref-location-line location)))))
                           (xref-backend-references 'eglot (xref-backend-identifier-at-point 'eglot)))))
    ;; The user reads the list and moves on: what came with the references is read.
    (pgn-test-put 'hover_after_references (pgn-test-hover-here)))

  (pgn-test-put 'servers (hash-table-count eglot--servers-by-project))
  (let ((server (with-current-buffer (get-file-buffer (expand-file-name "mistakes.pgn" pgn-test-dir))
                  (eglot-current-server))))
    (pgn-test-put 'managed_buffers (length (eglot--managed-buffers server)))
    (with-current-buffer (jsonrpc-stderr-buffer server)
      (pgn-test-put 'stderr (buffer-substring-no-properties (point-min) (point-max))))
    ;; Let the requests eglot made on its own (ElDoc's hover after the edit) be answered first.
    (pgn-test-put 'pending_answered
                  (and (pgn-test-wait
                        (lambda () (zerop (hash-table-count (jsonrpc--request-continuations server)))))
                       t))
    (pgn-test-put 'server_command (vconcat (process-command (jsonrpc--process server))))
    (eglot-shutdown server nil 5 t)))  ; keeping the events buffer, written out at the end

(defun pgn-test-configuration-answers ()
  "(METHOD . MESSAGE) of eglot's answers to the server's requests, oldest first."
  (let ((requests (make-hash-table :test 'equal)) answers)
    (dolist (entry (reverse pgn-test-messages))
      (let ((message (cdr entry)))
        (cond ((and (equal (car entry) "server") (plist-get message :method) (plist-get message :id))
               (puthash (plist-get message :id) (plist-get message :method) requests))
              ((and (equal (car entry) "client") (not (plist-get message :method)))
               (let ((method (gethash (plist-get message :id) requests)))
                 (when method (push (cons method message) answers)))))))
    (nreverse answers)))

(defun pgn-test-finish (error)
  (when error (pgn-test-put 'error error))
  ;; Eglot's events buffer, as `M-x eglot-events-buffer' shows it.
  (let ((events (cl-find-if (lambda (b) (string-match-p "\\`\\*EGLOT.*events\\*\\'" (buffer-name b)))
                            (buffer-list))))
    (when events
      (with-current-buffer events
        (write-region (point-min) (point-max) (getenv "PGN_EMACS_EVENTS") nil 'silent))))
  (with-current-buffer "*Messages*"
    (pgn-test-put 'messages (buffer-substring-no-properties (point-min) (point-max))))
  (with-temp-file (getenv "PGN_EMACS_MESSAGES")
    (dolist (entry (reverse pgn-test-messages))
      (when (member (car entry) '("client" "server"))  ; not jsonrpc.el's internal notes
        (insert (jsonrpc--json-encode (list :direction (car entry) :message (cdr entry))) "\n"))))
  (with-temp-file pgn-test-out
    (insert (jsonrpc--json-encode
             (cl-loop for (key . value) in (reverse pgn-test-results)
                      append (list (intern (format ":%s" key)) value)))))
  (kill-emacs (if error 1 0)))

(defun pgn-test-finish-safely (error)
  (condition-case err
      (pgn-test-finish error)
    (error (message "pgn-test: could not write the results: %S" err) (kill-emacs 2))))

;; A hang fails fast, with what was seen so far written out.
(run-with-timer 45 nil #'pgn-test-finish-safely "the driver did not finish within 45 s")

(let ((error nil))
  (condition-case-unless-debug err
      (pgn-test-run)
    (error (setq error (format "%S" err))))
  (pgn-test-finish-safely error))
"""


def doc_init() -> str:
    """The elisp block of editors/emacs.md: what the user adds to the init file."""
    blocks = re.findall(r"```elisp\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1, f"editors/emacs.md should have one elisp block, has {len(blocks)}"
    return blocks[0]


def server_format(text: str) -> str:
    """What pgn-lsp itself makes of TEXT with textDocument/formatting (one edit of the whole text)."""
    from lsp_client import LSPClient
    client = LSPClient()
    try:
        client.initialize()
        uri = "file:///tmp/messy.pgn"
        client.open(uri, text)
        edits = client.request("textDocument/formatting", {"textDocument": {"uri": uri},
                                                          "options": {"tabSize": 8, "insertSpaces": True}})
        client.shutdown()
    finally:
        client.close()
    assert len(edits) == 1 and edits[0]["range"]["start"] == {"line": 0, "character": 0}, edits
    return edits[0]["newText"]


@pytest.fixture(scope="module")
def emacs(tmp_path_factory):
    if shutil.which("emacs") is None:
        pytest.fail("Emacs is not installed: scripts/bootstrap installs emacs-nox and elpa-eglot")
    tmp = tmp_path_factory.mktemp("emacs")
    home = tmp / "home"
    # The user's setup: pgn-lsp in ~/.local/bin, on PATH; the doc's code in the init file.
    bin_dir = home / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "pgn-lsp").symlink_to(binary().resolve())
    (home / ".emacs.d").mkdir()
    (home / ".emacs.d" / "init.el").write_text(doc_init())
    work = tmp / "files"
    work.mkdir()
    shutil.copy(ROOT / "samples" / "mistakes.pgn", work / "mistakes.pgn")
    (work / "fixable.pgn").write_text(FIXABLE)
    (work / "messy.pgn").write_text(MESSY)
    (work / "annotated.pgn").write_text(ANNOTATED)
    (work / "mine.pgn").write_text(MINE)
    make_database(work / "games.ocgdb.db3")
    driver = tmp / "driver.el"
    driver.write_text(DRIVER)
    paths = {name: tmp / f"{name}" for name in ("out.json", "events.txt", "messages.jsonl")}
    env = {key: value for key, value in os.environ.items() if not key.startswith(("EMACS", "XDG_"))}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
               PGN_EMACS_DIR=str(work), PGN_EMACS_OUT=str(paths["out.json"]),
               PGN_EMACS_EVENTS=str(paths["events.txt"]), PGN_EMACS_MESSAGES=str(paths["messages.jsonl"]))
    env.pop("PGN_LSP", None)  # the editor finds the server on PATH, nowhere else
    started = time.monotonic()
    try:
        proc = subprocess.run(["emacs", "--batch", "--user", "", "-l", str(driver)], cwd=work, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        events = paths["events.txt"].read_text() if paths["events.txt"].exists() else ""
        pytest.fail(f"Emacs did not quit within {TIMEOUT} s:\n{timeout.stdout}\n{timeout.stderr}\n{events[-5000:]}")
    elapsed = time.monotonic() - started
    assert paths["out.json"].exists(), f"Emacs wrote no results (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    seen = json.loads(paths["out.json"].read_text())
    assert "error" not in seen, f"{seen['error']}\n{proc.stderr}\neglot's events buffer: {paths['events.txt']}"
    assert proc.returncode == 0, proc.stderr
    messages = [json.loads(line) for line in paths["messages.jsonl"].read_text().splitlines()]
    return {"seen": seen, "messages": messages, "events": paths["events.txt"].read_text(), "stderr": proc.stderr,
            "elapsed": elapsed, "work": work}


def sent(run, direction: str, method: str) -> list:
    """The messages of METHOD that the client (eglot) or the server sent."""
    return [m["message"] for m in run["messages"]
            if m["direction"] == direction and m["message"].get("method") == method]


def reply(run, request: dict) -> dict:
    """The server's answer to a request eglot sent."""
    (answer,) = [m["message"] for m in run["messages"] if m["direction"] == "server"
                 and m["message"].get("id") == request["id"] and "method" not in m["message"]]
    return answer


def test_the_doc_setup_starts_eglot_from_path(emacs):
    seen = emacs["seen"]
    assert seen["emacs_version"].startswith("28."), seen["emacs_version"]
    assert seen["user_init_file"].endswith("/home/.emacs.d/init.el")
    assert seen["package_activated"] is True
    assert seen["eglot_library"].startswith("/usr/share/emacs/site-lisp/elpa/eglot-"), seen["eglot_library"]
    assert seen["pgn_lsp_found"].endswith("/home/.local/bin/pgn-lsp")
    assert seen["major_mode"] == "pgn-mode"
    assert seen["managed"] is True and seen["flymake"] is True
    assert seen["servers"] == 1  # one server for the folder, reused for each file
    assert seen["managed_buffers"] == 5
    assert seen["server_command"] == ["pgn-lsp", "serve"]  # the doc's `eglot-server-programs' entry
    (initialize,) = sent(emacs, "client", "initialize")
    assert initialize["params"]["processId"] > 0


def test_illegal_move_diagnostic_in_flymake(emacs):
    seen = emacs["seen"]
    assert seen["diagnostics_arrived"]
    illegal = [d for d in seen["diagnostics"] if "Illegal move" in d["text"]]
    assert len(illegal) == 1, seen["diagnostics"]  # once: pushed, not also pulled
    assert [text.split("]")[0] for text in (d["text"] for d in seen["diagnostics"])] == [
        "pgn [illegal-move", "pgn [ambiguous-move"]
    d = illegal[0]
    assert (d["line"], d["column"], d["end_line"], d["end_column"]) == (10, 30, 10, 33)
    assert d["type"] == "eglot-error"
    # Eglot 1.9 writes "SOURCE [CODE]: MESSAGE".
    assert d["text"] == "pgn [illegal-move]: Illegal move Nf3 (White to move): no white knight can move to f3"
    # Each diagnostic once.
    assert len({json.dumps(d, sort_keys=True) for d in seen["diagnostics"]}) == len(seen["diagnostics"])
    # Eglot 1.9 pulls nothing: the server pushes and announces no diagnosticProvider.
    assert "diagnosticProvider" not in seen["server_capabilities"]
    assert sent(emacs, "server", "textDocument/publishDiagnostics")
    assert not sent(emacs, "client", "textDocument/diagnostic")


def test_hover_through_eldoc(emacs):
    chess = pytest.importorskip("chess")
    seen = emacs["seen"]
    assert seen["hover_word"] == "e4"
    board = chess.Board()
    board.push_san("e4")
    hover = seen["hover"]
    assert "e4" in hover and board.fen() in hover, hover
    # Eglot without markdown-mode takes plain text only: the server sends plain text.
    answer = reply(emacs, sent(emacs, "client", "textDocument/hover")[0])
    assert answer["result"]["contents"]["kind"] == "plaintext", answer


def test_quick_fix_through_the_code_action_menu(emacs):
    seen = emacs["seen"]
    assert seen["fixable_diagnostic_arrived"], seen["fixable_diagnostics"]
    (hint,) = seen["fixable_diagnostics"]
    assert hint["type"] == "eglot-note" and hint["text"].startswith("pgn [non-canonical-san]: "), hint
    assert (hint["line"], hint["column"], hint["end_column"]) == (9, 34, 37)
    assert "Write O-O" in seen["code_action_menu"], seen["code_action_menu"]
    assert seen["fixed_line"] == "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 *"
    # The server saw the edit: nothing to format, and the diagnostic went away.
    assert seen["fixed_text_after_format"] == FIXABLE.replace("0-0", "O-O")
    assert "Nf6" in seen["hover_after_fix"], seen["hover_after_fix"]
    assert seen["fixed_diagnostic_gone"]
    assert sent(emacs, "client", "textDocument/didChange")
    assert (emacs["work"] / "fixable.pgn").read_text() == FIXABLE.replace("0-0", "O-O")
    assert sent(emacs, "client", "textDocument/didSave")


def test_format_buffer_gives_the_server_format(emacs):
    seen = emacs["seen"]
    assert seen["messy_before"] == MESSY
    assert seen["formatted"] != MESSY and seen["modified"] is True
    assert seen["formatted"] == server_format(MESSY)
    assert seen["formatted"].startswith('[Event "Messy"]\n[Site "?"]\n')
    assert "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *" in seen["formatted"]


def test_workspace_configuration_reaches_the_server(emacs):
    seen = emacs["seen"]
    expected = {"inlayHints": {"nags": True, "clocks": True, "evaluations": None},
                "database": {"path": "games.ocgdb.db3", "references": ["~/chess/masters.ocgdb.db3"]}}
    # Eglot sends the settings on connecting, and answers the server's request for the section.
    (change,) = sent(emacs, "client", "workspace/didChangeConfiguration")
    assert change["params"]["settings"] == {"pgn": expected}
    requests = sent(emacs, "server", "workspace/configuration")
    assert requests, "the server never asked for its settings"
    answers = [m["message"] for m in emacs["messages"] if m["direction"] == "client"
               and m["message"].get("id") in {r["id"] for r in requests} and "method" not in m["message"]]
    assert answers and all(a.get("result") == [expected] for a in answers), answers
    # null read as false: NAG and move-time hints, no evaluation (and the opening's name).
    labels = sorted(hint["label"] for hint in seen["inlay_hints"])
    assert labels == sorted(["!", "⏱ 10 s", "C40 King's Knight Opening"]), seen["inlay_hints"]


def test_no_errors_in_the_exchange(emacs):
    errors = [m["message"] for m in emacs["messages"] if "error" in m["message"]]
    assert errors == [], errors
    logs = [m["message"]["params"] for m in emacs["messages"]
            if m["message"].get("method") in ("window/logMessage", "window/showMessage")
            and m["message"]["params"]["type"] <= 2]
    assert logs == [], logs
    assert "ERROR" not in emacs["events"]
    seen = emacs["seen"]
    assert seen["pending_answered"]
    assert "error" not in seen["stderr"].lower() and "fatal" not in seen["stderr"].lower(), seen["stderr"]
    assert "error" not in seen["messages"].lower(), seen["messages"]
    (shutdown,) = sent(emacs, "client", "shutdown")
    assert reply(emacs, shutdown) == {"jsonrpc": "2.0", "id": shutdown["id"], "result": None}
    assert emacs["elapsed"] < 40, emacs["elapsed"]  # about 2 s on an idle machine


def test_xref_lists_the_games_that_reach_the_position(emacs):
    references = emacs["seen"]["references"]
    assert "Nc6" in emacs["seen"]["hover_after_references"], emacs["seen"]["hover_after_references"]
    mine = str(emacs["work"] / "mine.pgn")
    assert [(r["line"], r["summary"]) for r in references if r["file"] == mine] == [(4, MINE.split("\n")[3])]
    # The database's games read as lichess's explorer lists them, each at the move that reaches
    # the position, in a file of the cache under the HOME Emacs gave the server.
    home = emacs["work"].parent / "home"
    database = [r for r in references if r["file"].startswith(f"{home}/.cache/pgn-lsp/positions/")]
    assert [r["summary"] for r in database] == [
        "{Anand (2800) – Botvinnik (2700), 1-0, Ref} 2... Nc6 3. Bb5 a6 1-0",
        "{Carlsen (2600) – Ding (2650), ½-½, Ref} 2... Nc6 3. Bc4 Bc5 1/2-1/2",
        "{Ivanchuk (2900) – Jobava (2850), 1-0, Ref} 2... e5 1-0"], references
