"""Rules: a game preset (RULES §2) plus every rule option of RULES §3-§7.

>>> r = Rules.preset("scopone")
>>> r.players, r.hand_size, r.table_size, r.target
(4, 9, 4, 11)
>>> r.replace(capture_rule="fewest", target=16).capture_rule
'fewest'
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import scopa_core as core
from scopa import jsonio
from scopa.errors import RulesError, as_bool, as_int, plain_str, show

__all__ = ["PRESETS", "Rules"]

#: preset name -> (players, cards per hand, cards on the table at the deal)
_GEOMETRY: dict[str, tuple[int, int, int]] = {
    "scopa": (2, 3, 4),
    "scopa4": (4, 3, 4),
    "scopone": (4, 9, 4),
    "scopone_scientifico": (4, 10, 0),
}
PRESETS: tuple[str, ...] = tuple(_GEOMETRY)
"""The games' names, each a preset of :class:`Rules` (RULES §1)."""
#: Each game's name for people (:attr:`Rules.display_name`), by preset.
_DISPLAY_NAMES = {
    "scopa": "Scopa",
    "scopa4": "Scopa for four",
    "scopone": "Scopone",
    "scopone_scientifico": "Scopone scientifico",
}
#: Numbers in rules and position strings: ASCII digits only (``str.isdigit`` also takes ``²``
#: and other scripts' digits, which ``int`` refuses), and few of them.
_NUMBER = re.compile(r"[0-9]{1,6}")


def _option_value(text: str) -> Any:
    """A rule option's value as text writes it: ``true``/``false``, a number (up to 6 digits), a word."""
    if text in ("true", "false"):
        return text == "true"
    if _NUMBER.fullmatch(text):
        return int(text)
    return text


#: Highest match target accepted (the sources play to 11, 16, 21 or 31).
MAX_TARGET = 10_000

_BOOL_OPTIONS = (
    "primiera_requires_all_suits",
    "redeal_on_kings",
    "ace_takes_all",
    "ace_sweep_is_scopa",
    "re_bello",
    "napola",
    "scopa_on_last_play",
)


