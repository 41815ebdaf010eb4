"""The position index checked from outside, against two independent readers of the same games.

python-chess is the judge: it replays the mainline of every game of the corpus files below,
and `pgn-lsp search --format json` must list exactly the games that reach each of a few hundred
positions (two positions are the same when the first four fields of python-chess's FEN are:
the board, the side to move, the castling rights, and the en-passant square when a capture
there is legal), at the first ply they reach it; `pgn-lsp explore --format json` must count
the moves, results and best-rated games a replay of the first 40 plies counts. ocgdb's
`-q "fen[FEN]"`, on the same file, must find the same games but where one of its quirks,
named and checked per game, makes it differ. The file with its index still opens in ocgdb and in Python's sqlite3 with the
same games, and changes made by another program make the index stale until it is rebuilt.
"""
from __future__ import annotations

import collections
import json
import os
import pathlib
import random
import re
import shutil
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import chess
import chess.pgn
import chess.polyglot
import pytest

from conftest import find_shared, ocgdb_binary, run, shared

# The files replayed, by their path in the shared folder. The project has copies of the first
# six (CC0, MIT, or written for it); the others come with the shared folder and are left out
# without it.
CORPUS = [
    "corpus/lichess/lichess_db_1000k.pgn",  # 438 blitz games: castling, en passant, promotions
    "corpus/pgn-lsp/position-keys.pgn",  # the same board with other castling rights or en-passant squares
    "corpus/pgn-lsp/setup-puzzles.pgn",  # FEN set-ups, White and Black to move
    "corpus/pgn-lsp/variations-nags.pgn",  # variations: the mainline alone counts
    "corpus/chess-library/castling.pgn",  # a FEN start with castling rights
    "corpus/chess-library/threefold_repetition.pgn",  # a position reached three times
    "corpus/collections/Malakhov.pgn",  # 1,802 master games: many transpositions
    "corpus/pychess/mate_in_2.pgn",  # 166 FEN set-ups
    "corpus/pgn-extract/fischer.pgn",
    "corpus/pgn-extract/test-repetition.pgn",  # repetitions
]
TREE_DEPTH = 40  # the plies the opening tree covers (PositionIndex.treeDepth)
RESULTS = {"1-0": 0, "1/2-1/2": 1, "½-½": 1, "0-1": 2}


@dataclass
class Game:
    id: int
    start: chess.Board
    moves: list[chess.Move]
    result: str
    rating: int | None = None  # the mean of both ratings, or the one there is

    def board_after(self, ply: int) -> chess.Board:
        board = self.start.copy(stack=False)
        for move in self.moves[:ply]:
            board.push(move)
        return board


@dataclass
class Node:
    """The opening tree's counts for one position, as a replay makes them."""
    games: int = 0
    results: list[int] = field(default_factory=lambda: [0, 0, 0])
    ended: int = 0
    moves: dict[str, list[int]] = field(default_factory=dict)  # uci → [games, white, draws, black]
    # uci → the best-rated game that played it: (rated, rating, -ID), ties to the first stored
    best: dict[str, tuple] = field(default_factory=dict)
    best_rating: int | None = None


