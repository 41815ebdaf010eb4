"""No game left behind: every PGN file of the corpus (the shared folder's and the project's own)
is imported alone, exported again, and compared with what python-chess reads of the original,
game by game: tags, moves, variations, comments and NAGs. A game python-chess reads that the
export does not give back is lost, unless the database cannot hold it (a variant other than
standard chess and Chess960), it is a copy of a game stored before it, or python-chess itself
reads the original otherwise than PGN says, each named below with its reason. ocgdb, a second
program that stores PGN in the same format, is counted beside: pgn-lsp keeps at least as many."""
from __future__ import annotations

import io
import pathlib
import re
import sqlite3
from dataclasses import dataclass

import chess
import chess.pgn
import pytest

from conftest import find_shared, ocgdb_create, run, shared_files

CORPUS = shared_files("corpus")

# The variants a database of this format cannot hold: their games are refused, as said.
SUPPORTED_VARIANTS = {"", "standard", "chess", "chess960", "fischerandom", "chess 960", "from position"}

# Games python-chess reads otherwise than PGN (and pgn-lsp, and the export) do, by file, with
# how many and why. The games are stored (the test checks that the export has a game with their
# players, event and date); only python-chess's reading of them differs.
PYTHON_CHESS_MISREADS = {
    "pgn-lsp/comment-in-comment.pgn": (1, "braces nested in a comment: python-chess ends the comment at "
                                          "its first '}' and reads the rest of it as moves"),
    "pgn-extract/nested-comment.pgn": (1, "braces nested in a comment (as above): python-chess even reads "
                                          "'--nestedcomment' in it as a null move"),
    "pgn-lsp/crlf-malformed-tag.pgn": (1, "a tag line with text after its ']' ([Round \"4\"]f): python-chess "
                                          "drops the tag, pgn-lsp keeps it and reports the text"),
    "collections/Malakhov.pgn": (1, "the same malformed tag line as above"),
    "pgn-extract/test-nochecks.pgn": (1, "a game's tags right after the result of the game before (no blank "
                                         "line): python-chess reads them as that game's movetext"),
    "pgn-extract/test-stalemate.pgn": (1, "the same, in another file"),
}


def unblank(text: str) -> str:
    """The text without the blank lines that do not come before a tag line: python-chess ends a
    game at a blank line, inside its movetext or after its first comment, where PGN does not."""
    lines = text.splitlines()
    kept = []
    for k, line in enumerate(lines):
        if not line.strip():
            following = next((later for later in lines[k + 1:] if later.strip()), "")
            if not following.lstrip().startswith("["):
                continue
        kept.append(line)
    return "\n".join(kept) + "\n"


