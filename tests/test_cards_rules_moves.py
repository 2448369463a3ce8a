"""Cards (RULES §1), rules presets and options (RULES §2-§7), moves and their notation."""

from __future__ import annotations

import pickle

import pytest

import scopa
from scopa import Card, CardSet, Move, Rules

# ---------------------------------------------------------------- cards, RULES §1


@pytest.mark.parametrize(
    "text", ["7d", "7♦", "7D", " 7d ", "7♢", "7♦\ufe0f", "7♢\ufe0e"]
)  # (♦️: an emoji keyboard's)
def test_card_parse_forms(text):
    assert Card.parse(text) is Card.parse("7d")
    assert str(Card.parse(text)) == "7d"


def test_card_index_order():
    # RULES §1: Ad=0 ... Kd=9, Ac=10 ... Kb=39.
    assert [str(c) for c in scopa.DECK[:10]] == ["Ad", "2d", "3d", "4d", "5d", "6d", "7d", "Jd", "Qd", "Kd"]
    assert Card.parse("Ac").index == 10 and Card.parse("Kb").index == 39
    assert Card.parse("♥".join(["Q", ""])).index == 18  # Q of cups


def test_card_values():
    # RULES §1: capture values and primiera values.
    assert [c.value for c in scopa.DECK[:10]] == list(range(1, 11))
    assert [c.primiera_value for c in scopa.DECK[:10]] == [16, 12, 13, 14, 15, 18, 21, 10, 10, 10]
    c = Card.parse("Qs")
    assert (c.suit, c.rank, c.suit_name) == ("s", "Q", "swords")
    # every card's suit, in index order: Ad..Kd coins, then cups, swords, clubs
    names = ["coins", "cups", "swords", "clubs"]
    assert [(c.suit, c.suit_name) for c in scopa.DECK] == [
        (s, n) for s, n in zip("dcsb", names, strict=True) for _ in range(10)
    ]


def test_card_repr_pastes_back():
    c = Card.parse("Kc")
    assert eval(repr(c), {"Card": Card}) is c
    assert pickle.loads(pickle.dumps(c)) is c
    assert Card.from_index(39) is Card.parse("Kb") and Card(6) is Card.parse("7d")


@pytest.mark.parametrize("bad", ["", "7", "7x", "10d", "8d", "Zd", "7dd"])
def test_card_parse_errors_name_the_input(bad):
    with pytest.raises(scopa.CardError, match="unknown card") as info:
        Card.parse(bad)
    assert repr(bad) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_card_bad_index_and_type():
    with pytest.raises(scopa.CardError, match="0..39"):
        Card.from_index(40)
    with pytest.raises(scopa.CardError):
        Card.parse(7)  # type: ignore[arg-type]


def test_bits_takes_card_masks_only():
    # a negative mask was an endless generator, a bigger one gave indexes past the deck, and
    # NumPy's ints an AttributeError
    import numpy as np

    from scopa.card import bits

    assert list(bits(0b1010)) == list(bits(np.int64(0b1010))) == [1, 3]
    assert list(bits(np.int64(0))) == [] and list(bits(np.int64((1 << 40) - 1))) == list(range(40))
    assert list(bits((1 << 40) - 1)) == list(range(40))
    for bad in (-1, 1 << 40, 2**70, "x", None, 1.0, True, []):
        with pytest.raises(scopa.CardError, match=r"bad card mask .*: expected an int in 0\.\.2\*\*40-1"):
            bits(bad)  # type: ignore[arg-type]


def test_cardset():
    s = CardSet(["Kc", "7d", "Ad"])
    assert str(s) == "Ad 7d Kc" and len(s) == 3 and "7♦" in s and "zz" not in s
    assert s == {Card.parse("Ad"), Card.parse("7d"), Card.parse("Kc")}
    assert eval(repr(s), {"CardSet": CardSet}) == s
    assert CardSet.parse("-") == CardSet() and hash(s) == hash(CardSet(s.mask))
    assert CardSet(0) == set() and CardSet((1 << 40) - 1) == set(scopa.DECK)
    with pytest.raises(scopa.CardError, match="duplicate card '7d'"):
        CardSet(["7d", "7♦"])
    # the set operators, sets sharing cards too (an audit: a | b raised "duplicate card 'Kc'")
    t = CardSet.parse("Kc 2b")
    assert s | t == CardSet.parse("Ad 7d Kc 2b") == t | s and s | s == s
    assert {Card.parse("2d")} | s == CardSet.parse("Ad 2d 7d Kc") and isinstance(
        {Card.parse("2d")} | s, CardSet
    )
    assert (
        s & t == CardSet.parse("Kc")
        and s - t == CardSet.parse("Ad 7d")
        and s ^ t == CardSet.parse("Ad 7d 2b")
    )


