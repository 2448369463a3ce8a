"""Difficulty levels: six fixed configurations of the players, from a beginner to the strongest.

One table names them (:data:`LEVELS`), the same in every game, so the command line, the
engine protocol, the server and the browser app list the same levels: ``level(n)``,
``make_player("level3")``, ``"player": "level3"``.

The lower levels play like weaker people rather than like a strong player who sometimes plays
at random: they look less far ahead, sample fewer deals of the hidden cards, do not read the
other players' hands from their plays (no card counting of that kind), choose by a softmax of
the move values with a temperature (moves of nearly equal value are near coin flips, a clearly
better one is usually found), and overlook a sweep now and then. The first two also hold their
captures back, the beginner's habit of waiting for a fuller table: with that chance a move lays
a card down, when one of its cards captures nothing.

| level | how it plays |
|---|---|
| 1 | 2 samples, 1 play ahead, temperature 2, misses 3 sweeps in 5, holds its captures back 7 in 10 |
| 2 | 2 samples, 1 play ahead, temperature 2, misses 3 sweeps in 5, holds its captures back 1 in 10 |
| 3 | 4 samples, one play ahead, temperature 0.85, misses a sweep a quarter of the time |
| 4 | 8 samples, two plays ahead, temperature 0.6, misses a sweep one time in five |
| 5 | 16 samples, four plays ahead, temperature 0.22 |
| 6 | PIMC with 512 samples and up to 1 s a move, reads the other hands, the best move |

Levels 1-5 see their hand, the table and the piles, and sample the hidden cards uniformly; level
6 also reads what the other players' plays say about their hands (with two players the
opponent's, with four the partner's and the opponents'). Levels 1-5 take at most 50 ms a move on
one core (80 ms at level 5: their caps; at most 18 ms measured); level 6 up to a second (about
18 ms on average in 2-player Scopa here, 36 ms in Scopone scientifico). Every pair of levels on
1,000 duplicate deals rates the six at least 102 Elo points apart in 2-player Scopa and at least
204 in Scopone scientifico (docs/benchmarks.md); level 1 is weaker than the random player.

>>> import scopa
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> str(level(6, seed=1).choose(s.view(0)))
'7dx3c4s'
"""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass, replace
from typing import Any

from scopa.errors import OptionError, as_int, show
from scopa.limit import Limit
from scopa.move import Move
from scopa.players.base import _legal, check_budget, check_options, check_seed, own_copy, sweep_scores
from scopa.players.pimc import REPLY_WEIGHT, PIMCPlayer
from scopa.view import PlayerView

__all__ = ["LEVELS", "LevelConfig", "LevelPlayer", "level", "level_names"]


_MAKE_LOCK = threading.Lock()


@dataclass(frozen=True)
class LevelConfig:
    """What a level changes: PIMC's budget and depth, the softmax temperature (0: the best
    move), the chance of overlooking a sweep, whether it infers the other players' hands, and
    the chance of holding its captures back (laying a card down instead, when one of its cards
    captures nothing), and PIMC's weight of the opponent model's reply with two players
    (``reply_weight``: 0.5, PIMC's default when levels 1-5 were measured; ``None``, level 6's,
    takes PIMC's default, today 0.25)."""

    samples: int
    depth: int | None
    exact_plays: int | None
    time_limit: float
    temperature: float
    miss_sweep: float
    infer: bool
    hold_back: float = 0.0
    reply_weight: float | None = 0.5


#: Levels 1 and 2: the same beginner, who holds its captures back more or less often.
_BEGINNER = LevelConfig(
    samples=2, depth=1, exact_plays=2, time_limit=0.05, temperature=2.0, miss_sweep=0.6, infer=False
)

LEVELS: dict[int, LevelConfig] = {
    1: replace(_BEGINNER, hold_back=0.7),
    2: replace(_BEGINNER, hold_back=0.1),
    3: LevelConfig(
        samples=4, depth=1, exact_plays=4, time_limit=0.05, temperature=0.85, miss_sweep=0.25, infer=False
    ),
    4: LevelConfig(
        samples=8, depth=2, exact_plays=6, time_limit=0.05, temperature=0.6, miss_sweep=0.2, infer=False
    ),
    5: LevelConfig(
        samples=16, depth=4, exact_plays=8, time_limit=0.08, temperature=0.22, miss_sweep=0.0, infer=False
    ),
    6: LevelConfig(
        samples=512,
        depth=None,
        exact_plays=None,
        time_limit=1.0,
        temperature=0.0,
        miss_sweep=0.0,
        infer=True,
        reply_weight=None,
    ),
}
"""The levels, 1 (a beginner) to 6 (the strongest this engine has)."""


