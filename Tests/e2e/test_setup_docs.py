"""The setup steps of README.md ("In an editor") and editors/* work verbatim for a new user.

For each setup document the test reads what a user types: every line of its shell blocks
(```sh) and every shell command written inline in its prose, in the order of the document. In a
fresh HOME (a copy of /etc/skel, as `useradd -m` makes it) with the PATH a Debian login shell
has there, it runs them verbatim with `bash -e`, the repository being the working directory:
they unpack the release tarball (made once by `scripts/package --no-build`) into the HOME and
install its binary in ~/.local/bin. The shell that ran the steps must then find `pgn-lsp` (the
steps' `export PATH=...`), and so must a new terminal (an interactive `bash -i` started with a
bare PATH reads ~/.bashrc, where the steps added that line) and a new login (`bash -l` reads
~/.profile), each finding the binary of the tarball. Every path under ~/.local/share/pgn-lsp
that a document names must exist after its steps: the tarball's layout is what the documents
say. Every editor example (the Lua, Vim script, Emacs Lisp, TOML and JSON blocks) names the
database settings, `database.path` and `database.references`, and the server accepts them:
given as they are written, it logs no "unknown or invalid settings". For Neovim it then starts Neovim 0.7 and 0.11 headless from that login shell,
with the Lua setup block of editors/nvim/README.md as ~/.config/nvim/init.lua (the plugin being
installed the package way, which needs no path edited), opens a file with an illegal move and
waits for pgn-lsp's diagnostic. Emacs and Vim are run by test_emacs_eglot.py and test_vim_ale.py;
Helix is not installed here: its TOML block is parsed and must name the command found.

Not run:
- `swift build -c release`: scripts/test has just built .build/release/pgn-lsp; building again
  would take minutes (and race another build of the same folder);
- `scripts/package`: the same build, then the tarball, which `packaged()` makes without building;
- `sudo apt install ...`: the test checks with dpkg-query that the packages named are installed;
- `M-x ...`: Emacs commands, not shell;
- the prose commands of NOT_STEPS, each with its reason.
Every other shell line and inline shell command is run: a document that gains a step the test
cannot run makes the test fail, and says which.

PGN_DOCS_REPO: the repository the steps run in and whose documents are read (default: this
one). It needs README.md, editors/, docs/, schemas/, LICENSE, samples/, scripts/package and
.build/release/pgn-lsp, e.g. a copy of those with the binary of a finished build while another
build rewrites .build.
"""
import functools
import hashlib
import json
import os
import pathlib
import pwd
import re
import shutil
import subprocess
import tarfile
import tomllib

import pytest

from conftest import ROOT, packaged
from editor_fixtures import NEOVIMS
from lsp_client import LSPClient

REPO = pathlib.Path(os.environ.get("PGN_DOCS_REPO") or ROOT).resolve()
BINARY = REPO / ".build" / "release" / "pgn-lsp"

# The documents a user follows to set an editor up; README.md only from this heading on.
README_SECTION = "## In an editor"
DOCS = ["README.md", "editors/nvim/README.md", "editors/emacs.md", "editors/vim.md", "editors/helix.md"]

# Skipped: scripts/test (the CI) has just built the release binary the next step installs.
BUILD = "swift build -c release"
# Made by packaged() (scripts/package --no-build) from that binary: the tarball the steps unpack.
PACKAGE = "scripts/package"
# The steps put ~/.local/bin on PATH in the shell that runs them and in the shells started after.
PATH_EXPORT = 'export PATH="$HOME/.local/bin:$PATH"'
RC_APPEND = re.compile(r"""echo '(export PATH="\$HOME/\.local/bin:\$PATH")' >> ~/\.(bashrc|zshrc)""")
# Where the steps unpack the tarball.
SHARE = "~/.local/share/pgn-lsp"
# Run after the steps, in a new login shell: the documents' own check.
CHECK = "command -v pgn-lsp"
# Shell commands in prose that are not steps of the setup.
NOT_STEPS = {
    "brew install stockfish": "the macOS way; Debian's `sudo apt install stockfish` is checked",
}
APT = re.compile(r"(?:sudo )?apt(?:-get)? install ((?:[\w.+:=-]+ ?)+)")
PACKAGE_MANAGERS = {"sudo", "su", "apt", "apt-get", "aptitude", "dpkg", "brew", "port", "dnf", "yum", "pacman",
                    "zypper", "snap", "flatpak"}
