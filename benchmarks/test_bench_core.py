"""Core speed: capture enumeration, legal move generation, whole random hands per second.

Run: ``pytest benchmarks --benchmark-json=bench.json`` then
``python benchmarks/report.py bench.json`` for the README table (Cython vs twin ratios).
"""

from __future__ import annotations

import random

import pytest

GEOMETRIES = {
    "scopa": (2, 3, 4),
    "scopa4": (4, 3, 4),
    "scopone": (4, 9, 4),
    "scopone_scientifico": (4, 10, 0),
}
OPTS = 64 | 128  # primiera needs all suits, kings redeal: the presets' defaults


def _positions(twin, n: int = 500, seed: int = 1) -> list[tuple[int, int]]:
    """(hand, table) pairs met in random Scopone/Scopa play."""
    rnd = random.Random(seed)
    out = []
    games = list(GEOMETRIES.values())
    while len(out) < n:
        g = rnd.choice(games)
        hands, table, stock = twin.deal(*g, OPTS, rnd.getrandbits(64))
        pos = (hands, table, stock, (0, 0), (0, 0), 0, -1)
        for _ in range(rnd.randrange(0, 30)):
            if not any(pos[0]):
                break
            moves = twin.legal_moves(pos[0][pos[5]], pos[1], OPTS)
            c, m = rnd.choice(moves)
            pos = twin.apply_move(pos, c, m, OPTS, g[1])
        if any(pos[0]):
            out.append((pos[0][pos[5]], pos[1]))
    return out


POSITIONS = None


def positions():
    global POSITIONS
    if POSITIONS is None:
        POSITIONS = _positions(importlib_twin())
    return POSITIONS


def importlib_twin():
    import scopa_core._twin as twin

    return twin


def test_captures(benchmark, core):
    pairs = [(c, table) for hand, table in positions() for c in range(40) if hand >> c & 1]
    benchmark.extra_info["calls"] = len(pairs)
    captures = core.captures

    def run():
        for c, t in pairs:
            captures(c, t, OPTS)

    benchmark(run)


def test_legal_moves(benchmark, core):
    pos = positions()
    benchmark.extra_info["calls"] = len(pos)
    legal = core.legal_moves

    def run():
        for hand, table in pos:
            legal(hand, table, OPTS)

    benchmark(run)


@pytest.mark.parametrize("game", GEOMETRIES)
def test_playouts(benchmark, core, game):
    n = 20_000 if core.__name__.endswith("_core") else 200
    benchmark.extra_info["calls"] = n
    benchmark.extra_info["game"] = game
    benchmark.pedantic(core.playouts, args=(*GEOMETRIES[game], OPTS, n, 7), rounds=5, iterations=1)
