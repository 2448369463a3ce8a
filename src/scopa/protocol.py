"""The engine protocol: what each request means, its validation, its JSON Schema and its reply.

One module under every transport: the stdio engine (:mod:`scopa.engine`) and the HTTP and
WebSocket server read a message, hand it to a :class:`Protocol` and write the reply it
returns. Requests and replies are JSON objects (docs/engine-protocol.md).

>>> p = Protocol()
>>> p.handle('{"cmd": "legal", "id": 1, "position": "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"}')
{'id': 1, 'moves': ['7dx3c4s', 'Kc']}
>>> r = p.handle('{"cmd": "legal", "id": 2, "position": "scopa 7d/Kc - - -/- 0/0 0 - -", "postion": 1}')
>>> r["id"], r["error"]["type"], r["error"]["message"]
(2, 'ProtocolError', "unknown field 'postion' in a 'legal' request: expected cmd, id, position, view")
>>> p.handle('{"cmd": "nope"}')["error"]["type"]
'UnknownCommand'

Every line gets a reply (``quit`` excepted): a request that cannot be read gets a
``ProtocolError`` reply, a request the library refuses the name of its exception, and any
other failure an ``InternalError`` reply; nothing a client sends stops the engine.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
import traceback
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scopa import jsonio
from scopa.errors import LimitError, OptionError, ScopaError, article, as_int, real, show
from scopa.events import EVENT_FIELDS
from scopa.events import play as play_events
from scopa.limit import Limit, StopFlag
from scopa.match import Match
from scopa.notation import FORMAT_VERSION, view_from_json, view_to_dict
from scopa.players import PLAYERS, PIMCPlayer, level_names, make_player
from scopa.players.base import choose
from scopa.records import HandRecord, MatchRecord, check_tags, load_record
from scopa.records import schema as record_schema
from scopa.review import DEFAULT_TIME, MAX_TIME_PER_PLAY, review
from scopa.rules import MAX_TARGET, PRESETS, Rules
from scopa.solver import SearchInfo, Solver
from scopa.state import State
from scopa.svg import DECKS, MAX_SIZE, MIN_SIZE
from scopa.svg import position as svg_position
from scopa.version import __version__

__all__ = [
    "COMMANDS",
    "DEFAULT_MAX_TIME",
    "MAX_LINE",
    "MAX_MAX_TIME",
    "PROTOCOL_VERSION",
    "Protocol",
    "ProtocolError",
    "Request",
    "RequestError",
    "schema",
]

log = logging.getLogger("scopa.protocol")

PROTOCOL_VERSION = 2
"""Version of the engine protocol, reported by ``hello``."""
DEFAULT_MAX_TIME = 10.0
"""Default time limit of ``solve`` and ``analyze`` (and the most any search may take),
seconds; ``scopa engine --max-time`` changes it."""
MAX_MAX_TIME = 1e6
"""The longest ``max_time`` an engine or a server takes, seconds (``--max-time``'s range)."""
MAX_LINE = 1 << 20
"""Longest request line accepted: bytes of the stdio engine's input, characters of a str request."""
_ID_CHARS = 256
_SAFE_INT = (1 << 53) - 1
#: an integer id, as JavaScript holds one exactly
_ID_INT = {"type": "integer", "minimum": -_SAFE_INT, "maximum": _SAFE_INT}


class ProtocolError(ScopaError):
    """A request that is not a valid protocol message (unreadable, unknown or mistyped field)."""


class _Unknown(ProtocolError):
    """A request for a command that does not exist."""


# ---------------------------------------------------------------------------------- fields


@dataclass(frozen=True)
class Field:
    """One field of a request: its JSON Schema, and the check that turns its JSON value
    into what the handler takes (raising :class:`ProtocolError` or a library error that
    names the value)."""

    schema: dict[str, Any]
    check: Callable[[Any, str], Any]
    doc: str


def _int(lo: int, hi: int) -> Callable[[Any, str], int]:
    def check(x: Any, name: str) -> int:
        if not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi:
            raise ProtocolError(f"{name!r} must be an integer in {lo}..{hi}, got {jsonio.short(x)}")
        return x

    return check


def _bool(x: Any, name: str) -> bool:
    if not isinstance(x, bool):
        raise ProtocolError(f"{name!r} must be true or false, got {jsonio.short(x)}")
    return x


def _string(limit: int) -> Callable[[Any, str], str]:
    def check(x: Any, name: str) -> str:
        if not isinstance(x, str) or len(x) > limit:
            raise ProtocolError(
                f"{name!r} must be a string of at most {limit} characters, got {jsonio.short(x)}"
            )
        return x

    return check


def _time_ms(x: Any, name: str) -> float:
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x <= 1e9
    if not ok:
        raise ProtocolError(f"{name!r} must be a number of milliseconds in (0, 1e9], got {jsonio.short(x)}")
    # (a subnormal number of ms would be 0 seconds: the least time there is instead)
    return max(float(x) / 1000.0, math.ulp(0.0))


def _position(x: Any, name: str) -> State:
    if isinstance(x, (str, Mapping)):
        try:
            return State.of(x)
        except ScopaError as exc:
            if not (isinstance(x, Mapping) and _looks_like_a_view(x)):
                raise
            # (a backend's audit sent a view: "unknown field 'seat' in position" said less)
            raise type(exc)(
                f"{exc}: {name!r} is a view (hands given as counts), not a position; a view goes in 'view'"
            ) from None
    raise ProtocolError(
        f"{name!r} must be a JSON position object or a position string, got {jsonio.short(x)}"
    )


def _looks_like_a_view(x: Mapping[str, Any]) -> bool:
    """Whether a JSON object given for a position is a view: some hand given as a count."""
    hands = x.get("hands")
    return isinstance(hands, list) and any(isinstance(h, int) and not isinstance(h, bool) for h in hands)


def _view(x: Any, name: str) -> Any:
    if not isinstance(x, Mapping):
        raise ProtocolError(f"{name!r} must be a JSON view object, got {jsonio.short(x)}")
    return view_from_json(x)


def _rules(x: Any, name: str) -> Rules:
    if not isinstance(x, (str, Mapping)):
        raise ProtocolError(f"{name!r} must be a preset name or a rules object, got {jsonio.short(x)}")
    return Rules.from_json(x)


def _match(x: Any, name: str) -> Match:
    if not isinstance(x, Mapping):
        raise ProtocolError(f"{name!r} must be a JSON match object, got {jsonio.short(x)}")
    return Match.from_json(x)


def _record(x: Any, name: str) -> MatchRecord:
    if not isinstance(x, Mapping):
        raise ProtocolError(f"{name!r} must be a JSON game record (docs/records.md), got {jsonio.short(x)}")
    return load_record(x)


def _tags(x: Any, name: str) -> dict[str, str]:
    if not isinstance(x, Mapping):
        raise ProtocolError(f"{name!r} must be a JSON object of strings, got {jsonio.short(x)}")
    return check_tags(x)


def _player(x: Any, name: str) -> str:
    if not isinstance(x, str) or x not in _PLAYER_NAMES:
        raise ProtocolError(f"{name!r} must be one of {', '.join(_PLAYER_NAMES)}, got {jsonio.short(x)}")
    return x


_PLAYER_NAMES = [*PLAYERS, *level_names()]


def _deck(x: Any, name: str) -> str:
    if not isinstance(x, str) or x not in DECKS:
        raise ProtocolError(f"{name!r} must be one of {', '.join(DECKS)}, got {jsonio.short(x)}")
    return x


def _size(x: Any, name: str) -> float:
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and MIN_SIZE <= x <= MAX_SIZE
    if not ok:
        raise ProtocolError(
            f"{name!r} must be a card's width in pixels, {MIN_SIZE:g} to {MAX_SIZE:g}, got {jsonio.short(x)}"
        )
    return float(x)


#: the rules: ``$defs/rules``, the records' schema's (every option with its values: a rules object
#: with an unknown option or a bad value, which the engine refuses, was let through)
_RULES_SCHEMA: dict[str, Any] = {"$ref": "#/$defs/rules"}
_POSITION_SCHEMA: dict[str, Any] = {
    "oneOf": [{"type": "string", "maxLength": MAX_LINE}, {"$ref": "#/$defs/position"}],
}

FIELDS: dict[str, Field] = {
    "position": Field(_POSITION_SCHEMA, _position, "a position: a JSON position object or a position string"),
    "view": Field({"$ref": "#/$defs/view"}, _view, "what the seat to move sees (docs/engine-protocol.md)"),
    "move": Field({"type": "string", "maxLength": 64}, _string(64), "a move in move notation, e.g. 7dx3c4s"),
    "time_ms": Field(
        {"type": "number", "exclusiveMinimum": 0, "maximum": 1e9},
        _time_ms,
        "the search's time limit in milliseconds (at most the engine's maximum)",
    ),
    "node_limit": Field(
        {"type": "integer", "minimum": 1, "maximum": _SAFE_INT},
        _int(1, _SAFE_INT),
        "the most positions the search may visit",
    ),
    "progress": Field(
        {"type": "boolean"},
        _bool,
        "stream info lines before the reply (a search's depth, nodes, estimate, best; a review's plays done)",
    ),
    "player": Field({"enum": [*PLAYERS, *level_names()]}, _player, "the computer player (default pimc)"),
    "seed": Field(
        {"type": "integer", "minimum": 0, "maximum": (1 << 64) - 1},
        _int(0, (1 << 64) - 1),
        "a seed: the same choices again while no time limit cuts the search (bound it by node_limit)",
    ),
    "rules": Field(_RULES_SCHEMA, _rules, "a preset name, or {'preset': name, option: value, ...}"),
    "seat": Field(
        {"type": "integer", "minimum": 0, "maximum": 3}, _int(0, 3), "a seat (0 leads after dealer 3)"
    ),
    "dealer": Field({"type": "integer", "minimum": 0, "maximum": 3}, _int(0, 3), "the dealer's seat"),
    "deck": Field({"enum": list(DECKS)}, _deck, "the deck the cards are drawn in (default french)"),
    "size": Field(
        {"type": "number", "minimum": MIN_SIZE, "maximum": MAX_SIZE},
        _size,
        f"a card's width in pixels, {MIN_SIZE:g} to {MAX_SIZE:g} (default 48)",
    ),
    "target": Field(
        {"type": "integer", "minimum": 1, "maximum": MAX_TARGET},
        _int(1, MAX_TARGET),
        "points that end the match (default: the rules')",
    ),
    "match": Field({"$ref": "#/$defs/match"}, _match, "a match, as match_new and match_play return it"),
    "record": Field(
        {"type": "object", "description": "a game record: scopa-record or scopa-hand (docs/records.md)"},
        _record,
        "a game record (a match, or a single hand)",
    ),
    "tags": Field(
        record_schema()["$defs"]["match"]["properties"]["tags"],  # (the records' own: names, values)
        _tags,
        "a record's tags: names of letters, digits and '_' to strings (docs/records.md)",
    ),
    "search": Field(
        {"oneOf": [{"type": "string", "maxLength": _ID_CHARS}, _ID_INT]},
        lambda x, name: _check_id(x, name, nullable=False),
        "the id of the search to stop (default: every search)",
    ),
}


# ---------------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class Command:
    """A protocol command: its fields (required, one of ``either``, optional), whether it is a
    search (run off the reading thread, stoppable, limited in time), and its reply's schema."""

    name: str
    doc: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    #: fields of which the command takes exactly one (legal and svg: a position or a view)
    either: tuple[str, ...] = ()
    search: bool = False
    reply: dict[str, Any] = field(default_factory=dict)
    #: fields this command takes fewer values of than the field's own (field: (values, why))
    only: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    #: fields this command takes a lower maximum of than the field's own (field: (most, per what)):
    #: numbers in (0, most], which its messages name
    most: dict[str, tuple[float, str]] = field(default_factory=dict)

    @property
    def fields(self) -> tuple[str, ...]:
        return ("cmd", "id", *self.required, *self.either, *self.optional)

    @property
    def takes(self) -> tuple[str, ...]:
        """The fields of a request's checked values: the required, ``either``'s, the optional."""
        return (*self.required, *self.either, *self.optional)


def _above_most(command: Command, key: str, value: Any) -> ProtocolError:
    """The error for ``value`` of ``key`` outside ``command``'s own range (0, most], one
    wording whether it is no number at all or a number above the most."""
    most, per = command.most[key]
    return ProtocolError(
        f"{key!r} of {command.name} must be a number in (0, {most:.0f}] ({per}), got {jsonio.short(value)}"
    )


_SEARCH_LIMITS = ("time_ms", "node_limit", "progress")
#: a match as the engine gives it: every field of Match.to_json (``seed`` only when its deals are
#: the seed's)
_MATCH_REPLY = {
    "allOf": [
        {"$ref": "#/$defs/match"},
        {
            "required": [
                "format", "version", "rules", "target", "first_dealer", "scores",
                "hands_played", "dealer", "winner", "position", "hands",
            ]
        },
    ]
}  # fmt: skip
_INT = {"type": "integer"}
_NUM = {"type": "number"}
_MOVE = {"type": "string"}
_NULLABLE_INT = {"type": ["integer", "null"]}
_PAIR = {"type": "array", "items": {"type": ["integer", "null"]}, "minItems": 2, "maxItems": 2}
#: each field of an event as the schema checks it (events.Event's ranges)
_EVENT_FIELD_SCHEMAS: dict[str, Any] = {
    "seat": {"type": "integer", "minimum": 0, "maximum": 3},
    "team": {"type": "integer", "minimum": 0, "maximum": 1},
    "card": {"type": "string"},
    "cards": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
    "points": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2},
}
# (one schema a type, with the fields that type has and no other: a backend's audit found a
# capture without its cards, or a lay_down with points, valid against the open one before)
_EVENTS = {
    "type": "array",
    "items": {
        "oneOf": [
            {
                "type": "object",
                "required": ["type", *fields],
                "properties": {"type": {"const": kind}, **{f: _EVENT_FIELD_SCHEMAS[f] for f in fields}},
                "additionalProperties": False,
            }
            for kind, fields in EVENT_FIELDS.items()
        ]
    },
}
_REVIEW_PROPS = {
    "plays": {
        "type": "array",
        "items": {
            "type": "object",
            "required": [
                "hand",
                "play",
                "seat",
                "move",
                "best",
                "loss",
                "dd_loss",
                "mark",
                "reason",
                "values",
                "dd_values",
            ],
            "properties": {
                "hand": _INT,
                "play": _INT,
                "seat": _INT,
                "team": _INT,
                "move": _MOVE,
                "best": _MOVE,
                "value": _NUM,
                "best_value": _NUM,
                "loss": _NUM,
                "dd_best": {"type": ["string", "null"]},
                "dd_loss": _NULLABLE_INT,
                "mark": {"enum": ["?", "??", None]},
                "reason": {"type": ["string", "null"]},
                "reviewed": {"type": "boolean"},
                "values": {"type": "object", "additionalProperties": _NUM},
                "dd_values": {"type": ["object", "null"], "additionalProperties": _INT},
            },
        },
    },
    "summary": {"type": "object", "required": ["hands", "seats", "teams", "worst"]},
    "format": {"const": "scopa-review"},
    "version": {"const": 1},
    "rules": _RULES_SCHEMA,
    "players": {"enum": [2, 4]},
    "hands": _INT,
    "seconds": _NUM,
}
_SCORE_PROPS = {
    "points": _PAIR,
    "categories": {
        "type": "object",
        "required": ["carte", "denari", "settebello", "primiera", "scope"],
        "additionalProperties": {"type": "object", "required": ["points"], "properties": {"points": _PAIR}},
    },
}
#: a game record as the engine writes one (records.schema() describes it whole)
_RECORD_REPLY = {
    "type": "object",
    "required": ["format", "version", "rules", "target", "tags", "hands"],
    "properties": {"format": {"const": "scopa-record"}, "version": {"const": 1}},
}
#: match_play's account of the hand its play ended, beside the events
_HAND_OVER = {
    "type": "object",
    "required": ["position", "score", "record"],
    "properties": {
        "position": {"$ref": "#/$defs/position"},
        "score": {"type": "object", "required": ["points", "categories"], "properties": _SCORE_PROPS},
        "record": {
            "type": "object",
            "required": ["format", "version", "rules", "dealer", "deal", "plays", "score"],
            "properties": {"format": {"const": "scopa-hand"}, "version": {"const": 1}},
        },
    },
    "additionalProperties": False,
}