def test_cardset_operators_take_cards_and_refuse_a_string():
    # An API review: the set operators and isdisjoint (Set's mixins) took a string as its
    # characters: s.isdisjoint("7d") was True with 7d in s, s | "Kb" said "unknown card 'K'",
    # and s.isdisjoint(["zz"]) was True where s | ["zz"] refused the card. A string is refused
    # as the constructor refuses it; any other iterable of cards is taken, as a set takes it
    s, kb, d7 = CardSet.parse("Ad 7d"), Card.parse("Kb"), Card.parse("7d")
    for op in (
        lambda x: s | x,
        lambda x: x | s,
        lambda x: s & x,
        lambda x: x & s,
        lambda x: s ^ x,
        lambda x: x ^ s,
        lambda x: s - x,
        lambda x: x - s,
        s.isdisjoint,
    ):
        with pytest.raises(scopa.CardError, match=r"expected cards .*got the string '7d' \(CardSet.parse"):
            op("7d")
        with pytest.raises(scopa.CardError, match=r"expected cards .*got the bytes b'7d'$"):  # (an API audit)
            op(b"7d")
        with pytest.raises(scopa.CardError, match="unknown card 'zz'"):
            op(["zz"])
    assert s | ["Kb", kb] == CardSet.parse("Ad 7d Kb") == ("Kb", "7d") | s  # (a card twice: once)
    assert s & [d7, "Kb"] == CardSet.parse("7d") == {d7} & s
    assert s - iter(["7d"]) == CardSet.parse("Ad") and ["7d", "Kb"] - s == CardSet.parse("Kb")
    assert s ^ ["7d", "Kb"] == CardSet.parse("Ad Kb") == frozenset([d7, kb]) ^ s
    assert all(isinstance(r, CardSet) for r in (s | [kb], [kb] | s, s - [kb], [kb] - s, {kb} ^ s))
    assert not s.isdisjoint(["7d"]) and s.isdisjoint([kb]) and s.isdisjoint(()) and not s.isdisjoint(s)
    with pytest.raises(scopa.CardError, match="CardSet.isdisjoint: expected cards, got 5"):
        s.isdisjoint(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # (an operator not defined for a number, as for a set)
        s | 5  # type: ignore[operator]
    assert s <= CardSet.parse("Ad 7d Kb") and s < {d7, kb, Card.parse("Ad")} and s != "Ad 7d"


# ---------------------------------------------------------------- rules, RULES §2-§7


@pytest.mark.parametrize(
    "name, players, hand, table, stock",
    [
        ("scopa", 2, 3, 4, 30),
        ("scopa4", 4, 3, 4, 24),
        ("scopone", 4, 9, 4, 0),
        ("scopone_scientifico", 4, 10, 0, 0),
    ],
)
def test_presets(name, players, hand, table, stock):
    # RULES §2
    r = Rules.preset(name)
    assert (r.players, r.hand_size, r.table_size, r.stock_size) == (players, hand, table, stock)
    assert r.redeal_on_kings == (table > 0)  # RULES §6 default
    assert r.capture_rule == "free" and r.primiera_requires_all_suits and r.target == 11
    # made directly, the rules of a game are its preset's; with no table dealt, nothing is redealt
    assert Rules(game=name) == r
    assert Rules(game=name, redeal_on_kings=True).redeal_on_kings == (table > 0)
    assert r.replace(redeal_on_kings=True).redeal_on_kings == (table > 0)


def test_rules_replace_and_json():
    r = Rules.preset("scopone").replace(capture_rule="fewest", target=16)
    assert r.capture_rule == "fewest" and r.target == 16 and r.game == "scopone"
    assert r.to_json() == {"preset": "scopone", "capture_rule": "fewest", "target": 16}
    assert Rules.from_json(r.to_json()) == r
    assert Rules.preset("scopa").to_json() == "scopa"
    with pytest.raises(AttributeError):
        r.target = 3  # type: ignore[misc]


def test_rules_are_taken_in_every_form_the_library_writes_them():
    # docs/rules.md §9. ArenaResult.game and a record's Rules tag write a variant's rules as a position
    # string does (scopa;napola=true), which arena(), State.deal and Match refused ("unknown
    # game 'scopa;napola=true'"): every function that takes rules reads them by Rules.of.
    from scopa.arena import arena
    from scopa.simulate import random_playouts

    r = Rules.preset("scopa").replace(napola=True, target=21)
    forms = [r, str(r), r.to_json(), scopa.jsonio.dumps(r.to_json())]
    assert str(r) == "scopa;target=21;napola=true"
    assert all(Rules.of(f) == r for f in forms)
    assert Rules.of("scopone") == Rules.preset("scopone")
    # (each text form as its UTF-8 bytes too, as State.of takes a position: Rules.of(b"scopa")
    # was "not valid JSON", the text form refused; an API audit)
    for f in (*forms[1:], "scopone"):
        text = f if isinstance(f, str) else scopa.jsonio.dumps(f)
        for raw in (text.encode(), bytearray(text.encode()), memoryview(text.encode())):
            assert Rules.of(raw) == Rules.of(text)
    # (from_json reads bytes as JSON, as every from_json does: b'"scopone"', not b"scopone")
    assert Rules.from_json(b'"scopone"') == Rules.preset("scopone")
    message = r"^bad rules b'\\xffscopa': not UTF-8 text \(invalid start byte at byte 0\)$"
    with pytest.raises(scopa.RulesError, match=message):
        Rules.of(b"\xffscopa")
    for f in forms:
        assert scopa.State.deal(f, seed=3) == scopa.State.deal(r, seed=3)
        assert scopa.Match(f, seed=3).rules == r
    result = arena("scopa;napola=true", "greedy", "greedy", deals=1, seed=1)
    assert result.game == "scopa;napola=true" and result.rules == Rules.preset("scopa", napola=True)
    again = arena(result.game, "greedy", "greedy", deals=1, seed=1)
    assert (again.game, again.points, again.categories) == (result.game, result.points, result.categories)
    assert random_playouts("scopa;napola=true", 2, seed=1) == random_playouts(result.rules, 2, seed=1)
    # (HandScore.from_piles and HandScore.to_json(rules) took a Rules only: "bad rules 'scopa'")
    piles = (["Ad", "2d", "3d", "7d"], ["7c"])
    score = scopa.HandScore.from_piles(r, *piles)
    for f in forms:
        assert scopa.HandScore.from_piles(f, *piles) == score and score.to_json(f) == score.to_json(r)
    assert "napola" not in scopa.HandScore.from_piles("scopa", [], []).to_json("scopa")["categories"]
    cases = [
        ("scopa;napola", "bad rule option 'napola' in 'scopa;napola'"),
        ("scopa;target=0", "bad target 0"),
        ("briscola;napola=true", "unknown game 'briscola'"),
        (" scopa;napola=true", "unknown game ' scopa'"),  # (no space taken, as in a preset's name)
        ("scopa;napola=true;napola=false", "rule option 'napola' given twice"),
        # in the text's words (an API review: "bad napola 'True': expected True or False")
        ("scopa;napola=True", r"^bad napola 'True' in 'scopa;napola=True': expected true or false$"),
        ("scopa;redeal_on_kings=1", r"^bad redeal_on_kings '1' in .*: expected true or false$"),
        ("scopa;target=true", r"^bad target 'true': expected an int in 1\.\.10000$"),  # (not True)
        ("scopa;capture_rule=false", r"^bad capture_rule 'false': expected 'free' or 'fewest'$"),
    ]
    for text, message in cases:
        for call in (Rules.of, scopa.State.deal, scopa.Match):
            with pytest.raises(scopa.RulesError, match=message):
                call(text)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"capture_rule": "most"}, "bad capture_rule 'most'"),
        ({"target": 0}, "bad target 0"),
        ({"target": 10_001}, "bad target 10001"),
        ({"target": "11"}, "bad target '11'"),
        ({"napola": 1}, "bad napola 1"),
        ({"colour": "red"}, "unknown rule option 'colour'"),
        ({"ace_sweep_is_scopa": True}, "needs ace_takes_all"),
    ],
)
def test_rules_errors(kwargs, message):
    with pytest.raises(scopa.RulesError, match=message):
        Rules.preset("scopa").replace(**kwargs)


