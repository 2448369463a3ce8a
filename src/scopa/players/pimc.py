"""Perfect-information Monte Carlo: solve many samples of the hidden cards, average."""

from __future__ import annotations

import contextlib
import math
import random
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import accumulate
from typing import Any

import scopa_core as core
from scopa._threads import gather
from scopa.errors import OptionError, PositionError, as_bool, as_int, show
from scopa.limit import Limit
from scopa.move import Move
from scopa.players.base import (
    MAX_CANDIDATES,
    MAX_PLAYS,
    _legal,
    _Sampler,
    check_budget,
    check_number,
    check_seed,
    leaves_sweep,
    options_repr,
    own_copy,
    remember_options,
)
from scopa.players.inference import OpponentModel, _probabilities, deal_posterior, hand_posterior
from scopa.rules import Rules
from scopa.solver import check_tt_size, core_solver
from scopa.state import _check_position
from scopa.view import PlayerView
from scopa_core import _checks

__all__ = ["FOUR_PLAYER_MODEL", "PIMCPlayer"]

FOUR_PLAYER_MODEL = OpponentModel(temperature=0.5)
"""The opponent model of the four-player inference when none is given: softer than the
two-player default (temperature 0.5 against 0.1). Against PIMC without inference in Scopone
scientifico: +0.329 [+0.232, +0.425] points per hand on 1,000 duplicate deals; on 200 others
temperature 0.1, 0.5 and 1.5 gave -0.150, +0.090 and +0.018 (each about ±0.23)."""

#: the default ``reply_weight`` (2-player games; measured in docs/benchmarks.md)
REPLY_WEIGHT = 0.25

#: hands to give other seats ({seat: mask}) with their cumulative weights
Posterior = tuple[list[dict[int, int]], list[float]]


_POOL_LOCK = threading.Lock()

#: The most reply logits a thread keeps (:meth:`PIMCPlayer._logit_cache`): about 450 bytes each,
#: 2 MB in all; a hand of 2-player Scopa asks for about 450 (then the cache starts again).
_LOGITS_KEPT = 1 << 12


def _own_logits(model: OpponentModel) -> bool:
    """Whether ``model`` weighs the replies as :class:`OpponentModel` does (its logits may be
    kept, :meth:`PIMCPlayer._logit_cache`): a subclass that has its own ``move_logits`` or
    ``reply_probabilities`` is asked for them."""
    kind = type(model)
    return (
        kind.move_logits is OpponentModel.move_logits
        and kind.reply_probabilities is OpponentModel.reply_probabilities
    )


class _Cut(Exception):
    """A sample's search stopped by the limit (the sample is left out of the means)."""


