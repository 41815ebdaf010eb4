"""The workspace-wide requests (`workspace/symbol`, references, rename) over workspaces that are
large, linked or the whole disk: the server's peak memory (VmHWM) and the time of each answer.

Each case is a server of its own, so that its peak is its own. The files are generated here: a
60 MB file of one game repeated, and a sparse 2 GB file that costs no disk."""
import os
import pathlib
import time

import pytest

from lsp_client import LSPClient

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the peak memory in /proc")

# What the server may reach at its peak (an idle one holds about 30 MB).
PEAK_MB = 300
# What one answer may take, whatever the workspace.
ANSWER_SECONDS = 5

GAME = """[Event "Generated"]
[Site "Here"]
[Date "2024.01.01"]
[Round "{round}"]
[White "Zed, Zoe"]
[Black "Yann, Yves"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 1-0

"""

# The open document: line 4 `1. e4 e5 2. d4 *`; Anna is named in no generated game.
MINE = """[White "Anna"]
[Black "Boris"]
[Result "*"]

1. e4 e5 2. d4 *
"""

ANNOTATIONS = {"workspace": {"applyEdit": True, "workspaceEdit": {
    "documentChanges": True, "changeAnnotationSupport": {"groupsOnLabel": True}}}}


def peak_mb(pid):
    """The peak resident memory of a live process (VmHWM), in MB."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


def generated_file(path, megabytes):
    """A PGN file of `megabytes` MB: one game, repeated with its round counted."""
    games, size, round_ = [], 0, 1
    while size < megabytes << 20:
        game = GAME.format(round=round_)
        games.append(game)
        size += len(game)
        round_ += 1
    path.write_text("".join(games))


def workspace_requests(client, mine_uri):
    """workspace/symbol, references on 1. e4 and a rename of Anna, each timed; the answers."""
    answers, times = {}, {}

    def timed(name, method, params):
        started = time.perf_counter()
        answers[name] = client.request(method, params, timeout=60)
        times[name] = time.perf_counter() - started

    timed("symbols", "workspace/symbol", {"query": "zed"})
    timed("references", "textDocument/references", {
        "textDocument": {"uri": mine_uri}, "position": {"line": 4, "character": 4},
        "context": {"includeDeclaration": True}})
    timed("rename", "textDocument/rename", {
        "textDocument": {"uri": mine_uri}, "position": {"line": 0, "character": 9}, "newName": "Anna Z."})
    return answers, times


def run_case(root, mine_path):
    """A server with `root` as its workspace root and `mine_path` open: the answers, their
    times, its peak in MB and the messages it logged or showed."""
    client = LSPClient()
    try:
        client.initialize(capabilities=ANNOTATIONS, root_uri=root,
                          options={"pgn": {"engine": {"hoverMs": 0}}})
        mine_uri = mine_path.as_uri()
        mine_path.write_text(MINE)
        client.open(mine_uri, MINE)
        client.diagnostics(mine_uri)
        answers, times = workspace_requests(client, mine_uri)
        peak = peak_mb(client.process.pid)
        messages = [n["params"]["message"] for n in client.notifications
                    if n["method"] in ("window/logMessage", "window/showMessage")]
        assert client.shutdown() == 0
        return answers, times, peak, messages
    finally:
        client.close()


def uris(answer):
    return {location["location"]["uri"] if "location" in location else location["uri"] for location in answer}


def test_forty_links_to_one_60_mb_file_are_read_once(tmp_path):
    workspace = tmp_path / "links"
    (workspace / "data").mkdir(parents=True)
    big = workspace / "data" / "games.pgn"
    generated_file(big, 60)
    for k in range(40):
        (workspace / f"link{k:02}.pgn").symlink_to(big)
    try:
        answers, times, peak, messages = run_case(workspace.as_uri(), workspace / "mine.pgn")
        print(f"40 links to 60 MB: peak {peak:.0f} MB, {', '.join(f'{k} {v:.2f} s' for k, v in times.items())}")
        # One file, however many names it has: one symbol for its player.
        assert [(s["name"], s["location"]["uri"]) for s in answers["symbols"]] == [
            ("Zed, Zoe", big.as_uri())]
        # 1. e4 is reached by every generated game: the workspace's games are capped, and said.
        assert len(answers["references"]) == 1000
        assert any("workspace games reach this position" in m for m in messages), messages
        assert [c["textDocument"]["uri"] for c in answers["rename"]["documentChanges"]] == [
            (workspace / "mine.pgn").as_uri()]
        assert peak < PEAK_MB, f"peak {peak:.0f} MB"
    finally:
        big.unlink()


def test_a_sparse_2_gb_file_is_left_out_without_reading_it(tmp_path):
    workspace = tmp_path / "huge"
    workspace.mkdir()
    huge = workspace / "huge.pgn"
    with open(huge, "wb") as handle:
        handle.truncate(2 << 30)
    (workspace / "small.pgn").write_text(GAME.format(round=1))
    try:
        answers, times, peak, messages = run_case(workspace.as_uri(), workspace / "mine.pgn")
        print(f"beside 2 GB: peak {peak:.0f} MB, {', '.join(f'{k} {v:.2f} s' for k, v in times.items())}")
        assert uris(answers["symbols"]) == {(workspace / "small.pgn").as_uri()}
        assert any("huge.pgn" in m and "64 MB" in m for m in messages), messages
        assert peak < PEAK_MB, f"peak {peak:.0f} MB"
    finally:
        huge.unlink()


def test_a_workspace_root_of_slash_answers_in_seconds(tmp_path):
    answers, times, peak, messages = run_case("file:///", tmp_path / "mine.pgn")
    print(f"root /: peak {peak:.0f} MB, {', '.join(f'{k} {v:.2f} s' for k, v in times.items())}")
    for name, seconds in times.items():
        assert seconds < ANSWER_SECONDS, f"{name} took {seconds:.1f} s"
    assert peak < PEAK_MB, f"peak {peak:.0f} MB"