SHELL_LANGS = {"sh", "bash", "shell", "console", "zsh"}
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
INLINE = re.compile(r"`([^`]+)`")
COMMAND_WORD = re.compile(r"[A-Za-z][\w.+-]*")

BASH_BUILTINS = set(subprocess.run(["/bin/bash", "-c", "compgen -b; compgen -k"], capture_output=True, text=True,
                                   check=True).stdout.split())


# ---- reading the documents

class Step:
    def __init__(self, doc: str, line: int, text: str, prose: bool):
        self.doc, self.line, self.text, self.prose = doc, line, text, prose

    def __str__(self):
        return f"{self.doc}:{self.line}: `{self.text}`"


def doc_text(doc: str) -> tuple:
    """The part of the document a user follows to set up an editor, and the line it starts at."""
    path = REPO / doc
    assert path.exists(), f"{doc} is missing from {REPO}"
    text = path.read_text()
    if doc != "README.md":
        return text, 1
    start = text.find("\n" + README_SECTION + "\n")
    assert start >= 0, f"README.md has no '{README_SECTION}' section: its setup steps are read from there"
    end = text.find("\n## ", start + 1)
    end = len(text) if end < 0 else end
    return text[start + 1:end], text[:start + 1].count("\n") + 1


def blocks(doc: str) -> list:
    """(language, body, line of the body's first line) of each fenced block."""
    text, first = doc_text(doc)
    return [(m.group(1), m.group(2), first + text[:m.start(2)].count("\n")) for m in FENCE.finditer(text)]


def login_path(home: pathlib.Path) -> str:
    return subprocess.run(["/bin/bash", "-lc", 'printf %s "$PATH"'], env=login_env(home), cwd=home,
                          capture_output=True, text=True, check=True).stdout


def is_shell_command(span: str, path: str) -> bool:
    """An inline code span that a user would type in a shell: a command name, then arguments."""
    words = span.split()
    if len(words) < 2 or not COMMAND_WORD.fullmatch(words[0]) or words[0] == "M-x":  # M-x: an Emacs command
        return False
    return words[0] in PACKAGE_MANAGERS or words[0] in BASH_BUILTINS or shutil.which(words[0], path=path) is not None


def shell_steps(doc: str, path: str) -> list:
    """Every line of the shell blocks and every shell command in the prose, in document order."""
    text, first = doc_text(doc)
    found = []  # (offset, Step)
    for m in FENCE.finditer(text):
        if m.group(1) not in SHELL_LANGS:
            continue
        line = first + text[:m.start(2)].count("\n")
        logical, start = "", line
        for number, physical in enumerate(m.group(2).split("\n")[:-1], line):
            if not logical:
                start = number
            logical += physical + "\n"
            if physical.endswith("\\"):
                continue
            if logical.strip() and not logical.strip().startswith("#"):
                found.append((m.start(2), Step(doc, start, logical.rstrip("\n"), prose=False)))
            logical = ""
    # Blocks blanked out (same length, same lines) so that their content is not read as prose.
    prose = FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for m in INLINE.finditer(prose):
        span = " ".join(m.group(1).split())
        if is_shell_command(span, path):
            found.append((m.start(), Step(doc, first + prose[:m.start()].count("\n"), span, prose=True)))
    return [step for _, step in sorted(found, key=lambda pair: pair[0])]


# ---- running them