class LevelPlayer:
    """A player of one level (see the module's table): PIMC's move values, then a softmax with
    the level's temperature over them, after overlooking a sweep with the level's chance; with
    the level's chance of holding its captures back, the softmax is over the moves that lay a
    card down (all the moves when every card captures).
    :attr:`config` is the level's :class:`LevelConfig`, :attr:`searcher` the PIMC player that
    values the moves. ``time_limit`` can only lower the level's own time cap (``None`` keeps
    it, and :attr:`time_limit` is then None; given one, :attr:`time_limit` holds the cap it
    plays by, the lower of the two: ``level(3, time_limit=5).time_limit`` is 0.05, and
    :attr:`config` holds the level's own): the cap is part of the level, so its moves
    are reproducible for a seed as long as the cap does not cut its samples, which it can on a
    slow or busy machine."""

    __copy__ = own_copy  # (a copy draws from a random stream of its own)

    def __init__(self, n: int, seed: int | None = None, time_limit: float | None = None) -> None:
        number = as_int(n)
        if number not in LEVELS:
            raise OptionError(f"unknown level {show(n)}: expected 1 to {len(LEVELS)}")
        n = number
        time_limit = check_budget("time_limit", time_limit, allow_none=True)
        self.level = n
        self.seed = seed = check_seed(seed)
        # (the cap it plays by: a repr of time_limit=5 said 5 of a level capped at 0.05)
        self.time_limit = None if time_limit is None else min(time_limit, LEVELS[n].time_limit)
        self._rng = random.Random(seed)
        # the searcher's seed is the level's first draw: a stream of its own (seeded with the
        # level's seed, the searcher's k-th draw was the level's k-th)
        self._searcher_seed = None if seed is None else self._rng.getrandbits(64)
        self._pimc: PIMCPlayer | None = None

    @property
    def config(self) -> LevelConfig:
        """The level's configuration (``LEVELS[level]``)."""
        return LEVELS[self.level]

    @property
    def searcher(self) -> PIMCPlayer:
        """The PIMC player whose move values the level uses (made on first use; its seed, the
        first draw of the level's seed, so that the two random streams differ; ``None`` when
        the level's seed is ``None``)."""
        with _MAKE_LOCK:  # (one searcher, one random stream, when threads share the level)
            if self._pimc is None:
                c = self.config
                self._pimc = PIMCPlayer(
                    samples=c.samples,
                    time_limit=c.time_limit if self.time_limit is None else self.time_limit,
                    seed=self._searcher_seed,
                    depth=c.depth,
                    exact_plays=c.exact_plays,
                    infer=c.infer,
                    reply_weight=REPLY_WEIGHT if c.reply_weight is None else c.reply_weight,
                )
            return self._pimc

    def choose(self, view: PlayerView, limit: Limit | None = None) -> Move:
        """The level's move for ``view``."""
        Limit.of(limit)
        moves = _legal(view)
        if len(moves) == 1:
            return moves[0]
        c = self.config
        pimc = self.searcher
        if c.hold_back and self._rng.random() < c.hold_back:
            # holds its captures back, waiting for a fuller table: lays a card down if it can
            moves = [m for m in moves if not m.is_capture] or moves
            if len(moves) == 1:
                return moves[0]
        if c.temperature == 0 and c.miss_sweep == 0 and not c.hold_back:
            return pimc.choose(view, limit)
        values = {m: v for m, (v, _) in pimc.evaluate(view, limit).items()}
        if c.miss_sweep and self._rng.random() < c.miss_sweep:
            # overlooks the sweeps: they count as the captures they are, no more
            values = {m: v - (1.0 if _is_scopa(view, m) else 0.0) for m, v in values.items()}
        if c.temperature == 0:
            return max(moves, key=lambda m: values[m])
        top = max(values[m] for m in moves)
        weights = [math.exp((values[m] - top) / c.temperature) for m in moves]
        return self._rng.choices(moves, weights=weights)[0]

    def __repr__(self) -> str:
        if self.time_limit is None:
            return f"level({self.level}, seed={self.seed!r})"
        return f"level({self.level}, seed={self.seed!r}, time_limit={self.time_limit!r})"


def _is_scopa(view: PlayerView, move: Move) -> bool:
    """Whether ``move`` scores a scopa (:func:`~scopa.players.base.sweep_scores`)."""
    last_play = view.stock_size == 0 and sum(view.hand_sizes) == 1
    return sweep_scores(
        move.card.index, move.capture_mask, view.table.mask, view.rules.core_options, last_play
    )


def level(n: int, *, seed: int | None = None, time_limit: float | None = None) -> LevelPlayer:
    """The player of level ``n`` (1 to 6): :class:`LevelPlayer`, whose ``time_limit`` can only
    lower the level's own time cap, as ``make_player("level3", time_limit=...)`` takes it.

    >>> level(3, seed=1, time_limit=0.05)
    level(3, seed=1, time_limit=0.05)
    """
    return LevelPlayer(n, seed=seed, time_limit=time_limit)


def level_names() -> list[str]:
    """``level1`` ... ``level6``: the names :func:`~scopa.players.make_player` takes."""
    return [f"level{n}" for n in LEVELS]


def make_level(name: str, seed: int | None, options: dict[str, Any]) -> LevelPlayer | None:
    """The level player named ``name`` (``"level3"``), or None if it is not a level's name."""
    if name not in level_names():  # (exactly: not "level03", nor other scripts' digits)
        return None
    check_options(name, options, ["time_limit"])
    return LevelPlayer(int(name[5:]), seed=seed, time_limit=options.get("time_limit"))