@dataclass(frozen=True)
class Rules:
    """The game and its rule options. Build with :meth:`preset`, change with :meth:`replace`.

    Attributes:
        game: the preset (``scopa``, ``scopa4``, ``scopone``, ``scopone_scientifico``),
            which fixes players, hand size and table cards (RULES §2).
        target: points that end a match (RULES §5).
        capture_rule: ``"free"`` (any set adding up) or ``"fewest"`` (RULES §3.2).
        primiera_requires_all_suits: a team lacking a suit cannot win primiera (RULES §4).
        redeal_on_kings: redeal when 3+ kings are dealt face up (RULES §6); always False
            in a game that deals no table cards (Scopone scientifico), whatever is given.
        ace_takes_all, ace_sweep_is_scopa, re_bello, napola, scopa_on_last_play: the
            variants of RULES §7, off by default.

    >>> r = Rules.preset("scopa", target=21, napola=True)
    >>> r.changed_options()
    {'target': 21, 'napola': True}
    >>> r.to_json(), Rules.from_json(r.to_json()) == r
    ({'preset': 'scopa', 'target': 21, 'napola': True}, True)
    >>> Rules.preset("scopa", napolla=True)
    Traceback (most recent call last):
    ...
    scopa.errors.RulesError: unknown rule option 'napolla': expected one of ace_sweep_is_scopa, ...
    """

    game: str = "scopa"
    target: int = 11
    capture_rule: Literal["free", "fewest"] = "free"
    primiera_requires_all_suits: bool = True
    redeal_on_kings: bool = True
    ace_takes_all: bool = False
    ace_sweep_is_scopa: bool = False
    re_bello: bool = False
    napola: bool = False
    scopa_on_last_play: bool = False

    def __post_init__(self) -> None:
        for name in ("game", "capture_rule"):  # (NumPy's strings kept as strs: the repr pastes back)
            object.__setattr__(self, name, plain_str(getattr(self, name)))
        if not isinstance(self.game, str) or self.game not in _GEOMETRY:
            raise RulesError(f"unknown game {show(self.game)}: expected one of {', '.join(PRESETS)}")
        target = as_int(self.target)  # (NumPy's integers too, kept as an int)
        if target is None or not 1 <= target <= MAX_TARGET:
            raise RulesError(f"bad target {show(self.target)}: expected an int in 1..{MAX_TARGET}")
        object.__setattr__(self, "target", target)
        if not isinstance(self.capture_rule, str) or self.capture_rule not in ("free", "fewest"):
            raise RulesError(f"bad capture_rule {show(self.capture_rule)}: expected 'free' or 'fewest'")
        for name in _BOOL_OPTIONS:
            value = getattr(self, name)
            flag = as_bool(value)  # (NumPy's bools too, kept as a bool)
            if flag is None:
                raise RulesError(f"bad {name} {show(value)}: expected True or False")
            object.__setattr__(self, name, flag)
        if self.ace_sweep_is_scopa and not self.ace_takes_all:
            raise RulesError("ace_sweep_is_scopa=True needs ace_takes_all=True")
        if self.redeal_on_kings and _GEOMETRY[self.game][2] == 0:
            # no card is dealt face up, so nothing is redealt: False, as the preset has it
            object.__setattr__(self, "redeal_on_kings", False)

    @classmethod
    def preset(cls, name: str, /, **options: Any) -> Rules:
        """The rules of a preset, with its defaults, optionally changed by ``options``.

        >>> Rules.preset("scopone_scientifico").players
        4
        >>> Rules.preset("briscola")
        Traceback (most recent call last):
        ...
        scopa.errors.RulesError: unknown game 'briscola': expected one of scopa, ...
        """
        if not isinstance(name, str) or name not in _GEOMETRY:
            raise RulesError(f"unknown game {show(name)}: expected one of {', '.join(PRESETS)}")
        base = _PRESETS.get(name) if cls is Rules else None
        if base is None:
            base = cls(game=name, redeal_on_kings=_GEOMETRY[name][2] > 0)
            if cls is Rules:  # (each preset made once: Rules are immutable values)
                _PRESETS[name] = base
        return base.replace(**options) if options else base

    def replace(self, /, **options: Any) -> Rules:
        """A copy with some options changed; unknown names raise :class:`RulesError`."""
        known = {f.name for f in dataclasses.fields(self)} - {"game"}
        for key in options:
            if key == "game":  # the deck's geometry goes with it: a game is a preset
                raise RulesError(f"game {show(options[key])} is not an option: the game is the preset's")
            if key not in known:
                raise RulesError(
                    f"unknown rule option {show(key)}: expected one of {', '.join(sorted(known))}"
                )
        return dataclasses.replace(self, **options)

    @property
    def players(self) -> int:
        """Number of seats: 2 or 4 (4 play as two teams: seats 0 and 2, seats 1 and 3)."""
        return _GEOMETRY[self.game][0]

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat, at the deal and at each refill."""
        return _GEOMETRY[self.game][1]

    @property
    def table_size(self) -> int:
        """Cards dealt face up on the table."""
        return _GEOMETRY[self.game][2]

    @property
    def stock_size(self) -> int:
        """Cards left in the stock after the deal."""
        return 40 - self.players * self.hand_size - self.table_size

    @property
    def most_scope(self) -> int:
        """Most scope a team can make in one hand: one per play of its seats."""
        return (40 - self.table_size) // 2

    @property
    def core_options(self) -> int:
        """The options packed into the int the core takes (``scopa_core.OPT_*`` bits)."""
        return (
            (core.OPT_FEWEST if self.capture_rule == "fewest" else 0)
            | (core.OPT_ACE_TAKES_ALL if self.ace_takes_all else 0)
            | (core.OPT_ACE_SWEEP_IS_SCOPA if self.ace_sweep_is_scopa else 0)
            | (core.OPT_SCOPA_ON_LAST_PLAY if self.scopa_on_last_play else 0)
            | (core.OPT_RE_BELLO if self.re_bello else 0)
            | (core.OPT_NAPOLA if self.napola else 0)
            | (core.OPT_PRIMIERA_ALL_SUITS if self.primiera_requires_all_suits else 0)
            | (core.OPT_REDEAL_ON_KINGS if self.redeal_on_kings else 0)
        )

    def changed_options(self) -> dict[str, Any]:
        """The options that differ from the preset's defaults."""
        base = Rules.preset(self.game)
        return {name: getattr(self, name) for name in _OPTIONS if getattr(self, name) != getattr(base, name)}

    def __str__(self) -> str:
        """The rules as a position string writes them: the game, then each option that differs
        from its preset's (the target too), ``;``-separated.

        >>> str(Rules.preset("scopa").replace(napola=True, target=21)), str(Rules.preset("scopone"))
        ('scopa;target=21;napola=true', 'scopone')
        """
        parts = [self.game]
        for key, value in self.changed_options().items():
            parts.append(f"{key}={str(value).lower() if isinstance(value, bool) else value}")
        return ";".join(parts)

    @property
    def display_name(self) -> str:
        """The rules as a heading for people says them: the game's name, then each option that
        differs from its preset's as :meth:`__str__` writes it (``str(rules)`` is the identifier,
        for what programs read).

        >>> Rules.preset("scopone_scientifico").display_name
        'Scopone scientifico'
        >>> Rules.preset("scopa", napola=True, target=21).display_name
        'Scopa with target=21 and napola=true'
        """
        options = str(self).split(";")[1:]
        if not options:
            return _DISPLAY_NAMES[self.game]
        listed = ", ".join(options[:-1]) + " and " if len(options) > 1 else ""
        return f"{_DISPLAY_NAMES[self.game]} with {listed}{options[-1]}"

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Rules as a position string writes them (:meth:`__str__`): a preset's name, then
        ``;name=value`` for each option (``true``/``false``, a number, a word).

        >>> Rules.parse("scopa;napola=true;target=21") == Rules.preset("scopa", napola=True, target=21)
        True
        >>> Rules.parse("scopa;napola")
        Traceback (most recent call last):
        ...
        scopa.errors.RulesError: bad rule option 'napola' in 'scopa;napola': expected name=value
        """
        if not isinstance(text, str):
            raise RulesError(f"bad rules {show(text)}: expected text like scopa;napola=true")
        name, *opts = text.split(";")
        options: dict[str, Any] = {}
        for opt in opts:
            key, sep, value = opt.partition("=")
            if not sep or not key:
                raise RulesError(f"bad rule option {show(opt)} in {show(text)}: expected name=value")
            if key in options:
                raise RulesError(f"rule option {show(key)} given twice in {show(text)}")
            # (true/false are booleans only for a boolean option: "bad target 'true'", the text's word)
            read = key in _BOOL_OPTIONS or value not in ("true", "false")
            numeric = key in _OPTIONS and key not in _BOOL_OPTIONS  # (else its own message first)
            if numeric and _NUMBER.fullmatch(value) and value[0] == "0" and len(value) > 1:  # (one spelling)
                raise RulesError(
                    f"bad {key} {show(value)} in {show(text)}: expected a number without leading zeros,"
                    f" {int(value)}"
                )
            options[key] = _option_value(value) if read else value
            if key in _BOOL_OPTIONS and not isinstance(options[key], bool):  # (in the text's words)
                raise RulesError(f"bad {key} {show(value)} in {show(text)}: expected true or false")
        return cls.preset(name, **options)

    @classmethod
    def of(cls, rules: object) -> Rules:
        """Rules from any form this library writes them in: a :class:`Rules` as it is, a
        preset's name, the text form of :meth:`__str__` (position strings, a record's ``Rules``
        tag and :attr:`ArenaResult.game <scopa.arena.ArenaResult.game>` write it), or a rules
        object of :meth:`to_json`, decoded or as JSON text; text either as a str or as its UTF-8
        bytes, as :meth:`State.of <scopa.State.of>` takes a position. :meth:`State.deal
        <scopa.State.deal>`, :class:`~scopa.Match`, :func:`~scopa.arena.arena` and the other
        functions that take rules take them so.

        >>> Rules.of("scopa;napola=true") == Rules.of({"preset": "scopa", "napola": True})
        True
        >>> r = Rules.preset("scopone", target=21)
        >>> Rules.of(str(r)) == Rules.of(r.to_json()) == Rules.of(r) == r
        True
        >>> Rules.of("scopa;target=eleven")
        Traceback (most recent call last):
        ...
        scopa.errors.RulesError: bad target 'eleven': expected an int in 1..10000
        """
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, (bytes, bytearray, memoryview)):  # (as State.of reads a position's)
            rules = jsonio.utf8_text(rules, "rules", RulesError)
        if isinstance(rules, str) and ";" in rules and rules.lstrip()[:1] not in ("{", '"'):
            return cls.parse(rules)
        return cls.from_json(rules)

    def hand_rules(self) -> Rules:
        """These rules with their preset's target: the rules of a hand, whose play and score the
        target (a match's) does not change.

        >>> str(Rules.preset("scopa").replace(napola=True, target=21).hand_rules())
        'scopa;napola=true'
        """
        return self.replace(target=Rules.preset(self.game).target)

    def to_json(self) -> str | dict[str, Any]:
        """The preset name, or ``{"preset": name, option: value, ...}`` when options differ."""
        changed = self.changed_options()
        return {"preset": self.game, **changed} if changed else self.game

    @classmethod
    def from_json(cls, obj: object) -> Rules:
        """Inverse of :meth:`to_json`: a preset name or an object with ``preset`` and options,
        decoded or as JSON text (a string starting with ``{`` or ``"``) or its UTF-8 bytes.

        >>> Rules.from_json({"preset": "scopa", "capture_rule": "fewest"}).capture_rule
        'fewest'
        >>> Rules.from_json('{"preset": "scopa", "napola": true}') == Rules.preset("scopa", napola=True)
        True
        >>> Rules.from_json(b'"scopone"') == Rules.from_json("scopone") == Rules.preset("scopone")
        True
        """
        text = isinstance(obj, str) and obj.lstrip()[:1] in ("{", '"')  # (else a preset's name)
        obj = jsonio.decoded(obj, "rules", RulesError, text=text)
        if isinstance(obj, str):
            return cls.preset(obj)
        if isinstance(obj, Mapping):
            opts = dict(obj)
            odd = [k for k in opts if not isinstance(k, str)]
            if odd:
                raise RulesError(f"rules object {show(obj)}: option names are strings, got {show(odd[0])}")
            name = opts.pop("preset", None)
            if name is None:
                raise RulesError(f"rules object {show(obj)} has no 'preset'")
            if "game" in opts:
                raise RulesError(f"rules object {show(obj)}: give the game as 'preset', not 'game'")
            return cls.preset(name, **opts)
        raise RulesError(f"bad rules {show(obj)}: expected a preset name or an object with 'preset'")


#: The rule options, in the order of the fields (the game is the preset, not an option).
_OPTIONS = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "game")
#: The presets' rules as :meth:`Rules.preset` gives them without options, by game.
_PRESETS: dict[str, Rules] = {}
