"""The release tarball of scripts/package: its name and layout, and the binary in it running where
the Swift toolchain cannot be reached.

The tarball is made once a session from the release binary scripts/test has just built
(`scripts/package --no-build`, a few seconds: the release build itself links the Swift runtime and
Foundation in, see Package.swift). The packaged binary is then run from a copy in a temporary
folder, with an environment that names nothing of the toolchain (`env -i PATH=/usr/bin:/bin`), and,
as root where `unshare` can make a mount namespace, with the toolchain's library folders hidden
under empty file systems: `--version`, `check` on a sample and an LSP initialize/shutdown/exit.
"""
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import tarfile

import pytest

from conftest import ROOT, binary, packaged
from lsp_client import LSPClient

SOURCE_VERSION = re.search(r'static let version = "([^"]+)"',
                           (ROOT / "Sources" / "PGNServer" / "Version.swift").read_text()).group(1)
# What the binary may link dynamically: glibc's libraries, libstdc++ and libgcc_s (which every
# Debian and Ubuntu system has), and SQLite (Debian's libsqlite3-0).
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libsqlite3.so.0"}
LOADER = re.compile(r"ld-linux[\w.-]*\.so\.\d")
TOOLCHAIN_NAMES = re.compile(r"libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libXCTest")
CLEAN_ENV = {"PATH": "/usr/bin:/bin"}  # env -i PATH=/usr/bin:/bin: no LD_LIBRARY_PATH, nothing of Swift


def toolchain_paths() -> dict:
    """`swift -print-target-info`'s paths: the folders of the toolchain's runtime libraries."""
    swift = shutil.which("swift")
    if swift is None:
        return {}
    info = subprocess.run([swift, "-print-target-info"], capture_output=True, text=True, check=True).stdout
    return json.loads(info)["paths"]


@pytest.fixture(scope="module")
def tarball() -> pathlib.Path:
    return packaged()


@pytest.fixture(scope="module")
def unpacked(tarball, tmp_path_factory) -> pathlib.Path:
    """The tarball unpacked in a temporary folder (its one top folder)."""
    where = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(tarball) as archive:
        archive.extractall(where, filter="tar")
    (top,) = where.iterdir()
    return top


