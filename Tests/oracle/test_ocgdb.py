"""`pgn-lsp import` checked from outside: the database is read with Python's sqlite3 only, its
`Moves` column decoded by En Croissant's move order implemented here again from the format
document (on python-chess's legal moves), its `Moves2` column by its bit layout, and every
game's mainline compared with python-chess reading the source PGN. Also: the schema, the
Info rows, and a database whose import was killed midway."""
import os
import pathlib
import signal
import sqlite3
import subprocess
import time

import chess
import chess.pgn
import pytest

from conftest import ROOT, binary, ocgdb_create, run, shared

LICHESS = "corpus/lichess/lichess_db_1000k.pgn"
MALAKHOV = "corpus/collections/Malakhov.pgn"  # no stated licence: with the shared folder only
# Files written for the project, imported with the lichess games when Malakhov.pgn is not there.
WRITTEN = ["corpus/pgn-lsp/crlf-malformed-tag.pgn", "corpus/pgn-lsp/variations-nags.pgn",
           "corpus/pgn-lsp/utf8-multibyte.pgn"]
PROMOTION_ORDER = [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT]


def order_key(board: chess.Board, move: chess.Move, in_check: bool):
    """The documented order: en passant; in check, king moves; captures toward the a-file, then
    toward the h-file (non-promotions, then promotions Q R B N); pushes; promotion pushes;
    double pushes; knights, bishops, rooks, queens by from then to; king; castling K then Q."""
    promotion = PROMOTION_ORDER.index(move.promotion) if move.promotion else 0
    if board.is_en_passant(move):
        return (0, move.from_square)
    if board.is_castling(move):
        return (12, 0 if board.is_kingside_castling(move) else 1)
    piece = board.piece_type_at(move.from_square)
    if piece == chess.KING:
        return (1 if in_check else 11, move.to_square)
    if piece == chess.PAWN:
        file_step = chess.square_file(move.to_square) - chess.square_file(move.from_square)
        if file_step != 0:
            return (2 if file_step < 0 else 3, 1 if move.promotion else 0, move.to_square, promotion)
        if move.promotion:
            return (5, move.to_square, promotion)
        if abs(move.to_square - move.from_square) == 16:
            return (6, move.to_square)
        return (4, move.to_square)
    group = {chess.KNIGHT: 7, chess.BISHOP: 8, chess.ROOK: 9, chess.QUEEN: 10}[piece]
    return (group, move.from_square, move.to_square)


def ordered_moves(board: chess.Board):
    in_check = board.is_check()
    return sorted(board.legal_moves, key=lambda move: order_key(board, move, in_check))


def test_the_python_order_agrees_with_the_reference_list():
    """The oracle's own order, checked on the first 500 reference positions."""
    lines = shared("fixtures/encroissant-move-order.tsv").read_text().splitlines()
    positions = [line for line in lines if not line.startswith("#")][:500]
    for line in positions:
        fen, moves = line.split("\t")
        board = chess.Board(fen)
        assert [m.uci() for m in ordered_moves(board)] == moves.split(), fen


def decode_moves_mainline(blob: bytes, board: chess.Board):
    """The mainline of an En Croissant `Moves` blob, and its count of mainline comments."""
    moves, comments, depth, i = [], 0, 0, 0
    while i < len(blob):
        byte = blob[i]
        if byte in (252, 253):
            length = blob[i + 1] | blob[i + 2] << 8
            comments += byte == 253 and depth == 0
            i += 3 + length
            continue
        if byte == 255:
            depth += 1
        elif byte == 254:
            depth -= 1
        elif depth == 0:
            move = ordered_moves(board)[byte]
            moves.append(move)
            board.push(move)
        i += 1
    return moves, comments