def test_rules_target_extremes_are_taken():
    # RULES §5 (docs/rules.md §9): a match's target is an int from 1 up to 10_000
    for target in (1, 10_000):
        r = Rules.preset("scopa", target=target)
        assert r.target == target and Rules.of(str(r)) == r


def test_rules_unknown_preset():
    with pytest.raises(scopa.RulesError, match="unknown game 'briscola'"):
        Rules.preset("briscola")
    # (made directly too, not only through preset: a KeyError escaped otherwise)
    with pytest.raises(scopa.RulesError, match="unknown game 'briscola'"):
        Rules(game="briscola")
    with pytest.raises(scopa.RulesError, match="bad rules 5"):
        Rules.parse(5)  # type: ignore[arg-type]
    with pytest.raises(scopa.RulesError, match="no 'preset'"):
        Rules.from_json({"capture_rule": "fewest"})


def test_a_subclass_of_rules_gets_its_own_presets():
    # Rules.preset caches the presets' Rules; a subclass's presets are its own instances, and
    # they never replace the Rules' presets (docs/rules.md §9: Rules.preset(name) fixes the game)
    class HouseRules(Rules):
        pass

    assert type(Rules.preset("scopa4")) is Rules
    house = HouseRules.preset("scopa4")
    assert type(house) is HouseRules and str(house) == "scopa4" and house.players == 4
    assert type(HouseRules.preset("scopa4", napola=True)) is HouseRules
    assert type(Rules.preset("scopa4")) is Rules


