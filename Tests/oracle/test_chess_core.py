"""Differential test of the chess core against python-chess.

Random games, biased toward the moves where move generators go wrong (captures, checks,
promotions, castling, en passant), in standard chess and Chess960. Every position reached is
described by `pgn-lsp positions` and compared with python-chess: the legal move set, the SAN
of every legal move, check / checkmate / stalemate / insufficient material, and the FEN.
"""
import json
import random

import chess
import pytest

from conftest import run

GAMES_PER_VARIANT = 170
MAX_PLIES = 220


def weight(board: chess.Board, move: chess.Move) -> float:
    w = 1.0
    if board.is_capture(move):
        w *= 4
    if board.gives_check(move):
        w *= 4
    if move.promotion:
        w *= 8
    if board.is_castling(move):
        w *= 12
    if board.is_en_passant(move):
        w *= 20
    piece = board.piece_type_at(move.from_square)
    # Pawn pushes lead to promotions and en-passant chances.
    if piece == chess.PAWN:
        w *= 2
        if abs(move.to_square - move.from_square) == 16:
            w *= 3
    # Developing the pieces between king and rook makes castling possible.
    if piece in (chess.KNIGHT, chess.BISHOP, chess.QUEEN) and chess.square_rank(move.from_square) in (0, 7):
        w *= 3
    return w


def random_positions(chess960: bool, seed: int):
    rng = random.Random(seed)
    for game in range(GAMES_PER_VARIANT):
        if chess960:
            board = chess.Board.from_chess960_pos(rng.randrange(960))
        else:
            board = chess.Board()
        yield board.copy(stack=False)
        for _ in range(MAX_PLIES):
            moves = list(board.legal_moves)
            if not moves or board.is_insufficient_material():
                break
            move = rng.choices(moves, [weight(board, m) for m in moves])[0]
            board.push(move)
            yield board.copy(stack=False)


def describe(board: chess.Board) -> dict:
    return {
        "fen": board.fen(),
        "moves": {board.uci(m): board.san(m) for m in board.legal_moves},
        "check": board.is_check(),
        "checkmate": board.is_checkmate(),
        "stalemate": board.is_stalemate(),
        "insufficientMaterial": board.is_insufficient_material(),
    }


@pytest.mark.parametrize("chess960", [False, True], ids=["standard", "chess960"])
def test_positions_agree_with_python_chess(chess960):
    boards = list(random_positions(chess960, seed=2026 + chess960))
    # At least 10,000 a variant: 20,000 positions or more in all.
    assert len(boards) >= 10_000
    args = ["positions"] + (["--chess960"] if chess960 else [])
    output = run(args, stdin="".join(b.fen() + "\n" for b in boards)).stdout.splitlines()
    assert len(output) == len(boards)

    features = {"en passant": 0, "promotion": 0, "castling": 0, "checkmate": 0, "stalemate": 0, "check": 0}
    mismatches = []
    for board, line in zip(boards, output):
        ours = json.loads(line)
        theirs = describe(board)
        assert "error" not in ours, (board.fen(), ours["error"])
        our_moves = {m["uci"]: m["san"] for m in ours["moves"]}
        for key in ("fen", "check", "checkmate", "stalemate", "insufficientMaterial"):
            if ours[key] != theirs[key]:
                mismatches.append((board.fen(), key, ours[key], theirs[key]))
        if our_moves != theirs["moves"]:
            mismatches.append((board.fen(), "moves", sorted(our_moves.items()), sorted(theirs["moves"].items())))
        features["en passant"] += any(board.is_en_passant(m) for m in board.legal_moves)
        features["promotion"] += any(m.promotion for m in board.legal_moves)
        features["castling"] += any(board.is_castling(m) for m in board.legal_moves)
        for key in ("checkmate", "stalemate", "check"):
            features[key] += theirs[key]
    assert mismatches == [], mismatches[:5]
    # The bias must have reached the rare rules, or the agreement says little.
    assert features["en passant"] >= 100, features
    assert features["promotion"] >= 300, features
    assert features["castling"] >= 500, features
    assert features["checkmate"] >= 5, features
    assert features["stalemate"] >= 1, features
    assert features["check"] >= 1_000, features
    print(len(boards), "positions", features)