def test_pgn_lsp_version_is_the_version_of_the_source():
    run = subprocess.run([str(binary()), "--version"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{SOURCE_VERSION}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+", SOURCE_VERSION), SOURCE_VERSION


def test_vscode_extension_has_the_same_version():
    manifest = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text())
    assert manifest["version"] == SOURCE_VERSION
    assert f"pgn-lsp-{SOURCE_VERSION}.vsix" in (ROOT / "editors" / "vscode" / "README.md").read_text()


def test_tarball_name_and_layout(tarball):
    name = f"pgn-lsp-{SOURCE_VERSION}-linux-{platform.machine()}"
    assert tarball.name == f"{name}.tar.gz"
    with tarfile.open(tarball) as archive:
        members = {member.name: member for member in archive.getmembers()}
    assert all(path == name or path.startswith(name + "/") for path in members), sorted(members)[:5]
    files = {path.removeprefix(name + "/") for path, member in members.items() if member.isfile()}
    expected = {"bin/pgn-lsp", "README.md", "LICENSE", "INSTALL", "editors/README.md", "editors/vim.md",
                "editors/emacs.md", "editors/helix.md", "editors/nvim/README.md", "editors/nvim/lua/pgn_lsp/init.lua",
                "editors/nvim/ftdetect/pgn.lua", "editors/nvim/syntax/pgn.vim", "editors/vscode/package.json", "editors/vscode/src/extension.ts",
                "editors/vscode/README.md", "schemas/settings.schema.json", "docs/diagnostics.md"}
    assert expected <= files, expected - files
    # Every tracked file of the editor folders, and nothing a build of the extension leaves.
    tracked = subprocess.run(["git", "ls-files", "editors"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if tracked:
        assert {path for path in files if path.startswith("editors/")} == set(tracked)
    assert not [path for path in files if "node_modules" in path or path.endswith(".vsix")]
    assert members[f"{name}/bin/pgn-lsp"].mode & 0o777 == 0o755
    assert all(member.uid == 0 and member.gid == 0 for member in members.values())


def test_install_file_gives_the_steps(unpacked, tarball):
    install = (unpacked / "INSTALL").read_text()
    assert f"tar -xzf {tarball.name}" in install
    assert 'export PATH="$HOME/.local/bin:$PATH"' in install
    assert "libsqlite3-0" in install
    glibc = re.search(r"glibc (\d+\.\d+) or later", install)
    assert glibc, install
    used = subprocess.run(["objdump", "-T", str(unpacked / "bin" / "pgn-lsp")], capture_output=True,
                          text=True).stdout
    newest = max((tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+\.\d+(?:\.\d+)?)", used)))
    assert ".".join(map(str, newest)) == glibc.group(1)


def test_binary_links_no_library_of_the_toolchain(unpacked):
    listed = subprocess.run(["ldd", str(unpacked / "bin" / "pgn-lsp")], capture_output=True, text=True,
                            env=CLEAN_ENV)
    assert listed.returncode == 0, listed.stderr
    needed = {line.split()[0] for line in listed.stdout.splitlines() if line.strip()}
    assert not [name for name in needed if TOOLCHAIN_NAMES.search(name)], listed.stdout
    assert "not found" not in listed.stdout, listed.stdout
    others = {name for name in needed if not LOADER.search(name) and not name.startswith("linux-vdso")}
    assert others <= SYSTEM_LIBRARIES, others - SYSTEM_LIBRARIES
    toolchain = toolchain_paths()
    for folder in toolchain.get("runtimeLibraryPaths", []):
        assert folder not in listed.stdout, listed.stdout


def run_packaged(command: list, copy: pathlib.Path, games: pathlib.Path) -> None:
    """`--version`, `check` on a sample and an LSP session, with `command` + the arguments."""
    version = subprocess.run([*command, "--version"], cwd=copy, env=CLEAN_ENV, capture_output=True, text=True)
    assert (version.returncode, version.stdout) == (0, f"{SOURCE_VERSION}\n"), version.stderr
    check = subprocess.run([*command, "check", str(games)], cwd=copy, env=CLEAN_ENV, capture_output=True, text=True)
    assert check.returncode == 1 and "[illegal-move]" in check.stdout, (check.stdout, check.stderr)
    assert check.stdout.rstrip().endswith("2 games, 2 errors, 0 warnings"), check.stdout
    client = LSPClient(command=[*command, "serve"], env=CLEAN_ENV)
    try:
        result = client.initialize()
        assert result["serverInfo"] == {"name": "pgn-lsp", "version": SOURCE_VERSION}
        uri = games.as_uri()
        client.open(uri, games.read_text())
        codes = [d["code"] for d in client.diagnostics(uri)]
        assert "illegal-move" in codes, codes
        assert client.shutdown() == 0, b"".join(client.stderr)
    finally:
        client.close()


def packaged_copy(unpacked: pathlib.Path, tmp_path: pathlib.Path) -> tuple:
    copy = tmp_path / "elsewhere"
    shutil.copytree(unpacked, copy)
    games = tmp_path / "mistakes.pgn"
    shutil.copy(ROOT / "samples" / "mistakes.pgn", games)
    return copy, games


def test_binary_runs_from_a_copy_without_the_toolchain_in_its_environment(unpacked, tmp_path):
    copy, games = packaged_copy(unpacked, tmp_path)
    run_packaged([str(copy / "bin" / "pgn-lsp")], copy, games)


def test_binary_runs_with_the_toolchain_hidden(unpacked, tmp_path):
    """In a mount namespace where the toolchain's library folders are empty file systems."""
    toolchain = toolchain_paths()
    hidden = [toolchain["runtimeResourcePath"]] if toolchain else []
    if hidden:
        static = pathlib.Path(hidden[0]).parent / "swift_static"
        hidden += [str(static)] if static.is_dir() else []
    if not hidden:
        pytest.skip("no Swift toolchain on PATH: nothing to hide (the test above ran without one)")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding the toolchain needs root and unshare(1) for a mount namespace")
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"unshare --mount is refused here: {probe.stderr.strip()}")
    copy, games = packaged_copy(unpacked, tmp_path)
    core = pathlib.Path(toolchain["runtimeLibraryPaths"][0]) / "libswiftCore.so"
    assert core.exists(), f"{core} is missing: the test would hide nothing"
    # Each folder under an empty tmpfs, then the toolchain's runtime checked gone, then the command.
    mounts = " && ".join(f"mount -t tmpfs tmpfs '{folder}'" for folder in hidden)
    script = f"{mounts} && test ! -e '{core}' && exec \"$@\""
    command = ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh",
               str(copy / "bin" / "pgn-lsp")]
    run_packaged(command, copy, games)