def games_of(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(unblank(text))
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def unescaped(value: str) -> str:
    """A tag value with PGN's escapes (`\\\\`, `\\"`) read: python-chess keeps them as written."""
    return re.sub(r"\\(.)", r"\1", value)


def words(text: str) -> str:
    """A comment's words: the export lays comments out in lines of its own."""
    return " ".join(text.split())


def tree(node: chess.pgn.GameNode) -> tuple:
    return tuple((child.move.uci() if child.move else None, tuple(sorted(child.nags)), words(child.comment),
                  words(child.starting_comment), tree(child)) for child in node.variations)


def canonical(game: chess.pgn.Game, without: tuple[str, ...] = ()) -> tuple:
    """Everything of a game that the round trip must keep."""
    tags = tuple(sorted((name, unescaped(value)) for name, value in game.headers.items() if name not in without))
    return tags, words(game.comment), tree(game)


def is_text_between_games(game: chess.pgn.Game) -> bool:
    """A "game" python-chess makes of text outside any game (a comment before the first tag):
    no moves and nothing but the default Seven Tag Roster."""
    return not game.variations and dict(game.headers) == dict(chess.pgn.Headers())


def identity(game: chess.pgn.Game) -> tuple:
    """What makes two games one for the import's duplicate check: names, date, time, round,
    result, start position and mainline."""
    fen = game.headers.get("FEN", chess.STARTING_FEN).strip()
    if fen == chess.STARTING_FEN:
        fen = ""
    names = tuple(unescaped(game.headers.get(tag, "?")) for tag in ("Event", "Site", "Date", "Round", "White",
                                                                   "Black", "UTCTime"))
    return names, fen, tuple(move.uci() for move in game.mainline_moves())


@dataclass
class Imported:
    stored: int
    duplicates: int
    refused: list[str]
    changed: list[str]
    exported: list[chess.pgn.Game]


def import_and_export(source: pathlib.Path, folder: pathlib.Path) -> Imported:
    db = folder / "games.db3"
    result = run(["import", "--db", str(db), str(source)], check=False)
    summary = re.search(r"([\d,]+) stored.*?, ([\d,]+) duplicates, ([\d,]+) refused", result.stdout)
    assert summary, result.stdout + result.stderr
    refused = re.findall(r"^  .*?: (game \d+, .*)$", result.stdout.split("Refused:")[1], re.M) \
        if "Refused:" in result.stdout else []
    changed = re.findall(r"^  .*?: (game \d+.*)$", result.stdout.split("Refused:")[0], re.M)
    exported = run(["export", "--db", str(db)]).stdout if db.exists() else ""
    return Imported(int(summary.group(1).replace(",", "")), int(summary.group(2).replace(",", "")), refused,
                    changed, games_of(exported))


def decoded(path: pathlib.Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def compare(name: str, path: pathlib.Path, folder: pathlib.Path) -> tuple[list[str], Imported, list]:
    """The games of the file that the export does not give back, each with why; and the import."""
    imported = import_and_export(path, folder)
    originals = [game for game in games_of(decoded(path)) if not is_text_between_games(game)]
    back = {canonical(game, without=("Incomplete",)) for game in imported.exported}
    identities = {identity(game) for game in imported.exported}
    players = {(game.headers.get("Event"), game.headers.get("White"), game.headers.get("Date"))
               for game in imported.exported}
    expected_misreads, _ = PYTHON_CHESS_MISREADS.get(name, (0, ""))
    lost, misread = [], 0
    for number, game in enumerate(originals, 1):
        if canonical(game) in back:
            continue
        if game.headers.get("Variant", "").lower() not in SUPPORTED_VARIANTS:
            continue  # refused, as the import says (checked below)
        if imported.duplicates and identity(game) in identities:
            continue  # a copy of a game stored before it
        if misread < expected_misreads and (game.headers.get("Event"), game.headers.get("White"),
                                            game.headers.get("Date")) in players:
            misread += 1
            continue
        lost.append(f"{name}: game {number} as python-chess reads it ({dict(game.headers)}, "
                    f"{len(list(game.mainline_moves()))} moves{', with errors' if game.errors else ''})")
    assert misread == expected_misreads, f"{name}: python-chess's misreadings, {misread} found"
    return lost, imported, originals


def test_every_game_python_chess_reads_comes_back_from_the_database_as_it_was(tmp_path):
    assert len(CORPUS) >= (90 if find_shared("corpus/collections/Malakhov.pgn") else 40)
    lost: list[str] = []
    compared = 0
    for index, (name, path) in enumerate(CORPUS):
        folder = tmp_path / str(index)
        folder.mkdir()
        file_lost, imported, originals = compare(name, path, folder)
        lost += file_lost
        compared += len(originals)
        # Only what the format cannot hold at all is refused.
        for refusal in imported.refused:
            assert re.search(r"unsupported variant|invalid FEN", refusal), f"{name}: {refusal}"
        # The export holds the games stored, and no other.
        assert len(imported.exported) == imported.stored, name
    assert lost == [], "\n".join(lost)
    assert compared > (4_800 if find_shared("corpus/collections/Malakhov.pgn") else 500)


def test_the_causes_of_refusal_are_stored_with_their_changes_listed(tmp_path):
    """The project's files of annotated, short-result and faulty games: every game stored, each
    change said in the summary, the games whose mainline stops early counted apart."""
    expected = {
        "pgn-lsp/chessbase-analysis.pgn": (5, 5, 0),
        "pgn-lsp/results-written-short.pgn": (6, 6, 0),
        "pgn-lsp/faults.pgn": (6, 6, 3),
        "pgn-lsp/tags-as-written.pgn": (6, 1, 0),
        "pgn-lsp/study-diagrams.pgn": (4, 0, 0),
    }
    files = dict(CORPUS)
    for name, (games, changed, incomplete) in expected.items():
        folder = tmp_path / name.replace("/", "-")
        folder.mkdir()
        lost, imported, originals = compare(name, files[name], folder)
        assert lost == [], lost
        assert (imported.stored, imported.duplicates, imported.refused) == (games, 0, []), name
        assert len(originals) == games, name
        assert len(imported.changed) == changed, imported.changed
        assert sum("(incomplete)" in line for line in imported.changed) == incomplete, imported.changed
    output = run(["import", "--db", str(tmp_path / "all.db3"), *(str(files[name]) for name in expected)]).stdout
    assert re.search(r"27 stored \(18 with changes, 3 of them incomplete\), 0 duplicates, 0 refused", output), output
    for said in ["null move 10...-- in a variation: the variation kept as a comment from there",
                 "the result 1/2 read as 1/2-1/2", "\"Qh4#0-1\" read as 2...Qh4# and the result 0-1",
                 "the note \"e.p.\" after 10.Nxa8 kept as a comment", "illegal move 25.Bxd4 in a variation",
                 "ambiguous move 7...Nd7 in a variation", "the note \"keep\" after 21.Bxc5 kept as a comment",
                 "game 5 (incomplete), unreadable move 2.Sf3: the game stored up to it, the rest kept as a comment",
                 "a variation with no move before it to replace kept as a comment"]:
        assert said in output, said


def test_pgn_lsp_keeps_at_least_the_games_ocgdb_stores(tmp_path):
    """ocgdb stores a game whatever its moves (up to the first it cannot read): pgn-lsp keeps at
    least as many of every file, counting copies it did not store twice."""
    fewer = []
    for index, (name, path) in enumerate(CORPUS):
        folder = tmp_path / str(index)
        folder.mkdir()
        made = ocgdb_create(path, folder / "peer.ocgdb.db3")
        if made.returncode != 0:
            continue  # ocgdb gives up on a file it cannot read at all (a variant): nothing to compare
        with sqlite3.connect(folder / "peer.ocgdb.db3") as connection:
            theirs = connection.execute("SELECT COUNT(*) FROM Games").fetchone()[0]
        ours = import_and_export(path, folder)
        # What pgn-lsp refuses is a variant the format cannot hold (the other test checks it).
        if ours.stored + ours.duplicates + len(ours.refused) < theirs:
            fewer.append(f"{name}: ocgdb {theirs}, pgn-lsp {ours.stored} + {ours.duplicates} copies")
    assert fewer == [], "\n".join(fewer)
