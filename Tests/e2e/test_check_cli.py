"""`pgn-lsp check` as a user runs it: output formats, exit status, standard input, and
files larger than one reading piece (game numbers and line numbers stay exact)."""
import json
import pathlib

from conftest import ROOT, SHARED, run, shared, shared_files

SAMPLE = ROOT / "samples" / "sample.pgn"
MISTAKES = ROOT / "samples" / "mistakes.pgn"


def test_text_output_and_exit_status():
    result = run(["check", str(MISTAKES)], check=False)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (f"{MISTAKES}:10:31: error: Illegal move Nf3 (White to move): "
                        "no white knight can move to f3 [illegal-move]")
    assert lines[-1] == "2 games, 2 errors, 0 warnings"
    sample = run(["check", str(SAMPLE)])
    assert sample.stdout.splitlines()[-1] == "3 games, 0 errors, 3 warnings"
    assert len(run(["check", "--all", str(SAMPLE)]).stdout.splitlines()) == 8
    clean = run(["check", str(shared("corpus/lichess/lichess_db_10k.pgn"))])
    assert clean.returncode == 0
    assert clean.stdout == "5 games, 0 errors, 0 warnings\n"


def test_json_output():
    result = run(["check", "--format", "json", str(MISTAKES)], check=False)
    assert result.returncode == 1
    [report] = json.loads(result.stdout)
    assert report["path"] == str(MISTAKES)
    assert report["games"] == 2
    first = report["diagnostics"][0]
    assert first == {"line": 10, "column": 31, "endLine": 10, "endColumn": 34, "severity": "error",
                     "code": "illegal-move", "game": 1,
                     "message": "Illegal move Nf3 (White to move): no white knight can move to f3"}
    assert [d["code"] for d in report["diagnostics"]] == ["illegal-move", "ambiguous-move"]
    [sample] = json.loads(run(["check", "--format", "json", str(SAMPLE)]).stdout)
    assert {d["code"] for d in sample["diagnostics"]} == {"result-mismatch", "non-canonical-san", "wrong-move-number"}


def test_standard_input_and_several_files():
    text = MISTAKES.read_text()
    result = run(["check", "-"], stdin=text, check=False)
    assert result.stdout.splitlines()[0].startswith("<stdin>:10:31: error:")
    both = run(["check", "--format", "json", "-", str(MISTAKES)], stdin=text, check=False)
    reports = json.loads(both.stdout)
    assert [r["path"] for r in reports] == ["<stdin>", str(MISTAKES)]
    # The same games twice: the second file's are also copies of the first's.
    assert reports[0]["diagnostics"] == [d for d in reports[1]["diagnostics"] if d["code"] != "twin-game"]
    copies = [d["message"] for d in reports[1]["diagnostics"] if d["code"] == "twin-game"]
    assert len(copies) == reports[1]["games"] == 2
    assert all(" of <stdin> (line " in message for message in copies), copies


def test_a_byte_order_mark_does_not_cut_the_first_game():
    # The mark opens the first tag line: the tag section goes on after it.
    text = '\ufeff[Event "A"]\n[Site "?"]\n\n1. e4 *\n'
    result = run(["check", "--format", "json", "-"], stdin=text, check=False)
    (report,) = json.loads(result.stdout)
    assert report["games"] == 1 and [d["code"] for d in report["diagnostics"]] == ["missing-tag"], report


def test_missing_file_is_a_clear_error():
    result = run(["check", "/nonexistent/file.pgn"], check=False)
    assert result.returncode != 0
    assert "cannot open /nonexistent/file.pgn" in result.stderr


def test_large_file_keeps_game_and_line_numbers(tmp_path: pathlib.Path):
    # 12,000 copies of the samples: about 12 MB, read in several 4 MB pieces on both cores.
    copies = 12000
    big = tmp_path / "big.pgn"
    unit = SAMPLE.read_text().rstrip("\n") + "\n\n" + MISTAKES.read_text().rstrip("\n") + "\n\n"
    big.write_text(unit * copies)
    lines_per_copy = unit.count("\n")
    first_line = len(SAMPLE.read_text().rstrip("\n").split("\n")) + 1 + 10
    result = run(["check", "--format", "json", str(big)], check=False)
    [report] = json.loads(result.stdout)
    assert big.stat().st_size > 10_000_000
    assert report["games"] == 5 * copies
    illegal = [d for d in report["diagnostics"] if d["code"] == "illegal-move"]
    assert [d["game"] for d in illegal] == [4 + 5 * k for k in range(copies)]
    assert [d["line"] for d in illegal] == [first_line + lines_per_copy * k for k in range(copies)]


