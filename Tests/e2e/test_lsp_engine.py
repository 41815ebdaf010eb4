"""The engine in the language server: hover evaluations, game review, annotation, and faults.

Stockfish is the real one (Debian's package, /usr/games/stockfish); the faults come from
Tests/Fixtures/fake-engine, started through a small script that sets its mode.
"""
import os
import pathlib
import re
import stat
import time
import uuid

import pytest

from conftest import ROOT
from lsp_client import LSPClient
from test_lsp_features import pos

STOCKFISH = "/usr/games/stockfish"
FAKE = ROOT / "Tests" / "Fixtures" / "fake-engine"
BLUNDER = (ROOT / "samples" / "blunder.pgn").read_text()
URI = "file:///tmp/blunder.pgn"
PROGRESS = {"window": {"workDoneProgress": True}}


def fake_engine(tmp_path, mode, log=None, state=None):
    env = f"FAKE_ENGINE_MODE={mode}"
    if log:
        env += f" FAKE_ENGINE_LOG={log}"
    if state:
        env += f" FAKE_ENGINE_STATE={state}"
    script = tmp_path / f"engine-{uuid.uuid4().hex}"
    script.write_text(f"#!/bin/sh\n{env} exec python3 {FAKE}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def start(path=STOCKFISH, capabilities=None, engine=None, review=None):
    client = LSPClient()
    # A long hover budget: the machine running the tests may be busy.
    options = {"pgn": {"engine": {"path": path, "hoverMs": 1500, **(engine or {})},
                       "review": {"depth": 10, **(review or {})}}}
    client.initialize(options=options, capabilities=capabilities)
    return client


@pytest.fixture
def stockfish():
    assert os.access(STOCKFISH, os.X_OK), "Stockfish is installed by scripts/bootstrap"
    client = start(capabilities=PROGRESS)
    yield client
    client.close()


def hover(client, uri, text, needle, occurrence=0):
    result = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": pos(text, needle, occurrence, delta=1)})
    return result["contents"]["value"] if result else ""


def engine_hover(client, uri, text, needle, timeout=20):
    """The hover on `needle` once the engines started: the first hover says they are starting
    (and starts them) instead of waiting for them."""
    deadline = time.monotonic() + timeout
    value = hover(client, uri, text, needle)
    while "starting…" in value and time.monotonic() < deadline:
        time.sleep(0.1)
        value = hover(client, uri, text, needle)
    return value


def published(client, uri):
    """The diagnostics last pushed for `uri`, among the messages read so far."""
    for message in reversed(client.notifications):
        if message["method"] == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
            return message["params"]["diagnostics"]
    return client.diagnostics(uri)


def review(client, uri, index=0, timeout=120):
    return client.request("workspace/executeCommand", {"command": "pgn.reviewGame", "arguments": [uri, index]},
                          timeout=timeout)


def test_hover_shows_the_evaluation_the_line_and_the_judgement(stockfish):
    stockfish.open(URI, BLUNDER)
    first = hover(stockfish, URI, BLUNDER, "Nxf7")
    # The engines start at the first hover, which says so instead of waiting for them.
    assert first.split("\n")[1] == "**Engine** starting… (the evaluation comes with the next hover)  ", first
    text = engine_hover(stockfish, URI, BLUNDER, "Nxf7")
    lines = text.split("\n")
    # The move, then the evaluation with its line, then the judgement, then the opening.
    assert lines[0] == "**5. Nxf7** — White  "
    assert re.match(r"\*\*Engine\*\* -\d+\.\d\d \((at (least|most), )?depth \d+\)", lines[1]) and " · best line 5... " in lines[1], text
    assert lines[2].startswith("Before the move ") and "best **" in lines[2], text
    assert lines[3].startswith("Opening: **C50 "), text
    assert "FEN `" in text
    assert "this move: **blunder** ??" in text
    # The start of a repeated hover comes from the cache: quick, and the same.
    started = time.monotonic()
    again = engine_hover(stockfish, URI, BLUNDER, "Nxf7")
    assert time.monotonic() - started < 0.25
    assert again == text


def test_review_of_a_game_with_progress_diagnostics_hints_lenses_and_annotation(stockfish):
    stockfish.open(URI, BLUNDER)
    stockfish.diagnostics(URI)
    lenses = stockfish.request("textDocument/codeLens", {"textDocument": {"uri": URI}})
    assert [lens["command"]["title"] for lens in lenses] == ["Review game"]
    assert lenses[0]["command"]["command"] == "pgn.reviewGame"

    result = review(stockfish, URI)
    # Games counted from 1, in the shape of `pgn-lsp review --format json`.
    assert result[0]["game"] == 1
    assert set(result[0]) == {"game", "white", "black", "errors", "moves"}
    assert set(result[0]["white"]) == {"name", "accuracy", "acpl"}
    assert result[0]["moves"][8]["move"] == "5. Nxf7"
    assert any(error.startswith("5. Nxf7 blunder (") for error in result[0]["errors"]), result
    assert result[0]["white"]["accuracy"] < result[0]["black"]["accuracy"]

    # Progress: created, begun, reported, ended.
    created = [r for r in stockfish.server_requests if r["method"] == "window/workDoneProgress/create"]
    assert len(created) == 1
    token = created[0]["params"]["token"]
    kinds = [n["params"]["value"]["kind"] for n in stockfish.notifications
             if n["method"] == "$/progress" and n["params"]["token"] == token]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds

    # Diagnostics: the blunder, on the move, as a warning.
    diagnostics = published(stockfish, URI)
    blunders = [d for d in diagnostics if d["code"] == "review-blunder"]
    nxf7 = [d for d in blunders if d["range"]["start"] == pos(BLUNDER, "Nxf7")]
    assert nxf7 and nxf7[0]["severity"] == 2
    assert nxf7[0]["message"].startswith("Blunder (") and "was best." in nxf7[0]["message"]
    pulled = stockfish.request("textDocument/diagnostic", {"textDocument": {"uri": URI}})
    assert any(d["code"] == "review-blunder" for d in pulled["items"])

    # Inlay hints: the judgements, each with the engine's choice (`?? better Bxf7+`), no plain
    # evaluations.
    hints = stockfish.request("textDocument/inlayHint", {
        "textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}})
    labels = {(h["position"]["line"], h["position"]["character"]): h["label"] for h in hints}
    end_of_nxf7 = pos(BLUNDER, "Nxf7", delta=4)
    assert re.fullmatch(r"\?\? better \S+", labels[(end_of_nxf7["line"], end_of_nxf7["character"])]), labels
    review_labels = [h["label"] for h in hints if not h["label"].startswith("C50 ")]
    assert all(re.fullmatch(r"(\?!|\?|\?\?)( better \S+)?", label) for label in review_labels), review_labels
    assert sum(h["label"].startswith("C50 ") for h in hints) == 1

    # The code lens now shows each player's accuracy.
    lenses = stockfish.request("textDocument/codeLens", {"textDocument": {"uri": URI}})
    titles = [lens["command"]["title"] for lens in lenses]
    # Worded as the CLI and the message word it: `White 53.5% · ACPL 161  |  Black …`.
    assert re.match(r"White \d+\.\d% · ACPL \d+  \|  Black \d+\.\d% · ACPL \d+$", titles[0]), titles[0]
    assert "Annotate game with the review" in titles
    # And the evaluation graph, a block a half-move from White's view: Black mates at the end.
    assert re.fullmatch(r"[▁▂▃▄▅▆▇█]{14}", titles[1]) and titles[1].endswith("▁"), titles

    # Annotation through workspace/applyEdit, from the code action.
    actions = stockfish.request("textDocument/codeAction", {
        "textDocument": {"uri": URI}, "range": {"start": pos(BLUNDER, "Nxf7"), "end": pos(BLUNDER, "Nxf7")},
        "context": {"diagnostics": [], "only": ["refactor.rewrite"]}})
    assert [a["title"] for a in actions] == ["Annotate game with the review"]
    answer = stockfish.request("workspace/executeCommand", actions[0]["command"], timeout=60)
    assert answer == {"applied": True}
    apply = [r for r in stockfish.server_requests if r["method"] == "workspace/applyEdit"][-1]
    edits = apply["params"]["edit"]["changes"][URI]
    annotated = apply_edits(BLUNDER, edits)
    assert "[Annotator \"pgn-lsp\"]" in annotated
    assert re.search(r"5\. Nxf7\?\?\s\{\[%eval -", annotated) and "Blunder." in annotated and "(5. " in annotated
    assert annotated.count("[%eval") == 13, "every move but the mate"
    # The annotated game is still a valid game with the same moves.
    stockfish.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                                "contentChanges": [{"text": annotated}]})
    errors = [d for d in stockfish.diagnostics(URI, version=2) if d["severity"] == 1]
    assert errors == []


def apply_edits(text, edits):
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(p):
        return offsets[p["line"]] + p["character"]
    ordered = sorted(enumerate(edits), key=lambda e: (offset(e[1]["range"]["start"]), e[0]))
    out, cursor = [], 0
    for _, edit in ordered:
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        out.append(text[cursor:start])
        out.append(edit["newText"])
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def test_a_review_survives_edits_elsewhere_and_goes_with_its_game(stockfish):
    other = '[Event "Other"]\n[Result "*"]\n\n1. d4 d5 *\n\n'
    text = other + BLUNDER
    stockfish.open(URI, text)
    stockfish.diagnostics(URI)
    review(stockfish, URI, 1)
    assert any(d["code"] == "review-blunder" for d in published(stockfish, URI))
    # Editing the other game keeps the review.
    edited = text.replace("1. d4 d5", "1. d4 Nf6")
    stockfish.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                                "contentChanges": [{"text": edited}]})
    assert any(d["code"] == "review-blunder" for d in stockfish.diagnostics(URI, version=2))
    # Editing the reviewed game drops it.
    changed = edited.replace("7. Be2 Nf3#", "7. Be2")
    stockfish.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 3},
                                                "contentChanges": [{"text": changed}]})
    assert not any(d["code"].startswith("review-") for d in stockfish.diagnostics(URI, version=3))