class Replay:
    """Every game's mainline replayed by python-chess: where each position occurs, and the
    opening tree of the first plies."""

    def __init__(self, games: list[Game]):
        self.games = {game.id: game for game in games}
        # position key → game ID → the plies at which the game stands there
        self.occurrences: dict[tuple, dict[int, list[int]]] = collections.defaultdict(dict)
        self.tree: dict[tuple, Node] = collections.defaultdict(Node)
        for game in games:
            board = game.start.copy(stack=False)
            keys = [board._transposition_key()]
            for move in game.moves:
                board.push(move)
                keys.append(board._transposition_key())
            outcome = RESULTS.get(game.result.strip())
            seen = set()
            for ply, key in enumerate(keys):
                self.occurrences[key].setdefault(game.id, []).append(ply)
                # Each game counts once per position, with the move it played the first time there.
                if ply <= TREE_DEPTH and key not in seen:
                    node = self.tree[key]
                    node.games += 1
                    if outcome is not None:
                        node.results[outcome] += 1
                    if ply == len(game.moves):
                        node.ended += 1
                    else:
                        counts = node.moves.setdefault(game.moves[ply].uci(), [0, 0, 0, 0])
                        counts[0] += 1
                        if outcome is not None:
                            counts[1 + outcome] += 1
                        rank = (game.rating is not None, game.rating or 0, -game.id)
                        node.best[game.moves[ply].uci()] = max(node.best.get(game.moves[ply].uci(), rank), rank)
                    if game.rating is not None:
                        node.best_rating = max(node.best_rating or 0, game.rating)
                seen.add(key)

    def reaching(self, board: chess.Board) -> dict[int, int]:
        """Game ID → the first ply at which it reaches the position."""
        return {game: plies[0] for game, plies in self.occurrences.get(board._transposition_key(), {}).items()}


def rating(headers) -> int | None:
    ratings = [int(headers[tag]) for tag in ("WhiteElo", "BlackElo") if headers.get(tag, "").isdigit()
               and int(headers[tag]) > 0]
    return sum(ratings) // len(ratings) if ratings else None


def read_games(path: pathlib.Path) -> list[chess.pgn.Game]:
    games = []
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors, f"{path}: {game.errors}"
            games.append(game)
    return games


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The corpus imported into one database by `pgn-lsp import` (which builds the index), and
    python-chess's replay of the same games (IDs in file order: no game is refused or a duplicate)."""
    files = [path for relative in CORPUS if (path := find_shared(relative)) is not None]
    db = tmp_path_factory.mktemp("position-index") / "corpus.db3"
    summary = run(["import", "--db", str(db), *map(str, files)]).stdout
    sources = [game for path in files for game in read_games(path)]
    assert summary.endswith(f"{len(sources):,} stored, 0 duplicates, 0 refused\n"), summary
    games = [Game(k + 1, game.board(), list(game.mainline_moves()), game.headers.get("Result", "*"),
                  rating(game.headers))
             for k, game in enumerate(sources)]
    with sqlite3.connect(db) as connection:
        stored = connection.execute("SELECT ID, PlyCount, Result FROM Games ORDER BY ID").fetchall()
    # (A game without a Result tag has none stored: python-chess reads it as `*`.)
    assert [(i, plies, result or "*") for i, plies, result in stored] == [(g.id, len(g.moves), g.result) for g in games]
    return db, Replay(games)


def four_fields(board: chess.Board) -> str:
    return " ".join(board.fen().split()[:4])


