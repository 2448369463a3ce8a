"""The Python layer's time on the paths users call most: positions' formats, moves' notation,
views, scores, the protocol's per-request overhead (on whichever core is loaded).

Each benchmark runs one path over the same 80 random positions (40 of 2-player Scopa, 40 of
Scopone scientifico, 0 to 29 plays in). Compare two versions side by side in one run, e.g.
``pytest benchmarks/test_bench_layer.py --benchmark-timer=time.process_time`` here and in a
checkout of the other version, on the same machine at the same time, a few times each.

Run: ``pytest benchmarks/test_bench_layer.py``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import scopa
from scopa.protocol import Protocol


def _positions(game: str, count: int = 40, seed: int = 3) -> list[scopa.State]:
    rnd = random.Random(seed)
    out: list[scopa.State] = []
    while len(out) < count:
        s = scopa.State.deal(game, seed=rnd.randrange(1 << 30))
        for _ in range(rnd.randrange(0, 30)):
            if s.is_over:
                break
            s = s.play(rnd.choice(s.legal_moves()))
        if not s.is_over:
            out.append(s)
    return out


STATES = _positions("scopa") + _positions("scopone_scientifico")
MOVES = [s.legal_moves()[0] for s in STATES]
TEXTS = [s.to_string() for s in STATES]
JSONS = [s.to_json() for s in STATES]
VIEWS = [s.view(s.turn) for s in STATES]
PROTOCOL = Protocol()
REQUESTS = {
    "legal": [json.dumps({"cmd": "legal", "id": 1, "position": t}) for t in TEXTS],
    "play": [
        json.dumps({"cmd": "play", "id": 1, "position": t, "move": str(m)})
        for t, m in zip(TEXTS, MOVES, strict=True)
    ],
    "view": [
        json.dumps({"cmd": "view", "id": 1, "position": t, "seat": s.turn})
        for t, s in zip(TEXTS, STATES, strict=True)
    ],
    # (a client that sends the position as JSON with its history, which the engine replays)
    "play_with_history": [
        json.dumps({"cmd": "play", "id": 1, "position": s.to_dict(), "move": str(m)})
        for s, m in zip(STATES, MOVES, strict=True)
    ],
}


def _match_of_four_hands() -> scopa.Match:
    """A 2-player Scopa match of four hands and a play, the first legal move each time: what
    ``match_play`` reads back each time (docs/benchmarks.md, "A match sent back")."""
    m = scopa.Match(scopa.Rules.preset("scopa", target=100), seed=3)
    while len(m.history) < 4:
        m.play(m.state.legal_moves()[0])
    m.play(m.state.legal_moves()[0])
    return m


MATCH = _match_of_four_hands()
MATCH_JSON = MATCH.to_json()
RECORD_JSON = MATCH.record().to_json()


def _hands_with_views() -> list[Any]:
    """Four hands played through (the first legal move each time), the mover's view of each
    state taken, as a game loop does: every state is new."""
    out = []
    for seed in range(4):
        for game in ("scopa", "scopone_scientifico"):
            s = scopa.State.deal(game, seed=seed)
            while not s.is_over:
                out.append(s.view(s.turn))
                s = s.play(s.legal_moves()[0])
    return out


PATHS: dict[str, Callable[[], list[Any]]] = {
    "hands_with_views": _hands_with_views,
    "legal_moves": lambda: [s.legal_moves() for s in STATES],
    "play": lambda: [s.play(m) for s, m in zip(STATES, MOVES, strict=True)],
    "view": lambda: [s.view(s.turn) for s in STATES],
    "to_string": lambda: [s.to_string() for s in STATES],
    "from_string": lambda: [scopa.State.from_string(t) for t in TEXTS],
    "to_json": lambda: [s.to_json() for s in STATES],
    "from_json": lambda: [scopa.State.from_json(t) for t in JSONS],
    "view_to_json": lambda: [v.to_json() for v in VIEWS],
    "move_notation": lambda: [str(m) for m in MOVES],
    "match_from_json": lambda: [scopa.Match.from_json(MATCH_JSON)],
    "load_record": lambda: [scopa.load_record(RECORD_JSON)],
    **{
        f"protocol_{cmd}": (lambda lines=lines: [PROTOCOL.handle(x) for x in lines])
        for cmd, lines in REQUESTS.items()
    },
}


@pytest.mark.parametrize("path", list(PATHS))
def test_layer(benchmark, path):
    run = PATHS[path]
    benchmark.extra_info["calls_per_round"] = len(STATES)
    benchmark(run)