def test_a_review_is_cancelled_by_the_client_and_by_an_edit_to_its_game():
    client = start(capabilities=PROGRESS, review={"depth": 40})
    try:
        client.open(URI, BLUNDER)
        request = client.request_async("workspace/executeCommand",
                                       {"command": "pgn.reviewGame", "arguments": [URI, 0]})
        begin = client.wait_for(lambda m: m.get("method") == "$/progress"
                                and m["params"]["value"]["kind"] == "begin")
        client.notify("window/workDoneProgress/cancel", {"token": begin["params"]["token"]})
        answer = client.response(request, timeout=15)
        assert answer["error"]["code"] == -32800

        request = client.request_async("workspace/executeCommand",
                                       {"command": "pgn.reviewGame", "arguments": [URI, 0]})
        client.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin")
        client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"text": BLUNDER.replace("Nf3#", "Nf3+")}]})
        answer = client.response(request, timeout=15)
        assert answer["error"]["code"] == -32801, "ContentModified"
        # The server goes on.
        assert "FEN `" in hover(client, URI, BLUNDER.replace("Nf3#", "Nf3+"), "e5")
    finally:
        client.close()


HOSTILE = """[Event "Hostile"]
[White "x"]
[Black "y"]
[Result "*"]
[Engine "{marker_script}"]
[EnginePath "{marker_script}"]
[Annotator "setoption name Threads value 64"]

1. e4 {{ [%engine {marker_script}] setoption name Hash value 4096
quit }} e5 {{ position startpos moves e2e4
go infinite }} 2. Nf3 *
"""


