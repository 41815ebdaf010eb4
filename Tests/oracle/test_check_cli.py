"""`pgn-lsp check` as a user runs it: output formats, exit status, standard input, and
files larger than one reading piece (game numbers and line numbers stay exact)."""
import json
import pathlib

from conftest import ROOT, SHARED, run

SAMPLE = ROOT / "samples" / "sample.pgn"


def test_text_output_and_exit_status():
    result = run(["check", str(SAMPLE)], check=False)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (f"{SAMPLE}:23:31: error: Illegal move Nf3 (White to move): "
                        "no white knight can move to f3 [illegal-move]")
    assert lines[-1] == "3 games, 1 errors, 2 warnings"
    clean = run(["check", str(SHARED / "corpus" / "lichess" / "lichess_db_10k.pgn")])
    assert clean.returncode == 0
    assert clean.stdout == "5 games, 0 errors, 0 warnings\n"


def test_json_output():
    result = run(["check", "--format", "json", str(SAMPLE)], check=False)
    assert result.returncode == 1
    [report] = json.loads(result.stdout)
    assert report["path"] == str(SAMPLE)
    assert report["games"] == 3
    first = report["diagnostics"][0]
    assert first == {"line": 23, "column": 31, "endLine": 23, "endColumn": 34, "severity": "error",
                     "code": "illegal-move", "game": 2,
                     "message": "Illegal move Nf3 (White to move): no white knight can move to f3"}
    assert {d["code"] for d in report["diagnostics"]} >= {"illegal-move", "result-mismatch"}


def test_standard_input_and_several_files():
    text = SAMPLE.read_text()
    result = run(["check", "-"], stdin=text, check=False)
    assert result.stdout.splitlines()[0].startswith("<stdin>:23:31: error:")
    both = run(["check", "--format", "json", "-", str(SAMPLE)], stdin=text, check=False)
    reports = json.loads(both.stdout)
    assert [r["path"] for r in reports] == ["<stdin>", str(SAMPLE)]
    assert reports[0]["diagnostics"] == reports[1]["diagnostics"]


def test_missing_file_is_a_clear_error():
    result = run(["check", "/nonexistent/file.pgn"], check=False)
    assert result.returncode != 0
    assert "cannot open /nonexistent/file.pgn" in result.stderr


def test_large_file_keeps_game_and_line_numbers(tmp_path: pathlib.Path):
    # 15,000 copies of the sample: about 12 MB, read in several 4 MB pieces on both cores.
    copies = 15000
    big = tmp_path / "big.pgn"
    big.write_text((SAMPLE.read_text().rstrip("\n") + "\n\n") * copies)
    lines_per_copy = len(SAMPLE.read_text().rstrip("\n").split("\n")) + 1
    result = run(["check", "--format", "json", str(big)], check=False)
    [report] = json.loads(result.stdout)
    assert report["games"] == 3 * copies
    illegal = [d for d in report["diagnostics"] if d["code"] == "illegal-move"]
    assert [d["game"] for d in illegal] == [2 + 3 * k for k in range(copies)]
    assert [d["line"] for d in illegal] == [23 + lines_per_copy * k for k in range(copies)]


def test_every_corpus_file_is_checked_without_crashing():
    files = sorted(SHARED.glob("corpus/**/*.pgn"))
    result = run(["check", "--format", "json", *map(str, files)], check=False)
    assert result.returncode in (0, 1)
    reports = json.loads(result.stdout)
    assert len(reports) == len(files)
    assert sum(r["games"] for r in reports) > 4000
