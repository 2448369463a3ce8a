"""The computer players' time a move, compiled core (the players' Python layer on top of it).

Each benchmark asks one seeded player for its move in the same midgame positions, with no time
limit, so every round does the same work: PIMC at its defaults (2-player Scopa: 128 samples,
the reply weighing and the inference; Scopone scientifico: the deal inference), ISMCTS at
1,000 iterations, the greedy player. Compare two versions of the players side by side in one
run, e.g. ``pytest benchmarks/test_bench_players.py --benchmark-timer=time.process_time`` here and
in a checkout of the other version, on the same machine at the same time, a few times each (the
process timer: other work on the machine moves wall-clock times by half). docs/benchmarks.md
("The players' time a move") has the figures.

Run: ``pytest benchmarks/test_bench_players.py``.
"""

from __future__ import annotations

import random

import pytest

import scopa
from scopa.players import GreedyPlayer, ISMCTSPlayer, PIMCPlayer


def _views(game: str, count: int = 6, seed: int = 5) -> list[scopa.PlayerView]:
    """The mover's view in ``count`` random midgame positions (4 to 14 plays in) that have a
    choice to make."""
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        s = scopa.State.deal(game, seed=rnd.randrange(1 << 30))
        for _ in range(rnd.randrange(4, 15)):
            s = s.play(rnd.choice(s.legal_moves()))
        if len(s.legal_moves()) > 1:
            out.append(s.view(s.turn))
    return out


PLAYERS = {
    "pimc": lambda: PIMCPlayer(seed=1, time_limit=None),
    "ismcts": lambda: ISMCTSPlayer(seed=1, time_limit=None, iterations=1000),
    "greedy": lambda: GreedyPlayer(),
}


@pytest.mark.parametrize("game", ["scopa", "scopone_scientifico"])
@pytest.mark.parametrize("name", list(PLAYERS))
def test_player_move(benchmark, name, game):
    views = _views(game)

    def moves():
        player = PLAYERS[name]()  # (a new player each round: its random stream starts again)
        return [player.choose(v) for v in views]

    first = moves()
    assert benchmark.pedantic(moves, rounds=3, iterations=1) == first  # (the same work each round)
    benchmark.extra_info["moves_per_round"] = len(views)


@pytest.mark.parametrize("game", ["scopa", "scopone_scientifico"])
def test_greedy_games(benchmark, game):
    """The greedy player's whole hands against itself, its capture tables emptied first: what
    a new process pays (test_player_move asks again in the same positions, whose tables it
    keeps from the round before)."""
    from scopa.players import greedy

    seeds = random.Random(7).sample(range(1 << 30), 4)

    def hands():
        greedy._CAPTURES.clear()
        player, moves = GreedyPlayer(), []
        for seed in seeds:
            s = scopa.State.deal(game, seed=seed)
            while not s.is_over:
                m = player.choose(s.view(s.turn))
                moves.append(m)
                s = s.play(m)
        return moves

    first = hands()
    assert benchmark.pedantic(hands, rounds=5, iterations=1) == first