def count_mainline(blob: bytes):
    """Mainline moves and mainline comments of a `Moves` blob, without decoding the moves."""
    moves, comments, depth, i = 0, 0, 0, 0
    while i < len(blob):
        byte = blob[i]
        if byte in (252, 253):
            comments += byte == 253 and depth == 0
            i += 3 + (blob[i + 1] | blob[i + 2] << 8)
            continue
        depth += (byte == 255) - (byte == 254)
        moves += byte < 252 and depth == 0
        i += 1
    return moves, comments


def decode_moves2(blob: bytes):
    moves = []
    for k in range(0, len(blob), 2):
        code = blob[k] | blob[k + 1] << 8
        promotion = {0: None, 2: chess.KNIGHT, 3: chess.BISHOP, 4: chess.ROOK, 5: chess.QUEEN}[code >> 12]
        moves.append(chess.Move(code & 63, (code >> 6) & 63, promotion))
    return moves


def source_games(path: pathlib.Path):
    games = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def import_files(db: pathlib.Path, *files):
    result = run(["import", "--db", str(db), *map(str, files)])
    return result.stdout


@pytest.mark.parametrize("others", [[MALAKHOV], WRITTEN], ids=["malakhov", "written"])
def test_every_mainline_matches_python_chess(tmp_path, others):
    db = tmp_path / "games.db3"
    files = [shared(LICHESS)] + [shared(other) for other in others]
    summary = import_files(db, *files)
    sources = [game for file in files for game in source_games(file)]
    assert summary.endswith(f"{len(sources):,} stored, 0 duplicates, 0 refused\n"), summary
    connection = sqlite3.connect(db)
    rows = connection.execute(
        "SELECT ID, Moves, Moves2, PlyCount, FEN, WhiteMaterial, BlackMaterial, PawnHome FROM Games ORDER BY ID"
    ).fetchall()
    assert len(rows) == len(sources)
    comment_rows = dict(connection.execute(
        "SELECT GameID, COUNT(*) FROM Comments WHERE Ply >= -1 GROUP BY GameID").fetchall())
    for (game_id, blob, blob2, plies, fen, white_material, black_material, pawn_home), source in zip(rows, sources):
        expected = list(source.mainline_moves())
        assert fen is None
        moves, comments = decode_moves_mainline(blob, chess.Board())
        assert moves == expected, f"game {game_id}: Moves"
        assert decode_moves2(blob2) == expected, f"game {game_id}: Moves2"
        assert plies == len(expected)
        assert comments == comment_rows.get(game_id, 0), f"game {game_id}: Comments rows"
        # Material minimum and pawns at home, recomputed on python-chess's boards.
        board = chess.Board()
        values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
        lowest = {chess.WHITE: 39, chess.BLACK: 39}
        for move in expected:
            board.push(move)
            for color in lowest:
                material = sum(len(board.pieces(p, color)) * v for p, v in values.items())
                lowest[color] = min(lowest[color], material)
        assert (white_material, black_material) == (lowest[chess.WHITE], lowest[chess.BLACK])
        home = sum(1 << chess.square_file(s) for s in board.pieces(chess.PAWN, chess.WHITE) if chess.square_rank(s) == 1)
        home |= sum(1 << (8 + chess.square_file(s)) for s in board.pieces(chess.PAWN, chess.BLACK)
                    if chess.square_rank(s) == 6)
        assert pawn_home == home


def decode_moves_fully(blob: bytes, board: chess.Board):
    """Every line of an En Croissant `Moves` blob as En Croissant reads it: each move byte an index
    into the legal moves of its line's position (a byte that is none fails), a variation from the
    position before the move it replaces. The mainline's moves, and the comments' texts."""
    lines = [[board.copy(stack=False), None]]  # position, position before its last move
    mainline, comments, i = [], [], 0
    while i < len(blob):
        byte = blob[i]
        if byte in (252, 253):
            length = blob[i + 1] | blob[i + 2] << 8
            if byte == 253:
                comments.append(blob[i + 3:i + 3 + length].decode())
            i += 3 + length
            continue
        if byte == 255:
            before = lines[-1][1]
            assert before is not None, "a variation with no move to replace"
            lines.append([before.copy(stack=False), None])
        elif byte == 254:
            lines.pop()
        else:
            position = lines[-1][0]
            legal = ordered_moves(position)
            assert byte < len(legal), f"byte {byte} names no legal move of {position.fen()}"
            lines[-1][1] = position.copy(stack=False)
            if len(lines) == 1:
                mainline.append(legal[byte])
            position.push(legal[byte])
        i += 1
    assert len(lines) == 1, "a variation left open"
    return mainline, comments