def login_env(home: pathlib.Path) -> dict:
    """What a login gives a new user: no PATH (the login shell makes it), no XDG_* of the test's runner."""
    user = pwd.getpwuid(os.getuid()).pw_name
    return {"HOME": str(home), "USER": user, "LOGNAME": user, "SHELL": "/bin/bash", "LANG": "C.UTF-8",
            "TERM": "dumb"}


def fresh_home(tmp_path: pathlib.Path) -> pathlib.Path:
    home = tmp_path / "home"
    shutil.copytree("/etc/skel", home, symlinks=True)
    return home


def package_installed(package: str) -> bool:
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True).stdout
    return status == "install ok installed"


def follow(doc: str, home: pathlib.Path) -> list:
    """Runs the shell steps of `doc` verbatim in the repository with `bash -e`, as a new user whose
    HOME is `home` and whose shell is a login shell started before the steps. Returns what was not run."""
    path = login_path(home)
    steps = shell_steps(doc, path)
    tarball = packaged(REPO)
    run, not_run = [], []
    for step in steps:
        apt = APT.fullmatch(step.text)
        if step.text == BUILD:
            not_run.append((step, "built by the CI"))
        elif step.text.split()[0] == PACKAGE:
            assert step.text.split()[1:2] in ([], ["#"]), f"{step}: scripts/package takes no arguments in the docs"
            not_run.append((step, f"made by packaged(): {tarball.name}"))
        elif apt:
            packages = [word for word in apt.group(1).split() if not word.startswith("-")]
            missing = [package for package in packages if not package_installed(package)]
            assert not missing, f"{step}: {', '.join(missing)} not installed (dpkg-query)"
            not_run.append((step, "packages installed"))
        elif step.prose and step.text in NOT_STEPS:
            not_run.append((step, NOT_STEPS[step.text]))
        elif step.prose and step.text == CHECK:
            not_run.append((step, "run after a new login"))
        elif step.text.split()[0] in PACKAGE_MANAGERS:
            pytest.fail(f"{step}: a step the test cannot run (a package manager); teach the test how to check it")
        else:
            run.append(step)
    assert run, f"{doc}: no shell step found (the install step should be there)"

    # One script, the steps verbatim one per line (after a trap that says which line failed), run
    # by one `bash -e` as a user types them in one terminal: a `cd` or a variable carries on.
    script, lines = ["trap 'echo \"pgn-docs-failed-line $LINENO\" >&2' ERR"], {}
    for step in run:
        for _ in step.text.split("\n"):
            lines[len(script) + 1] = step
            script.append(_)
    # The shell that ran the steps finds pgn-lsp at once (the steps' export), before any new login.
    script.append("command -v pgn-lsp >/dev/null || { echo 'pgn-docs: this shell does not find pgn-lsp' >&2; exit 1; }")
    try:
        proc = subprocess.run(["/bin/bash", "-e", "-c", "\n".join(script)], cwd=REPO, env=dict(login_env(home), PATH=path),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"{doc}: the steps did not finish within 60 s:\n{timeout.stdout}\n{timeout.stderr}")
    if proc.returncode != 0:
        failed = re.findall(r"pgn-docs-failed-line (\d+)", proc.stderr)
        where = str(lines[int(failed[-1])]) if failed and int(failed[-1]) in lines else f"{doc}: a step"
        stderr = re.sub(r"pgn-docs-failed-line \d+\n", "", proc.stderr)
        pytest.fail(f"{where} failed (exit {proc.returncode}), run verbatim with bash -e in {REPO} "
                    f"with HOME={home}:\n{proc.stdout}{stderr}")
    return not_run


@functools.cache
def packaged_binary() -> str:
    """The SHA-256 of bin/pgn-lsp in the tarball."""
    with tarfile.open(packaged(REPO)) as archive:
        (member,) = [m for m in archive.getmembers() if m.name.endswith("/bin/pgn-lsp")]
        return hashlib.sha256(archive.extractfile(member).read()).hexdigest()


