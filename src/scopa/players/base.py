"""The player protocol and determinization (sampling the hidden cards of a view)."""

from __future__ import annotations

import functools
import inspect
import random
from collections.abc import Callable, Mapping
from functools import lru_cache
from math import comb
from typing import Any, Protocol, runtime_checkable

import scopa_core as core
from scopa import errors
from scopa.card import CardSet, bits
from scopa.errors import IllegalMoveError, OptionError, PositionError, as_int, check_real, show
from scopa.limit import _TIME_MAX, Limit
from scopa.move import Move
from scopa.state import State, _check_position
from scopa.view import PlayerView, field_problem, stand_ins

__all__ = [
    "Player",
    "check_budget",
    "check_number",
    "check_seed",
    "check_view",
    "choose",
    "determinize",
    "leaves_sweep",
    "sweep_chance",
    "sweepers",
]


@runtime_checkable
class Player(Protocol):
    """Anything with ``choose(view) -> Move``: the move to play for ``view.seat``. The
    built-in players also take ``choose(view, limit=...)`` (a :class:`~scopa.limit.Limit`)."""

    def choose(self, view: PlayerView) -> Move: ...


@lru_cache(maxsize=256)
def _takes_limit(cls: type) -> bool:
    try:
        return "limit" in inspect.signature(cls.choose).parameters  # type: ignore[attr-defined]
    except (TypeError, ValueError, AttributeError):
        return False


def choose(player: Player, view: PlayerView, limit: Limit | None = None) -> Move:
    """``player``'s move for ``view``, within ``limit`` when its ``choose`` takes one (the
    built-in players do; a player with a plain ``choose(view)`` is asked as it is).

    >>> from scopa.players import GreedyPlayer
    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> str(choose(GreedyPlayer(), s.view(0), Limit(time=0.1)))
    '7dx3c4s'
    """
    if limit is not None and _takes_limit(type(player)):
        return player.choose(view, limit=limit)  # type: ignore[call-arg]
    return player.choose(view)


def determinize(view: PlayerView, rng: random.Random, fixed: dict[int, int] | None = None) -> State:
    """A full position consistent with ``view``: the unseen cards dealt at random to the
    other hands (by their sizes) and to the stock (in random order). ``fixed`` maps other
    seats to the hands (masks of unseen cards) they are given instead.

    >>> s = State.deal("scopa", seed=3)
    >>> d = determinize(s.view(0), random.Random(1))
    >>> d.hands[0] == s.hands[0] and d.table == s.table and len(d.stock) == len(s.stock)
    True
    >>> determinize(s.view(0), random.Random(1), {1: s.hands[1].mask}).hands[1] == s.hands[1]
    True
    """
    check_view(view)
    if not isinstance(rng, random.Random):
        raise OptionError(f"bad rng {show(rng)}: expected a random.Random")
    if fixed is not None and not isinstance(fixed, dict):
        raise PositionError(f"bad fixed {show(fixed)}: expected a dict of seat: hand mask, or None")
    # (NumPy's integers read as the ints they are, seats and masks alike)
    fixed = {errors.plain_int(seat): errors.plain_int(mask) for seat, mask in (fixed or {}).items()}
    pool = view.unseen.mask
    for seat, mask in fixed.items():
        other = isinstance(seat, int) and seat != view.seat and 0 <= seat < len(view.hand_sizes)
        good = other and isinstance(mask, int) and not isinstance(mask, bool) and 0 <= mask
        if not (good and not mask & ~pool) or (core.popcount(mask) != view.hand_sizes[seat]):
            wanted = f"{view.hand_sizes[seat]} of the cards" if other else "cards"
            shown = (
                str(CardSet._from_mask(mask)) if isinstance(mask, int) and 0 <= mask < 1 << 40 else repr(mask)
            )
            raise PositionError(
                f"cannot give seat {show(seat)} the hand {show(shown)}: expected {wanted} seat {view.seat} "
                "cannot see, not already given to another seat, for a seat other than its own"
            )
        pool &= ~mask
    pos = _Sampler(view).draw(rng, fixed)
    history = tuple((seat, m.card.index, m.capture_mask) for seat, m in view.history)
    return State._make(view.rules, pos, view.dealer, history)