def test_every_corpus_file_is_checked_without_crashing():
    files = [path for _, path in shared_files("corpus")]
    result = run(["check", "--format", "json", *map(str, files)], check=False)
    assert result.returncode in (0, 1)
    reports = json.loads(result.stdout)
    assert len(reports) == len(files)
    assert sum(r["games"] for r in reports) > (4000 if SHARED.is_dir() else 500)


def test_twins_are_reported_with_all_after_the_other_problems(tmp_path):
    game = ('[Event "WCh"]\n[Site "Dubai"]\n[Date "2021.12.03"]\n[Round "6"]\n[White "{white}"]\n'
            '[Black "Nepomniachtchi, Ian"]\n[Result "{result}"]\n\n{moves} {result}\n\n')
    text = (game.format(white="Carlsen, Magnus", moves="1. d4 Nf6 2. Nf3 d5", result="*")
            + game.format(white="Carlsen,Magnus", moves="1. d4 Nf6 2. Nf3 d5 3. g3 e6", result="1-0")
            + game.format(white="Carlsen, Magnus", moves="1. d4 Nf6 2. Nf3 d5 3. g3+ e6", result="1-0"))
    path = tmp_path / "broadcast.pgn"
    path.write_text(text)
    lines = run(["check", "--all", str(path)]).stdout.splitlines()
    assert lines == [
        f"{path}:29:24: hint: Standard notation is g3: the check sign does not match the position [non-canonical-san]",
        f"{path}:1:1: information: This game stops after 4 half-moves of game 2, which has the same players, "
        "date and round and goes on to 6: an earlier copy of it (line 11) [twin-game]",
        f"{path}:21:1: information: This game is a copy of game 2: the same players, date, round and moves "
        "(line 11) [twin-game]",
        "3 games, 0 errors, 0 warnings"]
    assert run(["check", str(path)]).stdout == "3 games, 0 errors, 0 warnings\n"  # information: with --all
    [report] = json.loads(run(["check", "--format", "json", str(path)]).stdout)
    twins = [(d["game"], d["line"]) for d in report["diagnostics"] if d["code"] == "twin-game"]
    assert twins == [(1, 1), (3, 21)]


def test_twins_across_the_files_are_reported_in_the_later_file(tmp_path):
    tags = '[White "Gukesh D"]\n[Black "Praggnanandhaa R"]\n[Date "2025.02.02"]\n[Round "13"]\n'
    twic = tmp_path / "twic.pgn"
    twic.write_text('[Event "Tata Steel"]\n' + tags + '\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1/2-1/2\n')
    broadcast = tmp_path / "broadcast.pgn"
    broadcast.write_text('[White "Anna"]\n[Black "Boris"]\n\n1. d4 *\n\n' + tags + '\n1. e4 e5 2. Nf3 Nc6 *\n')

    def twins(*paths):
        reports = json.loads(run(["check", "--format", "json", *map(str, paths)]).stdout)
        return [(r["path"], d["line"], d["message"]) for r in reports for d in r["diagnostics"]
                if d["code"] == "twin-game"]

    # The earlier copy read after the finished game: it says which game it copies.
    assert twins(twic, broadcast) == [
        (str(broadcast), 6, f"This game stops after 4 half-moves of game 1 of {twic} (line 1), which has the "
                            "same players, date and round and goes on to 6: an earlier copy of it")]
    # Read before it: the finished game says which earlier copy stops short of it.
    assert twins(broadcast, twic) == [
        (str(twic), 1, f"Game 2 of {broadcast} (line 6) stops after 4 half-moves of this game, which has the "
                       "same players, date and round and goes on to 6: an earlier copy of it")]
    # Without --all, text output leaves information out; --no-twins leaves twins out.
    assert run(["check", str(twic), str(broadcast)]).stdout == "3 games, 0 errors, 0 warnings\n"
    reports = json.loads(run(["check", "--format", "json", "--no-twins", str(twic), str(broadcast)]).stdout)
    assert [d["code"] for r in reports for d in r["diagnostics"]] == ["missing-tag", "missing-tag", "missing-tag"]
