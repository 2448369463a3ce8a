"""A match: hands played until a team reaches the target (RULES §5).

>>> from scopa import Match, Rules
>>> m = Match(Rules.preset("scopa", target=3), seed=1)
>>> while not m.is_over:
...     _ = m.play(m.state.legal_moves()[0])
>>> m.winner in (0, 1) and max(m.scores) >= 3 and m.scores[0] != m.scores[1]
True
"""

from __future__ import annotations

import random
from collections.abc import Callable

from scopa.errors import IllegalMoveError, PositionError
from scopa.move import Move
from scopa.rules import Rules
from scopa.scoring import HandScore
from scopa.state import State

__all__ = ["Match"]


class Match:
    """Hands of one game played to ``rules.target``, with the dealer moving on each hand.

    The match is won at the end of a hand by the team with more points once one or
    both teams have reached the target; while they are level, more hands are played.
    The first dealer is drawn from ``seed`` unless ``dealer`` is given; each hand's deal
    comes from ``seed`` and the hand's number, so a match is reproducible.

    Attributes:
        rules: the rules of every hand.
        history: the :class:`HandScore` of each finished hand, in order.
    """

    def __init__(self, rules: Rules | str, seed: int | None = None, dealer: int | None = None) -> None:
        self.rules = rules if isinstance(rules, Rules) else Rules.from_json(rules)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise PositionError(f"bad seed {seed!r}: expected a non-negative int or None")
        self._rng = random.Random(seed)
        n = self.rules.players
        if dealer is None:
            dealer = self._rng.randrange(n)
        elif not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
            raise PositionError(f"bad dealer {dealer!r}: expected a seat in 0..{n - 1}")
        self.history: list[HandScore] = []
        self._scores = (0, 0)
        self._state = State.deal(self.rules, seed=self._rng.getrandbits(64), dealer=dealer)

    @property
    def state(self) -> State:
        """The current hand (the last, finished one once the match is over)."""
        return self._state

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        d = self._state.dealer
        assert d is not None
        return d

    @property
    def scores(self) -> tuple[int, int]:
        """Points per team over the finished hands."""
        return self._scores

    @property
    def is_over(self) -> bool:
        """True once a team has won."""
        return self.winner is not None

    @property
    def winner(self) -> int | None:
        """The winning team, or ``None`` while the match goes on (RULES §5)."""
        a, b = self._scores
        if max(a, b) >= self.rules.target and a != b:
            return 0 if a > b else 1
        return None

    def play(self, move: Move | str) -> State:
        """Play a move in the current hand; at the hand's end score it and deal the next.

        Returns the new current state. Raises :class:`IllegalMoveError` (and changes
        nothing) for an illegal move or once the match is over.
        """
        if self.is_over:
            raise IllegalMoveError(f"the match is over: team {self.winner} won {self._scores}")
        nxt = self._state.play(move)
        if nxt.is_over:
            score = nxt.score()
            self.history.append(score)
            p = score.points
            self._scores = (self._scores[0] + p[0], self._scores[1] + p[1])
            if self.winner is None:
                dealer = (self.dealer + 1) % self.rules.players
                nxt = State.deal(self.rules, seed=self._rng.getrandbits(64), dealer=dealer)
        self._state = nxt
        return nxt

    def play_out(self, choose: Callable[[State], Move | str]) -> int:
        """Play the rest of the match, asking ``choose(state)`` for every move; return the winner."""
        while not self.is_over:
            self.play(choose(self._state))
        winner = self.winner
        assert winner is not None
        return winner

    def __repr__(self) -> str:
        return (
            f"<Match {self.rules.game} to {self.rules.target}: {self._scores[0]}-{self._scores[1]} "
            f"after {len(self.history)} hand(s)>"
        )