_COMMAND_LIST: tuple[Command, ...] = (
    Command(
        "hello",
        "the engine's name, version, protocol, limits, presets, options and players",
        reply={
            "required": [
                "name",
                "version",
                "protocol",
                "position_format",
                "presets",
                "options",
                "preset_options",
                "players",
                "levels",
                "commands",
                "max_time_ms",
                "default_time_ms",
                "max_request_bytes",
            ],
            "properties": {
                "name": {"const": "scopa"},
                "version": {"type": "string"},
                "protocol": {"const": PROTOCOL_VERSION},
                "position_format": _INT,
                "presets": {"type": "array", "items": {"type": "string"}},
                "options": {"type": "object"},
                "preset_options": {
                    "type": "object",
                    "required": list(PRESETS),
                    "additionalProperties": False,
                    "properties": {name: {"type": "object"} for name in PRESETS},
                },
                "players": {"type": "array", "items": {"type": "string"}},
                "levels": {"type": "array", "items": {"type": "string"}},
                "commands": {"type": "array", "items": {"type": "string"}},
                "max_time_ms": {"type": ["number", "null"]},
                "default_time_ms": {"type": ["number", "null"]},
                "max_request_bytes": {"type": "integer", "minimum": 1, "maximum": MAX_LINE},
            },
        },
    ),
    Command("ping", "answered at once, even while a search runs", reply={"required": ["pong"]}),
    Command(
        "schema",
        "the JSON Schema of every request and reply (scopa engine --schema's), for a client that"
        " only talks to the engine or the server",
        reply={"required": ["schema"], "properties": {"schema": {"type": "object"}}},
    ),
    Command(
        "legal",
        "the legal moves of the seat to move, of a position or of a view (none when the view's"
        " seat is not to move)",
        either=("position", "view"),
        reply={"required": ["moves"], "properties": {"moves": {"type": "array", "items": _MOVE}}},
    ),
    Command(
        "play",
        "the position after a move (with its history) and what the play did",
        required=("position", "move"),
        reply={
            "required": ["position", "events"],
            "properties": {"position": {"$ref": "#/$defs/position"}, "events": _EVENTS},
        },
    ),
    Command(
        "deal",
        "a new hand (the three-kings redeal applied); seed random when absent; dealer 0 when"
        " absent with a seed (random without one)",
        required=("rules",),
        optional=("seed", "dealer"),
        reply={"required": ["position"], "properties": {"position": {"$ref": "#/$defs/position"}}},
    ),
    Command(
        "view",
        "what a seat sees of a position: the view bestmove and evaluate take",
        required=("position", "seat"),
        reply={"required": ["view"], "properties": {"view": {"$ref": "#/$defs/view"}}},
    ),
    Command(
        "svg",
        "a picture of a position (scopa.svg.position), every hand face up, or those a seat cannot"
        " see face down; or of a view, as its seat sees it",
        either=("position", "view"),
        optional=("seat", "deck", "size"),
        reply={"required": ["svg"], "properties": {"svg": {"type": "string"}}},
    ),
    Command(
        "score",
        "the score of the piles as they stand (the hand's score once it is over)",
        required=("position",),
        reply={"required": ["points", "categories"], "properties": _SCORE_PROPS},
    ),
    Command(
        "match_new",
        "a new match; the client holds it and sends it back with each play",
        required=("rules",),
        optional=("target", "seed", "dealer"),
        reply={"required": ["match"], "properties": {"match": _MATCH_REPLY}},
    ),
    Command(
        "match_play",
        "a play in the match's current hand: at its end the hand is scored and the next dealt",
        required=("match", "move"),
        reply={
            "required": ["match", "events"],
            "properties": {"match": _MATCH_REPLY, "events": _EVENTS, "hand_over": _HAND_OVER},
        },
    ),
    Command(
        "match_resume",
        "a match resumed from its game record, with the record's tags; the hands still to come"
        " dealt from seed",
        required=("record",),
        optional=("seed",),
        reply={
            "required": ["match", "tags"],
            "properties": {"match": _MATCH_REPLY, "tags": FIELDS["tags"].schema},
        },
    ),
    Command(
        "match_record",
        "the match as a game record (format scopa-record), with tags",
        required=("match",),
        optional=("tags",),
        reply={"required": ["record"], "properties": {"record": _RECORD_REPLY}},
    ),
    Command(
        "solve",
        "the exact value with every card known, or the most a bounded search knows",
        required=("position",),
        optional=_SEARCH_LIMITS,
        search=True,
        reply={
            "required": [
                "value",
                "exact",
                "lower",
                "upper",
                "estimate",
                "best",
                "pv",
                "nodes",
                "seconds",
            ],
            "properties": {
                "value": _NULLABLE_INT,
                "exact": {"type": "boolean"},
                "lower": _INT,
                "upper": _INT,
                "estimate": _NUM,
                "depth": _INT,
                "best": {"type": ["string", "null"]},
                "pv": {"type": "array", "items": _MOVE},
                "nodes": _INT,
                "seconds": _NUM,
            },
        },
    ),
    Command(
        "analyze",
        "every legal move's value (exact, or bounds and an estimate)",
        required=("position",),
        optional=_SEARCH_LIMITS,
        search=True,
        reply={
            "required": ["moves", "exact", "lines"],
            "properties": {
                "moves": {"type": "object", "additionalProperties": _NULLABLE_INT},
                "exact": {"type": "boolean"},
                "best": {"type": ["string", "null"]},
                "depth": _INT,
                "nodes": _INT,
                "seconds": _NUM,
                "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}},
            },
        },
    ),
    Command(
        "bestmove",
        "a computer player's move from a view",
        required=("view",),
        optional=("player", "seed", "time_ms", "node_limit"),
        search=True,
        reply={"required": ["move"], "properties": {"move": _MOVE}},
    ),
    Command(
        "evaluate",
        "every legal move's expected value from a seat's view (what PIMC weighs its choice on)",
        required=("view",),
        optional=("player", "seed", "time_ms", "node_limit"),
        search=True,
        only={"player": (("pimc",), "the player that values moves")},
        reply={
            "required": ["moves"],
            "properties": {
                "moves": {"type": "object", "additionalProperties": _NUM},
                "samples": _INT,
                "best": _MOVE,
            },
        },
    ),
    Command(
        "review",
        "every play of a record valued from its player's view and, near the end, exactly",
        required=("record",),
        optional=("time_ms", "seed", "progress"),
        search=True,
        reply={
            "required": ["format", "version", "rules", "players", "hands", "seconds", "plays", "summary"],
            "properties": _REVIEW_PROPS,
        },
        most={"time_ms": (MAX_TIME_PER_PLAY * 1000, "a play")},
    ),
    Command(
        "stop",
        "end the running and queued searches (or the one whose id is 'search') now: each "
        "replies with what it has",
        optional=("search",),
        reply={"required": ["stopped"], "properties": {"stopped": _INT}},
    ),
    Command("quit", "no reply: the engine answers the searches already asked for, then exits"),
)
COMMANDS: dict[str, Command] = {c.name: c for c in _COMMAND_LIST}
"""Every command of the protocol by name, each a :class:`Command` (its fields, whether it is a
search, its reply's schema)."""


