"""`pgn-lsp review` with the real Stockfish: the summary, JSON, one game of several, annotation; and
with engines that misbehave (Tests/Fixtures/fake-engine), its option checks."""
import json
import re
import subprocess
import time

import chess.pgn

from conftest import ROOT, binary
from test_lsp_engine import fake_engine

BLUNDER = ROOT / "samples" / "blunder.pgn"


def review(*args):
    return subprocess.run([str(binary()), "review", *map(str, args)], capture_output=True, text=True, timeout=300)


def test_text_summary_names_the_blunder():
    result = review(BLUNDER, "--depth", "12")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Game 1: White – Black, 0-1"
    assert lines[1].startswith("  White: accuracy ") and "% · ACPL " in lines[1] and "blunder" in lines[1]
    assert lines[2].startswith("  Black: accuracy ")
    nxf7 = [line for line in lines if line.startswith("  5. Nxf7 ")]
    # The evaluation before the move is near equal (its sign varies between searches); after
    # it, White is lost.
    assert len(nxf7) == 1
    assert re.fullmatch(r"  5\. Nxf7 blunder \([+-]?\d+\.\d\d → -\d+\.\d\d\), best \S+", nxf7[0]), nxf7[0]


def test_json_and_game_selection(tmp_path):
    two = tmp_path / "two.pgn"
    two.write_text('[Event "A"]\n[Result "*"]\n\n1. d4 d5 *\n\n' + BLUNDER.read_text())
    result = review(two, "--game", "2", "--depth", "8", "--format", "json")
    assert result.returncode == 0, result.stderr
    (game,) = json.loads(result.stdout)
    # The shape of the server's pgn.reviewGame result, games counted from 1 in both.
    assert set(game) == {"game", "white", "black", "errors", "moves"}
    assert set(game["white"]) == {"name", "accuracy", "acpl"}
    assert game["game"] == 2 and game["white"]["name"] == "White"
    assert any(error.startswith("5. Nxf7 blunder (") for error in game["errors"]), game["errors"]
    assert len(game["moves"]) == 14
    assert game["moves"][8]["move"] == "5. Nxf7"
    assert game["moves"][13]["after"] is not None
    assert 0 <= game["white"]["accuracy"] <= 100
    missing = review(two, "--game", "3")
    assert missing.returncode != 0 and "there is no game 3" in missing.stderr


def test_annotate_writes_a_valid_game_with_the_same_moves(tmp_path):
    out = tmp_path / "annotated.pgn"
    original = BLUNDER.read_text().replace("1. e4 e5", "1. e4 { [%clk 0:03:00] } e5")
    source = tmp_path / "source.pgn"
    source.write_text(original)
    result = review(source, "--depth", "10", "--annotate", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    # The clock comment is kept, merged with the evaluation; the game is laid out as the
    # formatter lays it out, in lines shorter than 80 columns.
    assert re.search(r"e4\s\{\[%eval [-0-9.]+\] \[%clk 0:03:00\]\}", text), text
    assert "5. Nxf7??" in text and "(5. " in text
    assert all(len(line) < 80 for line in text.split("\n")), text
    with open(out) as handle:
        annotated = chess.pgn.read_game(handle)
    with open(source) as handle:
        plain = chess.pgn.read_game(handle)
    assert list(annotated.mainline_moves()) == list(plain.mainline_moves())
    assert annotated.headers["Annotator"] == "pgn-lsp"
    evals = [node.eval() for node in annotated.mainline()]
    assert sum(e is not None for e in evals) == 13
    # python-chess reads the variation after the blunder.
    nxf7 = list(annotated.mainline())[8]
    assert nxf7.san() == "Nxf7" and len(nxf7.parent.variations) == 2
    assert subprocess.run([str(binary()), "check", str(out)], capture_output=True).returncode == 0


def test_options_out_of_range_are_refused_before_any_engine_starts(tmp_path):
    log = tmp_path / "log"
    engine = fake_engine(tmp_path, "normal", log=log)
    for option, value, message in [
        ("--depth", 0, "--depth must be from 1 to 60, not 0"),
        ("--depth", 999, "--depth must be from 1 to 60, not 999"),
        ("--movetime", -5, "--movetime must be from 1 to 600000, not -5"),
        ("--movetime", 10**12, "--movetime must be from 1 to 600000"),
        ("--engines", 0, "--engines must be from 1 to 64, not 0"),
        ("--threads", -1, "--threads must be from 1 to 1024, not -1"),
        ("--hash", 2**40, "--hash must be from 1 to 65536"),
    ]:
        result = review(BLUNDER, "--engine", engine, f"{option}={value}")
        assert result.returncode == 64 and message in result.stderr, (option, value, result.stderr)
    assert not log.exists()


def test_an_engine_that_floods_its_output_fails_in_time(tmp_path):
    started = time.monotonic()
    result = review(BLUNDER, "--engine", fake_engine(tmp_path, "flood"), "--movetime", 100, "--engines", 1)
    assert result.returncode == 1 and "did not answer in time" in result.stderr
    # The movetime and 5 s, then 2 s for `stop`, then the engine is ended.
    assert time.monotonic() - started < 30


def test_scores_beyond_any_range_are_written_in_range(tmp_path):
    result = review(BLUNDER, "--engine", fake_engine(tmp_path, "extreme"), "--depth", 1, "--format", "json")
    assert result.returncode == 0, result.stderr
    (game,) = json.loads(result.stdout)
    assert game["moves"][0]["before"] == "-1000.00" and game["moves"][0]["after"] == "#10000"
    assert 0 <= game["white"]["accuracy"] <= 100
