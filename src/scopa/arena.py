"""The arena: players against each other on duplicate deals, on any executor.

Every deal is played twice with the sides swapped (side A holds team 0's seats in the
first game and team 1's in the second), so the luck of the cards cancels.

>>> r = arena("scopa", "greedy", "random", deals=20, seed=1)
>>> r.deals, r.games, r.names
(20, 40, ('greedy', 'random'))
>>> r.diff > 0
True

A side is a player's name (``"pimc"``), a name with options (``("pimc", {"samples": 8})``),
a player object (anything with ``choose(view)``; each game gets a fresh copy of it), or a
factory ``(seed, seat) -> Player``. The deals run on any
:class:`concurrent.futures.Executor` (``executor=``, a Dask cluster's too, see
:mod:`scopa.batch`); objects and factories must then pickle. With ``jobs=N`` each worker process
is a new interpreter, which finds a player's class or a factory by importing its module: one
defined in a notebook or at Python's prompt plays with ``jobs=1`` or on a Dask cluster only
(``jobs=N`` raises :class:`~scopa.batch.BatchError` saying so), and a script's, at its top
level, needs the script's ``if __name__ == "__main__":`` around the call.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import numbers
import pickle
import random
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from scopa import jsonio
from scopa.batch import MAX_WORKERS
from scopa.errors import (
    OptionError,
    ScopaError,
    as_int,
    check_int,
    check_real,
    check_seed,
    count,
    plain_number,
    plain_str,
    show,
)
from scopa.players import Player, make_player, player_options
from scopa.players.base import check_options, plain_option
from scopa.records import ReadOnlyDict
from scopa.rules import PRESETS, Rules
from scopa.scoring import CATEGORIES
from scopa.state import State, require_state

__all__ = [
    "ARENA_FORMAT",
    "ArenaInterrupted",
    "ArenaResult",
    "PlayerSpec",
    "arena",
    "play_hand",
    "side_name",
    "t975",
]

ARENA_FORMAT = ("scopa-arena", 1)
"""The format tag of :meth:`ArenaResult.to_json`."""

#: A side of the arena: a name, ``(name, options)``, a player object or a factory ``(seed, seat) -> Player``.
PlayerSpec = str | tuple[str, dict[str, Any]] | Player | Callable[[int, int], Player]


class _Categories(ReadOnlyDict):
    """An arena result's categories: read-only (a result is a value; it hashes), written as a dict."""

    __slots__ = ()

    _REFUSAL = "an arena result's categories cannot be changed: make a new result (dataclasses.replace)"


def _tuple(name: str, x: object, n: int) -> tuple[Any, ...]:
    """``x`` as a tuple if it is a tuple or a list of ``n`` items, else :class:`OptionError`."""
    if not isinstance(x, (tuple, list)) or len(x) != n:
        raise OptionError(f"bad {name} {show(x)}: expected a tuple of {n}")
    return tuple(x)


