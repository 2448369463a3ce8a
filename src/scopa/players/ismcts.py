"""Information-set Monte Carlo tree search (SO-ISMCTS, Cowling, Powley and Whitehouse 2012)."""

from __future__ import annotations

import math
import random
import time

import scopa_core as core
from scopa.errors import OptionError, show
from scopa.limit import Limit
from scopa.move import Move
from scopa.players.base import (
    _legal,
    _Sampler,
    check_budget,
    check_number,
    check_seed,
    options_repr,
    own_copy,
    remember_options,
)
from scopa.players.greedy import GreedyPlayer
from scopa.view import PlayerView

__all__ = ["ISMCTSPlayer", "PLAYOUTS"]

PLAYOUTS = {"random": 0, "heuristic": 1, "auto": -1}
"""The playout policies, by name: the core's rollout policy numbers.
``"random"``: uniformly random legal moves; ``"heuristic"``: a quarter of the moves at
random, the others the best by a fixed score (sweeps, then captures of many cards, coins,
sevens and settebello; lay-downs that do not offer sevens, settebello or coins).
``"auto"`` (the default): heuristic with four players, random with two, as measured at
100 ms a move (heuristic against random: +0.670 [+0.345, +0.995] points per hand in Scopone
scientifico, -0.138 [-0.347, +0.072] in 2-player Scopa; 200 duplicate deals each)."""

_GREEDY = GreedyPlayer()