def _check_id(x: Any, name: str = "id", nullable: bool = True) -> Any:
    """A request id the engine can write back: a string (UTF-8, at most 256 characters), an
    integer JavaScript can hold exactly, or null (when ``nullable``); ``name`` is the field
    holding it (``id``, or ``search``: the id of a search to stop)."""
    if x is None and nullable:
        return None
    if x is None or isinstance(x, bool) or not isinstance(x, (str, int)):
        kinds = "a string, an integer or null" if nullable else "a string or an integer"
        raise ProtocolError(f"{name!r} must be {kinds}, got {jsonio.short(x)}")
    if isinstance(x, int) and not -_SAFE_INT <= x <= _SAFE_INT:
        raise ProtocolError(f"{name!r} must be an integer in -(2**53-1)..2**53-1, got {jsonio.short(x)}")
    if isinstance(x, str) and len(x) > _ID_CHARS:
        raise ProtocolError(f"{name!r} must be at most {_ID_CHARS} characters, got {len(x)}")
    return x


def stop_searches(searches: Iterable[tuple[Request, StopFlag]], search_id: Any = None) -> int:
    """Set the stop flags of ``searches`` (running or waiting; only those whose request id is
    ``search_id`` unless it is None) and return how many were not stopped already: the count
    a ``stop`` reply gives, in every transport."""
    n = 0
    for req, flag in searches:
        if (search_id is None or req.id == search_id) and not flag.is_set():
            flag.set()
            n += 1
    return n


