"""Scoring a hand (RULES §4 and the §7 options).

The seeds' primiera examples (RULES §4):

>>> primiera_total(["7c", "7b", "7d", "6s"]), primiera_total(["7s", "6c", "6b", "6d"])
(81, 75)
>>> primiera_total(["7d", "6c", "7s", "Ab"])
76
>>> primiera_total(["7d", "7c"]), primiera_total(["7d", "7c"], requires_all_suits=False)
(None, 42)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import scopa_core as core
from scopa import jsonio
from scopa.card import CardLike, CardSet, cards_mask
from scopa.errors import (
    CardError,
    OptionError,
    PositionError,
    as_bool,
    as_int,
    count,
    int_pair,
    listed,
    plain_int,
    show,
    unknown_keys,
)
from scopa.rules import Rules

__all__ = ["CATEGORIES", "HandScore", "primiera_total"]

CATEGORIES: tuple[str, ...] = tuple(core.CATEGORIES)
"""The scoring categories, in the order of the breakdown."""

Pair = tuple[int, int]


def primiera_total(cards: Iterable[CardLike], requires_all_suits: bool = True) -> int | None:
    """The primiera total of a pile: the best primiera value of each suit, summed.

    ``None`` when a suit is missing and ``requires_all_suits`` is true (RULES §4).

    >>> primiera_total(CardSet.parse("7d 6c As Kb Qb"))    # 21 + 18 + 16 + 10
    65
    """
    if as_bool(requires_all_suits) is None:
        raise OptionError(f"bad requires_all_suits {show(requires_all_suits)}: expected True or False")
    total = core.primiera(cards_mask(cards), core.OPT_PRIMIERA_ALL_SUITS if requires_all_suits else 0)
    return None if total < 0 else total


#: (field, most a team has, most both have together or None): the figures of one hand
_FIELDS = (
    ("carte", 1, None),
    ("denari", 1, None),
    ("settebello", 1, None),
    ("primiera", 1, None),
    ("scope", 20, None),
    ("re_bello", 1, None),
    ("napola", 10, None),
    ("cards", 40, 40),
    ("coins", 10, 10),
)
_ONE_TEAM = ("carte", "denari", "settebello", "primiera", "re_bello", "napola")  # (a tie: nobody)
_OPTIONAL = ("re_bello", "napola")  # (rule options: in a score's JSON only under rules with them)
_PRIMIERA_MOST = 84  # (four sevens, 21 each)
#: each category's counts in :meth:`HandScore.to_json` (and read back by ``from_json``): {field: key}
_JSON_KEYS: dict[str, dict[str, str]] = {
    "carte": {"cards": "cards"},
    "denari": {"coins": "coins"},
    "settebello": {},
    "primiera": {"primiera_totals": "totals"},
    "scope": {"scope": "count"},
    "re_bello": {},
    "napola": {},
}


def _pair(value: Any, name: str, most: int) -> Pair:
    """``value`` as a pair of ints in 0..``most``, one per team (NumPy's integers read as ints),
    else :class:`PositionError`."""
    ints = int_pair(value)
    if ints is None or not all(0 <= x <= most for x in ints):
        raise PositionError(f"bad {name} {show(value)}: expected two ints in 0..{most}, one per team")
    return ints


def _count(mask: int) -> int:
    return bin(mask).count("1")


@dataclass(frozen=True)
class HandScore:
    """The points of one hand, per team and per category.

    Each category is a ``(team0, team1)`` pair. ``points`` is their sum; ``cards``,
    ``coins`` and ``primiera_totals`` are the figures the points were decided on.

    >>> s = HandScore.from_piles(Rules.preset("scopa"), ["7d", "7c", "7s", "6b"], ["Ad"], scope=(1, 0))
    >>> s.points, s.settebello, s.primiera, s.carte
    ((4, 0), (1, 0), (1, 0), (1, 0))
    """

    carte: Pair
    denari: Pair
    settebello: Pair
    primiera: Pair
    scope: Pair
    re_bello: Pair
    napola: Pair
    cards: Pair
    coins: Pair
    primiera_totals: tuple[int | None, int | None]

    def __post_init__(self) -> None:
        # (a score built by hand or read from JSON: each figure in the range a hand allows and one
        # team at most scoring a point, RULES §4 and §7; the figures are not checked against each
        # other, which composed positions' partial piles would not all satisfy)
        for name, most, shared in _FIELDS:
            pair = _pair(getattr(self, name), name, most)
            if shared is not None and pair[0] + pair[1] > shared:
                raise PositionError(
                    f"bad {name} {show(getattr(self, name))}: the two teams have at most {shared} together"
                )
            if name in _ONE_TEAM and pair[0] and pair[1]:
                raise PositionError(f"bad {name} {show(getattr(self, name))}: one team at most scores it")
            if name == "napola" and any(0 < x < 3 for x in pair):
                raise PositionError(
                    f"bad napola {show(getattr(self, name))}: expected 0 or 3..10 points a team"
                )
            object.__setattr__(self, name, pair)
        for team in (0, 1):  # (as a position says it: each scopa captures cards, RULES §3.6)
            if self.scope[team] and not self.cards[team]:
                raise PositionError(
                    f"team {team} has {count(self.scope[team], 'scopa')} but an empty pile: "
                    "each scopa captures cards"
                )
        given = self.primiera_totals
        totals: Any = [plain_int(t) for t in given] if isinstance(given, (tuple, list)) else given
        if (
            not isinstance(totals, (tuple, list))
            or len(totals) != 2
            or not all(t is None or (type(t) is int and 0 <= t <= _PRIMIERA_MOST) for t in totals)
        ):
            raise PositionError(
                f"bad primiera_totals {show(given)}: expected two totals in 0..{_PRIMIERA_MOST} or None"
                " (a team lacking a suit)"
            )
        object.__setattr__(self, "primiera_totals", (totals[0], totals[1]))

    @classmethod
    def from_json(cls, obj: Any) -> HandScore:
        """Inverse of :meth:`to_json`: a category it leaves out (``re_bello``, ``napola`` under
        rules without them) scores nothing; given as ``null`` it is refused, as any category is.
        Raises :class:`PositionError` naming the bad field: an unknown or missing one, a figure
        out of its range, ``points`` that are not the sum of the categories. The object may be
        given decoded, as JSON text or as its UTF-8 bytes.

        >>> s = HandScore.from_piles(Rules.preset("scopa"), ["7d", "7c", "7s", "6b"], ["Ad"], scope=(1, 0))
        >>> HandScore.from_json(s.to_json(Rules.preset("scopa"))) == s
        True
        >>> HandScore.from_json(jsonio.dumps(s.to_json())) == s
        True
        """
        obj = jsonio.decoded(obj, "score", PositionError)
        if not isinstance(obj, Mapping):
            raise PositionError(f"bad score {show(obj)}: expected an object with 'points' and 'categories'")
        odd = unknown_keys(obj, ("points", "categories"))
        if odd or "categories" not in obj:
            raise PositionError(
                f"bad score {show(obj)}: expected the keys 'points' and 'categories'"
                + (f", not {', '.join(odd)}" if odd else "")
            )
        cats = obj["categories"]
        if not isinstance(cats, Mapping):
            raise PositionError(f"bad categories {show(cats)}: expected an object with one entry a category")
        odd = unknown_keys(cats, CATEGORIES)
        if odd:
            raise PositionError(
                f"unknown score categories {', '.join(odd)}: expected some of {', '.join(CATEGORIES)}"
            )
        fields: dict[str, Any] = {}
        for cat in CATEGORIES:
            keys = _JSON_KEYS[cat]
            if cat not in cats and cat in _OPTIONAL:
                fields[cat] = (0, 0)
                continue
            entry = cats.get(cat)  # (null is no category: a rule's left out, not written null)
            if not isinstance(entry, Mapping) or set(entry) != {"points", *keys.values()}:
                want = ", ".join(repr(k) for k in ("points", *keys.values()))
                if cat in _OPTIONAL:
                    want += f", or {cat} left out under rules without it"
                raise PositionError(f"bad {cat} {show(entry)}: expected an object with the keys {want}")
            fields[cat] = entry["points"]
            for field_name, key in keys.items():
                if field_name == "scope":  # (the count of scope is their points)
                    if _pair(entry[key], "scope count", 20) != _pair(entry["points"], "scope", 20):
                        raise PositionError(f"bad scope {show(entry)}: its count and its points differ")
                    continue
                fields[field_name] = entry[key]
        score = cls(**fields)
        points = obj.get("points")
        if points is None or _pair(points, "points", 1 << 10) != score.points:
            raise PositionError(f"bad points {show(points)}: the categories sum to {list(score.points)}")
        return score

    @property
    def points(self) -> Pair:
        """Total points per team: the sum of the categories."""
        return (
            sum(getattr(self, c)[0] for c in CATEGORIES),
            sum(getattr(self, c)[1] for c in CATEGORIES),
        )

    @property
    def breakdown(self) -> dict[str, Pair]:
        """``{category: (team0, team1)}`` for every category, in :data:`CATEGORIES` order."""
        return {c: getattr(self, c) for c in CATEGORIES}

    def to_json(self, rules: Rules | str | None = None) -> dict[str, Any]:
        """The score as JSON: ``{"points": [a, b], "categories": {...}}``, each category with
        its points and the counts it was decided on (cards, coins, primiera totals — null for
        a team lacking a suit when every suit is required — and scope); ``re_bello`` and
        ``napola`` only when ``rules`` has them on (always when ``rules`` is not given), or when
        the score has points in them (rules that do not match it do not drop its points:
        :meth:`from_json` reads back every JSON this writes). ``rules`` in any form
        :meth:`Rules.of <scopa.Rules.of>` reads.

        >>> s = HandScore.from_piles(Rules.preset("scopa"), ["7d", "7c", "7s", "6b"], ["Ad"], scope=(1, 0))
        >>> s.to_json(Rules.preset("scopa"))["categories"]["primiera"]
        {'points': [1, 0], 'totals': [81, None]}
        """
        if rules is not None:
            rules = Rules.of(rules)
        cats: dict[str, Any] = {
            cat: {"points": list(getattr(self, cat))}
            | {key: list(getattr(self, name)) for name, key in _JSON_KEYS[cat].items()}
            for cat in CATEGORIES
            if cat not in _OPTIONAL or rules is None or getattr(rules, cat) or any(getattr(self, cat))
        }
        return {"points": list(self.points), "categories": cats}

    def difference(self, team: int = 0) -> int:
        """Points of ``team`` (0 or 1; NumPy's ints too) minus points of the other team."""
        t = as_int(team)
        if t is None or t not in (0, 1):
            raise OptionError(f"bad team {show(team)}: expected 0 or 1")
        p = self.points
        return p[t] - p[1 - t]

    @classmethod
    def _from_masks(cls, rules: Rules, cap0: int, cap1: int, scope: Pair, checked: bool = False) -> HandScore:
        """The score of two piles; ``checked``: the piles and scope are a State's (apart, the
        scope in range), whose figures need no check (the core's score of them is in range)."""
        opts = rules.core_options
        row0, row1 = core.score(cap0, cap1, scope[0], scope[1], opts)
        cats: dict[str, Any] = {c: (row0[i], row1[i]) for i, c in enumerate(CATEGORIES)}
        p0, p1 = core.primiera(cap0, opts), core.primiera(cap1, opts)
        cats["cards"] = (_count(cap0), _count(cap1))
        cats["coins"] = (_count(cap0 & core.COINS), _count(cap1 & core.COINS))
        cats["primiera_totals"] = (None if p0 < 0 else p0, None if p1 < 0 else p1)
        if not checked:
            return cls(**cats)
        obj = object.__new__(cls)
        for name, value in cats.items():
            object.__setattr__(obj, name, value)
        return obj

    @classmethod
    def from_piles(
        cls,
        rules: Rules | str,
        pile0: Iterable[CardLike],
        pile1: Iterable[CardLike],
        scope: Pair = (0, 0),
    ) -> HandScore:
        """Score two teams' piles and scope counts under ``rules`` (in any form
        :meth:`Rules.of <scopa.Rules.of>` reads: a :class:`~scopa.Rules`, a preset's name, the
        text form ``scopa;napola=true``).

        >>> HandScore.from_piles("scopa;napola=true", ["Ad", "2d", "3d"], ["7c"]).napola
        (3, 0)

        Raises :class:`CardError` when a card is unknown or in both piles,
        :class:`PositionError` for a bad ``scope``, :class:`RulesError` for bad ``rules``.
        """
        rules = Rules.of(rules)
        m0 = cards_mask(pile0, "team 0's pile")
        m1 = cards_mask(pile1, "team 1's pile")
        if m0 & m1:
            both = CardSet(m0 & m1)
            raise CardError(f"{listed('card', [str(c) for c in both], be=True)} in both piles")
        most = rules.most_scope  # (20 for every rule set was taken: 18 in Scopa, whose table holds 4)
        ints = int_pair(scope)  # (NumPy's integers too)
        if ints is None or not all(0 <= s <= most for s in ints):
            raise PositionError(
                f"bad scope {show(scope)}: expected two ints in 0..{most}, one per team (a team makes at"
                f" most {most} plays in a hand of {rules.game})"
            )
        return cls._from_masks(rules, m0, m1, ints)  # (scope on an empty pile: __post_init__ says so)