WHAT_COLUMNS_CANNOT_HOLD = ["corpus/pgn-lsp/chessbase-analysis.pgn", "corpus/pgn-lsp/results-written-short.pgn",
                            "corpus/pgn-lsp/faults.pgn", "corpus/pgn-lsp/tags-as-written.pgn",
                            "corpus/pgn-lsp/study-diagrams.pgn", "corpus/pgn-lsp/null-moves.pgn"]


def test_games_stored_with_changes_read_in_both_programs_ways(tmp_path):
    """Null moves, faults, notes and results written short, kept as comments: En Croissant's way
    of reading the blob reads every line of every game (each byte a legal move), ocgdb's
    `Moves2` and `PlyCount` hold the mainline up to what was kept as text, which is the start of
    python-chess's mainline of the original (python-chess reads past a null move)."""
    db = tmp_path / "games.db3"
    files = [shared(name) for name in WHAT_COLUMNS_CANNOT_HOLD]
    summary = import_files(db, *files)
    sources = [game for file in files for game in source_games(file)]
    assert summary.endswith(f"{len(sources):,} stored (20 with changes, 3 of them incomplete), 0 duplicates, "
                            "0 refused\n"), summary
    connection = sqlite3.connect(db)
    rows = connection.execute("SELECT ID, Moves, Moves2, PlyCount, FEN FROM Games ORDER BY ID").fetchall()
    assert len(rows) == len(sources)
    kept = 0
    for (game_id, blob, blob2, plies, fen), source in zip(rows, sources):
        start = source.board()
        assert (fen is None) == (start.fen() == chess.STARTING_FEN), f"game {game_id}"
        mainline, comments = decode_moves_fully(blob, start)
        assert decode_moves2(blob2) == mainline and plies == len(mainline), f"game {game_id}"
        expected = []
        for move in source.mainline_moves():
            if not move:
                break  # a null move: the mainline is stored up to it
            expected.append(move)
        # python-chess's reading of a game where it errs is not one to compare with: after an
        # error in a variation it goes on with that variation's board.
        if not source.errors:
            assert mainline == expected[:len(mainline)], f"game {game_id}"
        kept += sum(comment.startswith("PGN as written: ") for comment in comments)
    assert kept >= 20