class _Node:
    __slots__ = ("children", "visits", "reward", "avail", "team")

    def __init__(self, team: int) -> None:
        self.children: dict[tuple[int, int], _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1
        self.team = team  # the team that made the move into this node


class ISMCTSPlayer:
    """Single-observer information-set MCTS on the core's playouts.

    Each iteration samples the hidden cards (a determinization), walks the tree choosing
    among the moves legal in that sample by UCB1 with availability counts, adds one node,
    finishes the hand inside the core with the ``playout`` policy (see :data:`PLAYOUTS`:
    ``"auto"``, the default, is ``"heuristic"`` with four players and ``"random"``, the
    uniform one, with two), and backs the result up, each
    node scoring it for the team that moved into it (the final difference, mapped to
    [0, 1]). At the root each move's UCB score gets a progressive bias, ``prior`` times the
    :class:`~scopa.players.GreedyPlayer` rating of the move scaled to 0..1 over the legal
    moves, divided by its visits + 1 (``prior=0``: none; the default 4 was measured at 100 ms
    a move: 1 and 4 against greedy in Scopone scientifico -0.278 and +0.338 on 200 deals, 4
    +0.275 on 1,000; 4 in Scopa +0.439 on 1,000, docs/benchmarks.md). Plays the most visited
    move after ``iterations`` iterations or ``time_limit`` seconds (``None``: strictly
    reproducible).

    >>> import scopa
    >>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> str(ISMCTSPlayer(iterations=300, time_limit=None, seed=1).choose(s.view(0)))
    '7dx3c4s'
    """

    __copy__ = own_copy  # (a copy draws from a random stream of its own)

    @remember_options
    def __init__(
        self,
        iterations: int = 100_000,
        time_limit: float | None = 0.1,
        seed: int | None = None,
        exploration: float = 0.7,
        playout: str = "auto",
        prior: float = 4.0,
    ) -> None:
        iterations = check_budget("iterations", iterations)
        time_limit = check_budget("time_limit", time_limit, allow_none=True)
        if not isinstance(playout, str) or playout not in PLAYOUTS:
            raise OptionError(f"bad playout {show(playout)}: expected one of {', '.join(PLAYOUTS)}")
        self.playout = playout
        self.prior = check_number("prior", prior, 0, math.inf, "a finite number >= 0")
        self._policy = PLAYOUTS[playout]
        self.iterations = iterations
        self.time_limit = time_limit
        self.seed = seed = check_seed(seed)
        self.exploration = check_number("exploration", exploration, 0, math.inf, "a finite number >= 0")
        self._rng = random.Random(seed)
        self.last_iterations = 0
        #: the root moves' visit counts of the last search (a move played without a search: {})
        self.last_visits: dict[Move, int] = {}

    def __repr__(self) -> str:
        return options_repr(self)

    def choose(self, view: PlayerView, limit: Limit | None = None) -> Move:
        """The most visited root move after the search; ``limit`` may end it sooner (its
        time, its nodes counted as iterations, its stop flag)."""
        lim = Limit.of(limit)
        seconds = self.time_limit
        if lim.time is not None:
            seconds = lim.time if seconds is None else min(seconds, lim.time)
        iterations = self.iterations if lim.nodes is None else min(self.iterations, lim.nodes)
        moves = _legal(view)
        if len(moves) == 1:
            self.last_visits = {}
            return moves[0]
        rules = view.rules
        opts, block = rules.core_options, rules.hand_size
        policy = self._policy if self._policy >= 0 else (1 if rules.players == 4 else 0)
        start = time.perf_counter()  # (the prior's ratings count against the time too)
        root = _Node(team=1 - view.team)
        bias = self._root_bias(view, moves) if self.prior else {}
        rng = self._rng
        done = 0
        sampler = _Sampler(view)
        for _ in range(iterations):
            done += 1
            pos = sampler.draw(rng)
            node = root
            path = [root]
            while any(pos[0]):
                team = pos[5] & 1
                legal = core.legal_moves(pos[0][pos[5]], pos[1], opts)
                untried = [mv for mv in legal if mv not in node.children]
                if untried:
                    mv = untried[rng.randrange(len(untried))]
                    child = _Node(team)
                    node.children[mv] = child
                    pos = core.apply_move(pos, mv[0], mv[1], opts, block)
                    path.append(child)
                    break
                best, best_score = legal[0], -1.0
                for mv in legal:
                    ch = node.children[mv]
                    ch.avail += 1
                    score = ch.reward / ch.visits + self.exploration * math.sqrt(
                        math.log(ch.avail) / ch.visits
                    )
                    if node is root and bias:
                        score += bias[mv] / (ch.visits + 1)
                    if score > best_score:
                        best, best_score = mv, score
                node = node.children[best]
                pos = core.apply_move(pos, best[0], best[1], opts, block)
                path.append(node)
            if any(pos[0]):
                diff = core.rollouts(pos, opts, block, 1, rng.getrandbits(64), policy)[0]
            else:
                row0, row1 = core.score(pos[3][0], pos[3][1], pos[4][0], pos[4][1], opts)
                diff = sum(row0) - sum(row1)
            reward0 = min(1.0, max(0.0, 0.5 + diff / 20.0))
            for nd in path[1:]:
                nd.visits += 1
                nd.reward += reward0 if nd.team == 0 else 1.0 - reward0
            if seconds is not None and time.perf_counter() - start > seconds:
                break
            if lim.stopped:
                break
        visits = {
            m: root.children[(m.card.index, m.capture_mask)].visits
            if (m.card.index, m.capture_mask) in root.children
            else 0
            for m in moves
        }
        self.last_iterations = done
        self.last_visits = visits
        # (this search's own counts: another thread's search may have replaced last_visits)
        return max(moves, key=visits.__getitem__)

    def _root_bias(self, view: PlayerView, moves: list[Move]) -> dict[tuple[int, int], float]:
        """Progressive bias at the root: ``prior`` times the greedy player's rating of each
        move, scaled to 0..1 over the legal moves (it fades as 1 / (visits + 1))."""
        scores = {(m.card.index, m.capture_mask): _GREEDY._score(view, m) for m in moves}
        lo, hi = min(scores.values()), max(scores.values())
        span = hi - lo or 1.0
        return {mv: self.prior * (v - lo) / span for mv, v in scores.items()}
