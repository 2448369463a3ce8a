"""scopa: a Scopa and Scopone engine.

Real rules with every variant as an option, immutable game states, scoring, matches,
JSON and compact position formats, and a fast Cython core (``scopa_core``).

>>> import scopa
>>> s = scopa.State.deal(scopa.Rules.preset("scopone_scientifico"), seed=7, dealer=3)
>>> s.turn, [len(h) for h in s.hands]
(0, [10, 10, 10, 10])
"""

from __future__ import annotations

# first, before the slow imports: Ctrl-C while the command starts is a line, not a traceback
from scopa import _startup  # noqa: F401

# isort: split
import scopa_core as _core
from scopa.card import DECK, RANKS, SUITS, Card, CardSet
from scopa.errors import (
    AmbiguousMoveError,
    CardError,
    CoreError,
    IllegalMoveError,
    InvalidMoveError,
    LimitError,
    OptionError,
    PositionError,
    RulesError,
    ScopaError,
)
from scopa.events import Event
from scopa.limit import Limit, StopFlag
from scopa.match import Match
from scopa.move import Move
from scopa.records import Annotation, HandRecord, MatchRecord, RecordError, load_record
from scopa.review import PlayReview, Review, load_review, review
from scopa.rules import PRESETS, Rules
from scopa.scoring import CATEGORIES, HandScore, primiera_total
from scopa.simulate import Playouts, random_playouts
from scopa.solver import Analysis, MoveValue, SearchInfo, Solver, SolveResult, analyze, solve
from scopa.state import State
from scopa.version import __version__
from scopa.view import PlayerView

CORE_IMPLEMENTATION: str = _core.IMPLEMENTATION
"""Which core is loaded: ``"cython"`` (compiled) or ``"python"`` (the twin)."""

__all__ = [
    "CATEGORIES",
    "CORE_IMPLEMENTATION",
    "DECK",
    "PRESETS",
    "RANKS",
    "SUITS",
    "AmbiguousMoveError",
    "Analysis",
    "Annotation",
    "Card",
    "CardError",
    "CoreError",
    "CardSet",
    "Event",
    "HandRecord",
    "HandScore",
    "IllegalMoveError",
    "InvalidMoveError",
    "Limit",
    "LimitError",
    "Match",
    "MatchRecord",
    "Move",
    "MoveValue",
    "OptionError",
    "PlayReview",
    "PlayerView",
    "Playouts",
    "PositionError",
    "RecordError",
    "Review",
    "Rules",
    "RulesError",
    "ScopaError",
    "SearchInfo",
    "SolveResult",
    "Solver",
    "State",
    "StopFlag",
    "__version__",
    "analyze",
    "load_record",
    "load_review",
    "primiera_total",
    "random_playouts",
    "review",
    "solve",
]