class PIMCPlayer:
    """Perfect-information Monte Carlo (PIMC).

    For each of up to ``samples`` samples of the hidden cards consistent with the view, every
    legal move is valued by the double-dummy solver (``analyze``) when at most
    ``exact_plays`` plays are left (default: 16 with four players, 12 with two), otherwise by
    an alpha-beta ``depth`` plays deep (default: 4 with four players, 8 with two) with an
    evaluation of the open scoring terms. The move with the best average wins; moves within
    ``tie`` points of it (default: 0 with two players, so only moves of the very best average;
    0.05 with four) are ranked by how often they leave the next player a sweep, then by move
    order. Sampling stops early when ``time_limit`` seconds have passed; the limit stops a
    sample's search too (a sample it cuts short is left out, and when it cuts the first, the
    moves of that sample are valued one play deep, so a move comes back within the limit
    whatever ``depth`` and ``exact_plays``); ``time_limit=None`` makes the player strictly
    reproducible. With
    ``threads`` > 1 the samples are valued in that many threads at once (each with a solver of
    its own): the same moves as one thread for a given seed and sample count. A node limit counts
    the positions the solvers searched, which depend on what their tables hold from earlier
    calls: under one, ``threads`` > 1 may value another number of samples than one thread, and a
    copy (its tables empty) than the player it was copied from; the same player making the same
    calls values the same samples, whatever the threads' scheduling.

    With two players and ``infer=True`` (the default) the opponent's hand in each sample is
    drawn from :func:`~scopa.players.inference.hand_posterior`: hands that explain the
    opponent's plays since its last refill under ``model`` (an
    :class:`~scopa.players.inference.OpponentModel`, default ``OpponentModel()``) are drawn
    more often. ``infer=False`` samples uniformly. With four players (``infer`` and
    ``deal_inference``, both on by default) the other three hands are drawn from
    :func:`~scopa.players.inference.deal_posterior`: ``candidates`` uniform deals of them,
    weighed by how well each explains the partner's and the opponents' plays since the deal
    under ``model`` (default :data:`FOUR_PLAYER_MODEL`, the model at temperature 0.5): +0.329
    points per hand over PIMC without it in Scopone scientifico (docs/benchmarks.md).

    With two players the opponent's reply to each move is not only taken to be its best
    reply in the sample, as if it saw every card and solved the rest: the move's value is
    ``(1 - reply_weight)`` times that minimax value plus ``reply_weight`` times its
    expected value when the opponent replies as ``model`` predicts
    (:meth:`OpponentModel.reply_probabilities
    <scopa.players.inference.OpponentModel.reply_probabilities>`), each reply valued by the
    same search (default 0.25). ``reply_weight=0`` takes the best reply only (PIMC as it was),
    which never strays from the solver's values where nothing is hidden. The 2-player
    defaults ``tie=0`` and ``reply_weight=0.25`` gain +0.076 [+0.034, +0.118] points per hand
    over the earlier 0.05 and 0.5 on 3,000 duplicate deals (docs/benchmarks.md).

    With four players the team is not one mind: a sample's solve lets the partner play as if
    it saw this player's hand. With ``partner_weight`` > 0 each move is valued over the next
    opponent's replies (its best one, as in the sample) and, after each, the partner's reply
    as ``(1 - partner_weight)`` times its best reply plus ``partner_weight`` times its
    expected value when the partner plays as ``model`` predicts of a player who cannot see
    the other three hands. It costs about six times a sample's search; ``partner_weight=0``
    (the default) keeps the solver's values (docs/design-notes.md has the measurements).

    >>> import scopa
    >>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> str(PIMCPlayer(samples=4, seed=1).choose(s.view(0)))
    '7dx3c4s'
    """

    __copy__ = own_copy  # (a copy draws from a random stream of its own)

    @remember_options
    def __init__(
        self,
        samples: int = 128,
        time_limit: float | None = 0.1,
        seed: int | None = None,
        exact_plays: int | None = None,
        depth: int | None = None,
        tie: float | None = None,
        tt_size_mb: int = 4,
        infer: bool = True,
        model: OpponentModel | None = None,
        reply_weight: float = REPLY_WEIGHT,
        threads: int = 1,
        deal_inference: bool = True,
        candidates: int = 512,
        partner_weight: float = 0.0,
    ) -> None:
        seed = check_seed(seed)
        samples = check_budget("samples", samples)
        tt_size_mb = check_tt_size(tt_size_mb)
        time_limit = check_budget("time_limit", time_limit, allow_none=True)
        depth = check_budget("depth", depth, allow_none=True, most=MAX_PLAYS)
        exact = None if exact_plays is None else as_int(exact_plays)
        if exact_plays is not None and (exact is None or not 0 <= exact <= MAX_PLAYS):
            raise OptionError(
                f"bad exact_plays {show(exact_plays)}: expected an int in 0..{MAX_PLAYS} or None"
            )
        if as_bool(infer) is None:
            raise OptionError(f"bad infer {show(infer)}: expected True or False")
        if model is not None and not isinstance(model, OpponentModel):
            raise OptionError(f"bad model {show(model)}: expected an OpponentModel or None")
        if tie is not None:
            check_number("tie", tie, 0, math.inf, "points >= 0 or None")
        weight = "a number from 0 to 1"
        self.reply_weight = check_number("reply_weight", reply_weight, 0, 1, weight)
        self.partner_weight = check_number("partner_weight", partner_weight, 0, 1, weight)
        self.samples = samples
        self.time_limit = time_limit
        self.seed = seed
        self.exact_plays = exact
        self.depth = depth
        self.tie = tie
        self.infer = as_bool(infer)
        self.model = model if model is not None else OpponentModel()
        self.deal_model = model if model is not None else FOUR_PLAYER_MODEL
        n_threads = as_int(threads)
        if n_threads is None or not 1 <= n_threads <= 64:
            raise OptionError(f"bad threads {show(threads)}: expected an int in 1..64")
        self.threads = n_threads
        if as_bool(deal_inference) is None:
            raise OptionError(f"bad deal_inference {show(deal_inference)}: expected True or False")
        candidates = check_budget("candidates", candidates, most=MAX_CANDIDATES)
        self.deal_inference = as_bool(deal_inference)
        self.candidates = candidates
        self._rng = random.Random(seed)
        self._tt_size_mb = tt_size_mb
        self._pool: ThreadPoolExecutor | None = None
        #: the pool's solvers: :attr:`threads` of them for each call in flight (_parallel_samples)
        self._slice_solvers: list[list[Any]] = []
        self._local = threading.local()
        self._solver()  # (this thread's, made now: a table the machine cannot give is refused here)
        #: samples the last :meth:`evaluate` used
        self.last_samples = 0

    def __repr__(self) -> str:
        return options_repr(self)

    def __getstate__(self) -> dict[str, Any]:
        """A copy (the arena's of a player object, a worker's pickled one) is this player
        with its own solver and threads: the search memory and the thread pool are not copied."""
        state = dict(self.__dict__)
        for name in ("_pool", "_local", "_slice_solvers"):
            del state[name]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._pool = None
        self._slice_solvers = []
        self._local = threading.local()
        self._solver()

    def _solver(self) -> Any:
        """This thread's solver: a player used from several threads searches in each with a
        table of its own (a core solver serves one thread at a time)."""
        solver = getattr(self._local, "solver", None)
        if solver is None:
            solver = self._local.solver = core_solver(self._tt_size_mb)
        return solver

    def _exact_limit(self, players: int) -> int:
        if self.exact_plays is not None:
            return self.exact_plays
        return 16 if players == 4 else 12

    def _exact(self, pos: tuple[Any, ...], rules: Rules) -> bool:
        """Whether the sample ``pos`` is valued exactly: at most ``exact_plays`` plays left."""
        return sum(core.popcount(h) for h in pos[0]) + len(pos[2]) <= self._exact_limit(rules.players)

    def _tie(self, players: int) -> float:
        if self.tie is not None:
            return self.tie
        return 0.0 if players == 2 else 0.05

    def _depth(self, players: int) -> int:
        if self.depth is not None:
            return self.depth
        return 4 if players == 4 else 8

    def sample_values(
        self, pos: tuple[Any, ...], rules: Rules, solver: Any = None
    ) -> list[tuple[int, int, float]]:
        """Every legal move's value in one full position (a sample), for the team to move:
        ``[(card, capture mask, points), ...]``, exact when at most ``exact_plays`` plays
        are left, else from the depth-limited search; with two players, the opponent's reply
        weighed as the class docstring says.

        ``pos`` is the core's tuple (``State.masks``), checked as the core checks one
        (:class:`~scopa.errors.PositionError` if it is not one of ``rules``' positions);
        ``solver`` a core solver (``scopa_core.Solver``) or None for this thread's.

        >>> import scopa
        >>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
        >>> PIMCPlayer().sample_values(s.masks, s.rules)
        [(6, 8392704, 4.0), (19, 0, 3.0)]
        """
        if not isinstance(rules, Rules):
            raise OptionError(f"bad rules {show(rules)}: expected a scopa.Rules")
        if solver is not None and not isinstance(solver, core.Solver):
            raise OptionError(f"bad solver {show(solver)}: expected a scopa_core.Solver or None")
        try:
            _checks.check_tuple(pos, rules.hand_size)
            _checks.check_playable(pos)
        except ValueError as exc:
            raise PositionError(str(exc)) from None
        if len(pos[0]) != rules.players:
            raise PositionError(
                f"bad position tuple {show(pos)}: not a position of {rules.game} ({rules.players} hands)"
            )
        try:
            _check_position(rules, pos, None)
        except PositionError as exc:
            raise PositionError(
                f"bad position tuple {show(pos)}: not a position of {rules.game}: {exc}"
            ) from None
        return self._sample_values(tuple(pos), rules, solver)

    def _sample_values(
        self, pos: tuple[Any, ...], rules: Rules, solver: Any = None
    ) -> list[tuple[int, int, float]]:
        """:meth:`sample_values` of a position already checked (the samples' own)."""
        opts, block = rules.core_options, rules.hand_size
        exact = self._exact(pos, rules)
        depth = self._depth(rules.players)
        if rules.players == 4 and self.partner_weight > 0 and (exact or depth >= 3):
            return self._partner_values(pos, rules, exact, depth, solver)
        if rules.players != 2 or self.reply_weight == 0 or (not exact and depth < 2):
            return self._minimax_values(pos, rules, exact, depth, solver)
        me = pos[5]
        w = self.reply_weight
        out = []
        for c, m in core.legal_moves(pos[0][me], pos[1], opts):
            child = core.apply_move(pos, c, m, opts, block)
            replies = self._minimax_values(child, rules, exact, depth - 1, solver) if child[5] != me else []
            if not replies:  # the opponent has no card (a composed position): no reply to weigh
                return self._minimax_values(pos, rules, exact, depth, solver)
            # the cards the opponent cannot see: this player's hand and the stock (in the last
            # round it may count them; the model's sweep risk is about cards it cannot see)
            out.append((c, m, -self._weighed(replies, child, w, opts)))
        return out

    def _weighed(
        self, replies: list[tuple[int, int, float]], pos: tuple[Any, ...], w: float, opts: int
    ) -> float:
        """The mover's value in ``pos`` when it plays its best reply with weight ``1 - w`` and
        as ``model`` predicts with weight ``w``, judging its sweep risk on the cards it cannot
        see (the other hands and the stock); ``replies`` are its moves' values there."""
        unseen = 0
        for seat, hand in enumerate(pos[0]):
            if seat != pos[5]:
                unseen |= hand
        for x in pos[2]:
            unseen |= 1 << x
        moves = [(rc, rm) for rc, rm, _ in replies]
        model, cache = self.model, self._logit_cache()
        if cache is not None:
            probs = _probabilities(model._cached_logits(moves, pos[1], opts, cache), unseen)
        else:  # (a subclass's own weighing of the replies is asked, as it always was)
            probs = model.reply_probabilities(moves, pos[1], unseen, opts)
        best = max(v for _, _, v in replies)
        expected = sum(p * v for p, (_, _, v) in zip(probs, replies, strict=True))
        return (1 - w) * best + w * expected

    def _partner_values(
        self, pos: tuple[Any, ...], rules: Rules, exact: bool, depth: int, solver: Any = None
    ) -> list[tuple[int, int, float]]:
        """With four players: every legal move's value when the partner, after the next
        opponent's best reply, plays as a partner who does not see this player's hand would:
        ``(1 - partner_weight)`` times its best reply in the sample plus ``partner_weight``
        times its expected value under ``model`` (the cards it cannot see: the other three
        hands and the stock). Positions where the partner does not move third fall back to
        the plain values."""
        opts, block = rules.core_options, rules.hand_size
        me = pos[5]
        partner = (me + 2) % 4
        w = self.partner_weight
        out = []
        for c, m in core.legal_moves(pos[0][me], pos[1], opts):
            child = core.apply_move(pos, c, m, opts, block)
            opponent = child[5]
            if opponent == me or opponent == partner or not child[0][opponent]:
                return self._minimax_values(pos, rules, exact, depth, solver)
            worst = None
            for rc, rm in core.legal_moves(child[0][opponent], child[1], opts):
                grand = core.apply_move(child, rc, rm, opts, block)
                if grand[5] != partner or not grand[0][partner]:
                    return self._minimax_values(pos, rules, exact, depth, solver)
                replies = self._minimax_values(grand, rules, exact, depth - 2, solver)
                value = self._weighed(replies, grand, w, opts)
                worst = value if worst is None else min(worst, value)
            assert worst is not None  # the opponent holds a card, so it has a move
            out.append((c, m, worst))
        return out

    def _logit_cache(self) -> dict[tuple[int, int, int, int], Any] | None:
        """This thread's cache of :attr:`model`'s logits of the replies (:meth:`_weighed`): the
        samples of one position, and the positions of one hand, ask for the same ones. None for
        a model that weighs the replies its own way (:func:`_own_logits`: asked each time)."""
        held = getattr(self._local, "logits", None)
        if held is None or held[0] is not self.model or (held[1] is not None and len(held[1]) > _LOGITS_KEPT):
            held = self._local.logits = (self.model, {} if _own_logits(self.model) else None)
        return held[1]

    def _nodes_here(self) -> int:
        """Positions this thread's solver calls have searched so far (a sample's value may take
        several calls: the reply weighing makes one a move)."""
        return getattr(self._local, "nodes", 0)

    def _minimax_values(
        self, pos: tuple[Any, ...], rules: Rules, exact: bool, depth: int, solver: Any = None
    ) -> list[tuple[int, int, float]]:
        """Every legal move's exact value, or its value from an alpha-beta ``depth`` plays deep;
        :class:`_Cut` when this thread's limit (:meth:`_limited`) stops the search first."""
        opts, block = rules.core_options, rules.hand_size
        sv = solver or self._solver()
        stop, deadline = getattr(self._local, "cut", None) or (None, None)
        seconds = 0.0  # (none)
        if deadline is not None:
            seconds = deadline - time.perf_counter()
            if seconds <= 0:
                raise _Cut
        if exact:
            exact_rows = sv.analyze(pos, opts, block, 0, seconds, stop)
            rows = None if exact_rows is None else [(c, m, float(v)) for c, m, v in exact_rows]
        else:
            rows = sv.analyze_depth(pos, opts, block, depth, 0, seconds, stop)
        self._local.nodes = self._nodes_here() + sv.nodes
        if rows is None:
            raise _Cut
        return rows

    @contextlib.contextmanager
    def _limited(self, stop: Any, deadline: float | None) -> Iterator[None]:
        """This thread's sample searches stopped by ``stop`` (a StopFlag or None) and at
        ``deadline`` (a ``time.perf_counter()`` time or None) while in the block."""
        self._local.cut = (stop, deadline)
        try:
            yield
        finally:
            self._local.cut = None

    def _cut_short(
        self,
        pos: tuple[Any, ...],
        rules: Rules,
        risks: dict[tuple[int, int], int],
        totals: dict[Any, float],
        nxt: int,
    ) -> None:
        """No sample valued whole before the limit: the moves of the sample ``pos`` valued one
        play deep (each move's take and the evaluation after it: no search to stop)."""
        for c, m, v in self._minimax_values(pos, rules, False, 1):
            totals[(c, m)] += v
        self._count_risks(pos, rules, risks, nxt)

    def evaluate(self, view: PlayerView, limit: Limit | None = None) -> dict[Move, tuple[float, float]]:
        """``{move: (mean value, share of samples where it leaves the next player a sweep)}``.

        Sampling stops after ``samples`` samples, ``time_limit`` seconds, or what ``limit``
        allows (its time, its nodes: positions the solver searched over the samples, its
        stop flag), whichever comes first. The time and the stop flag stop a sample's search
        too: that sample is left out, and if no sample was valued whole the moves are valued
        one play deep in the first sample drawn (:attr:`last_samples` is then 0). The node limit
        is checked between samples."""
        lim = Limit.of(limit)
        seconds = self.time_limit
        if lim.time is not None:
            seconds = lim.time if seconds is None else min(seconds, lim.time)
        nodes = 0
        moves = _legal(view)
        rules = view.rules
        totals = {(m.card.index, m.capture_mask): 0.0 for m in moves}
        risks = dict.fromkeys(totals, 0)
        start = time.perf_counter()
        used = 0
        nxt = (view.seat + 1) % rules.players
        deadline = None if seconds is None else start + seconds

        def give_up() -> bool:  # (the inference of four hands, many candidates, keeps the limit too)
            return lim.stopped or (deadline is not None and time.perf_counter() > deadline)

        posterior = self._posterior(view, give_up) if self.infer else None
        sampler = _Sampler(view)
        pos = None
        if self.threads > 1:
            used, nodes, pos = self._parallel_samples(
                view, rules, posterior, totals, risks, deadline, lim, sampler
            )
        for _ in range(self.samples if self.threads == 1 else 0):
            pos = self._draw(view, posterior, sampler)
            rows, n = self._value_sample(pos, rules, lim.stop, deadline)
            nodes += n
            if rows is None:  # (the limit came in the sample: it is left out)
                break
            for c, m, v in rows:
                totals[(c, m)] += v
            self._count_risks(pos, rules, risks, nxt)
            used += 1
            if deadline is not None and time.perf_counter() > deadline:
                break
            if lim.stopped or (lim.nodes is not None and nodes >= lim.nodes):
                break
        self.last_samples = used
        if used == 0:
            assert pos is not None  # (a sample was drawn: samples >= 1)
            self._cut_short(pos, rules, risks, totals, nxt)
        n = max(used, 1)
        return {
            m: (totals[(m.card.index, m.capture_mask)] / n, risks[(m.card.index, m.capture_mask)] / n)
            for m in moves
        }

    def _posterior(self, view: PlayerView, give_up: Callable[[], bool] | None = None) -> Posterior | None:
        """What the other seats' plays say about their hands: the hands to give them, each
        with its cumulative weight (``None``: nothing to infer from, or ``give_up`` said so
        before four hands were weighed: sample uniformly)."""
        if view.rules.players == 2:
            post = hand_posterior(view, self.model)
            if post is None:
                return None
            return [{1 - view.seat: h} for h in post[0]], list(accumulate(post[1]))
        if not self.deal_inference:
            return None
        deals = deal_posterior(view, self.deal_model, self._rng, self.candidates, give_up)
        return None if deals is None else (deals[0], list(accumulate(deals[1])))

    def _draw(
        self, view: PlayerView, posterior: Posterior | None, sampler: _Sampler | None = None
    ) -> tuple[Any, ...]:
        """One sample of the hidden cards (the other hands from the posterior when there is one);
        ``sampler``: the view's own, made once for its samples."""
        sampler = sampler or _Sampler(view)
        if posterior is not None:
            fixed = self._rng.choices(posterior[0], cum_weights=posterior[1])[0]
            return sampler.draw(self._rng, fixed)
        return sampler.draw(self._rng)

    def _count_risks(
        self, pos: tuple[Any, ...], rules: Rules, risks: dict[tuple[int, int], int], nxt: int
    ) -> None:
        opts = rules.core_options
        next_hand = pos[0][nxt]
        for c, m in risks:
            after = (pos[1] & ~m) if m else (pos[1] | 1 << c)
            if leaves_sweep(after, next_hand, opts):
                risks[(c, m)] += 1

    def _parallel_samples(
        self,
        view: PlayerView,
        rules: Rules,
        posterior: Posterior | None,
        totals: dict[tuple[int, int], float],
        risks: dict[tuple[int, int], int],
        deadline: float | None,
        lim: Limit,
        sampler: _Sampler | None = None,
    ) -> tuple[int, int, tuple[Any, ...]]:
        """The samples valued by :attr:`threads` threads, each with a solver of its own: drawn in
        the order one thread would draw them, valued a batch at a time, added in that order, so
        the values are one thread's for the same seed and sample count when no limit cuts a
        sample (a cut one is left out, and the batch's later samples counted: one thread would
        have stopped at it). Returns the samples valued whole, the nodes and the first sample.

        Slice i of every batch is valued by the i-th of the call's solvers, whichever pool
        thread runs it: the positions a sample's search takes depend on what its solver's table
        holds, so under a node limit the samples counted, and so the values, would otherwise
        follow the threads' scheduling (each pool thread's own solver: they varied from run to
        run)."""
        with _POOL_LOCK:  # (one pool when threads share this player)
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="scopa-pimc")
            solvers = self._slice_solvers.pop() if self._slice_solvers else None
        if solvers is None:  # (the first call, or another call in flight from another thread)
            solvers = [core_solver(self._tt_size_mb) for _ in range(self.threads)]
        nxt = (view.seat + 1) % rules.players
        used = nodes = 0
        left = self.samples
        # a bounded search checks its limit between batches; an unbounded one takes them all at once
        step = self.threads * 4 if deadline is not None or lim.bounded else left
        first = None
        # the flag the slices' searches watch: set when the limit's flag is (gather passes it
        # on) and when this call raises, Ctrl-C among others, so that no search runs on in the
        # pool after the call, where without a time limit they ran each sample to its end and
        # the next call waited for them; and the slices value no further sample once the call
        # has raised (``abort``)
        halt, abort = core.StopFlag(), core.StopFlag()
        pool = self._pool
        while left > 0 and not (used and lim.stopped):
            size = 1 if lim.stopped else min(step, left)  # stopped already: the one sample
            batch = [self._draw(view, posterior, sampler) for _ in range(size)]
            first = first or batch[0]
            left -= len(batch)
            share = -(-len(batch) // self.threads)
            slices = [batch[i : i + share] for i in range(0, len(batch), share)]
            futures = []
            try:
                if lim.stopped:  # (its search watching a flag set from the start, as one thread's)
                    halt.set()
                for part, sv in zip(slices, solvers[: len(slices)], strict=True):
                    futures.append(pool.submit(self._value_slice, part, rules, halt, deadline, sv, abort))
                parts = gather(futures, halt, lim.stop)
            except BaseException:  # (a submit too: the slices submitted before it stop)
                abort.set()
                halt.set()
                raise
            valued = [row for part in parts for row in part]
            cut = False
            for pos, (rows, n) in zip(batch, valued, strict=True):
                nodes += n
                if rows is None:  # (the limit came in this sample: it is left out)
                    cut = True
                    continue
                for c, m, v in rows:
                    totals[(c, m)] += v
                self._count_risks(pos, rules, risks, nxt)
                used += 1
            if cut or (deadline is not None and time.perf_counter() > deadline):
                break
            if lim.stopped or (lim.nodes is not None and nodes >= lim.nodes):
                break
        assert first is not None  # (samples >= 1: one batch at least)
        # (the solvers kept for the next call only here: a call that raised, Ctrl-C among others,
        # may leave searches running in the pool on its solvers, which are not used again)
        with _POOL_LOCK:
            self._slice_solvers.append(solvers)
        return used, nodes, first

    def _value_slice(
        self,
        batch: list[tuple[Any, ...]],
        rules: Rules,
        stop: Any = None,
        deadline: float | None = None,
        solver: Any = None,
        halt: Any = None,
    ) -> list[tuple[list[tuple[int, int, float]] | None, int]]:
        """Samples valued in order in one thread of the pool, by ``solver`` (the slice's, see
        :meth:`_parallel_samples`); none after ``halt`` (a StopFlag) is set: the call, or
        another of its slices, failed (this one sets it when it fails)."""
        out = []
        try:
            for pos in batch:
                if halt is not None and halt.is_set():
                    break
                out.append(self._value_sample(pos, rules, stop, deadline, solver))
        except BaseException:  # (at once: the call learns of it only when its map reaches
            if halt is not None:  # this slice, after the slices before it)
                halt.set()
            raise
        return out

    def _value_sample(
        self, pos: tuple[Any, ...], rules: Rules, stop: Any, deadline: float | None, solver: Any = None
    ) -> tuple[list[tuple[int, int, float]] | None, int]:
        """The sample ``pos``'s values (None when ``stop`` or ``deadline`` cut its search short)
        and the positions its searches took."""
        before = self._nodes_here()
        try:
            with self._limited(stop, deadline):
                rows: list[tuple[int, int, float]] | None = self._sample_values(pos, rules, solver)
        except _Cut:
            rows = None
        return rows, self._nodes_here() - before

    def choose(self, view: PlayerView, limit: Limit | None = None) -> Move:
        """The move with the best mean value over the samples (see the class docstring);
        ``limit`` bounds the sampling as in :meth:`evaluate`."""
        moves = _legal(view)
        if len(moves) == 1:
            Limit.of(limit)  # a bad limit is refused whatever the position
            return moves[0]
        values = self.evaluate(view, limit)
        best = max(v for v, _ in values.values())
        near = [m for m in moves if values[m][0] >= best - self._tie(view.rules.players)]
        return min(near, key=lambda m: values[m][1])