class _Sampler:
    """The hidden cards of one view dealt again and again, the players' per-sample path: what
    does not change from one sample to the next (the unseen cards, the public parts of the
    position) is worked out once. :meth:`draw` takes ``fixed`` hands as checked (by
    :func:`determinize`, or made from the view by an inference) and deals as
    :func:`determinize` does, with the same draws of ``rng``."""

    __slots__ = ("_need", "_rest", "_seat", "_sizes", "_own", "_unseen")

    def __init__(self, view: PlayerView) -> None:
        self._unseen = list(bits(view.unseen.mask))  # (ascending)
        self._seat = view.seat
        self._sizes = view.hand_sizes
        self._own = view.hand.mask
        self._need = sum(k for seat, k in enumerate(self._sizes) if seat != self._seat) + view.stock_size
        self._rest = (
            view.table.mask,
            (view.captured[0].mask, view.captured[1].mask),
            view.scope,
            view.turn,
            -1 if view.last_capture is None else view.last_capture,
        )

    def draw(self, rng: random.Random, fixed: dict[int, int] | None = None) -> tuple[Any, ...]:
        """A position (the core's tuple) with the hidden cards dealt at random."""
        unseen = self._unseen
        need = self._need
        if fixed:
            given = 0
            for seat, mask in fixed.items():
                given |= mask
                need -= self._sizes[seat]
            unseen = [c for c in unseen if not given >> c & 1]
        else:
            unseen = unseen[:]
        if need > len(unseen):
            raise PositionError(
                f"the view hides {need} cards but only {len(unseen)} are unseen:"
                " cannot sample its hidden cards"
            )
        rng.shuffle(unseen)
        # (in a composed position more cards may be unseen than hidden: the rest are out of play)
        hands = []
        at = 0
        for seat, k in enumerate(self._sizes):
            if seat == self._seat:
                hands.append(self._own)
            elif fixed and seat in fixed:
                hands.append(fixed[seat])
            else:
                mask = 0
                for c in unseen[at : at + k]:
                    mask |= 1 << c
                hands.append(mask)
                at += k
        table, captured, scope, turn, last = self._rest
        return (tuple(hands), table, tuple(unseen[at:need]), captured, scope, turn, last)