def select_positions(replay: Replay) -> list[tuple[str, chess.Board]]:
    """A few hundred positions, by kind: after 1–30 plies of random games; deep; reached by one
    game; reached by transposition; siblings that differ only in castling rights or the
    en-passant square; after promotions and en-passant captures; the start positions."""
    rng = random.Random(14)
    games = list(replay.games.values())
    played = [g for g in games if g.moves]
    chosen: dict[tuple, tuple[str, chess.Board]] = {}

    def add(kind: str, board: chess.Board):
        chosen.setdefault(board._transposition_key(), (kind, board))

    add("start", chess.Board())
    set_ups = [g for g in games if g.start.fen() != chess.STARTING_FEN]
    for game in rng.sample(set_ups, min(12, len(set_ups))):
        add("set-up", game.board_after(0))
    for _ in range(180):
        game = rng.choice(played)
        add("opening", game.board_after(rng.randint(1, min(30, len(game.moves)))))
    deep = [g for g in played if len(g.moves) > TREE_DEPTH + 20]
    for game in rng.sample(deep, 25):
        add("deep", game.board_after(rng.randint(TREE_DEPTH + 1, len(game.moves))))
    # Positions reached by one game only, and by several games in different move orders.
    singles, transpositions = [], []
    for key, where in replay.occurrences.items():
        if len(where) == 1:
            singles.append((key, where))
        else:
            orders = {tuple(replay.games[g].moves[:plies[0]]) for g, plies in where.items()}
            if len(orders) > 1 and all(plies[0] > 0 for plies in where.values()):
                transpositions.append((key, where))
    for kind, pool, count in [("one game", singles, 20), ("transposition", transpositions, 30)]:
        for key, where in rng.sample(pool, min(count, len(pool))):
            game, plies = next(iter(where.items()))
            add(kind, replay.games[game].board_after(plies[0]))
    # Positions of the replay with the same board and side to move as another one of it.
    families = collections.defaultdict(list)
    for key, where in replay.occurrences.items():
        families[key[:-2]].append((key, where))
    for members in families.values():
        if len(members) > 1:
            for key, where in members:
                game, plies = next(iter(where.items()))
                add("sibling", replay.games[game].board_after(plies[0]))
    # Made-up siblings: a castling right taken away, a legal en-passant square dropped.
    for _ in range(15):
        board = rng.choice(played).board_after(rng.randint(1, 20))
        if board.castling_rights:
            board.castling_rights &= ~(1 << rng.choice(list(chess.SquareSet(board.castling_rights))))
            add("sibling", board)
    # After promotions (all the underpromotions), after en-passant captures, and where one is
    # legal (and the same board without the square).
    promotions, captures, squares = [], [], []
    for game in played:
        board = game.start.copy(stack=False)
        for move in game.moves:
            taken = board.is_en_passant(move)
            board.push(move)
            if move.promotion:
                promotions.append((move.promotion != chess.QUEEN, board.copy(stack=False)))
            elif taken:
                captures.append(board.copy(stack=False))
            elif board.has_pseudo_legal_en_passant() and not board.has_legal_en_passant():
                add("en passant", board.copy(stack=False))  # a pawn beside the double step, pinned
            elif board.has_legal_en_passant():
                squares.append(board.copy(stack=False))
    for under, board in promotions:
        if under:
            add("promotion", board)
    for board in rng.sample([board for under, board in promotions if not under], min(15, len(promotions))):
        add("promotion", board)
    for board in rng.sample(captures, min(10, len(captures))):
        add("en passant", board)
    for board in rng.sample(squares, min(10, len(squares))):
        add("en passant", board)
        board = board.copy(stack=False)
        board.ep_square = None
        add("sibling", board)
    return list(chosen.values())


@pytest.fixture(scope="module")
def positions(corpus):
    return select_positions(corpus[1])


def search(db, fen: str) -> dict:
    result = run(["search", "--db", str(db), "--fen", fen, "--format", "json", "--limit", "1000000"], check=False)
    answer = json.loads(result.stdout)
    assert result.returncode == (0 if answer["total"] else 1), (fen, result.stderr)
    return answer


def found_ids(db, board: chess.Board) -> set[int]:
    return {game["id"] for game in search(db, four_fields(board))["games"]}


def test_search_lists_the_games_python_chess_finds(corpus, positions):
    db, replay = corpus
    kinds = collections.Counter(kind for kind, _ in positions)
    # Every kind is there, in numbers.
    assert len(positions) >= 250 and min(n for kind, n in kinds.items() if kind != "start") >= 4, kinds
    assert kinds["sibling"] >= 10 and kinds["transposition"] >= 20 and kinds["deep"] >= 20, kinds

    rng = random.Random(7)
    queries = []
    for kind, board in positions:
        # The query as the user may write it: four fields, or the whole FEN (counters play no part).
        queries.append(board.fen() if rng.random() < 0.3 else four_fields(board))
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda fen: search(db, fen), queries))
    wrong = []
    for (kind, board), query, answer in zip(positions, queries, answers):
        expected = replay.reaching(board)
        found = {game["id"]: game["ply"] for game in answer["games"]}
        if answer["fen"] != four_fields(board) or answer["total"] != len(expected) or found != expected:
            wrong.append((kind, query, answer["fen"], sorted(set(found) ^ set(expected))[:10],
                          {g: (found.get(g), expected.get(g)) for g in set(found) | set(expected)
                           if found.get(g) != expected.get(g)}))
    assert not wrong, f"{len(wrong)} of {len(positions)} positions differ: {wrong[:5]}"
    # The searches did find games: most positions are reached, some by many games.
    totals = [answer["total"] for answer in answers]
    assert sum(t > 0 for t in totals) > 0.9 * len(totals) and max(totals) > len(replay.games) / 2