@dataclass(frozen=True)
class ArenaResult:
    """Figures of an arena run; ``a`` is the first player given, ``b`` the second.

    Attributes:
        game: the rules played, as a position string writes them: the preset's name, and the
            options that differ from its own (``scopa;napola=true``; :attr:`rules` reads them).
        names: the two sides' names.
        deals: duplicate deals played (each played twice: ``games`` = 2 x ``deals`` hands).
        games: hands played.
        points: mean points per hand of each side.
        diff: mean points per hand of A minus B.
        ci95: the 95% confidence interval of ``diff`` (Student's t over the duplicate deals'
            differences, :func:`t975`; ``(-inf, inf)`` after a single deal, which says nothing
            of the spread).
        hand_wins: hands won by A, by B, and level.
        pair_wins: duplicate deals won by A, by B, and level (the sum of both games).
        seconds_per_move: mean thinking time per move of each side (a measurement: two
            results that differ only in it are equal).
        categories: ``{category: (A, B)}``, each side's mean points per hand in each scoring
            category (carte, denari, settebello, primiera, scope, ...): where a side gains or loses.

    >>> r = arena("scopa", "random", "random", deals=2, seed=1)
    >>> r.names, r.points, r.diff, r.hand_wins
    (('random', 'random'), (3.5, 1.5), 2.0, (3, 1, 0))
    >>> r.categories["primiera"], r.categories["scope"]
    ((1.0, 0.0), (0.75, 0.5))
    >>> arena(Rules.preset("scopa", napola=True), "random", "random", deals=1, seed=1).game
    'scopa;napola=true'
    """

    game: str
    names: tuple[str, str]
    deals: int
    games: int
    points: tuple[float, float]
    diff: float
    ci95: tuple[float, float]
    hand_wins: tuple[int, int, int]
    pair_wins: tuple[int, int, int]
    seconds_per_move: tuple[float, float] = dataclasses.field(compare=False)  # (a measurement)
    categories: dict[str, tuple[float, float]]

    def __post_init__(self) -> None:
        # (a result built by hand, or pasted back from its repr: each field of its kind, the
        # counts adding up; the pairs as tuples and the categories read-only: a result hashes)
        # (a game's rules as a position string writes them: any name was taken, and a variant's
        # options were dropped, its results told from a preset's by nothing)
        object.__setattr__(self, "game", plain_str(self.game))  # (NumPy's strings: as strs)
        try:
            canonical = isinstance(self.game, str) and str(Rules.parse(self.game).hand_rules()) == self.game
        except ScopaError:
            canonical = False
        if not canonical:
            raise OptionError(
                f"bad game {show(self.game)}: expected one of {', '.join(PRESETS)}, with the options"
                " that differ from its preset's as a position string writes them (scopa;napola=true)"
            )
        # (at most as arena() runs them: deals of 10**5000 failed their own message, 2 x deals)
        deals = check_int("deals", self.deals, 1, MAX_DEALS)
        games = check_int("games", self.games, 2 * deals, 2 * deals)  # (each deal twice, sides swapped)
        object.__setattr__(self, "deals", deals)  # (as ints: NumPy's too, so that the repr pastes back)
        object.__setattr__(self, "games", games)
        for name in ("names", "points", "ci95", "seconds_per_move", "hand_wins", "pair_wins"):
            n = 3 if name.endswith("wins") else 2
            object.__setattr__(self, name, tuple(map(plain_number, _tuple(name, getattr(self, name), n))))
        object.__setattr__(self, "diff", plain_number(self.diff))
        object.__setattr__(self, "names", tuple(map(plain_str, self.names)))
        if not all(isinstance(n, str) and n.strip() for n in self.names):  # ("" was taken)
            raise OptionError(f"bad names {show(self.names)}: expected two non-empty strings")
        for name, total in (("hand_wins", self.games), ("pair_wins", deals)):
            wins = tuple(check_int(name, w, 0, total) for w in getattr(self, name))
            object.__setattr__(self, name, wins)
            if sum(wins) != total:
                raise OptionError(
                    f"bad {name} {show(wins)}: expected A's, B's and level adding up to {total}"
                )
        for name in ("points", "seconds_per_move"):
            low = -math.inf if name == "points" else 0.0
            for x in getattr(self, name):
                check_real(name, x, low, math.inf, f"two finite numbers{'' if low else ' >= 0'}", finite=True)
        diff = check_real("diff", self.diff, -math.inf, math.inf, "a finite number", finite=True)
        # (A's points less B's, as arena() measures them: a result pasted back or read from JSON
        # with a diff of other points, or an interval of another number of deals, was taken)
        a, b = self.points
        if abs(diff - (a - b)) > 1e-9 * max(1.0, abs(a), abs(b)):
            raise OptionError(f"bad diff {show(self.diff)}: expected A's points less B's, {a - b!r}")
        ci = [check_real("ci95", x, -math.inf, math.inf, "a number") for x in self.ci95]
        if not ci[0] <= diff <= ci[1]:
            raise OptionError(f"bad ci95 {show(self.ci95)}: expected (low, high) around diff {diff}")
        if deals == 1 and ci != [-math.inf, math.inf]:
            raise OptionError(f"bad ci95 {show(self.ci95)}: expected (-inf, inf) after a single deal")
        if deals > 1 and not all(math.isfinite(x) for x in ci):
            raise OptionError(f"bad ci95 {show(self.ci95)}: expected two finite numbers after {deals} deals")
        cats = self.categories
        # (every category, as arena() gives them: none was taken, and a summary without scope)
        if not isinstance(cats, Mapping) or sorted(map(str, cats)) != sorted(CATEGORIES):
            raise OptionError(
                f"bad categories {show(cats)}: expected {{category: (A, B)}} of every one of"
                f" {', '.join(CATEGORIES)}"
            )
        pairs = {c: tuple(map(plain_number, _tuple(f"categories[{c!r}]", v, 2))) for c, v in cats.items()}
        for c, v in pairs.items():
            for x in v:
                check_real(
                    f"categories[{c!r}]", x, -math.inf, math.inf, "points per hand, finite", finite=True
                )
        for side in (0, 1):  # (a hand's points are the sum of its categories': RULES §5)
            summed = math.fsum(v[side] for v in pairs.values())
            if abs(summed - self.points[side]) > 1e-9 * max(1.0, abs(summed)):
                raise OptionError(
                    f"bad categories {show(cats)}: side {'AB'[side]}'s sum to {summed!r},"
                    f" expected its points {self.points[side]!r}"
                )
        object.__setattr__(self, "categories", _Categories(pairs))

    @property
    def rules(self) -> Rules:
        """The rules played (:attr:`game` read)."""
        return Rules.parse(self.game)

    def __repr__(self) -> str:
        """The dataclass's repr, but that an infinite end of ``ci95`` (a single deal's) is written
        ``float('inf')``: the repr pastes back as an equal result (``inf`` is no Python name).

        >>> r = arena("scopa", "greedy", "greedy", deals=1, seed=1)
        >>> repr(r.ci95), "ci95=(float('-inf'), float('inf'))" in repr(r), eval(repr(r)) == r
        ('(-inf, inf)', True, True)
        """
        parts = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "ci95":
                text = "(" + ", ".join(repr(x) if math.isfinite(x) else f"float('{x}')" for x in value) + ")"
            else:
                text = repr(value)
            parts.append(f"{f.name}={text}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def to_json(self) -> dict[str, Any]:
        """The result as JSON (format ``scopa-arena`` version 1): every field, the pairs as
        lists, an infinite end of ``ci95`` (after a single deal) as ``null``; the figures
        unrounded, so that :meth:`from_json` gives back an equal result (``scopa arena --json``).

        >>> r = arena("scopa", "random", "random", deals=2, seed=1)
        >>> j = r.to_json()
        >>> j["format"], j["points"], [round(x, 2) for x in j["ci95"]], j["categories"]["scope"]
        ('scopa-arena', [3.5, 1.5], [-17.06, 21.06], [0.75, 0.5])
        >>> ArenaResult.from_json(j) == r
        True
        """
        return {
            "format": ARENA_FORMAT[0],
            "version": ARENA_FORMAT[1],
            "game": self.game,
            "names": list(self.names),
            "deals": self.deals,
            "games": self.games,
            "points": list(self.points),
            "diff": self.diff,
            "ci95": [x if math.isfinite(x) else None for x in self.ci95],
            "hand_wins": list(self.hand_wins),
            "pair_wins": list(self.pair_wins),
            "seconds_per_move": list(self.seconds_per_move),
            "categories": {c: list(v) for c, v in self.categories.items()},
        }

    @classmethod
    def from_json(cls, obj: Any) -> ArenaResult:
        """Rebuild a result from :meth:`to_json`'s output, checked as a result
        built by hand is: :class:`OptionError` naming a field missing, unknown or bad. The JSON
        of a run stopped early (:meth:`ArenaInterrupted.to_json`) gives the result of the deals
        that finished. The object may be given decoded, as JSON text or as its UTF-8 bytes."""
        obj = jsonio.decoded(obj, "the arena result", OptionError)
        fields = [f.name for f in dataclasses.fields(cls)]
        if isinstance(obj, Mapping) and ("stopped" in obj or "deals_asked" in obj):
            obj = _unmarked(obj)  # (a run stopped early: the figures of the deals that finished)
        jsonio.check_object(obj, "the arena result", fields, ARENA_FORMAT)
        ci95 = obj["ci95"]
        if isinstance(ci95, list) and len(ci95) == 2:  # (null: the infinite end of a single deal's)
            ci95 = [(-math.inf, math.inf)[i] if x is None else x for i, x in enumerate(ci95)]
        return cls(**{**{f: obj[f] for f in fields}, "ci95": ci95})

    def table(self) -> str:
        """The result as a small text table."""
        a, b = self.names
        w = max(12, len(a) + 1, len(b) + 1)  # (a longer name widens the column: the figures stay aligned)
        lines = [
            f"{self.game}: {count(self.deals, 'duplicate deal')} ({count(self.games, 'hand')})",
            f"{'side':<{w}}{'points/hand':>12}{'hands won':>11}{'deals won':>11}{'s/move':>9}",
            f"{a:<{w}}{self.points[0]:>12.3f}{self.hand_wins[0]:>11}{self.pair_wins[0]:>11}"
            f"{self.seconds_per_move[0]:>9.4f}",
            f"{b:<{w}}{self.points[1]:>12.3f}{self.hand_wins[1]:>11}{self.pair_wins[1]:>11}"
            f"{self.seconds_per_move[1]:>9.4f}",
            f"A - B: {self.diff:+.3f} points per hand, 95% CI [{self.ci95[0]:+.3f}, {self.ci95[1]:+.3f}]",
            "by category (A-B): "
            + ", ".join(f"{c} {x:.2f}-{y:.2f}" for c, (x, y) in self.categories.items() if x or y),
        ]
        return "\n".join(lines)


class ArenaInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`arena`: a :class:`KeyboardInterrupt` (uncaught, it ends a program as
    Ctrl-C does) holding ``result``, the figures of the deals that had finished (``None`` if
    none had), and ``total``, the deals asked for."""

    def __init__(self, result: ArenaResult | None, total: int) -> None:
        done = 0 if result is None else result.deals
        super().__init__(f"arena stopped after {done} of {total} deals")
        self.result = result
        self.total = total

    def __reduce__(self) -> tuple[Any, ...]:  # (pickled with its fields, not its message)
        return type(self), (self.result, self.total)

    def to_json(self) -> dict[str, Any] | None:
        """The figures of the deals that finished as :meth:`ArenaResult.to_json` writes them,
        marked as those of a run stopped early: ``"stopped": true`` and ``"deals_asked"``, the
        deals asked for (``scopa arena --json`` after Ctrl-C; :meth:`ArenaResult.from_json`
        reads them back as the result of the deals that finished). None if none had.

        >>> j = ArenaInterrupted(arena("scopa", "random", "random", deals=2, seed=1), 10).to_json()
        >>> j["deals"], j["stopped"], j["deals_asked"]
        (2, True, 10)
        >>> ArenaResult.from_json(j).deals
        2
        """
        if self.result is None:
            return None
        return {**self.result.to_json(), "stopped": True, "deals_asked": self.total}


def _unmarked(obj: Mapping[str, Any]) -> dict[str, Any]:
    """An arena result's JSON without the marks of a run stopped early (``stopped``, true, and
    ``deals_asked``, more than its deals), each checked."""
    stopped, asked = obj.get("stopped"), obj.get("deals_asked")
    if stopped is not True:
        raise OptionError(
            f"bad stopped {show(stopped)}: expected true, with deals_asked (a run stopped early)"
        )
    asked = check_int("deals_asked", asked, 2, MAX_DEALS)
    deals = obj.get("deals")
    if isinstance(deals, int) and asked <= deals:
        raise OptionError(f"bad deals_asked {asked}: expected more than the deals played, {deals}")
    return {k: v for k, v in obj.items() if k not in ("stopped", "deals_asked")}


def side_name(spec: Any) -> str:
    """A side's name in the results: the player's name, with its options (``name(...)`` when
    they take more than 60 characters to write: never the bare name, which is the defaults'); a
    player object's repr when its class writes one of at most 60 characters, else its class's
    name; a factory's name.

    >>> side_name(("pimc", {"samples": 8})), side_name("greedy"), side_name(("pimc", {"model": "x" * 60}))
    ('pimc(samples=8)', 'greedy', 'pimc(...)')
    """
    if isinstance(spec, str):
        return str.__str__(spec)  # (NumPy's strings as strs: the result's repr pastes back)
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        options = spec[1] if isinstance(spec[1], Mapping) else {}
        if not options:
            return str.__str__(spec[0])
        written = _short_text(
            lambda: f"{spec[0]}({', '.join(f'{k}={plain_option(v)!r}' for k, v in options.items())})"
        )
        return written or f"{spec[0]}(...)"
    if hasattr(spec, "choose"):
        if getattr(type(spec), "__repr__", None) is not object.__repr__:  # (its own: the call that makes it)
            return _short_text(lambda: repr(spec)) or type(spec).__name__
        return type(spec).__name__
    return str(getattr(spec, "__name__", type(spec).__name__))


def _short_text(write: Callable[[], str]) -> str:
    """``write()`` if it gives at most 60 characters, else "" (and "" if it raises: a broken
    repr is no reason to lose a run's results)."""
    try:
        text = write()
    except Exception:
        return ""
    return text if len(text) <= 60 else ""


#: The most deals one arena call plays (its task list is made up front) and the most processes.
MAX_DEALS = 1_000_000
MAX_JOBS = MAX_WORKERS  # (the batch runner's bound: the arena runs on it)


def _check_spec(spec: Any) -> None:
    """Fail here, not in a worker, on a bad side."""
    if isinstance(spec, str):
        make_player(spec, seed=0)
    elif isinstance(spec, tuple):
        if len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict):
            if "seed" in spec[1]:  # (the arena seeds every game's players from its own seed)
                raise OptionError(
                    f"bad player {show(spec)}: the arena gives each game's players their seeds "
                    "(from arena's seed): leave 'seed' out of the options"
                )
            # (the options' message names no seed, which the arena refuses: make_player's did)
            check_options(spec[0], spec[1], list(player_options(spec[0])), seed=False)
            make_player(spec[0], seed=0, **spec[1])
        else:
            raise OptionError(
                f"bad player {show(spec)}: expected a name, (name, options), a player or a factory"
            )
    elif isinstance(spec, type):
        raise OptionError(
            f"bad player {show(spec)}: a player class; give a player ({spec.__name__}()), a name or a factory"
        )
    elif hasattr(spec, "choose") and not isinstance(spec, numbers.Number):  # (NumPy's numbers have one)
        try:  # each game gets a fresh copy
            copy.deepcopy(spec)
        except Exception as exc:  # noqa: BLE001 - whatever the player holds
            raise OptionError(
                f"bad player {show(spec)}: it cannot be copied for each game ({type(exc).__name__}: {exc});"
                " give a name, (name, options) or a factory"
            ) from None
    elif callable(spec):
        try:
            signature = inspect.signature(spec)
        except (TypeError, ValueError):  # (some builtins have none to read: asked as they are)
            return
        try:
            signature.bind(0, 0)
        except TypeError:
            raise OptionError(
                f"bad player factory {side_name(spec)}{signature}: expected a function (seed, seat) -> player"
            ) from None
    else:
        raise OptionError(f"bad player {show(spec)}: expected a name, (name, options), a player or a factory")


def _check_shipped(spec: Any) -> None:
    """A side played in worker processes must pickle (a name always does)."""
    if isinstance(spec, (str, tuple)):
        return
    try:
        pickle.dumps(spec)
    except Exception as exc:  # noqa: BLE001 - whatever it holds
        raise OptionError(
            f"bad player {show(spec)}: it cannot be sent to the worker processes ({type(exc).__name__}: "
            f"{exc}); give a name, (name, options), a player or a factory defined in a module, or jobs=1"
        ) from None


def _make(spec: Any, seed: int, seat: int) -> Player:
    if isinstance(spec, str):
        return make_player(spec, seed=seed)
    if isinstance(spec, tuple):
        return make_player(spec[0], seed=seed, **spec[1])
    if hasattr(spec, "choose"):
        player: Player = copy.deepcopy(spec)  # every game starts from the same player
        return player
    made: Player = spec(seed, seat)
    if not hasattr(made, "choose"):
        raise OptionError(f"the factory {side_name(spec)} returned {show(made)}, which has no choose(view)")
    return made


def _play(
    state: State,
    players: Sequence[Player],
    per_move: list[float] | None = None,
    where: Callable[[int], str] | None = None,
) -> tuple[State, list[float]]:
    """The final state and each seat's thinking time; each move's time is appended to
    ``per_move`` too when it is given. An error of a player's (its ``choose`` raising, or the
    move it gave refused) gets a note saying ``where(seat)``: the arena's side and deal."""
    thinking = [0.0] * len(players)
    while not state.is_over:
        seat = state.turn
        t0 = time.perf_counter()
        try:
            move = players[seat].choose(state.view(seat))
            spent = time.perf_counter() - t0
            state_after = state.play(move)
        except Exception as exc:
            # (a user's player that fails said which side it is, in which deal: the error came
            # bare, "RuntimeError: boom", with nothing to find the game by; Python 3.11 on)
            if where is not None and hasattr(exc, "add_note"):
                exc.add_note(f"{where(seat)}, play {len(state.history) + 1} of the hand")
            raise
        thinking[seat] += spent
        if per_move is not None:
            per_move.append(spent)
        state = state_after
    return state, thinking


def play_hand(state: State, players: Sequence[Player]) -> tuple[tuple[int, int], list[float]]:
    """Play ``state`` to the end with one player per seat; each team's points and each
    seat's total thinking time.

    >>> from scopa.players import GreedyPlayer
    >>> points, _ = play_hand(State.deal("scopa", seed=1), [GreedyPlayer(), GreedyPlayer()])
    >>> len(points)
    2
    """
    require_state(state)
    n = state.rules.players
    if (
        not isinstance(players, Sequence)
        or len(players) != n
        or not all(hasattr(p, "choose") for p in players)
    ):
        raise OptionError(
            f"bad players {show(players)}: expected {n} players (with choose(view)), one per seat"
        )
    final, thinking = _play(state, players)
    return final.score().points, thinking


Game = tuple[int, int, float, float, list[int], list[int]]


def _deal_job(task: tuple[int, Rules, Any, Any, int, int]) -> tuple[int, list[Game]]:
    """Both games of duplicate deal number ``task[0]``: per game, A's points, B's points, A's and
    B's thinking time, and A's and B's points per category."""
    number, rules, spec_a, spec_b, seed, dealer = task
    sides = (spec_a, spec_b)
    games = []
    for a_team in (0, 1):  # game 1: A holds team 0's seats; game 2: team 1's
        players = []
        for seat in range(rules.players):
            spec = sides[0] if (seat & 1) == a_team else sides[1]
            players.append(_make(spec, seed * 8 + a_team * 4 + seat, seat))

        def where(seat: int, a_team: int = a_team) -> str:
            side = "A" if (seat & 1) == a_team else "B"
            name = side_name(sides[0] if side == "A" else sides[1])
            return (
                f"in the arena: side {side} ({name}), seat {seat}, duplicate deal {number} "
                f"(State.deal({str(rules)!r}, seed={seed}, dealer={dealer})), game {a_team + 1} of 2"
            )

        final, thinking = _play(State.deal(rules, seed=seed, dealer=dealer), players, where=where)
        score = final.score()
        time_a = sum(t for seat, t in enumerate(thinking) if (seat & 1) == a_team)
        cats = score.breakdown
        games.append(
            (
                score.points[a_team],
                score.points[1 - a_team],
                time_a,
                sum(thinking) - time_a,
                [cats[c][a_team] for c in CATEGORIES],
                [cats[c][1 - a_team] for c in CATEGORIES],
            )
        )
    return number, games


def arena(
    rules: Rules | str,
    player_a: PlayerSpec,
    player_b: PlayerSpec,
    *,
    deals: int = 100,
    seed: int = 0,
    jobs: int = 1,
    executor: Executor | str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ArenaResult:
    """Play ``deals`` duplicate deals of A against B and measure them.

    The deals run in this process (``jobs=1``), in ``jobs`` worker processes, or on
    ``executor`` (any :class:`concurrent.futures.Executor`, or ``"dask://HOST:PORT"``). Each
    deal's seed and dealer, and each player's seed, come from ``seed`` and the deal's
    number, so a run is reproducible wherever it runs, with any ``jobs`` or executor, as far as
    its players are: one whose time limit cuts its search (``"pimc"`` and ``"ismcts"`` by
    default, 0.1 s a move; a level's time cap) may play another move on another run
    (docs/players.md). ``progress(done, total)`` is called as deals finish. ``jobs`` above 1
    with an ``executor`` is an :class:`OptionError` (the executor has its own workers). A
    player object is copied as it is for every game, its random stream with it, so each game
    starts from the same player; a name, a ``(name, options)`` pair or a factory
    ``(seed, seat) -> player`` gets a seed of the deal's own.

    >>> r = arena("scopa", "greedy", "greedy", deals=1, seed=1)   # one deal, played twice
    >>> r.games, r.diff, r.ci95, r.pair_wins                      # the same player: level
    (2, 0.0, (-inf, inf), (0, 0, 1))
    """
    from scopa.batch import map_chunks

    r = Rules.of(rules)
    for spec in (player_a, player_b):
        _check_spec(spec)
    n_deals, n_jobs = as_int(deals), as_int(jobs)
    if n_deals is None or not 1 <= n_deals <= MAX_DEALS:
        raise OptionError(f"bad deals {show(deals)}: expected an int in 1..{MAX_DEALS:,}")
    if n_jobs is None or not 1 <= n_jobs <= MAX_JOBS:
        raise OptionError(f"bad jobs {show(jobs)}: expected an int in 1..{MAX_JOBS} (processes)")
    deals, jobs = n_deals, n_jobs
    if jobs > 1 and executor is not None:  # (it was ignored, as batch's workers would be)
        raise OptionError(
            f"bad jobs {show(jobs)} with an executor: jobs is the number of local processes when no"
            " executor is given; expected 1"
        )
    seed = check_seed(seed, OptionError)  # (random.Random(-7) is Random(7): the same deals)
    if progress is not None and not callable(progress):
        raise OptionError(f"bad progress {show(progress)}: expected a function (done, total) or None")
    if jobs > 1 or executor is not None:
        for spec in (player_a, player_b):
            _check_shipped(spec)
    rng = random.Random(seed)
    tasks = [(i, r, player_a, player_b, rng.getrandbits(63), rng.randrange(r.players)) for i in range(deals)]
    results: list[list[Game]] = [[] for _ in range(deals)]
    workers = jobs if executor is None else None
    # (chunks of a deal in this process, of 16 at most in a pool: the progress moves, and Ctrl-C
    # loses at most the chunks running, not an eighth of the run; no cost measured)
    if executor is None:
        chunk = 1 if jobs == 1 else max(1, min(16, deals // (8 * jobs)))
    else:
        chunk = max(1, min(8, deals // 16))
    names = (side_name(player_a), side_name(player_b))
    try:
        run = map_chunks(_deal_job, tasks, executor, workers, chunk, name=_deal_name)
        for done, (i, res) in enumerate(run, 1):
            results[i] = res
            if progress:
                progress(done, deals)
    except KeyboardInterrupt:  # (the deals that finished are measured: Ctrl-C keeps them)
        finished = [deal for deal in results if deal]
        raise ArenaInterrupted(_measure(r, names, finished) if finished else None, deals) from None
    return _measure(r, names, results)


def _deal_name(task: tuple[Any, ...]) -> str:
    """What a batch error message shows of a deal's task: its number (from 0), not its rules,
    players and seed."""
    return f"deal {task[0]}"


#: The standard normal's 97.5% quantile: the 95% interval's half-width in standard errors as
#: the degrees of freedom grow.
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """Student's t distribution's 97.5% quantile at ``df`` degrees of freedom: the half-width,
    in standard errors, of a 95% interval of a mean of ``df + 1`` values: up to 300 degrees
    of freedom from the distribution function's closed form (Abramowitz and Stegun 26.7.3-4),
    the Cornish-Fisher series (26.7.5) beyond; within 1e-12 of SciPy's ``stats.t.ppf(0.975,
    df)`` at every ``df`` (3e-13 at most, measured from 1 to 2,000 and up to 1e9).

    >>> [round(t975(df), 4) for df in (1, 2, 5, 10, 30, 100, 1000)]
    [12.7062, 4.3027, 2.5706, 2.2281, 2.0423, 1.984, 1.9623]
    >>> t975(0)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad df 0: expected an int >= 1
    """
    df = check_int("df", df, 1)
    if df > 300:
        z, v = _Z975, float(min(df, 10**15))  # (past that, z to the last digit: no float overflow)
        g = (
            (z**3 + z) / 4,
            (5 * z**5 + 16 * z**3 + 3 * z) / 96,
            (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
            (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
        )
        return z + sum(gk / v ** (k + 1) for k, gk in enumerate(g))

    def central(t: float) -> float:  # P(|T| <= t)
        theta = math.atan(t / math.sqrt(df))
        c2 = math.cos(theta) ** 2
        if df % 2:  # odd: (2/pi)(theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ...))
            term = total = 1.0
            for j in range(1, (df - 1) // 2):
                term *= c2 * (2 * j) / (2 * j + 1)
                total += term
            inner = math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0
            return 2 / math.pi * (theta + inner)
        term = total = 1.0  # even: sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...)
        for j in range(1, df // 2):
            term *= c2 * (2 * j - 1) / (2 * j)
            total += term
        return math.sin(theta) * total

    low, high = _Z975, 13.0  # (the quantile falls as df grows: 12.706 at 1, towards z)
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if central(mid) < 0.95 else (low, mid)
    return (low + high) / 2


def _measure(r: Rules, names: tuple[str, str], results: list[list[Game]]) -> ArenaResult:
    """The figures of the duplicate deals ``results`` (each deal's two games)."""
    deals = len(results)
    games = [g for deal in results for g in deal]
    diffs = [sum(g[0] - g[1] for g in deal) / 2 for deal in results]
    mean = sum(diffs) / deals
    if deals > 1:
        var = sum((d - mean) ** 2 for d in diffs) / (deals - 1)
        half = t975(deals - 1) * math.sqrt(var / deals)
    else:  # one deal says nothing of the spread: its interval is unbounded
        half = math.inf
    moves_per_side = len(games) * (40 - r.table_size) / 2
    n = len(games)
    return ArenaResult(
        game=str(r.hand_rules()),
        names=names,
        deals=deals,
        games=n,
        points=(sum(g[0] for g in games) / n, sum(g[1] for g in games) / n),
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
        categories={
            c: (sum(g[4][k] for g in games) / n, sum(g[5][k] for g in games) / n)
            for k, c in enumerate(CATEGORIES)
        },
    )