def test_a_hostile_file_cannot_choose_what_runs_or_its_options(tmp_path):
    marker = tmp_path / "ran"
    marker_script = tmp_path / "evil"
    marker_script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    marker_script.chmod(0o755)
    log = tmp_path / "engine.log"
    engine = fake_engine(tmp_path, "normal", log=log)
    client = start(engine, capabilities=PROGRESS)
    try:
        text = HOSTILE.format(marker_script=marker_script)
        uri = "file:///tmp/hostile.pgn"
        client.open(uri, text)
        for needle in ("e4", "e5", "Nf3"):
            hover(client, uri, text, needle)
        review(client, uri)
        # Every command the engine received is the client's own making.
        received = [line.split(" ", 1)[1] for line in log.read_text().splitlines()]
        assert received, "the engine ran"
        allowed_options = {"Threads value 1", "Hash value 16", "MultiPV value 1", "UCI_ShowWDL value true",
                           "UCI_Chess960 value false"}
        for line in received:
            if line.startswith("setoption name "):
                assert line[len("setoption name "):] in allowed_options, line
            elif line.startswith("position fen "):
                assert "moves" not in line and "\n" not in line
            else:
                assert line in {"uci", "isready", "ucinewgame", "stop", "quit"} or line.startswith("go movetime ") \
                    or line.startswith("go depth "), line
        assert not marker.exists()
    finally:
        client.close()
    assert not marker.exists()