def test_schema_info_sentinels_and_journal_mode(tmp_path):
    db = tmp_path / "games.db3"
    import_files(db, shared(LICHESS))
    connection = sqlite3.connect(db)
    columns = [(name, kind) for _, name, kind, *_ in connection.execute("PRAGMA table_info(Games)")]
    assert columns == [
        ("ID", "INTEGER"), ("EventID", "INTEGER"), ("SiteID", "INTEGER"), ("Date", "TEXT"), ("UTCTime", "TEXT"),
        ("Round", "TEXT"), ("WhiteID", "INTEGER"), ("WhiteElo", "INTEGER"), ("BlackID", "INTEGER"),
        ("BlackElo", "INTEGER"), ("WhiteMaterial", "INTEGER"), ("BlackMaterial", "INTEGER"), ("Result", "TEXT"),
        ("TimeControl", "TEXT"), ("ECO", "TEXT"), ("PlyCount", "INTEGER"), ("FEN", "TEXT"), ("Moves", "BLOB"),
        ("PawnHome", "BLOB"), ("Moves2", "BLOB"),
        # The format's columns in its order, then the tags no column holds, as PGN tag pairs.
        ("Tags", "TEXT")]
    tags = connection.execute("SELECT Tags FROM Games ORDER BY ID LIMIT 1").fetchone()[0]
    assert '[Opening "' in tags and '[Termination "' in tags and "[White " not in tags, tags
    for table, expected in [("Info", [("Name", "TEXT"), ("Value", "TEXT")]),
                            ("Players", [("ID", "INTEGER"), ("Name", "TEXT"), ("Elo", "INTEGER")]),
                            ("Events", [("ID", "INTEGER"), ("Name", "TEXT")]),
                            ("Sites", [("ID", "INTEGER"), ("Name", "TEXT")]),
                            ("Comments", [("ID", "INTEGER"), ("GameID", "INTEGER"), ("Ply", "INTEGER"),
                                          ("Comment", "TEXT")])]:
        assert [(name, kind) for _, name, kind, *_ in connection.execute(f"PRAGMA table_info({table})")] == expected
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not (tmp_path / "games.db3-wal").exists()
    assert connection.execute("SELECT ID, Name, Elo FROM Players WHERE ID = 0").fetchone() == (0, "Unknown", None)
    assert connection.execute("SELECT Name FROM Events WHERE ID = 0").fetchone() == ("Unknown",)
    assert connection.execute("SELECT Name FROM Sites WHERE ID = 0").fetchone() == ("Unknown",)
    info = dict(connection.execute("SELECT Name, Value FROM Info"))
    assert info["Version"] == "1.0.0" and info["Data Structure Version"] == "0.6" and info["Variant"] == "standard"
    for name, table in [("GameCount", "Games"), ("PlayerCount", "Players"), ("EventCount", "Events"),
                        ("SiteCount", "Sites"), ("CommentCount", "Comments")]:
        assert info[name] == str(connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]), name
    assert info["GameCount"] == "438"
    # Result and Round are text, as written in the PGN.
    assert {r for (r,) in connection.execute("SELECT DISTINCT typeof(Result) || typeof(Round) FROM Games")} == {
        "texttext"}


@pytest.mark.parametrize("relative, count, black", [
    (MALAKHOV, "1,802", "Ab Rahman, M."),
    ("corpus/pgn-lsp/crlf-malformed-tag.pgn", "8", "Tartakower, Savielly"),
], ids=["malakhov", "written"])
def test_export_gives_back_the_games(tmp_path, relative, count, black):
    source = shared(relative)
    db = tmp_path / "games.db3"
    import_files(db, source)
    out = tmp_path / "out.pgn"
    result = run(["export", "--db", str(db), "--output", str(out)])
    assert result.stdout == ""
    assert result.stderr.startswith(f"{count} games exported")
    exported = source_games(out)
    sources = source_games(source)
    assert [list(g.mainline_moves()) for g in exported] == [list(g.mainline_moves()) for g in sources]
    assert [g.headers["White"] for g in exported] == [g.headers["White"] for g in sources]
    one = run(["export", "--db", str(db), "--id", "7"]).stdout
    assert one.count("[Event ") == 1
    player = run(["export", "--db", str(db), "--player", black]).stdout
    assert player.count("[Event ") == 1 and f"[Black \"{black}\"]" in player


