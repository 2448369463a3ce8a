"""Computer players that decide on what a person sees: a :class:`~scopa.view.PlayerView`.

Every player implements ``choose(view) -> Move``. All are deterministic for a given seed
(the time-limited ones as long as the time limit does not cut their search).

One player may serve several threads at once (a server's requests): each thread searches
with a search memory of its own, each call plays by its own search, and a seeded player's
moves then depend on the order in which the threads draw from its one random stream; its
``last_samples``, ``last_iterations`` and ``last_visits`` tell of the call that ended last.

>>> import scopa
>>> from scopa.players import GreedyPlayer
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> str(GreedyPlayer().choose(s.view(0)))
'7dx3c4s'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from scopa.players.base import Player, check_options, check_seed, determinize
from scopa.players.greedy import GreedyPlayer, GreedyWeights
from scopa.players.inference import OpponentModel
from scopa.players.ismcts import ISMCTSPlayer
from scopa.players.levels import LEVELS, LevelConfig, LevelPlayer, level, level_names, make_level
from scopa.players.pimc import PIMCPlayer
from scopa.players.simple import RandomPlayer

__all__ = [
    "LEVELS",
    "PLAYERS",
    "LevelConfig",
    "LevelPlayer",
    "level",
    "level_names",
    "GreedyPlayer",
    "GreedyWeights",
    "ISMCTSPlayer",
    "OpponentModel",
    "PIMCPlayer",
    "Player",
    "RandomPlayer",
    "determinize",
    "make_player",
    "player_options",
]

T = TypeVar("T")

PLAYERS: dict[str, type] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "pimc": PIMCPlayer,
    "ismcts": ISMCTSPlayer,
}
"""Player names for :func:`make_player`, the arena and the command line."""


def make_player(name: str, /, seed: int | None = None, **options: Any) -> Player:
    """A player by name (``random``, ``greedy``, ``pimc``, ``ismcts``, or a level ``level1`` to
    ``level6``) with its options. Greedy's ``weights`` and PIMC's ``model`` may be given as a
    mapping of their fields (as JSON or the command line's ``greedy(weights={'sweep': 3})``
    write them): the :class:`GreedyWeights` or :class:`OpponentModel` with those fields, the
    others at their defaults.

    >>> make_player("pimc", seed=1, samples=8).samples
    8
    >>> make_player("greedy", weights={"sweep": 3}).weights.sweep
    3
    >>> make_player("pimc", model={"temprature": 1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad model {'temprature': 1}: unknown field 'temprature'; expected ...
    """
    lv = make_level(name, seed, options) if isinstance(name, str) else None
    if lv is not None:
        return lv
    check_options(name, options, list(player_options(name)))
    for option, cls in (("weights", GreedyWeights), ("model", OpponentModel)):
        if isinstance(options.get(option), Mapping):
            options[option] = _from_fields(cls, options[option], option)
    if PLAYERS[name] is GreedyPlayer:
        check_seed(seed)  # deterministic, but a bad seed is refused as for every player
        return GreedyPlayer(**options)
    player: Player = PLAYERS[name](seed=seed, **options)
    return player


def _from_fields(cls: type[T], given: Mapping[Any, Any], option: str) -> T:
    """The dataclass ``cls`` made from the mapping of its fields ``given`` (the value of the
    player's ``option``); an unknown field is an OptionError naming it, a bad value the
    dataclass's own."""
    from scopa.errors import OptionError, alternatives, listed, show, unknown_keys

    known = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    odd = unknown_keys(given, known)
    if odd:
        unknown, expected = listed("field", odd), alternatives(known)
        raise OptionError(f"bad {option} {show(dict(given))}: unknown {unknown}; expected {expected}")
    return cls(**given)


def player_options(name: str) -> tuple[str, ...]:
    """The options :func:`make_player` takes for the player ``name``, besides ``seed`` (what an
    app's settings or the arena's ``(name, options)`` may give).

    >>> player_options("greedy"), player_options("level3"), player_options("random")
    (('weights',), ('time_limit',), ())
    >>> player_options("pimc")[:3]
    ('samples', 'time_limit', 'exact_plays')
    >>> player_options("minimax")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: unknown player 'minimax': expected one of random, greedy, ...
    """
    import inspect

    from scopa.errors import OptionError, show

    if isinstance(name, str) and name in level_names():
        return ("time_limit",)
    cls = PLAYERS.get(name) if isinstance(name, str) else None
    if cls is None:
        known = ", ".join([*PLAYERS, *level_names()])
        raise OptionError(f"unknown player {show(name)}: expected one of {known}")
    if cls is GreedyPlayer:
        return ("weights",)
    return tuple(p for p in inspect.signature(cls).parameters if p != "seed")
