"""Differential tests of repertoires against python-chess: `pgn-lsp repertoire check`, and the
server's repertoire gaps against a database of the same games.

Two repertoires are made from the lichess corpus file with python-chess: the first ten plies of
forty games merged into one tree of nested variations for White, and of forty other games for
Black, split into chapters. Every game of the file is given to one player ("Test Player", White
in the even games, Black in the odd ones) and followed through the repertoire of their side,
here with python-chess positions (board, side to move, castling, a capturable en-passant
square: transpositions are one position) and by pgn-lsp. Both must say, for every game, who
left the repertoire, at which ply, with which move, and what the repertoire had there.
"""
import io
import pathlib
import json
import subprocess

import chess
import chess.pgn

from conftest import binary, shared

PLIES = 10


def key(board: chess.Board) -> str:
    return board.epd(en_passant="legal")


def read_games(path):
    games = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def chapters(sources, side, per_chapter):
    """Chapters of a repertoire: the first PLIES plies of `per_chapter` games merged into one tree
    each, with the Orientation tag of `side`."""
    result = []
    for start in range(0, len(sources), per_chapter):
        chapter = chess.pgn.Game()
        chapter.headers.clear()
        chapter.headers["Event"] = f"{side} chapter {start // per_chapter + 1}"
        chapter.headers["Orientation"] = side
        for source in sources[start:start + per_chapter]:
            node = chapter
            for move in list(source.mainline_moves())[:PLIES]:
                node = node.variation(move) if node.has_variation(move) else node.add_variation(move)
        result.append(chapter)
    return result


def positions_and_moves(repertoire):
    positions, moves = set(), {}
    for chapter in repertoire:
        board = chapter.board()
        positions.add(key(board))

        def walk(node, board):
            for child in node.variations:
                before = key(board)
                san = board.san(child.move)
                moves.setdefault(before, [])
                if san not in moves[before]:
                    moves[before].append(san)
                board.push(child.move)
                positions.add(key(board))
                walk(child, board)
                board.pop()

        walk(chapter, board)
    return positions, moves


TRANSPOSED = []


def follow(game, side, positions, moves):
    """(kind, ply, played, prepared) as `repertoire check --format json` gives them; counts the
    moves that stayed in the repertoire by transposition (not written in the position before)."""
    board = game.board()
    if key(board) not in positions:
        return ("notMet", 0, None, [])
    mainline = list(game.mainline_moves())
    for ply, move in enumerate(mainline):
        before = key(board)
        prepared = moves.get(before, [])
        san = board.san(move)
        turn = "white" if board.turn == chess.WHITE else "black"
        board.push(move)
        if key(board) in positions:
            if san not in prepared:
                TRANSPOSED.append(san)
            continue
        if not prepared:
            return ("ended", ply, None, [])
        return ("player" if turn == side else "opponent", ply, san, sorted(prepared))
    return ("stayed", len(mainline), None, sorted(moves.get(key(board), [])))


def test_where_each_game_left_the_repertoire_agrees_with_python_chess(tmp_path):
    games = read_games(shared("corpus/lichess/lichess_db_1000k.pgn"))
    white = chapters(games[:40], "white", 10)
    black = chapters(games[40:80], "black", 20)
    (tmp_path / "white.pgn").write_text("\n\n".join(str(c) for c in white) + "\n")
    (tmp_path / "black.pgn").write_text("\n\n".join(str(c) for c in black) + "\n")
    played = []
    for k, game in enumerate(games):
        game.headers["White" if k % 2 == 0 else "Black"] = "Test Player"
        played.append(str(game))
    (tmp_path / "games.pgn").write_text("\n\n".join(played) + "\n")
    made = subprocess.run(
        [str(binary()), "repertoire", "check", "--repertoire", str(tmp_path / "white.pgn"), "--repertoire",
         str(tmp_path / "black.pgn"), "--player", "test player", "--format", "json", str(tmp_path / "games.pgn")],
        capture_output=True, text=True, timeout=120)
    assert made.returncode in (0, 1), made.stderr
    answers = json.loads(made.stdout)["games"]
    assert len(answers) == len(games)
    repertoires = {"white": positions_and_moves(white), "black": positions_and_moves(black)}
    kinds = {}
    for k, (game, answer) in enumerate(zip(games, answers)):
        side = "white" if k % 2 == 0 else "black"
        assert answer["game"] == k + 1 and answer["color"] == side
        expected = follow(game, side, *repertoires[side])
        got = (answer["kind"], answer["ply"], answer["played"], sorted(answer["prepared"]))
        if expected[0] in ("ended",):
            got = got[:3] + ([],)
        assert got == expected, f"game {k + 1}"
        kinds[expected[0]] = kinds.get(expected[0], 0) + 1
    # The comparison covers every way of leaving, transpositions among the games' orders.
    assert {"player", "opponent", "ended"} <= set(kinds), kinds
    assert TRANSPOSED, "some games stay in the repertoire by transposition"
    assert made.returncode == 1, "the player left the repertoire in some games"


