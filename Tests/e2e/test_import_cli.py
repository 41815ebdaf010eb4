"""`pgn-lsp import` as a user meets it on files with null moves, short results, faults and notes:
every game stored, each change said, `--strict` for those who want the old refusals, and
`check` naming each cause with its fix."""
import json
import re

from conftest import ROOT, run

FIXTURES = ROOT / "Tests" / "Fixtures" / "corpus" / "pgn-lsp"
CAUSES = """[Event "Causes"]
[Site "?"]
[Date "2024.01.01"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 (2... d6 3. d4 -- 4. dxe5) 3. Bb5 a6 1-0

[Event "Causes"]
[Site "?"]
[Date "2024.01.01"]
[Round "2"]
[White "C"]
[Black "D"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 1/2

[Event "Causes"]
[Site "?"]
[Date "2024.01.01"]
[Round "3"]
[White "E"]
[Black "F"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Nf3 a6 4. Bb5 1-0

[Event "Causes"]
[Site "?"]
[Date "2024.01.01"]
[Round "4"]
[White "G"]
[Black "H"]
[Result "*"]
[Variant "Crazyhouse"]

1. e4 e5 2. Nf3 N@f6 *
"""


def test_every_game_is_stored_with_its_changes_listed(tmp_path):
    source = tmp_path / "causes.pgn"
    source.write_text(CAUSES)
    db = tmp_path / "games.db3"
    result = run(["import", "--db", str(db), str(source)], check=False)
    # Only the variant the format cannot hold is refused: the exit status says a game was.
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "Stored with changes:"
    assert lines[1].endswith("causes.pgn: game 1, null move 3...-- in a variation: the variation kept as a comment "
                             "from there")
    assert lines[2].endswith("causes.pgn: game 2, the result 1/2 read as 1/2-1/2")
    assert lines[3].endswith("causes.pgn: game 3 (incomplete), illegal move 3.Nf3: the game stored up to it, the rest "
                             "kept as a comment")
    assert lines[4] == "Refused:" and lines[5].endswith("causes.pgn: game 4, unsupported variant \"Crazyhouse\"")
    assert re.search(r": 3 stored \(3 with changes, 1 of them incomplete\), 0 duplicates, 1 refused$", lines[6])
    exported = run(["export", "--db", str(db)]).stdout
    assert "(2... d6 3. d4 -- 4. dxe5)" in exported
    assert "1. d4 d5 2. c4 e6 1/2-1/2" in exported
    assert '[Incomplete "illegal move 3.Nf3: the moves from there are kept as a comment"]' in exported
    assert "3. Nf3 a6 4. Bb5 1-0" in exported


def test_without_refusals_the_exit_status_is_zero(tmp_path):
    db = tmp_path / "games.db3"
    result = run(["import", "--db", str(db), str(FIXTURES / "chessbase-analysis.pgn")], check=False)
    assert result.returncode == 0
    assert result.stdout.endswith("5 stored (5 with changes), 0 duplicates, 0 refused\n")


def test_strict_refuses_what_it_would_change(tmp_path):
    source = tmp_path / "causes.pgn"
    source.write_text(CAUSES)
    result = run(["import", "--strict", "--db", str(tmp_path / "strict.db3"), str(source)], check=False)
    assert result.returncode == 1
    assert "Stored with changes" not in result.stdout
    refused = result.stdout.split("Refused:\n")[1].splitlines()[:4]
    assert [line.split(": ", 1)[1].split(",")[0] for line in refused] == ["game 1", "game 2", "game 3", "game 4"]
    assert result.stdout.endswith("0 stored, 0 duplicates, 4 refused\n")


def test_the_help_says_what_each_option_leaves_out():
    help_text = " ".join(run(["import", "--help"]).stdout.split())
    assert "--strict" in help_text and "Refuse every game that cannot be stored as written" in help_text
    assert "variations, NAGs and comments left out" in help_text
    assert "not stored at all" in help_text
    assert "Incomplete tag" in help_text


def test_check_names_each_cause_with_its_fix(tmp_path):
    source = tmp_path / "causes.pgn"
    source.write_text(CAUSES.replace("2. c4 e6 1/2", "2. c4 e6 3. Nc3 Be7 4. Bf4 keep O-O 5. e3 c51/2"))
    report = json.loads(run(["check", "--format", "json", str(source)], check=False).stdout)[0]
    found = {(item["code"], item["severity"]): item for item in report["diagnostics"]}
    assert ("null-move", "information") in found
    assert ("illegal-move", "error") in found
    note = found[("movetext-note", "warning")]
    assert note["fixes"] == [{"title": "Make it a comment: {keep}", "preferred": True,
                              "edits": [{"line": note["line"], "column": note["column"], "endLine": note["line"],
                                         "endColumn": note["column"] + 4, "text": "{keep}"}]}]
    results = [item for item in report["diagnostics"] if item["code"] == "result-notation"]
    assert [item["message"] for item in results] == [
        "The result is written against the move: c51/2 reads as c5 1/2-1/2",
        "A draw is written 1/2-1/2: 1/2 reads as the result 1/2-1/2"]
    assert [item["fixes"][0]["edits"][0]["text"] for item in results] == [" ", "1/2-1/2"]
    assert "missing-result" not in {item["code"] for item in report["diagnostics"]}


PLAYERS = """[White "Maghsoodloo, Parham"]
[Black "Carlsen, Magnus"]
[Result "1-0"]

1. e4 e5 1-0

[White "Carlsen, M."]
[Black "Caruana, Fabiano"]
[Result "*"]

1. d4 *
"""


def test_export_finds_a_player_by_the_start_of_the_name_in_any_case(tmp_path):
    (tmp_path / "players.pgn").write_text(PLAYERS)
    db = tmp_path / "players.db3"
    assert run(["import", "--db", str(db), str(tmp_path / "players.pgn")]).returncode == 0
    for name in ("Maghsoodloo", "maghsoodloo", "Magh", "Parham Maghsoodloo"):
        found = run(["export", "--db", str(db), "--player", name])
        assert found.returncode == 0, found.stderr
        assert found.stdout.count("[White ") == 1 and '[White "Maghsoodloo, Parham"]' in found.stdout, name
    # Both spellings of Carlsen, as White or Black.
    carlsen = run(["export", "--db", str(db), "--player", "carlsen"])
    assert carlsen.stdout.count("[White ") == 2, carlsen.stdout
    assert carlsen.stderr.startswith("2 games exported"), carlsen.stderr


def test_export_of_a_name_that_matches_no_player_says_which_are_close(tmp_path):
    (tmp_path / "players.pgn").write_text(PLAYERS)
    db = tmp_path / "players.db3"
    run(["import", "--db", str(db), str(tmp_path / "players.pgn")])
    missed = run(["export", "--db", str(db), "--player", "Maghsudloo"], check=False)
    assert missed.returncode == 1
    assert missed.stdout == ""
    assert missed.stderr.splitlines()[-1] == (
        "no game of a player named Maghsudloo; did you mean: Maghsoodloo, Parham"), missed.stderr
    carlson = run(["export", "--db", str(db), "--player", "Carlson"], check=False)
    assert carlson.stderr.splitlines()[-1] == (
        "no game of a player named Carlson; did you mean: Carlsen, M.; Carlsen, Magnus"), carlson.stderr
    nobody = run(["export", "--db", str(db), "--player", "Zzyzx"], check=False)
    assert nobody.returncode == 1 and nobody.stderr.splitlines()[-1] == "no game of a player named Zzyzx"
