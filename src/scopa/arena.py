"""The arena: players against each other on duplicate deals, in parallel processes.

Every deal is played twice with the sides swapped (side A holds team 0's seats in the
first game and team 1's in the second), so the luck of the cards cancels.

>>> r = arena("scopa", "greedy", "random", hands=20, seed=1)
>>> r.hands, r.games, r.names
(20, 40, ('greedy', 'random'))
>>> r.diff > 0
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from scopa.errors import ScopaError
from scopa.players import Player, make_player
from scopa.rules import Rules
from scopa.state import State

__all__ = ["ArenaResult", "PlayerSpec", "arena", "play_hand"]

#: A player for the arena: a name (``"pimc"``) or a name with options (``("pimc", {"samples": 8})``).
PlayerSpec = str | tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class ArenaResult:
    """Figures of an arena run; ``a`` is the first player given, ``b`` the second.

    Attributes:
        names: the two sides' names.
        hands: duplicate deals played (each played twice: ``games`` = 2 x ``hands``).
        points: mean points per hand of each side.
        diff: mean points per hand of A minus B.
        ci95: the 95% confidence interval of ``diff`` (normal, over the duplicate deals).
        hand_wins: hands won by A, by B, and level.
        pair_wins: duplicate deals won by A, by B, and level (the sum of both games).
        seconds_per_move: mean thinking time per move of each side.
    """

    game: str
    names: tuple[str, str]
    hands: int
    games: int
    points: tuple[float, float]
    diff: float
    ci95: tuple[float, float]
    hand_wins: tuple[int, int, int]
    pair_wins: tuple[int, int, int]
    seconds_per_move: tuple[float, float]

    def table(self) -> str:
        """The result as a small text table."""
        a, b = self.names
        lines = [
            f"{self.game}: {self.hands} duplicate deals ({self.games} hands)",
            f"{'side':<12}{'points/hand':>12}{'hands won':>11}{'deals won':>11}{'s/move':>9}",
            f"{a:<12}{self.points[0]:>12.3f}{self.hand_wins[0]:>11}{self.pair_wins[0]:>11}"
            f"{self.seconds_per_move[0]:>9.4f}",
            f"{b:<12}{self.points[1]:>12.3f}{self.hand_wins[1]:>11}{self.pair_wins[1]:>11}"
            f"{self.seconds_per_move[1]:>9.4f}",
            f"A - B: {self.diff:+.3f} points per hand, 95% CI [{self.ci95[0]:+.3f}, {self.ci95[1]:+.3f}]",
        ]
        return "\n".join(lines)


def _spec(spec: PlayerSpec) -> tuple[str, dict[str, Any]]:
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict):
        return spec[0], dict(spec[1])
    raise ScopaError(f"bad player {spec!r}: expected a name or (name, options)")


def play_hand(state: State, players: Sequence[Player]) -> tuple[tuple[int, int], list[float]]:
    """Play ``state`` to the end with one player per seat; each team's points and each
    seat's total thinking time."""
    thinking = [0.0] * len(players)
    while not state.is_over:
        seat = state.turn
        t0 = time.perf_counter()
        move = players[seat].choose(state.view(seat))
        thinking[seat] += time.perf_counter() - t0
        state = state.play(move)
    return state.score().points, thinking


def _deal_job(args: tuple[Rules, PlayerSpec, PlayerSpec, int, int]) -> list[tuple[int, int, float, float]]:
    """Both games of one duplicate deal: per game, A's points, B's points, and A's and B's
    thinking time."""
    rules, spec_a, spec_b, seed, dealer = args
    sides = (_spec(spec_a), _spec(spec_b))
    n = rules.players
    games = []
    for a_team in (0, 1):  # game 1: A holds team 0's seats; game 2: team 1's
        players = []
        for seat in range(n):
            name, opts = sides[0] if (seat & 1) == a_team else sides[1]
            players.append(make_player(name, seed=seed * 8 + a_team * 4 + seat, **opts))
        points, thinking = play_hand(State.deal(rules, seed=seed, dealer=dealer), players)
        time_a = sum(t for seat, t in enumerate(thinking) if (seat & 1) == a_team)
        time_b = sum(thinking) - time_a
        games.append((points[a_team], points[1 - a_team], time_a, time_b))
    return games


def arena(
    rules: Rules | str,
    player_a: PlayerSpec,
    player_b: PlayerSpec,
    hands: int = 100,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ArenaResult:
    """Play ``hands`` duplicate deals of A against B and measure them.

    ``jobs`` worker processes share the deals (1: in this process). Each deal's seed and
    dealer, and each player's seed, come from ``seed`` and the deal's number, so a run is
    reproducible whatever ``jobs`` is. ``progress(done, total)`` is called as deals finish.
    """
    r = rules if isinstance(rules, Rules) else Rules.from_json(rules)
    for spec in (player_a, player_b):
        name, opts = _spec(spec)
        make_player(name, seed=0, **opts)  # fail here, not in a worker, on a bad spec
    if not isinstance(hands, int) or hands < 1:
        raise ScopaError(f"bad hands {hands!r}: expected an int >= 1")
    if not isinstance(jobs, int) or jobs < 1:
        raise ScopaError(f"bad jobs {jobs!r}: expected an int >= 1")
    rng = random.Random(seed)
    tasks = [(r, player_a, player_b, rng.getrandbits(63), rng.randrange(r.players)) for _ in range(hands)]
    results = []
    if jobs == 1:
        for i, task in enumerate(tasks):
            results.append(_deal_job(task))
            if progress:
                progress(i + 1, hands)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, res in enumerate(pool.map(_deal_job, tasks, chunksize=max(1, hands // (jobs * 8)))):
                results.append(res)
                if progress:
                    progress(i + 1, hands)
    games = [g for deal in results for g in deal]
    diffs = [sum(g[0] - g[1] for g in deal) / 2 for deal in results]
    mean = sum(diffs) / hands
    var = sum((d - mean) ** 2 for d in diffs) / (hands - 1) if hands > 1 else 0.0
    half = 1.96 * math.sqrt(var / hands)
    moves_per_side = len(games) * (40 - r.table_size) / 2
    return ArenaResult(
        game=r.game,
        names=(_spec(player_a)[0], _spec(player_b)[0]),
        hands=hands,
        games=len(games),
        points=(sum(g[0] for g in games) / len(games), sum(g[1] for g in games) / len(games)),
        diff=mean,
        ci95=(mean - half, mean + half),
        hand_wins=(
            sum(g[0] > g[1] for g in games),
            sum(g[0] < g[1] for g in games),
            sum(g[0] == g[1] for g in games),
        ),
        pair_wins=(sum(d > 0 for d in diffs), sum(d < 0 for d in diffs), sum(d == 0 for d in diffs)),
        seconds_per_move=(
            sum(g[2] for g in games) / moves_per_side,
            sum(g[3] for g in games) / moves_per_side,
        ),
    )