def test_a_killed_import_leaves_whole_games_only(tmp_path):
    # 80 copies of the 1 MB file, each with its own Round so that no game is a duplicate: the
    # import of 80 MB takes long enough, after its first transaction, to be killed before its last.
    copies = 80
    data = shared(LICHESS).read_bytes().rstrip(b"\n") + b"\n\n"
    big = tmp_path / "big.pgn"
    with open(big, "wb") as handle:
        for copy in range(copies):
            handle.write(data.replace(b'[Round "-"]', b'[Round "%d"]' % copy))
    db = tmp_path / "killed.db3"
    process = subprocess.Popen([str(binary()), "import", "--db", str(db), str(big)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Wait until the first batch is in, then kill the import in the middle of another.
    deadline = time.time() + 60
    while time.time() < deadline and process.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=10) as probe:
                    if probe.execute("SELECT COUNT(*) FROM Games").fetchone()[0] > 0:
                        break
            except sqlite3.OperationalError:
                pass  # the tables are not there yet
        time.sleep(0.05)
    assert process.poll() is None, "the import finished before it could be killed: use a bigger file"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()

    connection = sqlite3.connect(db)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    games = connection.execute("SELECT ID, Moves, Moves2, PlyCount FROM Games ORDER BY ID").fetchall()
    assert 0 < len(games) < copies * 438
    info = dict(connection.execute("SELECT Name, Value FROM Info"))
    assert info["GameCount"] == str(len(games))
    assert info["CommentCount"] == str(connection.execute("SELECT COUNT(*) FROM Comments").fetchone()[0])
    comment_rows = dict(connection.execute("SELECT GameID, COUNT(*) FROM Comments GROUP BY GameID").fetchall())
    for game_id, blob, blob2, plies in games:
        assert blob is not None and blob2 is not None
        # Every row is whole: one byte per mainline move, its comments all in Comments, and
        # Moves2 a legal game of the same length.
        moves, comments = count_mainline(blob)
        assert moves == plies == len(blob2) // 2, f"game {game_id}"
        assert comment_rows.get(game_id, 0) == comments, f"game {game_id}"
        board = chess.Board()
        for move in decode_moves2(blob2):
            assert board.is_legal(move), f"game {game_id}: {move}"
            board.push(move)
    # The same file imported again completes the database without storing anything twice.
    summary = import_files(db, big)
    assert summary.endswith(f"{copies * 438 - len(games):,} stored, {len(games):,} duplicates, 0 refused\n"), summary
    # The search indexes, built at the end of an import into a new file, are all there.
    indexes = {row[0] for row in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"GamesDate", "GamesWhiteID", "GamesBlackID", "GamesResult", "GamesWhiteElo", "GamesBlackElo",
            "GamesPlyCount", "GamesIdentity"} <= indexes


def test_export_lists_a_game_it_cannot_read_and_exits_with_1(tmp_path):
    db = tmp_path / "damaged.db3"
    import_files(db, shared(LICHESS))
    connection = sqlite3.connect(db)
    # Move index 200 from the starting position: no position has that many moves.
    connection.execute("UPDATE Games SET Moves = X'C8', Moves2 = NULL WHERE ID = 5")
    connection.commit()
    connection.close()
    result = run(["export", "--db", str(db)], check=False)
    assert result.returncode == 1
    assert "skipped: game 5" in result.stderr, result.stderr
    assert result.stdout.count("[Event ") == 437
    assert "437 games exported" in result.stderr
    # Without the damaged game, the same export succeeds.
    ids = [arg for k in (1, 2, 3) for arg in ("--id", str(k))]
    assert run(["export", "--db", str(db), *ids]).stdout.count("[Event ") == 3



def test_a_file_made_by_ocgdb_is_read_and_not_taken_for_another_programs(tmp_path):
    source = ROOT / "samples" / "sample.pgn"
    db = tmp_path / "made.ocgdb.db3"
    made = ocgdb_create(source, db)
    assert made.returncode == 0, made.stderr
    with sqlite3.connect(db) as connection:
        stored = connection.execute("SELECT COUNT(*) FROM Games").fetchone()[0]
    assert stored > 0
    before = db.read_bytes()
    exported = run(["export", "--db", str(db)]).stdout
    assert exported.count("[Event ") == stored
    # ocgdb's Games table lacks columns En Croissant reads: the file is refused for writing as
    # a game database that lacks them, not as another program's, and left as it is.
    result = run(["import", "--db", str(db), str(source)], check=False)
    assert result.returncode != 0
    assert "is not a game database this program can write: its Games table has no" in result.stderr, result.stderr
    assert "another program" not in result.stderr
    assert db.read_bytes() == before