def test_the_fixture_positions_are_told_apart_by_castling_rights_and_en_passant(corpus):
    """Written for these cases (position-keys.pgn): the board after 1. e4 e5 with all, one side's
    and no castling rights; after 2. e5 d5 with and without the en-passant square; a pinned
    pawn beside a double step (no en-passant square in the FEN)."""
    db, replay = corpus
    after = chess.Board()
    for san in ["e4", "e5"]:
        after.push_san(san)
    boards = {"KQkq": after, "Qkq": after.copy(stack=False), "-": after.copy(stack=False)}
    boards["Qkq"].castling_rights &= ~chess.BB_H1
    boards["-"].castling_rights = 0
    ids = {rights: found_ids(db, board) for rights, board in boards.items()}
    for rights, board in boards.items():
        assert ids[rights] == set(replay.reaching(board)), rights
    assert len(ids["KQkq"]) > 50 and len(ids["Qkq"]) == 1 and len(ids["-"]) == 1 and ids["Qkq"] != ids["-"]
    with_square = chess.Board("rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3")
    without = chess.Board("rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    found = [found_ids(db, board) for board in (with_square, without)]
    assert found == [set(replay.reaching(with_square)), set(replay.reaching(without))]
    assert len(found[1]) == 1 and not found[0] & found[1]
    # d6 given for a pawn that cannot take: the same position as without it.
    pinned = search(db, "4k3/4r3/8/3pP3/8/8/8/4K3 w - d6")
    assert pinned["fen"] == "4k3/4r3/8/3pP3/8/8/8/4K3 w - -"
    assert {g["id"]: g["ply"] for g in pinned["games"]} == replay.reaching(chess.Board("4k3/4r3/8/3pP3/8/8/8/4K3 w - -"))
    assert sorted(g["ply"] for g in pinned["games"]) == [1, 7]


def explore(db, *args) -> tuple[int, dict]:
    result = run(["explore", "--db", str(db), "--format", "json", *args], check=False)
    return result.returncode, json.loads(result.stdout)


def test_explore_counts_what_a_replay_of_the_first_40_plies_counts(corpus, positions):
    db, replay = corpus
    rng = random.Random(40)
    shallow = [board for kind, board in positions if kind != "deep"]
    sample = rng.sample(shallow, min(90, len(shallow))) + [board for kind, board in positions if kind == "deep"][:10]
    wrong = []
    for board in sample:
        status, answer = explore(db, "--fen", board.fen())
        node = replay.tree.get(board._transposition_key(), Node())
        expected = {"games": node.games, "whiteWins": node.results[0], "draws": node.results[1],
                    "blackWins": node.results[2], "ended": node.ended}
        moves = {m["uci"]: [m["games"], m["whiteWins"], m["draws"], m["blackWins"]] for m in answer["moves"]}
        order = [(-m["games"], m["san"]) for m in answer["moves"]]
        best = {m["uci"]: m["bestGame"]["id"] for m in answer["moves"]}
        best_rating = rating({"WhiteElo": str(answer["bestGame"].get("whiteElo", "")),
                              "BlackElo": str(answer["bestGame"].get("blackElo", ""))}) if node.games else None
        if ({k: answer[k] for k in expected} != expected or moves != node.moves or order != sorted(order)
                or best != {uci: -rank[2] for uci, rank in node.best.items()} or best_rating != node.best_rating
                or status != (0 if node.games else 1)
                or any(board.san(chess.Move.from_uci(m["uci"])) != m["san"] for m in answer["moves"])):
            wrong.append((board.fen(), {k: answer[k] for k in expected}, expected, moves, node.moves))
    assert not wrong, f"{len(wrong)} of {len(sample)} positions differ: {wrong[:3]}"
    known = [board for board in sample if replay.tree.get(board._transposition_key())]
    assert len(known) > 60 and any(replay.tree[b._transposition_key()].ended for b in known)
    # --moves from the start: the same answers as the FEN after them.
    for moves in ["", "1. e4 e5 2. Nf3 Nc6", "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4", "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8"]:
        board = chess.Board()
        for word in moves.split():
            if not word[0].isdigit() or "." not in word:
                board.push_san(word)
            elif not word.endswith("."):
                board.push_san(word.split(".")[-1])
        status, answer = explore(db, "--moves", moves)
        node = replay.tree[board._transposition_key()]
        assert status == 0 and answer["fen"] == four_fields(board) and answer["games"] == node.games > 0, moves
        assert {m["uci"]: m["games"] for m in answer["moves"]} == {u: c[0] for u, c in node.moves.items()}, moves


# ocgdb ---------------------------------------------------------------------------------------

def ocgdb_query(ocgdb: pathlib.Path, db, fen: str, threads: int = 1) -> tuple[list[int], int]:
    """The game IDs ocgdb lists for `fen[FEN]` (one line per game, printed under a lock) and the
    count of its summary line (`#succ`)."""
    result = subprocess.run([str(ocgdb), "-db", str(db), "-cpu", str(threads), "-q", f"fen[{fen}]", "-o", "printall"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    ids = [int(found) for found in re.findall(r"^\d+\. gameId: (\d+)$", result.stdout, re.M)]
    return ids, int(re.search(r"#succ: (\d+)", result.stdout).group(1))


def ocgdb_reaches(game: Game, board: chess.Board) -> bool:
    """What ocgdb's query answers, from its source (search.cpp, board/chess.cpp): it compares
    Polyglot Zobrist keys, which count an en-passant square whenever a pawn of the side to move
    stands beside the pawn that moved two squares, a capture legal or not (python-chess's FEN
    and pgn-lsp count it only when the capture is legal); and it looks at the positions after
    each move only, never at the one a game starts from."""
    target = chess.polyglot.zobrist_hash(chess.Board(board.fen()))  # the position of the FEN ocgdb is given
    position = game.start.copy(stack=False)
    for move in game.moves:
        position.push(move)
        if chess.polyglot.zobrist_hash(position) == target:
            return True
    return False


def test_ocgdb_finds_the_same_games_but_for_two_quirks_each_explained(corpus, positions):
    ocgdb = ocgdb_binary()
    db, replay = corpus
    # Each query reads the whole file: the start, the set-ups, the pinned pawns, and a share of the others.
    rng = random.Random(3)
    sample = [(kind, board) for kind, board in positions
              if kind in ("start", "set-up") or board.has_pseudo_legal_en_passant() and not board.has_legal_en_passant()
              or rng.random() < 0.2]
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda item: ocgdb_query(ocgdb, db, item[1].fen()), sample))
    explained = collections.Counter()
    wrong = []
    for (kind, board), (ids, count) in zip(sample, answers):
        assert count == len(ids) == len(set(ids)), board.fen()
        expected = replay.reaching(board)
        for game_id in set(ids) | set(expected):
            game = replay.games[game_id]
            if (game_id in ids) != ocgdb_reaches(game, board):
                wrong.append((board.fen(), game_id, "ocgdb's answer is not what its rules give"))
            elif (game_id in ids) != (game_id in expected):
                # ocgdb misses it: the game reaches the position only at its start, or only where
                # a pawn could take en passant but for a pin (the Polyglot key differs).
                assert game_id in expected and game_id not in ids
                plies = replay.occurrences[board._transposition_key()][game_id]
                pinned = [p for p in plies if p > 0 and game.board_after(p).has_pseudo_legal_en_passant()]
                assert [p for p in plies if p > 0] == pinned, (board.fen(), game_id, plies)
                explained["start position" if plies == [0] else "en passant pinned"] += 1
    assert not wrong, wrong[:10]
    # Both quirks were met (the standard start and the set-ups; the pinned pawn of position-keys.pgn),
    # and otherwise every game agrees.
    assert explained["start position"] >= len(replay.games) * 0.5 and explained["en passant pinned"] >= 1, explained
    assert len(sample) >= 60


def test_ocgdbs_summary_count_can_fall_short_of_the_games_it_lists(tmp_path):
    """On many games read by several threads, ocgdb's `#succ` can be lower than the games it
    lists (4,898 for 4,900 on the 1 MB lichess file ×100): the threads add to that count
    without a lock (search.cpp's `succCount++`), while each game's line is printed under one.
    The list is whole: the same games as python-chess finds; one thread counts them all."""
    ocgdb = ocgdb_binary()
    source = shared("corpus/lichess/lichess_db_1000k.pgn")
    data = source.read_bytes().rstrip(b"\n") + b"\n\n"
    copies = 20
    big = tmp_path / "big.pgn"
    big.write_bytes(b"".join(data.replace(b'[Round "-"]', b'[Round "%d"]' % copy) for copy in range(copies)))
    db = tmp_path / "big.db3"
    run(["import", "--db", str(db), str(big)])
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6"]:
        board.push_san(san)
    games = read_games(source)
    reaching = [k for k, game in enumerate(games)
                if board._transposition_key() in {b._transposition_key() for b in _boards(game)}]
    per_copy = len(games)
    expected = sorted(copy * per_copy + k + 1 for copy in range(copies) for k in reaching)
    assert [g["id"] for g in search(db, four_fields(board))["games"]] == expected
    for threads in (4, 4, 1):
        ids, count = ocgdb_query(ocgdb, db, board.fen(), threads)
        assert sorted(ids) == expected
        assert count <= len(ids) if threads > 1 else count == len(ids)


def _boards(game: chess.pgn.Game):
    board = game.board()
    yield board.copy(stack=False)
    for move in game.mainline_moves():
        board.push(move)
        yield board.copy(stack=False)


def test_the_indexed_file_opens_in_ocgdb_and_sqlite_with_the_same_games(corpus, tmp_path):
    db, replay = corpus
    # The same files imported without the index: the same Games rows, byte for byte.
    files = [path for relative in CORPUS if (path := find_shared(relative)) is not None]
    plain = tmp_path / "plain.db3"
    run(["import", "--no-position-index", "--db", str(plain), *map(str, files)])
    with sqlite3.connect(db) as indexed, sqlite3.connect(plain) as other:
        assert indexed.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = indexed.execute("SELECT * FROM Games ORDER BY ID").fetchall()
        assert rows == other.execute("SELECT * FROM Games ORDER BY ID").fetchall()
        tables = {name for (name,) in indexed.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables - {name for (name,) in other.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} \
            == {"PositionMoves", "PositionSignatures", "PositionTree", "PositionSingles", "PositionIndexState"}
        assert indexed.execute("SELECT COUNT(*) FROM PositionMoves").fetchone() == (len(rows),)
        # The index's copy of the moves is ocgdb's Moves2, game by game.
        assert indexed.execute(
            "SELECT COUNT(*) FROM Games g JOIN PositionMoves m ON m.GameID = g.ID WHERE m.Moves IS NOT g.Moves2"
        ).fetchone() == (0,)
    ocgdb = ocgdb_binary()
    out = tmp_path / "exported.pgn"
    exported = subprocess.run([str(ocgdb), "-db", str(db), "-export", "-pgn", str(out)], capture_output=True,
                              text=True, timeout=300)
    assert exported.returncode == 0, exported.stderr
    games = read_games(out)
    # ocgdb's reader passes over a row whose moves are empty (dbread.cpp, `if (moveVec.empty())
    # continue;`): games without moves are not exported, the others all are (in the order its
    # threads finish them).
    with_moves = [game for game in replay.games.values() if game.moves]
    assert len(with_moves) >= len(replay.games) - 10
    assert collections.Counter((game.board().fen(), tuple(game.mainline_moves())) for game in games) == \
        collections.Counter((game.start.fen(), tuple(game.moves)) for game in with_moves)


def test_a_file_ocgdb_made_gets_an_index_and_still_opens_in_ocgdb(tmp_path):
    """ocgdb's files lack columns a write of games needs, not what the index reads."""
    ocgdb = ocgdb_binary()
    made = tmp_path / "made.ocgdb.db3"
    created = subprocess.run([str(ocgdb), "-create", "-pgn", str(shared("corpus/lichess/lichess_db_1000k.pgn")),
                              "-db", str(made), "-cpu", "1", "-o", "moves"], capture_output=True, text=True,
                             timeout=300)
    assert made.exists(), created.stderr
    assert run(["index", "--db", str(made)]).returncode == 0
    assert run(["index", "--check", "--db", str(made)]).returncode == 0
    # The same answers as a file pgn-lsp writes with the same games (ocgdb's import does not
    # always store every game of a file: the games are those it stored).
    pgn = tmp_path / "stored.pgn"
    run(["export", "--db", str(made), "--output", str(pgn)])
    ours = tmp_path / "ours.db3"
    run(["import", "--db", str(ours), str(pgn)])
    for moves in ["", "1. e4", "1. e4 e5 2. Nf3", "1. d4 d5 2. c4", "1. e4 c5"]:
        status, expected = explore(ours, "--moves", moves)
        status_made, answer = explore(made, "--moves", moves)
        assert (status_made, answer["games"], answer["ended"], [(m["san"], m["games"]) for m in answer["moves"]]) \
            == (status, expected["games"], expected["ended"], [(m["san"], m["games"]) for m in expected["moves"]])
    with sqlite3.connect(made) as connection:
        with_moves = connection.execute("SELECT COUNT(*) FROM Games WHERE length(Moves) > 0").fetchone()[0]
    out = tmp_path / "exported.pgn"
    exported = subprocess.run([str(ocgdb), "-db", str(made), "-export", "-pgn", str(out)], capture_output=True,
                              text=True, timeout=300)
    assert exported.returncode == 0, exported.stderr
    assert len(read_games(out)) == with_moves


# Changes by other programs -------------------------------------------------------------------

@pytest.fixture
def lichess(tmp_path):
    """The lichess file imported (with its index), and python-chess's replay of its games."""
    source = shared("corpus/lichess/lichess_db_1000k.pgn")
    db = tmp_path / "lichess.db3"
    run(["import", "--db", str(db), str(source)])
    games = [Game(k + 1, game.board(), list(game.mainline_moves()), game.headers.get("Result", "*"),
                  rating(game.headers))
             for k, game in enumerate(read_games(source))]
    return db, games


def check_index(db) -> tuple[int, str]:
    result = run(["index", "--db", str(db), "--check"], check=False)
    return result.returncode, result.stdout


def change(db, *statements):
    with sqlite3.connect(db) as connection:
        for statement in statements:
            connection.execute(statement)


def test_changes_by_another_program_make_the_index_stale_until_a_search_rebuilds_it(lichess):
    db, games = lichess
    assert check_index(db) == (0, f"{db}: the database's position index is up to date\n")
    # A game row copied from another (another Round, as a copy would have): the copy reaches
    # what the original reaches.
    with sqlite3.connect(db) as connection:
        columns = [name for _, name, *_ in connection.execute("PRAGMA table_info(Games)") if name != "ID"]
    values = ", ".join("'copy'" if name == "Round" else name for name in columns)
    change(db, f"INSERT INTO Games ({', '.join(columns)}) SELECT {values} FROM Games WHERE ID = 3")
    stale = "the database's position index is out of date (1 change to the games since it was built, " \
            "by another program)"
    assert check_index(db) == (1, f"{db}: {stale}; build it with: pgn-lsp index --db {db}\n")
    board = games[2].board_after(12)
    replay = Replay(games + [Game(len(games) + 1, games[2].start, games[2].moves, games[2].result)])
    result = run(["search", "--db", str(db), "--fen", board.fen(), "--format", "json"])
    assert result.stderr == f"{stale}: building it\n{len(games) + 1} games indexed\n"
    assert {g["id"]: g["ply"] for g in json.loads(result.stdout)["games"]} == replay.reaching(board)
    assert len(games) + 1 in replay.reaching(board)
    assert check_index(db)[0] == 0

    # A game deleted: no search lists it any more.
    after_e4 = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    removed = min(replay.reaching(after_e4))
    change(db, f"DELETE FROM Games WHERE ID = {removed}")
    assert check_index(db)[0] == 1
    del replay.games[removed]
    replay = Replay(list(replay.games.values()))
    answer = search(db, four_fields(after_e4))
    assert {g["id"]: g["ply"] for g in answer["games"]} == replay.reaching(after_e4) and removed not in replay.reaching(after_e4)

    # A result changed: the explorer counts the new one. A change to a column the index does
    # not read (the round) leaves it up to date.
    _, before = explore(db, "--moves", "1. e4")
    loser = next(g for g in sorted(replay.reaching(after_e4)) if replay.games[g].result == "0-1")
    change(db, f"UPDATE Games SET Round = 'changed' WHERE ID = {loser}")
    assert check_index(db)[0] == 0
    change(db, f"UPDATE Games SET Result = '1-0' WHERE ID = {loser}")
    assert check_index(db)[0] == 1
    status, after = explore(db, "--moves", "1. e4")
    assert status == 0
    assert (after["whiteWins"], after["blackWins"], after["games"]) == \
        (before["whiteWins"] + 1, before["blackWins"] - 1, before["games"])
    assert check_index(db)[0] == 0


def read_only(path: pathlib.Path):
    """Makes the folder of `path` read-only for this program: by its mode, or, for root (whom modes do
    not stop), by a read-only bind mount over it. Returns the function that undoes it."""
    folder = path.parent
    if os.geteuid() != 0:
        path.chmod(0o444)
        folder.chmod(0o555)
        return lambda: (folder.chmod(0o755), path.chmod(0o644))
    mounted = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot make a read-only folder as root here: {mounted.stderr.decode()[-200:]}")
    remounted = subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], capture_output=True)
    if remounted.returncode != 0:
        subprocess.run(["umount", str(folder)])
        pytest.skip(f"cannot make a read-only folder as root here: {remounted.stderr.decode()[-200:]}")
    return lambda: subprocess.run(["umount", str(folder)], check=True)


def test_a_stale_index_in_a_read_only_file_is_a_clear_error(lichess):
    db, games = lichess
    change(db, "DELETE FROM Games WHERE ID = 5")
    before = db.read_bytes()
    undo = read_only(db)
    try:
        assert check_index(db)[0] == 1
        for command in (["search", "--fen", "8/8/8/8/8/8/8/K6k w"], ["explore", "--moves", "1. e4"]):
            result = run([command[0], "--db", str(db), *command[1:]], check=False)
            assert result.returncode not in (0, 1) and result.stdout == ""
            assert result.stderr.startswith(
                f"Error: {db}: the database's position index is out of date (1 change to the games since it was "
                f"built, by another program); build it with: pgn-lsp index --db {db}"), result.stderr
    finally:
        undo()
    assert db.read_bytes() == before