def test_core_options_bits():
    import scopa_core as core

    r = Rules.preset("scopa").replace(capture_rule="fewest", ace_takes_all=True, napola=True)
    o = r.core_options
    assert o & core.OPT_FEWEST and o & core.OPT_ACE_TAKES_ALL and o & core.OPT_NAPOLA
    assert not o & core.OPT_RE_BELLO and o & core.OPT_PRIMIERA_ALL_SUITS


# ---------------------------------------------------------------- moves


def test_move_notation_round_trip():
    m = Move.parse("7dx4s3c")
    assert str(m) == "7dx3c4s" and m.card is Card.parse("7d")
    assert m.captures == frozenset({Card.parse("3c"), Card.parse("4s")})
    assert Move.parse(str(m)) == m and hash(Move.parse("7dx3c4s")) == hash(m)
    # the captures are a CardSet, as a position's table and hands are (an API review: a
    # frozenset), equal to and hashed as the set of the same cards
    assert isinstance(m.captures, CardSet) and m.captures == CardSet.parse("3c 4s")
    assert str(m.captures) == "3c 4s" and m.captures.mask == m.capture_mask
    assert hash(m.captures) == hash(frozenset(m.captures)) and Move.parse("7d").captures == set()
    s = scopa.State.from_string("scopa 7dAc/KcQc Ad2d3c4s5s6s - -/- 0/0 0 - 1")
    for move in s.legal_moves():
        assert move.captures <= s.table and move.captures.mask == move.capture_mask, move
        assert s.table - move.captures == CardSet(s.table.mask & ~move.capture_mask)
    assert eval(repr(m), {"Move": Move}) == m
    assert Move.parse("7♦X3♥") == Move.parse("7dx3c")
    assert Move("Kc") == Move.parse("Kc") and not Move("Kc").is_capture
    assert pickle.loads(pickle.dumps(m)) == m


def test_parse_takes_its_own_type_back_as_card_parse_does():
    # an API review: Card.parse(card) gave the card, Move.parse(move) and CardSet.parse(cards)
    # were refused ("bad move Move.parse('7dx3c')"), so code taking "a move or its notation"
    # needed its own isinstance test
    m, cs, c = Move.parse("7dx3c"), CardSet.parse("7d Kc"), Card.parse("7d")
    assert Move.parse(m) is m and CardSet.parse(cs) is cs and Card.parse(c) is c
    with pytest.raises(scopa.InvalidMoveError, match="bad move"):
        Move.parse(c)  # (a card is not a move: its notation is)
    with pytest.raises(scopa.CardError, match="cards must be a string"):
        CardSet.parse(c)


