"""Difficulty levels: six fixed configurations of the players, from a beginner to the strongest.

One table names them (:data:`LEVELS`, and :data:`FOUR_PLAYER_LEVELS` with four players), so
the command line, the engine protocol, the server and the browser app list the same levels:
``level(n)``, ``make_player("level3")``, ``"player": "level3"``.

The lower levels play like weaker people rather than like a strong player who sometimes plays
at random: they look less far ahead, sample fewer deals of the hidden cards, do not read the
opponent's hand from its plays (no card counting of that kind), choose by a softmax of the move
values with a temperature (moves of nearly equal value are near coin flips, a clearly better
one is usually found), and overlook a sweep now and then.

| level | how it plays |
|---|---|
| 1 | 2 samples, one play ahead, softmax at temperature 2, misses a sweep three times in five |
| 2 | 4 samples, one play ahead, temperature 0.6, misses a sweep a quarter of the time |
| 3 | 8 samples, two plays ahead, temperature 0.5, misses a sweep one time in five |
| 4 | 16 samples, four plays ahead, temperature 0.15 (0.2 with four players) |
| 5 | PIMC as the library's default (128 samples, 100 ms), reads the opponent's hand, the best move |
| 5, four players | 8 samples, four plays ahead, the best move, reads no hand |
| 6 | PIMC with 512 samples and up to 1 s a move |

With four players levels 4 and 5 differ (:data:`FOUR_PLAYER_LEVELS`): there default PIMC is
not measurably weaker than level 6, so level 5 is a weaker searcher between levels 4 and 6.
Levels 1-4 see their hand, the table and the piles, as level 5 does with four players; level 6,
and level 5 with two players, also read what the other players' plays say about their hands
(with two players the opponent's, with four the partner's and the opponents'). Levels 1-5 take
at most 100 ms a move on one core; level 6 up to a second (47 ms on average in 2-player Scopa
here, 72 ms in Scopone scientifico). In Scopone scientifico the six rate at least 100 Elo
points apart; in 2-player Scopa levels 1-5 do, and level 6 is not measurably stronger than
level 5 (docs/benchmarks.md).

>>> import scopa
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> str(level(5, seed=1).choose(s.view(0)))
'7dx3c4s'
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from scopa.errors import ScopaError, show
from scopa.limit import Limit
from scopa.move import Move
from scopa.players.base import _legal, check_budget
from scopa.players.pimc import PIMCPlayer
from scopa.view import PlayerView

__all__ = ["FOUR_PLAYER_LEVELS", "LEVELS", "LevelPlayer", "level"]


@dataclass(frozen=True)
class LevelConfig:
    """What a level changes: PIMC's budget and depth, the softmax temperature (0: the best
    move), the chance of overlooking a sweep, and whether it infers the opponent's hand."""

    samples: int
    depth: int | None
    exact_plays: int | None
    time_limit: float
    temperature: float
    miss_sweep: float
    infer: bool


#: The levels, 1 (a beginner) to 6 (the strongest this engine has).
LEVELS: dict[int, LevelConfig] = {
    1: LevelConfig(
        samples=2, depth=1, exact_plays=2, time_limit=0.05, temperature=2.0, miss_sweep=0.6, infer=False
    ),
    2: LevelConfig(
        samples=4, depth=1, exact_plays=4, time_limit=0.05, temperature=0.6, miss_sweep=0.25, infer=False
    ),
    3: LevelConfig(
        samples=8, depth=2, exact_plays=6, time_limit=0.05, temperature=0.5, miss_sweep=0.2, infer=False
    ),
    4: LevelConfig(
        samples=16, depth=4, exact_plays=8, time_limit=0.08, temperature=0.15, miss_sweep=0.0, infer=False
    ),
    5: LevelConfig(
        samples=128, depth=None, exact_plays=None, time_limit=0.1, temperature=0.0, miss_sweep=0.0, infer=True
    ),
    6: LevelConfig(
        samples=512, depth=None, exact_plays=None, time_limit=1.0, temperature=0.0, miss_sweep=0.0, infer=True
    ),
}