def check_installed(doc: str, home: pathlib.Path) -> pathlib.Path:
    """In a new terminal (an interactive shell with a bare PATH, which reads ~/.bashrc) and at the
    next login, `command -v pgn-lsp` finds the binary of the tarball the steps installed."""
    terminal = subprocess.run(["/bin/bash", "-ic", CHECK], cwd=home, env=dict(login_env(home), PATH="/usr/bin:/bin"),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert terminal.returncode == 0, (f"{doc}: after its steps, `{CHECK}` finds nothing in a new terminal "
                                      f"(bash -i, PATH=/usr/bin:/bin, ~/.bashrc read):\n{terminal.stderr}")
    proc = subprocess.run(["/bin/bash", "-lc", CHECK], cwd=home, env=login_env(home), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True)
    assert proc.returncode == 0, (f"{doc}: after its steps, `{CHECK}` finds nothing in a new login shell "
                                  f"(PATH={login_path(home)}):\n{proc.stderr}")
    found = pathlib.Path(proc.stdout.strip())
    assert pathlib.Path(terminal.stdout.strip().splitlines()[-1]) == found, (terminal.stdout, proc.stdout)
    assert found.is_relative_to(home), f"{doc}: `{CHECK}` finds {found}, not the binary installed in HOME"
    assert hashlib.sha256(found.read_bytes()).hexdigest() == packaged_binary(), \
        f"{doc}: {found} is not bin/pgn-lsp of {packaged(REPO).name}"
    check = subprocess.run(["/bin/bash", "-lc", "pgn-lsp check samples/mistakes.pgn"], cwd=REPO, env=login_env(home),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert check.returncode == 1 and "[illegal-move]" in check.stdout, f"{doc}: {found} does not run:\n{check}"
    return found


@pytest.fixture(scope="module", autouse=True)
def built():
    if not BINARY.exists():
        pytest.fail(f"{BINARY} does not exist: run `swift build -c release` first (or set PGN_DOCS_REPO)")


# ---- the documents

@pytest.mark.parametrize("doc", ["README.md", "editors/emacs.md", "editors/vim.md", "editors/helix.md"])
def test_shell_steps_put_pgn_lsp_on_the_login_path(doc, tmp_path):
    home = fresh_home(tmp_path)
    follow(doc, home)
    check_installed(doc, home)
    check_named_paths(doc, home)


def check_named_paths(doc: str, home: pathlib.Path):
    """Every path under ~/.local/share/pgn-lsp that `doc` names exists once its steps have run."""
    named = set(re.findall(re.escape(SHARE) + r"(/[\w./-]*\w)?", doc_text(doc)[0]))
    assert named, f"{doc} names no path under {SHARE}"
    for path in sorted(named):
        assert (home / ".local/share/pgn-lsp" / path.lstrip("/")).exists(), f"{doc} names {SHARE}{path}: not there"


def test_helix_config_names_the_installed_command(tmp_path):
    (toml,) = [body for lang, body, _ in blocks("editors/helix.md") if lang == "toml"]
    config = tomllib.loads(toml)
    server = config["language-server"]["pgn-lsp"]
    assert server["command"] == "pgn-lsp" and server.get("args", ["serve"]) in (["serve"], [])
    (language,) = config["language"]
    assert language["file-types"] == ["pgn"] and language["language-servers"] == ["pgn-lsp"]


def test_every_setup_doc_has_an_install_step(tmp_path):
    path = login_path(fresh_home(tmp_path))
    for doc in DOCS:
        texts = [step.text for step in shell_steps(doc, path)]
        assert any(text.startswith("install ") and "~/.local/bin/pgn-lsp" in text for text in texts), (doc, texts)


def test_every_setup_doc_puts_the_folder_on_path_now_and_in_the_rc_file(tmp_path):
    """After the install step, in a shell block: the export for the shell that runs the steps,
    and the same line appended to the shell's rc file for the terminals opened later."""
    path = login_path(fresh_home(tmp_path))
    for doc in DOCS:
        steps = [step for step in shell_steps(doc, path) if not step.prose]
        texts = [step.text for step in steps]
        install = next(i for i, text in enumerate(texts) if text.startswith("install "))
        assert PATH_EXPORT in texts[install:], f"{doc}: no `{PATH_EXPORT}` step after the install step: {texts}"
        appended = [RC_APPEND.fullmatch(text) for text in texts[install:]]
        assert any(m and m.group(1) == PATH_EXPORT for m in appended), f"{doc}: the export is not added to ~/.bashrc"


def test_docs_name_the_tarball_scripts_package_makes():
    """The tarball the steps unpack is the one scripts/package makes: same version, the machine's
    architecture; and the layout the README describes is the tarball's."""
    tarball = packaged(REPO)
    version = re.fullmatch(r"pgn-lsp-(.+)-linux-([\w]+)\.tar\.gz", tarball.name)
    assert version and version.group(2) == os.uname().machine, tarball.name
    for doc in DOCS:
        named = re.findall(r"dist/pgn-lsp-([\w.]+)-linux-(\$\(uname -m\)|[\w]+)\.tar\.gz", doc_text(doc)[0])
        assert named, f"{doc} names no tarball of dist/"
        assert {v for v, _ in named} == {version.group(1)}, (doc, named, tarball.name)
    with tarfile.open(tarball) as archive:
        top = {m.name.split("/")[0] for m in archive.getmembers()}
        files = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
    assert top == {tarball.name.removesuffix(".tar.gz")}, top
    readme = doc_text("README.md")[0]
    for described in re.findall(r"`((?:bin|editors|docs|schemas)/[\w/.-]*|README\.md|LICENSE|INSTALL)`", readme):
        assert described.rstrip("/") in files, f"README.md says the tarball holds `{described}`: it does not"


# The database settings each editor example names, as the server reads them (the `pgn` section).
DATABASE_KEYS = {"path", "references"}


def lua_table(text: str) -> dict:
    """The `database = { ... }` table of a Lua block: strings and lists of strings."""
    start = re.search(r"\bdatabase\s*=\s*\{", text)
    assert start, "no `database = {` in the block"
    depth, end = 0, start.end() - 1
    for end in range(start.end() - 1, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    body = text[start.end():end]
    table = {}
    for key, string, items in re.findall(r'(\w+)\s*=\s*(?:"([^"]*)"|\{([^}]*)\})', body):
        table[key] = string if not items and string else re.findall(r'"([^"]*)"', items)
    return table


def elisp_plist(text: str) -> dict:
    """The `:database (...)` plist of an Emacs Lisp block: strings and vectors of strings."""
    body = re.search(r":database\s*\(([^()]*)\)", text)
    assert body, "no `:database (...)` in the block"
    return {key: string if string else re.findall(r'"([^"]*)"', vector)
            for key, string, vector in re.findall(r':(\w+)\s+(?:"([^"]*)"|\[([^\]]*)\])', body.group(1))}


def vim_dict(text: str) -> dict:
    """The `'database': {...}` dictionary of a Vim script block (strings and lists of strings)."""
    body = re.search(r"'database':\s*(\{[^{}]*\})", text)
    assert body, "no `'database': {...}` in the block"
    return json.loads(body.group(1).replace("'", '"'))


def editor_examples() -> list:
    """(where, the `database` settings) of every editor example of the setup documents."""
    found = []
    for doc in DOCS + ["editors/vscode/README.md"]:
        for lang, body, line in blocks(doc):
            where = f"{doc}:{line} ({lang})"
            if lang == "lua" and re.search(r"\bsettings\s*=", body):  # the setup and lspconfig blocks
                found.append((where, lua_table(body)))
            elif lang == "vim" and "ale#linter#Define" in body:
                found.append((where, vim_dict(body)))
            elif lang == "elisp":
                found.append((where, elisp_plist(body)))
            elif lang == "toml":
                pgn = tomllib.loads(body)["language-server"]["pgn-lsp"]["config"]["pgn"]
                found.append((where, pgn.get("database", {})))
            elif lang == "json":
                settings = json.loads(body)
                if "pgn" in settings:  # the section as an LSP client sends it
                    found.append((where, settings["pgn"].get("database", {})))
                else:  # VS Code's settings.json: flat keys
                    found.append((where, {key.removeprefix("pgn.database."): value for key, value in settings.items()
                                          if key.startswith("pgn.database.")}))
    return found


def test_every_editor_example_names_the_database_settings():
    examples = editor_examples()
    docs = {where.split(":")[0] for where, _ in examples}
    assert docs == set(DOCS + ["editors/vscode/README.md"]), docs
    # Neovim: the setup block and the nvim-lspconfig one.
    assert sum(where.startswith("editors/nvim/README.md") for where, _ in examples) == 2, examples
    for where, database in examples:
        assert DATABASE_KEYS <= database.keys(), f"{where}: names {sorted(database)}, not {sorted(DATABASE_KEYS)}"
        assert isinstance(database["path"], str) and isinstance(database["references"], list), (where, database)


def test_database_settings_of_the_examples_are_accepted_by_the_server():
    """Each example's settings, given to the server as written: no warning about them, while a
    misspelt key does get one (the check can fail)."""
    schema = json.loads((REPO / "schemas" / "settings.schema.json").read_text())
    examples = editor_examples() + [("a misspelt key", {"paht": "games.db3"})]
    for where, database in examples:
        client = LSPClient()
        try:
            client.initialize(options={"pgn": {"database": database}})
            client.request("shutdown")
            warnings = [n["params"]["message"] for n in client.notifications
                        if n.get("method") == "window/logMessage" and "unknown or invalid settings" in n["params"]["message"]]
        finally:
            client.close()
        if where == "a misspelt key":
            assert warnings and "database.paht" in warnings[0], warnings
        else:
            assert warnings == [], f"{where}: {warnings}"
            known = schema["properties"]["database"]["properties"]
            assert database.keys() <= known.keys(), f"{where}: {sorted(database.keys() - known.keys())} not in the schema"


def test_not_steps_are_in_the_docs(tmp_path):
    """Each entry of NOT_STEPS is still found in a document (else it is stale)."""
    path = login_path(fresh_home(tmp_path))
    prose = {step.text for doc in DOCS for step in shell_steps(doc, path) if step.prose}
    assert set(NOT_STEPS) <= prose, set(NOT_STEPS) - prose


def nvim_lua_blocks() -> dict:
    """The Lua blocks of editors/nvim/README.md by what they are for; an unknown one fails."""
    kinds = {}
    for lang, body, line in blocks("editors/nvim/README.md"):
        if lang != "lua":
            continue
        text = body.lstrip()
        if text.startswith('require("pgn_lsp").setup('):
            kind = "setup"  # what the user writes in init.lua
        elif text.startswith("{") and re.search(r'\bdir = "', body):
            kind = "lazy.nvim repository" if "plugin.dir" in body else "lazy.nvim folder"
        elif text.startswith("use("):
            kind = "packer repository" if re.search(r'\brtp = "', body) else "packer folder"
        elif "rtp:prepend(" in body:
            kind = "runtimepath"
        elif text.startswith('require("pgn_lsp").update_settings('):
            kind = "update"  # typed while the server runs
        elif 'require("lspconfig' in body:
            kind = "lspconfig"  # nvim-lspconfig is not installed; the doc says this block is not tested
        else:
            pytest.fail(f"editors/nvim/README.md:{line}: a Lua block the test does not know:\n{body}")
        assert kind not in kinds, f"editors/nvim/README.md:{line}: a second {kind} block"
        kinds[kind] = body
    return kinds


PLUGIN_MANAGER_KINDS = ["lazy.nvim folder", "lazy.nvim repository", "packer folder", "packer repository", "runtimepath"]

# Given to Neovim 0.11 with -S, $PGN_DOCS_KIND and $PGN_DOCS_BLOCK set. lazy.nvim and packer are
# not installed here: the harness does what their documentation says they do with the spec
# (lazy.nvim: `dir` is the plugin's folder, put on the runtimepath, then `config(plugin)` with
# `plugin.dir` that folder; packer: the path is the plugin, `rtp` a subfolder of it put on the
# runtimepath instead, then `config()`), so that what is checked is the block: its Lua, its paths
# and its `config`. Writes where pgn_lsp was loaded from and the filetype of a .pgn file.
SPEC_HARNESS = r"""
local out = {}
local ok, err = xpcall(function()
  local kind, block = os.getenv("PGN_DOCS_KIND"), os.getenv("PGN_DOCS_BLOCK")
  local spec
  if kind:match("^lazy") then
    spec = assert(loadstring("return " .. block))()
    local dir = vim.fn.expand(spec.dir)
    vim.opt.rtp:append(dir)
    spec.config({ dir = dir, name = vim.fn.fnamemodify(dir, ":t") })
  elseif kind:match("^packer") then
    _G.use = function(s) spec = s end
    assert(loadstring(block))()
    local dir = vim.fn.expand(spec[1])
    vim.opt.rtp:append(spec.rtp and (dir .. "/" .. spec.rtp) or dir)
    spec.config()
  else
    assert(loadstring(block))()
    require("pgn_lsp").setup({})
  end
  out.loaded = vim.api.nvim_get_runtime_file("lua/pgn_lsp/init.lua", true)
  out.filetype = vim.filetype.match({ filename = "games.pgn" })
end, debug.traceback)
if not ok then out.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv("PGN_DOCS_OUT"))
vim.cmd("qall!")
"""


@pytest.mark.parametrize("kind", PLUGIN_MANAGER_KINDS)
def test_nvim_plugin_manager_blocks_load_the_plugin(kind, tmp_path):
    """Each way the page gives to reach the plugin (lazy.nvim and packer, from the tarball's folder
    or a clone of the repository; the runtimepath line) finds editors/nvim and sets it up: the
    tarball unpacked as the steps do, /path/to/pgn-lsp standing for this repository."""
    kinds = nvim_lua_blocks()
    assert set(PLUGIN_MANAGER_KINDS) | {"setup", "update"} <= kinds.keys(), kinds.keys()
    assert "not covered by the tests" in doc_text("editors/nvim/README.md")[0]  # said of the lspconfig block
    nvim = NEOVIMS["0.11"]
    if nvim is None or not pathlib.Path(nvim).exists():
        pytest.fail("Neovim 0.11 is not installed: scripts/bootstrap installs it")
    home = tmp_path / "home"
    share = home / ".local" / "share" / "pgn-lsp"
    share.mkdir(parents=True)
    with tarfile.open(packaged(REPO)) as archive:  # its editors/ folder, as the steps unpack it
        for member in archive.getmembers():
            if "/" in member.name and member.name.split("/")[1] == "editors":
                member.name = member.name.split("/", 1)[1]
                archive.extract(member, share, filter="tar")
    block = kinds[kind]
    named = re.findall(r'"((?:~/\.local/share/pgn-lsp|/path/to/pgn-lsp)[^"]*)"', block)
    assert len(named) == 1, f"{kind} block names {named}"
    folder = pathlib.Path(named[0].replace("~", str(home), 1).replace("/path/to/pgn-lsp", str(REPO), 1))
    expected = folder if "editors/nvim" in named[0] else folder / "editors" / "nvim"
    assert (expected / "lua" / "pgn_lsp" / "init.lua").exists(), f"{kind}: {expected} is not the plugin folder"
    assert (expected / "ftdetect" / "pgn.lua").exists()
    harness, out = tmp_path / "harness.lua", tmp_path / "out.json"
    harness.write_text(SPEC_HARNESS)
    env = dict(login_env(home), PATH="/usr/bin:/bin", PGN_DOCS_KIND=kind, PGN_DOCS_OUT=str(out),
               PGN_DOCS_BLOCK=block.replace("/path/to/pgn-lsp", str(REPO)))
    proc = subprocess.run([nvim, "--headless", "--clean", "-S", str(harness)], env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert out.exists(), f"Neovim wrote nothing (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    seen = json.loads(out.read_text())
    assert "error" not in seen, f"{kind}: {seen['error']}"
    assert seen["loaded"] == [str(expected / "lua" / "pgn_lsp" / "init.lua")], seen["loaded"]
    assert seen["filetype"] == "pgn", seen


# Given to Neovim with -S: after the startup (init.lua, the packages, mistakes.pgn read), waits for
# pgn-lsp's diagnostic, runs the doc's update_settings block, writes what it saw and quits.
HARNESS = r"""
local out = {}
local function observe()
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype
  out.arrived = vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.code == "illegal-move" then return true end
    end
    return false
  end, 20)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, code = d.code, message = d.message })
  end
  out.clients = {}
  for _, client in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    table.insert(out.clients, { name = client.name, cmd = client.config.cmd })
  end
  out.servers = {}
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    table.insert(out.servers, vim.loop.fs_readlink("/proc/" .. pid .. "/exe") or "?")
  end
  out.plugin = vim.api.nvim_get_runtime_file("lua/pgn_lsp/init.lua", true)
  local update = assert(load(os.getenv("PGN_DOCS_UPDATE")))
  update()
end
local ok, err = xpcall(observe, debug.traceback)
if not ok then out.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv("PGN_DOCS_OUT"))
vim.cmd("qall!")
"""


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_nvim_setup_gives_diagnostics(version, tmp_path):
    nvim = NEOVIMS[version]
    if nvim is None or not pathlib.Path(nvim).exists():
        pytest.fail(f"Neovim {version} is not installed: scripts/bootstrap installs it")
    first_line = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    assert first_line.startswith(f"NVIM v{version}."), first_line
    doc = "editors/nvim/README.md"
    home = fresh_home(tmp_path)
    follow(doc, home)
    installed = check_installed(doc, home)
    kinds = nvim_lua_blocks()
    init = home / ".config" / "nvim" / "init.lua"
    init.parent.mkdir(parents=True)
    init.write_text(kinds["setup"])

    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(REPO / "samples" / "mistakes.pgn", games / "mistakes.pgn")
    harness, out = tmp_path / "harness.lua", tmp_path / "out.json"
    harness.write_text(HARNESS)
    env = dict(login_env(home), PGN_DOCS_OUT=str(out), PGN_DOCS_UPDATE=kinds["update"])
    # Started as a user starts it: from a login shell in the new HOME, in the folder of the file.
    try:
        proc = subprocess.run(["/bin/bash", "-lc", 'cd "$1" && exec "$2" --headless -S "$3" mistakes.pgn', "bash",
                               str(games), nvim, str(harness)], env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"Neovim {version} did not quit within 60 s:\n{timeout.stdout}\n{timeout.stderr}")
    assert out.exists(), f"Neovim {version} wrote nothing (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    seen = json.loads(out.read_text())
    assert "error" not in seen, f"{doc}, Neovim {version}: {seen['error']}\n{proc.stderr}"
    assert "Error" not in proc.stderr and "E5113" not in proc.stderr, proc.stderr  # errors of init.lua
    package = home / ".local/share/nvim/site/pack/pgn/start/pgn-lsp"
    assert seen["plugin"] == [str(package / "lua/pgn_lsp/init.lua")], seen["plugin"]
    assert seen["filetype"] == "pgn"
    assert [client["name"] for client in seen["clients"]] == ["pgn-lsp"], seen["clients"]
    assert seen["servers"] == [str(installed)], seen["servers"]  # the binary the doc installed, found on PATH
    assert seen["arrived"], f"{doc}, Neovim {version}: no illegal-move diagnostic within 30 s: {seen['diagnostics']}"
    illegal = [d for d in seen["diagnostics"] if d["code"] == "illegal-move"]
    assert [(d["lnum"], d["col"]) for d in illegal] == [(9, 30)], illegal
    assert illegal[0]["message"].startswith("Illegal move Nf3")