def _command(cmd: object) -> Command:
    """The command named ``cmd``; an unknown one is refused, naming the commands there are."""
    if not isinstance(cmd, str) or cmd not in COMMANDS:
        raise _Unknown(f"unknown command {jsonio.short(cmd)}: expected one of {', '.join(COMMANDS)}")
    return COMMANDS[cmd]


def _check_one_target(rules: Rules, target: int) -> None:
    """match_new's ``target`` beside a rules object that gives one: the same, or refused."""
    if target != rules.target:
        raise ProtocolError(f"'target' {target} differs from its rules' {rules.target}: give it once")


def _check_fields(command: Command, keys: Collection[Any], allowed: tuple[str, ...]) -> None:
    """A :class:`ProtocolError` unless every key is ``allowed`` and ``command``'s required ones
    are there: a request's, or a :class:`Request`'s fields."""
    for key in keys:
        if key not in allowed:
            raise ProtocolError(
                f"unknown field {show(key)} in {article(command.name)} {command.name!r} request: expected "
                + (", ".join(allowed) or "none")
            )
    for key in command.required:
        if key not in keys:
            raise ProtocolError(f"request {command.name!r} needs a {key!r} field")
    if command.either:
        given = [key for key in command.either if key in keys]
        choices = " or ".join(f"a {key!r}" for key in command.either)
        if not given:
            raise ProtocolError(f"request {command.name!r} needs {choices} field")
        if len(given) > 1:
            raise ProtocolError(f"request {command.name!r} takes {choices} field, not both")