def test_a_missing_engine_is_reported_once_and_everything_else_works(tmp_path):
    client = start(str(tmp_path / "no-such-engine"))
    try:
        client.open(URI, BLUNDER)
        for needle in ("e4", "Nf3", "Nxf7"):
            text = hover(client, URI, BLUNDER, needle)
            assert "FEN `" in text and "**Engine**" not in text
        answer = client.response(client.request_async("workspace/executeCommand",
                                                      {"command": "pgn.reviewGame", "arguments": [URI, 0]}))
        assert "not an executable" in answer["error"]["message"]
        completion = client.request("textDocument/completion", {"textDocument": {"uri": URI},
                                                                "position": pos(BLUNDER, "e4")})
        assert completion
        client.request("shutdown")
        warnings = [n for n in client.notifications if n["method"] == "window/showMessage"
                    and n["params"]["type"] == 2]
        assert len(warnings) == 1 and "pgn.engine.path" in warnings[0]["params"]["message"]
    finally:
        client.close()


def test_a_hanging_engine_never_blocks_other_requests(tmp_path):
    engine = fake_engine(tmp_path, "hang")
    client = start(engine, engine={"hoverMs": 200})
    try:
        client.open(URI, BLUNDER)
        client.diagnostics(URI)
        started = time.monotonic()
        text = hover(client, URI, BLUNDER, "Nxf7")
        assert "FEN `" in text and "**Engine** starting…" in text
        assert time.monotonic() - started < 5
        # The engine started does not answer: the hover says so, in time.
        started = time.monotonic()
        text = engine_hover(client, URI, BLUNDER, "Nxf7")
        assert "FEN `" in text and "**Engine**: no answer within 200 ms" in text, text
        assert time.monotonic() - started < 5
        # While engines hang, other requests are answered at once.
        started = time.monotonic()
        for _ in range(5):
            assert client.request("textDocument/completion", {"textDocument": {"uri": URI},
                                                              "position": pos(BLUNDER, "e4")})
        assert time.monotonic() - started < 2
        assert client.process.poll() is None
    finally:
        client.close()


def test_an_engine_crash_mid_review_restarts_it_and_the_review_finishes(tmp_path):
    engine = fake_engine(tmp_path, "crash:6", state=tmp_path / "state", log=tmp_path / "log")
    client = start(engine, engine={"processes": 1})
    try:
        client.open(URI, BLUNDER)
        result = review(client, URI)
        assert result[0]["white"]["accuracy"] is not None
        pids = {line.split(" ")[0] for line in (tmp_path / "log").read_text().splitlines()}
        assert len(pids) == 2
    finally:
        client.close()