def remember_options(init: Callable[..., None]) -> Callable[..., None]:
    """Decorate a player's ``__init__``: the options it was given (by position or by name)
    are kept, for :func:`options_repr`, a repr you can paste back."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        given = signature.bind(self, *args, **kwargs).arguments
        # (a number of another type, NumPy's, as the int or float it was taken as, and NumPy's
        # bool as the bool: the repr pastes back; it wrote time_limit=np.float32(0.02) and
        # infer=np.False_)
        self._given = {name: plain_option(value) for name, value in given.items() if name != "self"}

    return wrapper


def plain_option(value: Any) -> Any:
    """An option's value as Python's own bool, int or float if it is NumPy's (else as it is):
    what a player's repr and the arena's side names write.

    >>> import numpy as np
    >>> [plain_option(v) for v in (np.bool_(False), np.int64(5), np.float32(0.5), "x")]
    [False, 5, 0.5, 'x']
    >>> plain_option({"sweep": np.float64(3)})
    {'sweep': 3.0}
    """
    if isinstance(value, Mapping):  # (greedy's weights and PIMC's model given as mappings)
        return {k: plain_option(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(plain_option(v) for v in value)
    flag = errors.as_bool(value)
    return flag if flag is not None else errors.plain_number(value)


def own_copy(player: Any) -> Any:
    """``copy.copy`` of a player that draws from a random stream: a deep copy, so the copy's
    stream is its own (a shallow copy shared the original's, so the two played neither's moves).
    A class sets ``__copy__ = own_copy``."""
    import copy

    return copy.deepcopy(player)


def options_repr(player: Any) -> str:
    """``Class(option=value, ...)`` with the options ``player`` was made with.

    >>> from scopa.players import PIMCPlayer
    >>> PIMCPlayer(8, seed=2)
    PIMCPlayer(samples=8, seed=2)
    """
    given = getattr(player, "_given", {})
    return f"{type(player).__name__}({', '.join(f'{k}={v!r}' for k, v in given.items())})"


def _legal(view: PlayerView) -> list[Move]:
    """The legal moves of ``view`` (raise :class:`IllegalMoveError` if its seat is not to move,
    :class:`PositionError` if it is not a view)."""
    moves = check_view(view).legal_moves()
    if not moves:
        if not any(view.hand_sizes):
            raise IllegalMoveError(f"seat {view.seat} has no card to play: the hand is over")
        raise IllegalMoveError(f"seat {view.seat} is not to move (seat {view.turn} is)")
    return moves


#: Most of a count a player takes (samples, iterations; ``candidates`` and ``depth`` have
#: their own, smaller, bounds).
MAX_BUDGET = (1 << 31) - 1
#: Most plays a search may look ahead (``depth``, ``exact_plays``): a hand has at most 40.
MAX_PLAYS = 40
#: Most candidate deals a four-player inference draws (each a row of a NumPy array).
MAX_CANDIDATES = 100_000


def check_budget(name: str, value: object, allow_none: bool = False, most: int = MAX_BUDGET) -> Any:
    """``value`` if it is a positive number: an int in 1..``most`` for counts (an integer of
    another type, NumPy's, as an int), seconds in (0, 1e9] for ``time_limit`` (what a
    :class:`~scopa.limit.Limit` takes); else :class:`~scopa.errors.OptionError`.

    >>> check_budget("depth", 10**30, most=40)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad depth 1000000000000000000000000000000: expected an int >= 1 (at most 40)
    """
    if value is None and allow_none:
        return None
    if name == "time_limit":
        check_number(name, value, 0, _TIME_MAX, "seconds, a number in (0, 1e9], or None", above=True)
        # (another type's number, NumPy's float32, as a float: taken here, it was refused by every
        # choose as "np.float32(0.020019531)")
        return errors.plain_number(value)
    n = as_int(value)
    if n is None or not 1 <= n <= most:
        raise OptionError(
            f"bad {name} {show(value)}: expected an int >= 1 (at most {most})"
            + (" or None" if allow_none else "")
        )
    return n


def check_seed(seed: object) -> int | None:
    """``seed`` if it is None, else as an int if it is one in 0..2**128-1 (not a bool; NumPy's
    integers too); else :class:`~scopa.errors.OptionError` (Python's random stream takes -7 as
    7: a negative seed would play a positive one's moves).

    >>> check_seed(-7)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad seed -7: expected an int in 0..2**128-1 or None
    """
    return errors.check_seed(seed, OptionError, none=True, bits=128)


def check_options(name: str, options: dict[str, Any], takes: list[str], *, seed: bool = True) -> None:
    """Refuse, as an :class:`~scopa.errors.OptionError` that names them and what the player
    ``name`` takes, the ``options`` not in ``takes`` (every player takes ``seed`` besides, named
    in the message unless ``seed`` is False: where the caller gives the seeds, as the arena).

    >>> check_options("greedy", {"depth": 3}, ["weights"])
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad options for player 'greedy': 'depth'; expected weights or seed
    >>> check_options("random", {"depth": 3}, [], seed=False)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad options for player 'random': 'depth'; it takes no option
    """
    unknown = sorted(set(options) - set(takes))
    if unknown:
        if takes:
            expected = f"expected {errors.alternatives([*takes, 'seed'] if seed else takes)}"
        else:
            expected = f"it takes no option{' but seed' if seed else ''}"
        raise OptionError(f"bad options for player {show(name)}: {', '.join(map(show, unknown))}; {expected}")


def check_view(view: object) -> PlayerView:
    """``view`` if it is a :class:`~scopa.view.PlayerView` that can occur in play (what
    ``choose`` takes: a seat's view, ``state.view(seat)``, or ``view_from_json``'s; one built
    by hand is checked as a position is); else :class:`~scopa.errors.PositionError`.

    >>> import dataclasses
    >>> v = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").view(0)
    >>> check_view(dataclasses.replace(v, table=v.hand))
    Traceback (most recent call last):
    ...
    scopa.errors.PositionError: bad view: a card in two places: 7d Kc
    """
    if not isinstance(view, PlayerView):
        hint = ": give the seat's view, state.view(seat)" if isinstance(view, State) else ""
        raise PositionError(f"bad view {show(view)}: expected a scopa.PlayerView{hint}")
    if view.__dict__.get("_from_play"):
        return view
    why = _view_problem(view)
    if why is not None:
        raise PositionError(f"bad view: {why}")
    object.__setattr__(view, "_from_play", True)  # (checked once: a view is immutable)
    return view


def _view_problem(v: PlayerView) -> str | None:
    """Why the view cannot occur in play, or None: its fields' types and ranges, its cards
    in one place each, and the position it stands for (the hidden cards dealt in index
    order) checked as :meth:`State.from_cards` checks one."""
    why = field_problem(v)  # (each field of its kind: checked as the view was made)
    if why is not None:
        return why
    seen = 0
    sets = (v.hand, v.table, *v.captured, v.out_of_play)
    for s in sets:
        if s.mask & seen:
            return f"a card in two places: {CardSet._from_mask(s.mask & seen)}"
        seen |= s.mask
    sizes, stock, scope = v.hand_sizes, v.stock_size, v.scope
    if sizes[v.seat] != len(v.hand):
        return f"hand_sizes {show(sizes)}: seat {v.seat}'s hand holds {len(v.hand)} cards"
    hidden = sum(sizes) - sizes[v.seat] + stock
    unseen = list(bits(core.FULL & ~seen))
    if hidden > len(unseen):
        return f"it hides {hidden} cards, but only {len(unseen)} are unaccounted for"
    hands, stand_in_stock = stand_ins(sizes, v.seat, v.hand.mask, unseen, stock)
    pos = (
        tuple(hands),
        v.table.mask,
        tuple(stand_in_stock),
        (v.captured[0].mask, v.captured[1].mask),
        scope,
        v.turn,
        -1 if v.last_capture is None else v.last_capture,
    )
    try:
        _check_position(v.rules, pos, v.dealer)
    except PositionError as exc:
        return str(exc)
    return None


def check_number(
    name: str, value: object, low: float, high: float, expected: str, *, above: bool = False
) -> float:
    """``value`` as a float; :class:`~scopa.errors.OptionError` ("bad {name} {value}: expected
    {expected}") unless it is a finite int or float, not a bool, from ``low`` to ``high``
    (greater than ``low`` with ``above=True``).

    >>> check_number("reply_weight", 1, 0, 1, "a number from 0 to 1")
    1.0
    >>> check_number("tie", float("inf"), 0, float("inf"), "points >= 0 or None")
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad tie inf: expected points >= 0 or None
    >>> check_number("temperature", 0, 0, float("inf"), "a finite number > 0", above=True)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad temperature 0: expected a finite number > 0
    """
    return check_real(name, value, low, high, expected, finite=True, above=above)


@lru_cache(maxsize=65536)
def sweepers(table: int, opts: int) -> int:
    """The mask of the cards that could capture the whole non-empty ``table`` (0 when empty).

    >>> str(CardSet(sweepers(CardSet.parse("3c 4s").mask, 0)))
    '7d 7c 7s 7b'
    """
    out = 0
    if table:
        for c in range(40):
            if not table >> c & 1 and table in core.captures(c, table, opts):  # (a card in hand)
                out |= 1 << c
    return out


def sweep_scores(card: int, capture: int, table: int, opts: int, last_play: bool) -> bool:
    """Whether ``card`` (an index) taking ``capture`` from ``table`` scores a scopa under the
    core options ``opts``: it takes the whole table (RULES §3.6), but not on the hand's last
    play (``last_play``) unless ``scopa_on_last_play``, nor as an ace taking all unless
    ``ace_sweep_is_scopa`` (RULES §7).

    >>> ace_all, is_scopa = core.OPT_ACE_TAKES_ALL, core.OPT_ACE_SWEEP_IS_SCOPA
    >>> table = CardSet.parse("5s 6b").mask  # (the ace of coins, index 0, takes it all)
    >>> [sweep_scores(0, table, table, opts, False) for opts in (ace_all, ace_all | is_scopa)]
    [False, True]
    """
    if not capture or capture != table:
        return False
    if last_play and not opts & core.OPT_SCOPA_ON_LAST_PLAY:
        return False
    ace_takes_all = opts & core.OPT_ACE_TAKES_ALL and card % 10 == 0 and not table & core.ACES
    return not ace_takes_all or bool(opts & core.OPT_ACE_SWEEP_IS_SCOPA)


def leaves_sweep(table: int, cards: int, opts: int) -> bool:
    """Whether some card among ``cards`` could capture the whole ``table``."""
    return bool(sweepers(table, opts) & cards)


def sweep_chance(table: int, unseen: int, hand_size: int, opts: int) -> float:
    """The chance that a hand of ``hand_size`` cards drawn uniformly from ``unseen`` holds a
    card that captures the whole ``table`` (hypergeometric: 1 - C(u-w, h) / C(u, h) for ``u``
    unseen cards of which ``w`` sweep).

    >>> round(sweep_chance(CardSet.parse("3c 4s").mask, CardSet.parse("7d 7c Kd Kc").mask, 2, 0), 3)
    0.833
    """
    w = core.popcount(sweepers(table, opts) & unseen)
    u = core.popcount(unseen)
    h = min(hand_size, u)
    if not w or h <= 0:
        return 0.0
    return 1.0 - comb(u - w, h) / comb(u, h)
