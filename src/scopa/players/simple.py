"""The random player."""

from __future__ import annotations

import random

from scopa.limit import Limit
from scopa.move import Move
from scopa.players.base import _legal, check_seed, options_repr, own_copy, remember_options
from scopa.view import PlayerView

__all__ = ["RandomPlayer"]


class RandomPlayer:
    """Plays a uniformly random legal move.

    >>> import scopa
    >>> s = scopa.State.deal("scopa", seed=1)
    >>> RandomPlayer(seed=5).choose(s.view(s.turn)) in s.legal_moves()
    True
    """

    __copy__ = own_copy  # (a copy draws from a random stream of its own)

    @remember_options
    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed = check_seed(seed)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return options_repr(self)

    def choose(self, view: PlayerView, limit: Limit | None = None) -> Move:
        """A random legal move (at once: ``limit`` is accepted for the protocol's sake)."""
        Limit.of(limit)
        return self._rng.choice(_legal(view))