def test_gaps_agree_with_a_python_chess_replay_of_the_reference_games(tmp_path):
    """The explorer's database made from the lichess file; a White repertoire of nested variations
    from 30 of its games, to 10 plies. Every reply the server reports as a gap (every reply of at
    least one game: `repertoire.minGames` 1, `minShare` 0.01) must be one a python-chess replay of
    the same games finds: at a position of the repertoire where Black moves, in the first game that
    reaches it, a reply whose position no line reaches by any move order, with the share of the
    games that reached the position there; and none is missing. Each chapter's code lens gives the
    share of the games at its first position where Black moves that no unanswered reply takes out.
    """
    import re
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "e2e"))
    from lsp_client import LSPClient

    source = shared("corpus/lichess/lichess_db_1000k.pgn")
    games = read_games(source)
    folder = tmp_path / "games"
    folder.mkdir()
    subprocess.run([str(binary()), "import", "--db", str(folder / "games.ocgdb.db3"), str(source)], check=True,
                   capture_output=True)
    depth = 10
    white = chapters(games[:30], "white", 10)
    text = "\n\n".join(str(c) for c in white) + "\n"
    # What python-chess finds: the repertoire's positions, and where Black moves within the depth,
    # in order, the first time each is reached.
    positions, _ = positions_and_moves(white)
    places, by_chapter = [], []
    for chapter in white:
        mine = []

        def walk(node, board, ply):
            for child in node.variations:
                board.push(child.move)
                if board.turn == chess.BLACK and ply + 1 < depth:
                    places.append((key(board), board.fullmove_number))
                    mine.append(key(board))
                walk(child, board, ply + 1)
                board.pop()
        walk(chapter, chapter.board(), 0)
        by_chapter.append(mine)
    seen, ordered = set(), []
    for place, number in places:
        if place not in seen:
            seen.add(place)
            ordered.append((place, number))
    totals, replies = {}, {}
    for game in games:
        board = game.board()
        visited = set()
        for ply, move in enumerate(game.mainline_moves()):
            if ply >= 40:
                break
            here = key(board)
            if here in seen and here not in visited:
                visited.add(here)
                totals[here] = totals.get(here, 0) + 1
                replies.setdefault(here, {})
                san = board.san(move)
                board.push(move)
                if key(board) not in positions:
                    replies[here][san] = replies[here].get(san, 0) + 1
                continue
            board.push(move)
        if key(board) in seen and key(board) not in visited:
            totals[key(board)] = totals.get(key(board), 0) + 1
    expected = set()
    for place, number in ordered:
        for san, count in replies.get(place, {}).items():
            # Rounded half up, as the server rounds.
            expected.add((f"{number}... {san}", totals[place], int(100 * count / totals[place] + 0.5)))
    client = LSPClient()
    try:
        client.request("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": {},
                                      "initializationOptions": {"pgn": {
                                          "engine": {"hoverMs": 0},
                                          "repertoire": {"minGames": 1, "minShare": 0.01, "depth": depth}}}})
        client.notify("initialized", {})
        uri = (folder / "white.pgn").as_uri()
        client.open(uri, text)
        diagnostics = client.diagnostics(uri)
        lenses = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    finally:
        client.close()
    # Each chapter's coverage: of the games at its first position where Black moves, those that
    # leave it by a reply no line answers, at the positions it reaches first.
    expected_coverage, earlier = [], set()
    for mine in by_chapter:
        first = totals.get(mine[0], 0) if mine else 0
        left = sum(sum(replies.get(place, {}).values()) for place in dict.fromkeys(mine) if place not in earlier)
        earlier.update(mine)
        if first:
            expected_coverage.append((int(100 * max(0, first - left) / first + 0.5), first))
    titles = [lens["command"]["title"] for lens in lenses if lens["command"]["command"] == "pgn.goToRepertoireGap"]
    coverage = []
    for title in titles:
        parsed = re.match(r"^Repertoire: (\d+)% of ([\d,]+) games? answered", title)
        assert parsed, title
        coverage.append((int(parsed.group(1)), int(parsed.group(2).replace(",", ""))))
    assert len(coverage) == len(white) and coverage == expected_coverage, (coverage, expected_coverage)
    found = set()
    for diagnostic in diagnostics:
        if diagnostic.get("code") != "repertoire-gap":
            continue
        parsed = re.match(r"^(\d+\.\.\. \S+): (\d+)% of ([\d,]+) games? — not prepared", diagnostic["message"])
        assert parsed, diagnostic["message"]
        found.add((parsed.group(1), int(parsed.group(3).replace(",", "")), int(parsed.group(2))))
    assert len(expected) > 20, expected
    assert found == expected