@dataclass(frozen=True)
class Request:
    """A request that passed validation: its command, id and checked field values, as
    :meth:`Protocol.parse` makes it. One built by hand has its command, id and fields' names
    checked (a :class:`ProtocolError` naming the bad one); its values are taken as given, the
    objects ``parse`` makes of the JSON (a :class:`~scopa.State` for a position). Unhashable:
    its fields are a dict."""

    cmd: str
    id: Any
    args: dict[str, Any]

    __hash__ = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        command = _command(self.cmd)
        _check_id(self.id)
        if not isinstance(self.args, dict):
            raise ProtocolError(f"bad args {show(self.args)}: expected a dict of {self.cmd}'s fields")
        _check_fields(command, self.args, command.takes)

    @property
    def command(self) -> Command:
        """The command's specification (``COMMANDS[cmd]``)."""
        return COMMANDS[self.cmd]

    @property
    def is_search(self) -> bool:
        """Whether the request runs a search (off the reading thread, stoppable)."""
        return self.command.search


class RequestError(ScopaError):
    """A request refused before it ran (:meth:`Protocol.parse`): ``reply`` is the error reply,
    with the id when it was read; the message is the reply's."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(reply["error"]["message"])
        self.reply = reply

    def __reduce__(self) -> tuple[type[RequestError], tuple[dict[str, Any]]]:
        return (type(self), (self.reply,))  # (pickled and copied with its reply: a batch job's error)


def error_reply(req_id: Any, kind: str, message: str) -> dict[str, Any]:
    """An error reply: ``{"id": ..., "error": {"type": kind, "message": message}}``."""
    return {"id": req_id, "error": {"type": kind, "message": message}}


def _exception_reply(req_id: Any, exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, _Unknown):
        return error_reply(req_id, "UnknownCommand", str(exc))
    if isinstance(exc, jsonio.JSONInputError):
        return error_reply(req_id, "ProtocolError", str(exc))
    if isinstance(exc, ScopaError):
        return error_reply(req_id, type(exc).__name__, str(exc))
    log.error("internal error on request %r:\n%s", req_id, "".join(traceback.format_exception(exc)))
    return error_reply(
        req_id, "InternalError", f"the engine failed on this request: {type(exc).__name__}: {exc}"
    )


# ---------------------------------------------------------------------------------- protocol


def check_max_time(max_time: object, error: type[ScopaError] = LimitError) -> float | None:
    """``max_time`` as seconds if it is None or a number in (0, :data:`MAX_MAX_TIME`], else
    ``error`` saying so: the one check of an engine's and a server's longest search.

    >>> check_max_time(True)
    Traceback (most recent call last):
    ...
    scopa.errors.LimitError: bad max_time True: expected seconds in (0, 1e6] or None
    """
    if max_time is None:
        return None
    seconds = real(max_time)  # (NumPy's numbers too; NaN for what is no number)
    if not 0 < seconds <= MAX_MAX_TIME:
        raise error(f"bad max_time {show(max_time)}: expected seconds in (0, 1e6] or None")
    return seconds


class Protocol:
    """Answers protocol requests: :meth:`parse` checks a line, :meth:`execute` runs it.

    ``max_time`` (seconds, ``None`` for no maximum) is the default time limit of
    ``solve`` and ``analyze`` and the most ``time_ms`` any search may ask for;
    ``bestmove_ms`` (milliseconds in (0, 1e9]) that of ``evaluate`` and of a ``bestmove`` by a
    player (a level keeps its own cap), within ``max_time``; ``max_time_option`` names the
    setting of ``max_time`` in the refusal of a longer ``time_ms``; ``max_request_bytes`` is
    the longest request the transport reads (``hello`` says it, so a client can refuse a longer
    one itself: the transport's error for it has no id). Solvers are
    per thread, so searches may run in several threads at once (the server's pool).

    >>> p = Protocol()
    >>> req = p.parse({"cmd": "solve", "id": 1, "position": "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"})
    >>> req.cmd, req.is_search
    ('solve', True)
    >>> reply = p.execute(req)
    >>> reply["value"], reply["best"], reply["exact"]
    (4, '7dx3c4s', True)
    """

    def __init__(
        self,
        max_time: float | None = DEFAULT_MAX_TIME,
        bestmove_ms: float = 100.0,
        max_time_option: str = "scopa engine --max-time",
        max_request_bytes: int = MAX_LINE,
    ) -> None:
        self.max_time = check_max_time(max_time)
        most = as_int(max_request_bytes)
        if most is None or not 1 <= most <= MAX_LINE:
            raise OptionError(
                f"bad max_request_bytes {show(max_request_bytes)}: expected an int in 1..{MAX_LINE}"
            )
        self.max_request_bytes = most
        milliseconds = real(bestmove_ms)  # (NaN for what is no number)
        if not 0 < milliseconds <= MAX_MAX_TIME * 1000:
            raise LimitError(f"bad bestmove_ms {show(bestmove_ms)}: expected milliseconds in (0, 1e9]")
        self.bestmove_ms = milliseconds
        if not isinstance(max_time_option, str):
            raise OptionError(f"bad max_time_option {show(max_time_option)}: expected a str")
        self.max_time_option = max_time_option
        self._local = threading.local()

    @property
    def solver(self) -> Solver:
        """This thread's solver (its table is kept between this thread's requests)."""
        solver = getattr(self._local, "solver", None)
        if solver is None:
            solver = self._local.solver = Solver()
        return solver

    # ------------------------------------------------------------------ reading

    def parse(self, line: str | bytes | Mapping[str, Any]) -> Request:
        """Check one request (a JSON line, or an already decoded object); raise
        :class:`RequestError` with the error reply when it is not a valid request."""
        req_id = None
        try:
            obj = line if isinstance(line, Mapping) else jsonio.loads(line, max_chars=MAX_LINE)
            if not isinstance(obj, Mapping):
                raise ProtocolError(f"a request must be a JSON object, got {jsonio.short(obj)}")
            req_id = _check_id(obj.get("id"))
            cmd = obj.get("cmd")
            if "cmd" not in obj:
                raise ProtocolError("a request needs a 'cmd' field: " + ", ".join(COMMANDS))
            command = _command(cmd)
            _check_fields(command, obj, command.fields)
            args: dict[str, Any] = {}
            for key in command.takes:
                if key in obj:
                    # (a command that takes only some of a field's values says which, whatever is given)
                    values, why = command.only.get(key, (None, ""))
                    if values is not None and not (isinstance(obj[key], str) and obj[key] in values):
                        got, allowed = jsonio.short(obj[key]), " or ".join(values)
                        raise ProtocolError(f"{key!r} of {cmd} must be {allowed} ({why}), got {got}")
                    try:
                        args[key] = FIELDS[key].check(obj[key], key)
                    except ProtocolError:
                        if key not in command.most:
                            raise
                        # (the command's own range: review's time_ms named the field's (0, 1e9])
                        raise _above_most(command, key, obj[key]) from None
            if "time_ms" in args and self.max_time is not None and args["time_ms"] > self.max_time:
                raise ProtocolError(
                    f"'time_ms' {obj['time_ms']!r} is above the engine's maximum {self.max_time * 1000:g} "
                    f"({self.max_time_option})"
                )
            for key, (most, _) in command.most.items():
                if key in args and obj[key] > most:
                    raise _above_most(command, key, obj[key])
            if "target" in args and isinstance(obj.get("rules"), Mapping) and "target" in obj["rules"]:
                # (match_new: a rules object's target, the preset's own too, is a target given)
                _check_one_target(args["rules"], args["target"])
            return Request(command.name, req_id, args)
        except Exception as exc:  # every failure becomes a reply
            raise RequestError(_exception_reply(req_id, exc)) from None

    # ------------------------------------------------------------------ running

    def execute(
        self,
        req: Request,
        stop: StopFlag | None = None,
        info: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any] | None:
        """The reply to a checked request (``None`` for ``quit``). A search watches
        ``stop``; with ``"progress": true`` it calls ``info`` with each info line. Never
        raises for a request: failures become error replies (what is not a :class:`Request`,
        :meth:`parse`'s, is an :class:`~scopa.errors.OptionError`)."""
        if not isinstance(req, Request):
            raise OptionError(
                f"bad request {show(req)}: expected a scopa.protocol.Request (Protocol.parse's)"
            )
        try:
            handler = getattr(self, f"_cmd_{req.cmd}")
            reply = handler(req.args, stop, info if req.args.get("progress") else None, req.id)
            if reply is None:
                return None
            return {"id": req.id, **reply}
        except Exception as exc:
            return _exception_reply(req.id, exc)

    def handle(self, line: str | bytes) -> dict[str, Any] | None:
        """Parse and run one line synchronously (``stop`` has nothing to stop here)."""
        try:
            req = self.parse(line)
        except RequestError as exc:
            return exc.reply
        return self.execute(req)

    def _limit(self, args: Mapping[str, Any], stop: StopFlag | None, default: float | None) -> Limit:
        t = args.get("time_ms")
        if t is None:
            t = default
        if self.max_time is not None:
            t = self.max_time if t is None else min(t, self.max_time)
        return Limit(time=t, nodes=args.get("node_limit"), stop=stop)

    @staticmethod
    def _progress(
        req_id: Any, info: Callable[[dict[str, Any]], None] | None
    ) -> Callable[[SearchInfo], None] | None:
        if info is None:
            return None

        def send(si: SearchInfo) -> None:
            info(
                {
                    "id": req_id,
                    "info": {
                        "depth": si.depth,
                        "nodes": si.nodes,
                        "seconds": round(si.seconds, 6),
                        "estimate": round(si.estimate, 4),
                        "best": None if si.best_move is None else str(si.best_move),
                        "lower": si.lower,
                        "upper": si.upper,
                        "exact": si.exact,
                    },
                }
            )

        return send

    # ------------------------------------------------------------------ commands

    def _cmd_hello(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        def options(rules: Rules) -> dict[str, Any]:
            return {k: v for k, v in rules.__dict__.items() if k != "game"}

        max_ms = None if self.max_time is None else self.max_time * 1000
        return {
            "name": "scopa",
            "version": __version__,
            "protocol": PROTOCOL_VERSION,
            "position_format": FORMAT_VERSION,
            "presets": list(PRESETS),
            "options": options(Rules()),
            "preset_options": {name: options(Rules.preset(name)) for name in PRESETS},
            "players": list(PLAYERS),
            "levels": level_names(),
            "commands": list(COMMANDS),
            "max_time_ms": max_ms,
            "default_time_ms": max_ms,
            "max_request_bytes": self.max_request_bytes,
        }

    def _cmd_ping(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        return {"pong": True}

    def _cmd_schema(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        # (a backend's audit: a client of scopa serve could not fetch the schema it validates with)
        return {"schema": schema()}

    def _cmd_legal(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        # (a view too: a thin client holding only its seat's view asks its legal moves)
        src = args["position"] if "position" in args else args["view"]
        return {"moves": [str(m) for m in src.legal_moves()]}

    def _cmd_play(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        after, events = play_events(args["position"], args["move"])
        return {"position": after.to_dict(), "events": [e.to_json() for e in events]}

    def _cmd_deal(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        rules: Rules = args["rules"]
        dealer, seed = args.get("dealer"), args.get("seed")
        if dealer is None:  # (with a seed, seat 0 as State.deal and scopa deal: one seed, one deal)
            dealer = secrets.randbelow(rules.players) if seed is None else 0
        return {"position": State.deal(rules, seed=seed, dealer=dealer).to_dict()}

    def _cmd_view(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        return {"view": view_to_dict(args["position"].view(args["seat"]))}

    def _cmd_svg(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        deck, size = args.get("deck", "french"), args.get("size", 48)
        if "view" in args:
            if "seat" in args:
                raise ProtocolError(
                    f"'seat' {jsonio.short(args['seat'])} is a position's: a view is drawn as its own seat "
                    f"({args['view'].seat}) sees it"
                )
            return {"svg": svg_position(args["view"], deck=deck, size=size)}
        return {"svg": svg_position(args["position"], seat=args.get("seat"), deck=deck, size=size)}

    def _cmd_score(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        state: State = args["position"]
        return state.score().to_json(state.rules)

    def _cmd_match_new(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        rules: Rules = args["rules"]
        if "target" in args:
            if rules.target != Rules.preset(rules.game).target:  # (a Request made by hand: parse
                # checks a rules object that gives the preset's own target too)
                _check_one_target(rules, args["target"])
            rules = rules.replace(target=args["target"])
        return {"match": Match(rules, seed=args.get("seed"), dealer=args.get("dealer")).to_json()}

    def _cmd_match_play(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        match: Match = args["match"]
        _, events = match.play_events(args["move"])
        reply: dict[str, Any] = {"match": match.to_json(), "events": [e.to_json() for e in events]}
        if any(e.type == "hand_over" for e in events):
            # (the next hand is dealt at once: the one this play ended, as a client shows it)
            final = match.hands[-1]
            reply["hand_over"] = {
                "position": final.to_dict(),
                "score": match.history[-1].to_json(final.rules),
                "record": HandRecord.from_state(final).to_json(),
            }
        return reply

    def _cmd_match_resume(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        record = args["record"]
        match = Match.from_record(record, seed=args.get("seed"))
        # (a match holds no tags: given back, for the match_record that saves it again; a
        # backend's audit saved a resumed match and lost its players' names)
        return {"match": match.to_json(), "tags": dict(record.tags)}

    def _cmd_match_record(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        match: Match = args["match"]
        return {"record": match.record(args.get("tags")).to_json()}

    def _cmd_evaluate(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        view = args["view"]
        name = args.get("player", "pimc")  # (pimc only: checked when read)
        limit = self._limit(args, stop, self.bestmove_ms / 1000.0)
        player = make_player(name, seed=args.get("seed"), time_limit=limit.time)
        assert isinstance(player, PIMCPlayer)
        values = player.evaluate(view, limit)
        best = max(values, key=lambda m: values[m][0])
        return {
            "moves": {str(m): round(v, 4) for m, (v, _) in values.items()},
            "samples": player.last_samples,
            "best": str(best),
        }

    def _cmd_solve(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        r = self.solver.solve(
            args["position"], self._limit(args, stop, None), progress=self._progress(req_id, info)
        )
        return r.to_json()

    def _cmd_analyze(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        a = self.solver.analyze(
            args["position"], self._limit(args, stop, None), progress=self._progress(req_id, info)
        )
        return a.to_json()

    def _cmd_bestmove(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        view = args["view"]
        name = args.get("player", "pimc")
        level = name.startswith("level")
        # (a level's time cap is part of it: without time_ms it keeps its own, up to 1 s)
        limit = self._limit(args, stop, None if level else self.bestmove_ms / 1000.0)
        timed = name in ("pimc", "ismcts") or (level and args.get("time_ms") is not None)
        options = {"time_limit": limit.time} if timed else {}
        player = make_player(name, seed=args.get("seed"), **options)
        return {"move": str(choose(player, view, limit))}

    def _cmd_review(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        # (the default a play, within the engine's maximum, as a time_ms above it is refused)
        per_play = self._limit(args, None, DEFAULT_TIME).time
        assert per_play is not None  # (a default is given)
        if "time_ms" not in args and self.max_time is not None:
            # (the default spread over the plays within the engine's maximum for the whole
            # review: a backend's audit saw a default review under --max-time 0.03 value none
            # of 40 plays, the first taking it all, and most plays of a match left out at 10 s)
            plays = sum(len(h.plays) for h in args["record"].hands)
            per_play = min(per_play, 0.75 * self.max_time / max(1, plays))  # (a margin: plays overrun)
        result = review(
            args["record"],
            time_limit=per_play,
            limit=self._limit({}, stop, None),
            seed=args.get("seed", 0),
            progress=self._review_progress(req_id, info),
        )
        return result.to_json()

    @staticmethod
    def _review_progress(
        req_id: Any, info: Callable[[dict[str, Any]], None] | None
    ) -> Callable[[int, int], None] | None:
        """A review's info lines: as it begins (0 done) and after each play, the plays done
        (reviewed, or left out by the review's limit), of how many, and the seconds since the
        review began."""
        if info is None:
            return None
        began = 0.0

        def send(done: int, total: int) -> None:
            nonlocal began
            if done == 0:  # (its first call, its clock just started: no line past the reply's seconds)
                began = time.monotonic()
            seconds = round(time.monotonic() - began, 6)
            info({"id": req_id, "info": {"done": done, "total": total, "seconds": seconds}})

        return send

    def _cmd_stop(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> dict[str, Any]:
        return {"stopped": 0}  # a transport with searches in flight answers stop itself

    def _cmd_quit(self, args: Mapping[str, Any], stop: Any, info: Any, req_id: Any) -> None:
        return None


# ---------------------------------------------------------------------------------- schema

_HISTORY = {
    "type": "object",
    "required": ["start"],
    "properties": {
        "start": {"type": "string", "maxLength": 2000},
        "plays": {"type": "array", "items": {"type": "string"}, "maxItems": 40},
    },
    "additionalProperties": False,
}
# a card's one spelling, the one replies use (docs/engine-protocol.md "The JSON Schema"): a
# request's cards are read as the notation parses them (7D, 7♦, spaces around), beyond the schema
_CARD = {"type": "string", "pattern": "^[A2-7JQK][dcsb]$"}
_CARDS = {"type": "array", "items": _CARD, "maxItems": 40}
_RULES = _RULES_SCHEMA
_COMMON_POSITION = {
    "rules": _RULES,
    "table": _CARDS,
    "captured": {"type": "array", "items": _CARDS, "minItems": 2, "maxItems": 2},
    "scope": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2},
    "turn": {"type": "integer", "minimum": 0, "maximum": 3},
    "last_capture": {"enum": [0, 1, None]},
    "dealer": {"type": ["integer", "null"], "minimum": 0, "maximum": 3},
}


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of every request and reply of the protocol: one
    document whose ``$defs`` hold ``request`` and ``reply`` (each a choice of the commands'
    messages), ``info``, ``error``, positions and views. ``scopa engine --schema`` prints it."""
    requests = []
    replies = []
    for c in COMMANDS.values():
        props: dict[str, Any] = {"cmd": {"const": c.name}, "id": {"$ref": "#/$defs/id"}}
        for key in c.takes:
            props[key] = {"enum": list(c.only[key][0])} if key in c.only else FIELDS[key].schema
        for key, (most, _) in c.most.items():
            props[key] = {**props[key], "maximum": most}
        request: dict[str, Any] = {
            "type": "object",
            "description": c.doc,
            "required": ["cmd", *c.required],
            "properties": props,
            "additionalProperties": False,
        }
        if c.either:
            request["oneOf"] = [{"required": [key]} for key in c.either]
        requests.append(request)
        if c.reply:
            reply = {
                "type": "object",
                "description": f"the reply to {c.name}",
                "required": ["id", *c.reply.get("required", [])],
                "properties": {"id": {"$ref": "#/$defs/id"}, **c.reply.get("properties", {})},
                "not": {"required": ["error"]},
            }
            replies.append(reply)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://scopa.dev/schemas/protocol.json",
        "title": f"scopa engine protocol, version {PROTOCOL_VERSION}",
        "anyOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/reply"}],
        "$defs": {
            "id": {"oneOf": [{"type": "string", "maxLength": _ID_CHARS}, _ID_INT, {"type": "null"}]},
            "rules": record_schema()["$defs"]["rules"],
            "request": {"oneOf": requests},
            # a reply is known by its request's command, which it does not repeat: any of these
            "reply": {"anyOf": [*replies, {"$ref": "#/$defs/error"}, {"$ref": "#/$defs/info"}]},
            "error": {
                "type": "object",
                "required": ["id", "error"],
                "properties": {
                    "id": {"$ref": "#/$defs/id"},
                    "error": {
                        "type": "object",
                        "required": ["type", "message"],
                        "properties": {"type": {"type": "string"}, "message": {"type": "string"}},
                        "additionalProperties": False,
                    },
                },
                "additionalProperties": False,
            },
            "info": {
                "type": "object",
                "required": ["id", "info"],
                "properties": {
                    "id": {"$ref": "#/$defs/id"},
                    # (a search's, solve's and analyze's; or a review's, after each play)
                    "info": {
                        "oneOf": [
                            {
                                "type": "object",
                                "required": ["depth", "nodes", "estimate", "best"],
                                "properties": {
                                    "depth": _INT,
                                    "nodes": _INT,
                                    "seconds": _NUM,
                                    "estimate": _NUM,
                                    "best": {"type": ["string", "null"]},
                                    "lower": _INT,
                                    "upper": _INT,
                                    "exact": {"type": "boolean"},
                                },
                            },
                            {
                                "type": "object",
                                "required": ["done", "total", "seconds"],
                                "properties": {
                                    "done": {"type": "integer", "minimum": 0},
                                    "total": {"type": "integer", "minimum": 1},
                                    "seconds": {"type": "number", "minimum": 0},
                                },
                                "additionalProperties": False,
                            },
                        ]
                    },
                },
                "additionalProperties": False,
            },
            "line": {
                "type": "object",
                "required": ["move", "value", "lower", "upper", "estimate", "exact"],
                "properties": {
                    "move": _MOVE,
                    "value": _NULLABLE_INT,
                    "lower": _INT,
                    "upper": _INT,
                    "estimate": _NUM,
                    "exact": {"type": "boolean"},
                },
            },
            "position": {
                "type": "object",
                "required": ["rules", "hands", "turn"],
                "properties": {
                    **_COMMON_POSITION,
                    "hands": {"type": "array", "items": _CARDS, "minItems": 2, "maxItems": 4},
                    "stock": _CARDS,
                    "history": _HISTORY,
                },
                "additionalProperties": False,
            },
            "match": {
                "type": "object",
                # what Match.from_json needs; the other fields are checked against the hands
                # when present (match_new and match_play always give them all)
                "required": ["format", "version", "rules", "position"],
                "properties": {
                    "format": {"const": "scopa-match"},
                    "version": {"const": 1},
                    "rules": _RULES,
                    "target": {"type": "integer", "minimum": 1},
                    "seed": {"type": "integer", "minimum": 0},
                    "seed_from": {"type": "integer", "minimum": 0},
                    "first_dealer": {"type": "integer", "minimum": 0, "maximum": 3},
                    "scores": _PAIR,
                    "hands_played": {"type": "integer", "minimum": 0},
                    "dealer": {"type": "integer", "minimum": 0, "maximum": 3},
                    "winner": {"enum": [0, 1, None]},
                    "position": {"$ref": "#/$defs/position"},
                    "hands": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["deal", "plays", "points"],
                            "properties": {
                                "deal": {"type": "string"},
                                "plays": {"type": "array", "items": {"type": "string"}},
                                "points": _PAIR,
                            },
                            "additionalProperties": False,
                        },
                    },
                },
                "additionalProperties": False,
            },
            "view": {
                "type": "object",
                "required": ["rules", "hands", "turn"],
                "properties": {
                    **_COMMON_POSITION,
                    "hands": {
                        "type": "array",
                        "items": {"oneOf": [_CARDS, {"type": "integer", "minimum": 0, "maximum": 10}]},
                        "minItems": 2,
                        "maxItems": 4,
                    },
                    "stock": {"type": "integer", "minimum": 0, "maximum": 40},
                    "seat": {"type": "integer", "minimum": 0, "maximum": 3},
                    "out_of_play": _CARDS,
                    "history": {
                        "type": "array",
                        "maxItems": 40,
                        "items": {
                            "type": "array",
                            "prefixItems": [{"type": "integer", "minimum": 0, "maximum": 3}, _MOVE],
                            "minItems": 2,
                            "maxItems": 2,
                        },
                    },
                },
                "additionalProperties": False,
            },
        },
    }
