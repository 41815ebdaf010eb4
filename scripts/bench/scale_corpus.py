"""Large PGN inputs for the scale benchmark, made from the 1 MB lichess file (438 games).

The file is repeated as often as the size asks; in every copy the White, Black, Event and Site
tags are rewritten with names drawn from Zipf-like distributions over large pools, as in a real
database: a few names that come back very often and a long tail of names seen once or twice
(18,886 distinct players at 43,800 games, 7,160 of them in one game, the busiest in 169;
85,831 at 219,876 games; 358,921 at 999,954 games, 168,208 of them in one game, the busiest in
2,347; 76,224 events and 4,999 sites at 1M). Each copy has its own Round tag, so that no two games
are duplicates. The moves, comments and other tags are the file's own, unchanged: every game's
movetext comes back once per copy, which costs nothing to make and does not change what an
import does per game (it replays and encodes every game; only the duplicate check reads the
names, and they differ).

Files are written as a stream, one copy at a time, and kept for the next run: a small
`.meta.json` beside each says how it was made, and a file whose description or size does not
match is made again. Never downloaded. Needs nothing beyond Python's standard library.
"""
import itertools
import json
import pathlib
import random
import re

from common import LICHESS_1M, shared

# Each distribution: pool size per game of the input, exponent, offset (Zipf–Mandelbrot
# weights 1 / (rank + offset) ** exponent), smallest pool.
PLAYERS = (0.6, 1.0, 100, 1000)
EVENTS = (0.1, 1.1, 10, 100)
SITES = (0.005, 1.2, 5, 50)
VERSION = 2
SEED = 20260101

SYLLABLES = [
    "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "za", "be", "di", "fo", "gu", "ha", "ji", "ko",
    "la", "mo", "nu", "pe", "qi", "ro", "su", "ta", "ul", "ve", "wo", "xi", "ya", "zo", "an", "el",
]
EVENT_WORDS = ["Open", "Cup", "Memorial", "Championship", "Festival", "Classic", "Masters", "League"]


def parse_size(text):
    """`44k`, `220k`, `1m`, `4m` or a plain number of games."""
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * scale)


def _player(rank):
    a, b, c = rank % 32, (rank // 32) % 32, (rank // 1024) % 32
    return f"{SYLLABLES[a].title()}{SYLLABLES[b]}{SYLLABLES[c]}_{rank}"


def _event(rank):
    return f"{SYLLABLES[rank % 32].title()}{SYLLABLES[(rank // 32) % 32]} {EVENT_WORDS[rank % 8]} {rank}"


def _site(rank):
    return f"{SYLLABLES[(rank * 7) % 32].title()}{SYLLABLES[(rank // 32) % 32]}ville {rank}"


class _Zipf:
    def __init__(self, games, spec, rng):
        per_game, exponent, offset, smallest = spec
        self.pool = max(smallest, int(games * per_game))
        # The cumulative weights, drawn from by bisection (random.choices).
        self.cdf = list(itertools.accumulate(1.0 / (rank + offset) ** exponent for rank in range(self.pool)))
        self.ranks = range(self.pool)
        self.rng = rng

    def draw(self, count):
        return self.rng.choices(self.ranks, cum_weights=self.cdf, k=count)


def _templates(data):
    """The games of the file, each as its text cut around the five tags rewritten: a list of
    byte segments, with the tag names in between."""
    games = re.split(rb"\n\n(?=\[Event )", data.strip(b"\n"))
    wanted = (b"Event", b"Site", b"Round", b"White", b"Black")
    templates = []
    for game in games:
        segments, names, cut = [], [], 0
        for match in re.finditer(rb'^\[(\w+) "[^"\n]*"\]$', game, re.M):
            if match.group(1) in wanted:
                segments.append(game[cut:match.start()])
                names.append(match.group(1))
                cut = match.end()
        segments.append(game[cut:] + b"\n\n")
        assert sorted(names) == sorted(wanted), f"a game lacks one of the tags: {game[:200]!r}"
        templates.append((segments, names))
    return templates


def scale_file(games, folder="/tmp"):
    """A PGN file of about `games` games (whole copies of the 438-game file), made if missing;
    returns (path, games in it)."""
    source = shared(LICHESS_1M)
    data = source.read_bytes()
    templates = _templates(data)
    copies = max(1, round(games / len(templates)))
    total = copies * len(templates)
    target = pathlib.Path(folder) / f"pgn-lsp-bench-scale-{games}.pgn"
    meta_path = target.with_suffix(".meta.json")
    meta = {"version": VERSION, "seed": SEED, "copies": copies, "games": total,
            "source_bytes": len(data), "players": PLAYERS, "events": EVENTS, "sites": SITES}
    if target.exists() and meta_path.exists():
        known = json.loads(meta_path.read_text())
        if known.get("bytes") == target.stat().st_size and {k: known.get(k) for k in meta} == json.loads(
                json.dumps(meta)):
            return target, total
    rng = random.Random(SEED)
    players, events, sites = (_Zipf(total, spec, rng) for spec in (PLAYERS, EVENTS, SITES))
    per_copy = len(templates)
    meta_path.unlink(missing_ok=True)
    partial = target.with_suffix(".partial")
    with open(partial, "wb", buffering=8 << 20) as handle:
        for copy in range(copies):
            white = players.draw(per_copy)
            black = players.draw(per_copy)
            black = [(b + 1) % players.pool if b == w else b for w, b in zip(white, black)]
            event = events.draw(per_copy)
            site = sites.draw(per_copy)
            round_tag = b'[Round "%d"]' % (copy + 1)
            parts = []
            for k, (segments, names) in enumerate(templates):
                values = {
                    b"Event": b'[Event "%s"]' % _event(int(event[k])).encode(),
                    b"Site": b'[Site "%s"]' % _site(int(site[k])).encode(),
                    b"Round": round_tag,
                    b"White": b'[White "%s"]' % _player(int(white[k])).encode(),
                    b"Black": b'[Black "%s"]' % _player(int(black[k])).encode(),
                }
                for segment, name in zip(segments, names):
                    parts.append(segment)
                    parts.append(values[name])
                parts.append(segments[-1])
            handle.write(b"".join(parts))
    partial.rename(target)
    meta["bytes"] = target.stat().st_size
    meta_path.write_text(json.dumps(meta))
    return target, total