@pytest.mark.parametrize("bad", ["", "x3c", "7dx", "7dx3", "7dx7d", "7dx3c3c", "hello"])
def test_move_parse_errors(bad):
    with pytest.raises(scopa.InvalidMoveError) as info:
        Move.parse(bad)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("7dx", "bad move '7dx': nothing after 'x': expected the cards taken, e.g. '7dx...'"),
        ("7dx7d", "bad move '7dx7d': 7d cannot capture itself"),
        ("7dx3c3c", "bad move '7dx3c3c': duplicate card '3c' in the captured cards"),
        ("7dx3c4", "bad move '7dx3c4': captured cards '3c4' are not whole cards"),
        ("7dxx3c", "bad move '7dxx3c': captured cards 'x3c' are not whole cards"),
        ("7dx3cx4s", "bad move '7dx3cx4s': captured cards '3cx4s' are not whole cards"),
        ("Kc x Kd", "bad move 'Kc x Kd': captured cards ' Kd' are not whole cards"),
        ("7dxzz", "bad move '7dxzz': unknown card 'zz': expected rank A234567JQK + suit dcsb, like '7d'"),
        ("7dx3czz", "bad move '7dx3czz': unknown card 'zz': expected rank A234567JQK + suit dcsb, like '7d'"),
        ("7dX3c", "7dx3c"),
        ("7D", "7d"),
        ("7♦x3♥", "7dx3c"),
        (" 7d", "7d"),
        ("7dx3c ", "7dx3c"),
        ("kcxKd", "KcxKd"),
        ("7♦\ufe0fx3c", "7dx3c"),
        # the emoji spelling among the captured cards too (an API audit: "not whole cards")
        ("7dx3♥\ufe0f", "7dx3c"),
        ("7♦\ufe0fx3♥\ufe0f4♠\ufe0e", "7dx3c4s"),
        # docs/notation.md: spaces around the move and the card played, not among the captured
        (" 7D x3c4s ", "7dx3c4s"),
        ("7dx3c 4s", "bad move '7dx3c 4s': captured cards '3c 4s' are not whole cards"),
    ],
)
def test_move_parse_spellings_and_errors(text, expected):
    """The notation as written is looked up (Card.parse's spellings); any other text is parsed
    as before: the same move, or the same error."""
    try:
        got = str(Move.parse(text))
    except scopa.InvalidMoveError as exc:
        got = str(exc)
    assert got == expected


def test_every_card_spelling_parses_to_its_card():
    for card in Card.from_index(0), Card.from_index(6), Card.from_index(39):
        rank, suit = str(card)
        for r in {rank, rank.lower()}:
            for s in {suit, suit.upper()}:
                assert Card.parse(r + s) is card and Move.parse(r + s).card is card
    assert Card.parse("a♣") is Card.parse("Ab") and Card.parse("Q♤") is Card.parse("Qs")