def test_an_engine_that_always_crashes_fails_the_review_with_a_message(tmp_path):
    client = start(fake_engine(tmp_path, "crash-always"))
    try:
        client.open(URI, BLUNDER)
        answer = client.response(client.request_async("workspace/executeCommand",
                                                      {"command": "pgn.reviewGame", "arguments": [URI, 0]}))
        assert "stopped unexpectedly" in answer["error"]["message"]
        assert "FEN `" in hover(client, URI, BLUNDER, "e4")
    finally:
        client.close()


def test_garbage_from_the_engine_is_ignored(tmp_path):
    client = start(fake_engine(tmp_path, "garbage"))
    try:
        client.open(URI, BLUNDER)
        result = review(client, URI)
        assert result[0]["black"]["accuracy"] is not None
        assert re.search(r"\*\*Engine\*\* [-+]?\d", engine_hover(client, URI, BLUNDER, "Qg5"))
    finally:
        client.close()


def test_more_lines_with_multipv():
    client = start(engine={"multiPV": 3})
    try:
        client.open(URI, BLUNDER)
        text = engine_hover(client, URI, BLUNDER, "Nc6")
        assert " · best line 3." in text
        others = [line for line in text.split("\n") if line.startswith("- `")]
        assert len(others) == 2, text
    finally:
        client.close()


@pytest.mark.parametrize("command", ["pgn.reviewGame", "pgn.annotateGame", "pgn.saveGame"])
def test_a_position_far_outside_the_document_is_an_error_not_a_crash(tmp_path, command):
    client = start(fake_engine(tmp_path, "normal"))
    try:
        client.open(URI, BLUNDER + "\n\n")
        for line, character, message in [
            (2**63 - 1, 0, "there is no game after the end of the document"),
            (2**63 - 1, 2**63 - 1, "there is no game after the end of the document"),
            (-(2**63), 0, "takes a position whose line and character are 0 or more"),
            (0, -1, "takes a position whose line and character are 0 or more"),
        ]:
            answer = client.response(client.request_async("workspace/executeCommand", {
                "command": command, "arguments": [URI, {"line": line, "character": character}]}))
            assert answer["error"]["code"] == -32602 and answer["error"]["message"].endswith(message), answer
        assert "FEN `" in hover(client, URI, BLUNDER, "e4")
    finally:
        client.close()


def test_a_slow_engine_start_does_not_cancel_the_next_review(tmp_path):
    # The hover gives up while the engine starts; the search it began is stopped at once. The
    # review that follows, as shallow as that search, must not take it for its own.
    client = start(fake_engine(tmp_path, "slow-start:2"), engine={"hoverMs": 200}, review={"depth": 1})
    try:
        client.open(URI, BLUNDER)
        assert "**Engine** starting…" in hover(client, URI, BLUNDER, "Nxf7")
        result = review(client, URI, timeout=60)
        assert result[0]["white"]["accuracy"] is not None
    finally:
        client.close()


def test_an_engine_that_floods_its_output_fails_the_review_in_time(tmp_path):
    client = start(fake_engine(tmp_path, "flood"), review={"movetime": 100})
    try:
        client.open(URI, BLUNDER)
        started = time.monotonic()
        answer = client.response(client.request_async("workspace/executeCommand",
                                                      {"command": "pgn.reviewGame", "arguments": [URI, 0]}),
                                 timeout=60)
        # The movetime and 5 s, then 2 s for `stop`, then the engine is ended.
        assert "did not answer in time" in answer["error"]["message"]
        assert time.monotonic() - started < 20
        assert client.request("textDocument/completion", {"textDocument": {"uri": URI},
                                                          "position": pos(BLUNDER, "e4")})
    finally:
        client.close()


def test_scores_beyond_any_range_are_shown_in_range(tmp_path):
    client = start(fake_engine(tmp_path, "extreme"), review={"depth": 1})
    try:
        client.open(URI, BLUNDER)
        # After 1. e4 the engine says Black, to move, is mated in 2^63 moves.
        assert "**Engine** #10000 " in engine_hover(client, URI, BLUNDER, "e4")
        result = review(client, URI)
        assert result[0]["white"]["accuracy"] is not None
        assert client.process.poll() is None
    finally:
        client.close()