#: The levels with four players: :data:`LEVELS` but for levels 4 and 5. There PIMC as the
#: library's default is not measurably weaker than level 6, so level 5 samples 8 deals
#: uniformly (it does not read the other hands) and takes the best move, and level 4 chooses at
#: temperature 0.2: the six then stand at least 100 points apart (docs/benchmarks.md).
FOUR_PLAYER_LEVELS: dict[int, LevelConfig] = {
    **LEVELS,
    4: LevelConfig(
        samples=16, depth=4, exact_plays=8, time_limit=0.08, temperature=0.2, miss_sweep=0.0, infer=False
    ),
    5: LevelConfig(
        samples=8, depth=4, exact_plays=12, time_limit=0.1, temperature=0.0, miss_sweep=0.0, infer=False
    ),
}


class LevelPlayer:
    """A player of one level (see the module's table): PIMC's move values, then a softmax with
    the level's temperature over them, after overlooking a sweep with the level's chance. It
    plays the configuration of the game's number of players (:meth:`config_for`)."""

    def __init__(self, n: int, seed: int | None = None, time_limit: float | None = None) -> None:
        if not isinstance(n, int) or isinstance(n, bool) or n not in LEVELS:
            raise ScopaError(f"unknown level {show(n)}: expected 1 to {len(LEVELS)}")
        check_budget("time_limit", time_limit, allow_none=True)
        self.level = n
        self.seed = seed
        self.time_limit = time_limit
        self._rng = random.Random(seed)
        self._pimc: dict[LevelConfig, PIMCPlayer] = {}

    def config_for(self, players: int) -> LevelConfig:
        """The level's configuration in a game of ``players`` players: :data:`FOUR_PLAYER_LEVELS`
        with four, :data:`LEVELS` otherwise."""
        return (FOUR_PLAYER_LEVELS if players == 4 else LEVELS)[self.level]

    def searcher(self, players: int) -> PIMCPlayer:
        """The PIMC player whose move values the level uses with ``players`` players (made on
        first use, with the level's seed)."""
        c = self.config_for(players)
        pimc = self._pimc.get(c)
        if pimc is None:
            limit = c.time_limit if self.time_limit is None else min(self.time_limit, c.time_limit)
            pimc = self._pimc[c] = PIMCPlayer(
                samples=c.samples,
                time_limit=limit,
                seed=self.seed,
                depth=c.depth,
                exact_plays=c.exact_plays,
                infer=c.infer,
            )
        return pimc

    def choose(self, view: PlayerView, limit: Limit | None = None) -> Move:
        """The level's move for ``view``."""
        moves = _legal(view)
        if len(moves) == 1:
            return moves[0]
        c = self.config_for(view.rules.players)
        pimc = self.searcher(view.rules.players)
        if c.temperature == 0 and c.miss_sweep == 0:
            return pimc.choose(view, limit)
        values = {m: v for m, (v, _) in pimc.evaluate(view, limit).items()}
        table = view.table.mask
        if c.miss_sweep and self._rng.random() < c.miss_sweep:
            # overlooks the sweeps: they count as the captures they are, no more
            values = {
                m: v - (1.0 if m.capture_mask == table and m.is_capture else 0.0) for m, v in values.items()
            }
        if c.temperature == 0:
            return max(moves, key=lambda m: values[m])
        top = max(values.values())
        weights = [math.exp((values[m] - top) / c.temperature) for m in moves]
        return self._rng.choices(moves, weights=weights)[0]

    def __repr__(self) -> str:
        return f"level({self.level}, seed={self.seed!r})"


def level(n: int, *, seed: int | None = None) -> LevelPlayer:
    """The player of level ``n`` (1 to 6)."""
    return LevelPlayer(n, seed=seed)


def level_names() -> list[str]:
    """``level1`` ... ``level6``: the names :func:`~scopa.players.make_player` takes."""
    return [f"level{n}" for n in LEVELS]


def make_level(name: str, seed: int | None, options: dict[str, Any]) -> LevelPlayer | None:
    """The level player named ``name`` (``"level3"``), or None if it is not a level's name."""
    if not name.startswith("level") or not name[5:].isdecimal() or int(name[5:]) not in LEVELS:
        return None
    unknown = set(options) - {"time_limit"}
    if unknown:
        raise ScopaError(f"a level takes no options but time_limit, got {', '.join(sorted(unknown))}")
    return LevelPlayer(int(name[5:]), seed=seed, time_limit=options.get("time_limit"))