def test_cardset_pickles_copies_and_hashes_as_the_set_it_equals():
    import copy

    s = CardSet.parse("7d Kc")
    assert pickle.loads(pickle.dumps(s)) == s and copy.copy(s) is s and copy.deepcopy(s) is s
    view = scopa.State.deal("scopa", seed=1).view(0)
    assert pickle.loads(pickle.dumps(view)) == view  # a view holds CardSets
    same = frozenset(s)
    assert s == same and hash(s) == hash(same) and len({s, same}) == 1 and {same: 1}[s] == 1
    # the hash is kept after the first call: still the set's, for every set, and not pickled
    for mask in (0, 1, 0b1011, 1 << 39, (1 << 40) - 1, 0x5A5A5A5A5A):
        cards = CardSet(mask)
        first = hash(cards)
        assert first == hash(cards) == hash(frozenset(cards)) == hash(CardSet(mask))
        assert hash(pickle.loads(pickle.dumps(cards))) == first
    assert hash(s | CardSet.parse("Ad")) == hash(frozenset(s) | {Card.parse("Ad")})
    with pytest.raises(AttributeError):
        s._hash_value = 0  # type: ignore[misc]
    assert hash(s) == hash(same) == s._hash()  # (Set's own _hash method still there)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: CardSet(3.5), "cards: expected a list of cards (Cards or card strings), got 3.5"),
        (lambda: CardSet(None), "expected a list of cards (Cards or card strings), got None"),
        (lambda: CardSet("7d Kc"), "cards: expected a list of cards, got the string '7d Kc'"),
        # (an API audit: "a card must be a string like '7d', got 55", the first byte)
        (lambda: CardSet(b"7d"), "cards: expected a list of cards, got the bytes b'7d'"),
        (lambda: CardSet([["7d"]]), "a card must be a string like '7d', got ['7d']"),
        (lambda: CardSet(True), "expected cards or a card mask, got True"),
        (lambda: CardSet(-1), "a card mask must be in 0..2**40-1, got -1"),
        (lambda: CardSet(1 << 40), "a card mask must be in 0..2**40-1, got 1099511627776"),
        (lambda: Move("7d", 5), "the captured cards: expected a list of cards"),
        (lambda: Move("7d", ["3c", "7d"]), "bad move: 7d cannot capture itself"),
        (lambda: CardSet.parse("7d Kc 7d"), "duplicate card '7d' in cards: '7d Kc 7d'"),
        (lambda: Rules.from_json({"preset": "scopa", 1: True}), "option names are strings, got 1"),
        (lambda: Rules.preset("scopa").replace(game="scopa4"), "game 'scopa4' is not an option"),
        (
            lambda: scopa.State.from_string("scopa;game=scopone_scientifico 7d/Kc 3c4s - -/- 0/0 0 - -"),
            "game 'scopone_scientifico' is not an option: the game is the preset's",
        ),
        (
            lambda: scopa.State.from_string("scopa;target=3;target=5 7d/Kc 3c4s - -/- 0/0 0 - -"),
            "rule option 'target' given twice in 'scopa;target=3;target=5'",
        ),
    ],
)
def test_bad_cards_and_rules_raise_scopa_errors_quoting_them(call, message):
    with pytest.raises(scopa.ScopaError) as exc:
        call()
    assert message in str(exc.value)


def test_cards_and_moves_are_totally_ordered():
    # RULES §1: the canonical card order; moves by card, then by what they take
    a, k = Card.parse("Ad"), Card.parse("Kc")
    assert a < k and a <= k and k > a and k >= a and a <= a and not a > k
    m, n = Move.parse("Ad"), Move.parse("Kc")
    assert m < n and m <= n and n > m and n >= m and not m >= n
    with pytest.raises(TypeError):
        assert a <= 3
    with pytest.raises(TypeError):
        assert m < 3


@pytest.mark.parametrize(
    ("obj", "attr"),
    [
        (Card.parse("7d"), "index"),
        (CardSet.parse("7d Kc"), "mask"),
        (Move.parse("7dx3c4s"), "_card"),
        (scopa.State.deal("scopa", seed=1), "_turn"),
    ],
)
def test_immutable_values_refuse_del_and_set(obj, attr):
    # (a del went through: del Card.parse("7d").index emptied the deck's one 7d for the whole
    # process, and every later Card.parse("7d") failed with "no attribute 'index'")
    with pytest.raises(AttributeError, match="immutable"):
        delattr(obj, attr)
    with pytest.raises(AttributeError, match="immutable"):
        setattr(obj, attr, None)
    assert getattr(obj, attr) is not None
    assert str(Card.parse("7d")) == "7d" and Card.parse("7d").index == 6


@pytest.mark.parametrize("key", ["name", "cls", "self"])
def test_rule_options_named_like_the_methods_arguments_are_unknown_options(key):
    # (a position string's, a rules string's, --option's keys reach preset(name, **options)
    # and replace(**options): "name=x" was a TypeError, a traceback, not an unknown option)
    s = scopa.State.deal("scopa", seed=1).to_string()
    for call in (
        lambda: Rules.parse(f"scopa;{key}=x"),
        lambda: Rules.preset("scopa", **{key: "x"}),
        lambda: Rules.preset("scopa").replace(**{key: "x"}),
        lambda: scopa.State.from_string(f"scopa;{key}=x" + s[len("scopa") :]),
    ):
        with pytest.raises(scopa.ScopaError, match=f"unknown rule option '{key}'"):
            call()
