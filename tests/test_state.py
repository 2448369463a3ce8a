"""States: dealing, legal moves, playing, scoring, validation (RULES §2-§6)."""

from __future__ import annotations

import json
import pickle
import re

import pytest
from helpers import brute_captures

import scopa
from scopa import Card, Move, Rules, State
from scopa.errors import show
from scopa.notation import view_from_json

PRESETS = scopa.PRESETS


def pos(rules="scopa", **fields):
    d = {"rules": rules, "turn": 0}
    d.update(fields)
    return State.from_json(d)


# ---------------------------------------------------------------- dealing, RULES §2 and §6


@pytest.mark.parametrize("game", PRESETS)
def test_deal(game):
    r = Rules.preset(game)
    s = State.deal(r, seed=7, dealer=r.players - 1)
    assert s.turn == 0 and s.dealer == r.players - 1
    assert [len(h) for h in s.hands] == [r.hand_size] * r.players
    assert len(s.table) == r.table_size and len(s.stock) == r.stock_size
    assert s.captured == (set(), set()) and s.scope == (0, 0) and s.last_capture is None
    assert State.deal(r, seed=7, dealer=r.players - 1) == s
    assert State.deal(r, seed=8, dealer=r.players - 1) != s


def test_first_player_is_after_the_dealer():
    # RULES §2: the first player of a hand is the seat after the dealer.
    for dealer in range(4):
        assert State.deal("scopone", seed=1, dealer=dealer).turn == (dealer + 1) % 4


def test_kings_redeal():
    # RULES §6: never three or more kings on a dealt table when redeal_on_kings is on.
    kings = 0
    for seed in range(3000):
        s = State.deal("scopa", seed=seed)
        n = sum(1 for c in s.table if c.rank == "K")
        assert n < 3
        kings = max(kings, n)
    assert kings == 2
    off = Rules.preset("scopa", redeal_on_kings=False)
    assert any(sum(1 for c in State.deal(off, seed=s).table if c.rank == "K") >= 3 for s in range(3000))


@pytest.mark.parametrize(
    "bad, message", [(4, "bad dealer 4"), (-1, "bad dealer -1"), (True, "bad dealer True")]
)
def test_deal_bad_dealer(bad, message):
    with pytest.raises(scopa.PositionError, match=message):
        State.deal("scopone", seed=1, dealer=bad)


def test_deal_bad_seed():
    with pytest.raises(scopa.PositionError, match="bad seed -3"):
        State.deal("scopa", seed=-3)


def test_deal_defaults_to_dealer_0_so_seat_1_leads():
    # RULES §2: the first player is the seat after the dealer; dealer 0 unless one is given
    s = State.deal("scopa", seed=1)
    assert (s.dealer, s.turn) == (0, 1) and s == State.deal("scopa", seed=1, dealer=0)


def test_deal_without_a_seed_draws_one_in_the_seeds_range(monkeypatch):
    # (seed=None draws a random seed: the largest draw is a seed deal takes, 2**64-1)
    import secrets

    monkeypatch.setattr(secrets, "randbits", lambda bits: (1 << bits) - 1)
    assert State.deal("scopa") == State.deal("scopa", seed=2**64 - 1)


@pytest.mark.parametrize("game", ["scopa4", "scopone"])
def test_deal_hands_the_blocks_out_in_order_of_play(game):
    # RULES §2: seats are numbered in order of play and the seat after the dealer plays first;
    # it gets the deal's first block, the seat after it the second, and so on (the seeds'
    # deals, and so the records that replay them, depend on it)
    import scopa_core

    r = Rules.preset(game)
    for dealer in range(4):
        s = State.deal(r, seed=5, dealer=dealer)
        blocks, table, stock = scopa_core.deal(4, r.hand_size, r.table_size, r.core_options, 5)
        assert [s._hands[(dealer + 1 + i) % 4] for i in range(4)] == list(blocks), dealer
        assert (s._table, s._stock) == (table, tuple(stock))


# ---------------------------------------------------------------- moves, RULES §3


def test_legal_moves_against_brute_force():
    s = pos(hands=[["Qd", "5d", "Kc"], ["2b", "2s", "Qc"]], table=["Ac", "3s", "4b", "5c", "Jd"], turn=0)
    expect = set()
    for c in s.hands[0]:
        caps = brute_captures(c.index, s.table.mask)
        expect |= {(c.index, m) for m in caps} if caps else {(c.index, 0)}
    assert {(m.card.index, m.capture_mask) for m in s.legal_moves()} == expect


def test_play_capture_and_scopa():
    s = pos(hands=[["7d", "Ad"], ["Kc", "2c"]], table=["3c", "4s"])
    s2 = s.play("7dx3c4s")
    assert (
        s2.table == set()
        and s2.scope == (1, 0)
        and s2.captured[0] == {Card.parse(x) for x in ["7d", "3c", "4s"]}
    )
    assert s2.turn == 1 and s2.last_capture == 0
    assert s.table == {Card.parse("3c"), Card.parse("4s")}  # unchanged


def test_play_by_card_alone():
    s = pos(hands=[["7d", "Kc"], ["Ad", "2d"]], table=["3c", "4s"])
    assert s.play("7d") == s.play("7dx3c4s")  # the only legal move for 7d
    assert s.play("Kc") == s.play(Move.parse("Kc"))  # a lay-down


def test_ambiguous_move_lists_captures():
    s = pos(hands=[["Qd", "Kc"], ["Ad", "2d"]], table=["Ac", "3s", "4b", "5c"])
    with pytest.raises(scopa.AmbiguousMoveError, match=r"QdxAc5c3s, Qdx5c4b"):
        s.play("Qd")
    assert s.play("Qdx4b5c").table == {Card.parse("Ac"), Card.parse("3s")}


def test_fewest_rule_in_state():
    # RULES §3.2 fewest (seed 002)
    s = pos(
        rules={"preset": "scopa", "capture_rule": "fewest"},
        hands=[["Qd"], ["2d"]],
        table=["Ac", "3s", "4b", "5c"],
    )
    assert [str(m) for m in s.legal_moves()] == ["Qdx5c4b"]
    with pytest.raises(scopa.IllegalMoveError, match="legal captures with Qd are Qdx5c4b"):
        s.play("QdxAc3s5c")


@pytest.mark.parametrize(
    "move, message",
    [
        ("Kd", "Kd is not in the hand of seat 0"),
        ("7dx3c", "the legal captures with 7d are 7dx3c4s"),
        (Move.parse("7d"), "7d must capture"),
        ("Kcx3c", "Kc captures nothing here"),
    ],
)
def test_illegal_moves(move, message):
    s = pos(hands=[["7d", "Kc"], ["Ad", "2d"]], table=["3c", "4s"])
    with pytest.raises(scopa.IllegalMoveError, match=message) as exc:
        s.play(move)
    if "not in the hand" not in message:  # (it names the table, not the other hands or the stock)
        assert str(exc.value).startswith(f"illegal move '{move}' (table 3c 4s): "), exc.value
    if "captures nothing" in message:
        with pytest.raises(scopa.IllegalMoveError, match=re.escape(f"illegal move '{move}' (table empty): ")):
            pos(hands=[["7d", "Kc"], ["Ad", "2d"]]).play(move)


def test_play_after_the_end():
    s = pos(hands=[["Kc"], []], table=["3c"], turn=0, dealer=0, captured=[["Ad", "Ac"], []], last_capture=0)
    end = s.play("Kc")
    assert end.is_over and end.legal_moves() == []
    assert end.table == set() and Card.parse("3c") in end.captured[0]  # RULES §3.7
    with pytest.raises(scopa.IllegalMoveError, match="the hand is over"):
        end.play("Kc")


def test_refill_from_stock():
    # RULES §2 scopa: when both hands are empty, 3 more each.
    s = State.deal("scopa", seed=3, dealer=1)
    for _ in range(6):
        s = s.play(s.legal_moves()[0])
    assert [len(h) for h in s.hands] == [3, 3] and len(s.stock) == 24 and s.turn == 0


def test_state_is_immutable_and_hashable():
    s = State.deal("scopa", seed=1)
    with pytest.raises(AttributeError):
        s.turn = 1  # type: ignore[misc]
    assert len({s, State.deal("scopa", seed=1)}) == 1
    assert pickle.loads(pickle.dumps(s)) == s
    assert eval(repr(s), {"State": State}) == s
    # (a State is never equal to what is not one, and leaves the comparison to the other side)
    from unittest.mock import ANY

    assert (s == s.to_string()) is False and (s != s.to_string()) is True
    assert s == ANY


def test_str_of_a_state_shows_the_hands_table_stock_and_each_teams_pile():
    s = State.deal("scopa", seed=1).play("3dx3c")
    assert str(s) == (
        "Scopa, seat 0 to move\n"
        "  seat 0: Qc 7s Qs\n"
        "  seat 1: 2c 7c\n"
        "  table: 5s Ks 6b\n"
        "  stock: 30 cards\n"
        "  team 0: 0 cards, 0 scope\n"
        "  team 1: 2 cards, 0 scope"
    )
    # the rule options too, as solve's line says them (a teacher's audit: "scopa" over napola's),
    # the game named as people name it (it was the identifier, "scopone_scientifico")
    napola = State.deal(scopa.Rules.preset("scopa", napola=True, target=21), seed=1)
    assert str(napola).splitlines()[0] == "Scopa with napola=true, seat 1 to move"
    sci = State.deal("scopone_scientifico", seed=1)
    assert str(sci).splitlines()[0] == "Scopone scientifico, seat 1 to move"
    # one card and one scopa in the singular (a teacher's audit of the text: "1 cards, 1 scope")
    swept = State.from_string("scopa 7d/2c 7s - -/- 0/0 0 - 1").play("7d")
    assert str(swept).splitlines()[-2:] == ["  team 0: 2 cards, 1 scopa", "  team 1: 0 cards, 0 scope"]
    assert "  team 0: 1 card, 0 scope" in str(State.from_string("scopa 7d/2c 7s - Ad/- 0/0 0 0 1"))


def test_undo_goes_back_one_play_and_refuses_a_state_without_plays():
    s = State.deal("scopa", seed=1)
    for start in (s, State.from_string(s.play("3dx3c").to_string())):
        with pytest.raises(scopa.PositionError, match="nothing to undo: no play is recorded before"):
            start.undo()
    assert s.play("3dx3c").undo() == s
    one = s.play("3dx3c")
    two = one.play(one.legal_moves()[0])
    assert two.undo() == one and two.undo().history == one.history and two.undo().undo() == s


def test_the_view_of_a_seat_out_of_range_is_refused():
    s = State.deal("scopa", seed=1)
    with pytest.raises(scopa.PositionError, match=r"bad seat 2: expected a seat in 0\.\.1"):
        s.view(2)
    for seat in (None, "x", -1):
        with pytest.raises(scopa.PositionError, match=f"bad seat {re.escape(show(seat))}"):
            s.view(seat)


# ---------------------------------------------------------------- scoring, RULES §4


def test_score_seed_primiera_example():
    # RULES §4 (seed 002): 81 beats 75.
    hs = scopa.HandScore.from_piles(
        Rules.preset("scopone"), ["7c", "7b", "7d", "6s"], ["7s", "6c", "6b", "6d"]
    )
    assert hs.primiera_totals == (81, 75) and hs.primiera == (1, 0) and hs.settebello == (1, 0)
    assert hs.points == (2, 0) and sum(sum(v) for v in hs.breakdown.values()) == 2


def test_score_missing_suit_option():
    # RULES §4: primiera_requires_all_suits True (000) vs False (003).
    req = Rules.preset("scopa")
    free = req.replace(primiera_requires_all_suits=False)
    a, b = ["7d", "7c", "7s"], ["Ad", "Ac", "As", "Kb"]
    assert scopa.HandScore.from_piles(req, a, b).primiera == (0, 1)
    assert scopa.HandScore.from_piles(free, a, b).primiera == (1, 0)
    assert scopa.HandScore.from_piles(req, a, ["2d"]).primiera == (0, 0)  # both lack a suit: nobody
    assert scopa.primiera_total(a) is None and scopa.primiera_total(a, requires_all_suits=False) == 63


def test_score_from_piles_errors():
    with pytest.raises(scopa.CardError, match="7d"):
        scopa.HandScore.from_piles(Rules.preset("scopa"), ["7d"], ["7d"])
    with pytest.raises(scopa.ScopaError, match="bad scope"):
        scopa.HandScore.from_piles(Rules.preset("scopa"), ["7d"], ["6d"], scope=(-1, 0))


def test_score_options():
    # RULES §7 re_bello and napola.
    r = Rules.preset("scopa", re_bello=True, napola=True)
    hs = scopa.HandScore.from_piles(r, ["Ad", "2d", "3d", "4d", "Kd"], ["5d"])
    assert hs.re_bello == (1, 0) and hs.napola == (4, 0)
    assert scopa.HandScore.from_piles(Rules.preset("scopa"), ["Ad", "2d", "3d", "Kd"], []).napola == (0, 0)


# ---------------------------------------------------------------- 4 players in teams, RULES §2


def test_the_team_to_move_is_the_seats_team():
    # RULES §2: seats 0 and 2 are team 0, seats 1 and 3 team 1 (a seat's view says its team)
    s = State.deal("scopone", seed=1, dealer=3)
    teams = []
    for _ in range(4):
        teams.append((s.turn, s.team_to_move, s.view(s.turn).team))
        s = s.play(s.legal_moves()[0])
    assert teams == [(0, 0, 0), (1, 1, 1), (2, 0, 0), (3, 1, 1)]
    assert [State.deal("scopa", seed=1).view(seat).team for seat in (0, 1)] == [0, 1]


def test_teams_of_four():
    s = pos(
        rules="scopone_scientifico", hands=[["7d"], ["2c"], ["3c"], ["4c"]], table=["7c"], turn=0, dealer=3
    )
    s = s.play("7dx7c")
    assert s.last_capture == 0
    s = s.play("2c").play("3c").play("4c")  # seat 3 (team 1) plays the last card: no capture
    assert s.is_over and s.captured[0] == {Card.parse(x) for x in ["7d", "7c", "2c", "3c", "4c"]}
    assert s.scope == (1, 0)  # 7d took the only table card: a scopa


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "fields, error, message",
    [
        (
            {"hands": [["7d"], ["7d"]]},
            scopa.CardError,
            "duplicate card '7d': in seat 0's hand and in seat 1's hand",
        ),
        ({"hands": [["7d"], ["Zz"]]}, scopa.CardError, "unknown card 'Zz'"),
        ({"hands": [["7d"]]}, scopa.PositionError, "expected 2 hands"),
        ({"hands": [["7d", "Kc"], ["Ad", "2d", "3d"]]}, scopa.PositionError, "cannot occur"),
        ({"hands": [["7d", "Kc", "Qc", "Jc"], ["Ad", "2d", "3d", "4d"]]}, scopa.PositionError, "at most 3"),
        ({"hands": [["7d"], ["Kc"]], "turn": 2}, scopa.PositionError, "bad turn 2"),
        ({"hands": [["7d"], ["Kc"]], "stock": ["Ad", "2d"]}, scopa.PositionError, "multiple of 6"),
        ({"hands": [[], []], "stock": ["Ad", "2d", "3d", "4d", "5d", "6d"]}, scopa.PositionError, "refills"),
        ({"hands": [["7d"], ["Kc"]], "last_capture": 2}, scopa.PositionError, "bad last_capture 2"),
        ({"hands": [["7d"], ["Kc"]], "dealer": 0}, scopa.PositionError, "dealer 0 means"),
        ({"hands": [["7d"], ["Kc"]], "dealer": 2}, scopa.PositionError, "bad dealer 2"),
        ({"hands": [["7d"], ["Kc"]], "captured": [["Ad"], []]}, scopa.PositionError, "last_capture is null"),
        ({"hands": [["7d"], ["Kc"]], "captured": [[], ["Ad"]]}, scopa.PositionError, "last_capture is null"),
        (
            {"hands": [["7d"], ["Kc"]], "scope": [1, 0]},
            scopa.PositionError,
            "team 0 has 1 scopa but an empty pile",
        ),
        (
            {"hands": [["7d"], ["Kc"]], "captured": [["Ad"], []], "scope": [0, 1], "last_capture": 0},
            scopa.PositionError,
            "team 1 has 1 scopa but an empty pile",
        ),
        (
            {"hands": [["7d"], ["Kc"]], "captured": [[], ["Ad"]], "last_capture": 0},
            scopa.PositionError,
            "last_capture is team 0 but its pile is empty",
        ),
        (
            {"hands": [["7d"], ["Kc"]], "captured": [["Ad"], []], "last_capture": 1},
            scopa.PositionError,
            "last_capture is team 1 but its pile is empty",
        ),
        (  # RULES §2: scopone deals every card at once
            {"rules": "scopone", "hands": [["7d"], ["Kc"], ["Qc"], ["Jc"]], "stock": ["5d"]},
            scopa.PositionError,
            "the stock holds 1 card: scopone deals every card at once, so it has none",
        ),
        ({"hands": [["7d"], ["Kc"]], "colour": 1}, scopa.PositionError, "unknown field"),
        ({"hands": [["7d"], ["Kc"]], "rules": "tressette"}, scopa.RulesError, "unknown game"),
        ({"hands": [["7d"], ["Kc"]], "rules": {"preset": "scopa", "speed": 3}}, scopa.RulesError, "speed"),
        ({"hands": "7d"}, scopa.PositionError, "must be a list"),
        (
            {"hands": [[], []], "table": ["Ad"], "captured": [["2d", "3d"], []], "last_capture": 0},
            scopa.PositionError,
            "goes to the last capturer",
        ),
    ],
)
def test_bad_positions(fields, error, message):
    with pytest.raises(error, match=message):
        pos(**fields)


def test_scope_is_at_most_one_a_play():
    # RULES §3: each scopa is one of its team's plays, so a legal play never leads from a
    # position that reads to one that does not (the piles may leave cards out)
    d = State.deal("scopa", seed=1).to_dict()
    d.update(table=d["table"][2:], captured=[d["table"][:2], []], scope=[1, 0], last_capture=0)
    with pytest.raises(scopa.PositionError, match=r"team 0 has 1 scopa but has made 0 plays this hand"):
        State.from_json(d)
    with pytest.raises(scopa.PositionError, match=r"team 0 has 18 scope but has made 17 plays"):
        State.from_string("scopa 7d/Kc 3c4s - 5d/- 18/0 0 0 -")
    with pytest.raises(scopa.PositionError, match=r"team 1 has 18 scope but has made 17 plays"):
        State.from_string("scopa 7d/Kc 3c4s - -/5d 0/18 0 1 -")
    assert State.from_string("scopa 7d/Kc 3c4s - -/5d 0/17 0 1 -").scope == (0, 17)
    s = State.from_string("scopa 7d/Kc 3c4s - 5d/- 17/0 0 0 -")
    t = s.play("7dx3c4s")
    assert t.scope == (18, 0) and State.from_string(t.to_string()) == t == State.from_json(t.to_json())


def test_from_cards_defaults_to_a_position_before_any_capture():
    # (only the hands and the turn are needed: no table, stock, piles or scope, no capture yet,
    # the dealer unknown)
    s = State.from_cards("scopa", [["7d"], ["Kc"]], turn=0)
    assert (s.table, s.stock, s.captured, s.scope) == (set(), (), (set(), set()), (0, 0))
    assert (s.last_capture, s.dealer) == (None, None)


def test_from_cards_refuses_a_bool_or_a_string_for_a_seat_or_a_count():
    hands = [["7d"], ["Kc"]]
    for given, message in (
        ({"turn": True}, "bad turn True"),
        ({"turn": "0"}, "bad turn '0'"),
        ({"turn": 0, "scope": (True, 0)}, r"bad scope \(True, 0\)"),
        ({"turn": 0, "last_capture": True}, "bad last_capture True"),
        ({"turn": 0, "dealer": False}, "bad dealer False"),
    ):
        with pytest.raises(scopa.PositionError, match=message):
            State.from_cards("scopa", hands, **given)


def test_from_cards_refuses_a_stock_or_piles_of_the_wrong_type():
    for stock in (None, 5, "Ad2d"):
        with pytest.raises(scopa.CardError, match="the stock: expected a list of cards, top first"):
            State.from_cards("scopa", [["7d"], ["Kc"]], turn=0, stock=stock)
    for captured in (None, {"a": [], "b": []}, 5):
        with pytest.raises(scopa.PositionError, match="bad captured .*: expected two piles"):
            State.from_cards("scopa", [["7d"], ["Kc"]], turn=0, captured=captured)


def test_an_empty_card_field_is_refused():
    # docs/notation.md: an empty list is written -
    for text, what in (
        ("scopa 7d/ 3c4s - -/- 0/0 0 - -", "seat 1's hand"),
        ("scopa 7d/Kc 3c4s - / 0/0 0 - -", "team 0's pile"),
    ):
        with pytest.raises(
            scopa.PositionError, match=f"bad {what} '': expected cards like 7dKc, or - for none"
        ):
            State.from_string(text)


def test_a_move_of_the_wrong_type_is_an_invalid_move():
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    for move in (5, None, ["7d"]):
        with pytest.raises(scopa.InvalidMoveError, match="expected a Move, move notation or a Card"):
            s.play(move)


def test_a_card_is_played_as_its_name_is():
    # An API review: s.play("2c") played the card's one legal move, s.play(Card.parse("2c"))
    # was an InvalidMoveError; a Card stands for its one legal move as its name does, in every
    # place a move is played (State.play and resolve, Match.play, scopa.events.play)
    from scopa.events import play as play_events

    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    for name in ("Kc", "7d"):
        card = scopa.Card.parse(name)
        assert s.resolve(card) == s.resolve(name) and s.play(card) == s.play(name)
        assert play_events(s, card) == play_events(s, name)
    with pytest.raises(scopa.IllegalMoveError, match=r"illegal move '2c': 2c is not in the hand of seat 0"):
        s.play(scopa.Card.parse("2c"))
    two_ways = State.from_string("scopa 7dKc/2cAs 3c4s2d5c - -/- 0/0 0 - 1")  # (7d: 3c4s or 2d5c)
    with pytest.raises(scopa.AmbiguousMoveError, match="ambiguous move '7d'"):
        two_ways.play(scopa.Card.parse("7d"))
    m = scopa.Match("scopa", seed=1)
    card = m.state.legal_moves()[0].card
    if len([x for x in m.state.legal_moves() if x.card == card]) == 1:
        assert m.play(card) == scopa.Match("scopa", seed=1).play(str(card))


def test_missing_required_field():
    with pytest.raises(scopa.PositionError, match="'turn'"):
        State.from_json({"rules": "scopa", "hands": [[], []]})
    with pytest.raises(scopa.PositionError, match="not valid JSON"):
        State.from_json("{nope")


def test_partial_position_example_from_the_issue():
    text = (
        '{"rules": "scopone_scientifico", "hands": [["7d","Kc"], ["As","2b"], ["3c","4d"], ["5s","6b"]],'
        ' "table": ["Qd"], "stock": [], "captured": [["Ad"], ["2d"]], "scope": [0, 1],'
        ' "turn": 0, "last_capture": 1, "dealer": 3}'
    )
    s = State.from_json(text)
    assert s.scope == (0, 1) and s.dealer == 3 and len(s.hands[2]) == 2
    assert State.from_json(s.to_json()) == s and State.from_string(s.to_string()) == s
    assert s.to_string() == "scopone_scientifico 7dKc/As2b/4d3c/5s6b Qd - Ad/2d 0/1 0 1 3"


def test_position_string_with_options():
    s = pos(
        rules={"preset": "scopa", "capture_rule": "fewest", "napola": True},
        hands=[["7d"], ["Kc"]],
        table=["3c", "4s"],
    )
    text = s.to_string()
    assert text == "scopa;capture_rule=fewest;napola=true 7d/Kc 3c4s - -/- 0/0 0 - -"
    assert State.from_string(text) == s


@pytest.mark.parametrize(
    "text, message",
    [
        ("scopa 7d/Kc", "9 space-separated fields"),
        ("scopa 7/Kc - - -/- 0/0 0 - -", "two characters"),
        ("scopa 7d/Kc - - -/- 0/0 x - -", "bad turn 'x'"),
        ("scopa;fewest 7d/Kc - - -/- 0/0 0 - -", "name=value"),
        ("scopa 7d/Kc - - - 0/0 0 - -", "two fields"),
    ],
)
def test_bad_position_strings(text, message):
    with pytest.raises(scopa.ScopaError, match=message):
        State.from_string(text)


def test_one_way_to_take_a_position():
    # State.of is how the batch runner, the protocol and the CLI take a position: a State,
    # a position string, JSON text (either also as UTF-8 bytes, as State.from_json takes JSON)
    # or a decoded JSON object, and nothing else.
    from scopa.batch import solve_many
    from scopa.protocol import Protocol

    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    text = s.to_json()
    assert State.of(s) is s
    assert State.of(s.to_string()) == State.of(text) == State.of("  " + text) == s
    assert State.of(json.loads(text)) == s
    assert State.of(text.encode()) == State.of(bytearray(s.to_string().encode())) == s
    for bad in (7, None, [s.to_string()], memoryview(b"scopa")):
        expected = f"bad position {re.escape(show(bad))}: expected a State"
        with pytest.raises(scopa.PositionError, match=expected):
            State.of(bad)  # type: ignore[arg-type]
    with pytest.raises(
        scopa.PositionError, match=r"bad position b'\\xffscopa': not UTF-8 text \(invalid start"
    ):
        State.of(b"\xffscopa")
    with pytest.raises(scopa.PositionError, match="bad position string 'scopa': expected 9"):
        State.of(b"scopa")
    # (the text was not quoted)
    with pytest.raises(scopa.PositionError, match="position '{nope' is not valid JSON"):
        State.of("{nope")
    with pytest.raises(scopa.PositionError, match="position 'abc' is not valid JSON"):
        State.from_json("abc")
    with pytest.raises(scopa.PositionError, match="view b'abc' is not valid JSON"):
        scopa.notation.view_from_json(b"abc")
    # every caller takes JSON text as well as the position string, with the same value
    items = [("string", s.to_string()), ("text", text), ("object", json.loads(text))]
    rows = list(solve_many(items, workers=1))
    assert {r["id"]: r["value"] for r in rows} == {"string": 4, "text": 4, "object": 4}
    p = Protocol()
    for position in (s.to_string(), text):
        reply = p.handle(json.dumps({"cmd": "legal", "id": 1, "position": position}))
        assert reply is not None and reply["moves"] == [str(m) for m in s.legal_moves()], reply


@pytest.mark.parametrize(
    "obj, message",
    [
        # keys of any type (a decoded mapping may hold ints) are named, not a TypeError
        (
            {"rules": "scopa", "hands": [["7d"], ["Kc"]], "turn": 0, 1: 0, "zz": 1},
            "unknown fields 'zz', 1 in position",
        ),
        ({"rules": "scopa", "hands": [["7d"], ["Kc"]], "turn": 0, "scope": []}, "bad scope []"),
        ({"rules": "scopa", "hands": [["7d"], ["Kc"]], "turn": 0, "captured": []}, "captured"),
        ([1], "a JSON position must be an object, got [1]"),
        ({"rules": "scopa", "hands": [["7d"], ["Kc"]], "turn": 0, "captured": ["Ac", []]}, "got 'Ac' inside"),
    ],
)
def test_json_positions_refuse_what_they_do_not_say(obj, message):
    with pytest.raises(scopa.PositionError) as exc:
        State.from_json(obj)
    assert message in str(exc.value)
    if isinstance(obj, dict) and 1 not in obj:
        with pytest.raises(scopa.PositionError):
            view_from_json({**obj, "hands": [["7d"], 1], "stock": 0})


def test_a_position_strings_negative_or_long_number_is_refused_with_its_range():
    # Found by an audit: "bad turn '-1': expected a number" (and so for scope, last_capture,
    # dealer, and an integer of 7 digits or more): -1 is a number; the message now says the range
    # (or, for a number too long to read, how long one may be)
    base = "scopa 7dKc/2cAs 3c4s - -/- {scope} {turn} {last} {dealer}"
    cases = [
        (dict(scope="0/0", turn="-1", last="-", dealer="1"), "bad turn -1: expected a seat in 0..1"),
        (
            dict(scope="0/0", turn="1234567", last="-", dealer="1"),
            "bad turn '1234567': expected a number of at most 6 digits",
        ),
        (
            dict(scope="0/-1", turn="0", last="-", dealer="1"),
            r"bad scope \[0, -1\]: expected two ints in 0..18",
        ),
        (dict(scope="0/0", turn="0", last="-1", dealer="1"), "bad last_capture -1: expected 0, 1 or null"),
        (
            dict(scope="0/0", turn="0", last="-", dealer="-1"),
            "bad dealer -1: expected a seat in 0..1 or null",
        ),
        (dict(scope="0/0", turn="+0", last="-", dealer="1"), "bad turn '\\+0': expected a number"),
        # (not "-0", which was taken for 0, as "+0" is not)
        (dict(scope="0/-0", turn="0", last="-", dealer="1"), "bad scope '-0': expected a number"),
        (dict(scope="0/0", turn="-0", last="-", dealer="1"), "bad turn '-0': expected a number"),
        # (nor leading zeros, which were taken: "00", "01" and "021" each a second spelling)
        (dict(scope="00/0", turn="0", last="-", dealer="1"), "bad scope '00': expected a number without"),
        (dict(scope="0/0", turn="01", last="-", dealer="1"), "bad turn '01': .* leading zeros, 1"),
        (dict(scope="0/0", turn="0", last="00", dealer="1"), "bad last_capture '00'"),
        (
            dict(scope="0/0", turn="0", last="-", dealer="000001"),
            "bad dealer '000001': .* leading zeros, 1 \\(in position",
        ),
        (
            dict(scope="0/0", turn="0", last="-", dealer="0000001"),
            "bad dealer '0000001': .* at most 6 digits",
        ),
    ]
    for fields, message in cases:
        with pytest.raises(scopa.PositionError, match=message):
            scopa.State.from_string(base.format(**fields))
    # RULES §5: a target in a rules text, as in a position string's first field
    for text in ("scopa;target=021", "scopa;target=021 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"):
        with pytest.raises(scopa.RulesError, match="bad target '021' in 'scopa;target=021': .* zeros, 21"):
            scopa.State.of(text) if " " in text else scopa.Rules.of(text)
    assert scopa.Rules.of("scopa;target=21").target == 21
    # (an option's own refusal first: no number is asked of an unknown option or a boolean one)
    with pytest.raises(scopa.RulesError, match="^unknown rule option 'foo'"):
        scopa.Rules.of("scopa;foo=01")
    with pytest.raises(
        scopa.RulesError, match="^bad napola '00' in 'scopa;napola=00': expected true or false$"
    ):
        scopa.Rules.of("scopa;napola=00")
    assert scopa.State.of("scopa;target=10 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").rules.target == 10


def test_a_view_goes_to_json_and_back_as_the_other_values_do():
    # the open list: a view's JSON was only the free functions view_to_dict/view_from_json;
    # PlayerView.to_json/from_json pair them as every other value's (RULES §2: each game)
    from scopa.notation import view_to_dict
    from scopa.view import PlayerView

    for game in ("scopa", "scopa4", "scopone", "scopone_scientifico"):
        s = State.deal(game, seed=5)
        for _ in range(7):
            s = s.play(s.legal_moves()[-1])
        for seat in range(s.rules.players):
            v = s.view(seat)
            js = v.to_json()
            assert js == view_to_dict(v) and len(v.history) == 7
            assert PlayerView.from_json(js) == v == PlayerView.from_json(json.dumps(js))
    with pytest.raises(scopa.PositionError, match="unknown field 'zz' in view"):
        PlayerView.from_json({**js, "zz": 1})


def test_the_view_of_a_whole_hand_of_40_plays_reads_back_from_its_json():
    # RULES §2: Scopone scientifico deals all 40 cards, so a finished hand's view holds 40 plays,
    # the most a history has (mutation testing: a bound refusing the 40th play survived)
    from scopa.view import PlayerView

    s = State.deal("scopone_scientifico", seed=2)
    while not s.is_over:
        s = s.play(s.legal_moves()[0])
    v = s.view(1)
    assert len(v.history) == 40
    assert PlayerView.from_json(v.to_json()) == v


@pytest.mark.parametrize("game", ["scopa", "scopone"])
def test_a_json_view_is_checked_at_each_bound(game):
    # (mutation testing: the bounds of turn, seat, hands and stock could move by one unseen)
    s = State.deal(game, seed=4)
    n = s.rules.players
    js = s.view(n - 1).to_json()
    assert view_from_json(js).seat == n - 1  # (the last seat's view, taken)
    held = js["hands"][n - 1][0]  # (a card of the viewer's hand: not played)
    for change, message in [
        ({"turn": n}, f"bad turn {n}: expected a seat in 0..{n - 1}"),
        ({"seat": n}, f"bad seat {n}: expected the viewer's seat in 0..{n - 1}"),
        ({"hands": js["hands"] + [3]}, f"expected {n} entries, one per seat"),
        ({"hands": js["hands"][:-1]}, f"expected {n} entries, one per seat"),
        ({"stock": 41}, "number of cards in 0..40, got 41"),
        ({"stock": -1}, "number of cards in 0..40, got -1"),
        ({"history": [[n, "7d"]]}, f"bad history entry [{n}, '7d']: expected [seat in 0..{n - 1}, move]"),
        (
            {"history": [[0, held]]},
            f"bad history entry [0, '{held}']: the played card must now be on the table",
        ),
    ]:
        with pytest.raises(scopa.PositionError, match=re.escape(message)):
            view_from_json({**js, **change})
    with pytest.raises(scopa.InvalidMoveError, match=re.escape("bad history entry [0, 'zz']: bad move 'zz'")):
        view_from_json({**js, "history": [[0, "zz"]]})


@pytest.mark.parametrize("kind", ["position", "view"])
def test_json_text_of_a_position_or_a_view_is_taken_up_to_one_mib(kind):
    # a request's position or view is read from at most 2**20 characters of JSON text
    s = State.deal("scopa", seed=5)
    if kind == "position":
        text, read = s.to_json(), State.from_json
    else:
        text, read = json.dumps(s.view(0).to_json()), view_from_json
    whole = text + " " * ((1 << 20) - len(text))
    assert len(whole) == 1 << 20 and read(whole) is not None
    with pytest.raises(scopa.PositionError, match="at most 1048576 accepted"):
        read(whole + " ")


def test_a_states_score_is_the_checked_score_of_its_piles():
    # (State.score builds its HandScore without the range checks, its piles being apart and its
    # scope in range: the checked construction of the same figures agrees, and does not refuse)
    import random

    from scopa.scoring import HandScore

    rnd = random.Random(4)
    rules = [Rules.preset(g) for g in scopa.PRESETS]
    rules += [Rules.preset("scopa", napola=True, re_bello=True), Rules.preset("scopone", napola=True)]
    for r in rules:
        for seed in range(6):
            s = State.deal(r, seed=seed)
            while True:
                c0, c1 = s.masks[3]
                checked = HandScore._from_masks(r, c0, c1, s.scope)
                assert s.score() == checked and repr(s.score()) == repr(checked)
                assert hash(s.score()) == hash(checked)
                if s.is_over:
                    break
                s = s.play(rnd.choice(s.legal_moves()))
    # the extremes a composed position allows: every card in one pile, the most scope
    deck = [str(c) for c in scopa.DECK]
    for r in rules:
        most = r.most_scope
        for piles, scope in (
            ((deck, []), (most, 0)),
            (([], deck), (0, most)),
            ((deck[::2], deck[1::2]), (most, most)),
        ):
            s = State.from_cards(
                r, [[]] * r.players, 0, captured=piles, scope=scope, last_capture=0 if piles[0] else 1
            )
            c0, c1 = s.masks[3]
            assert s.score() == HandScore._from_masks(r, c0, c1, s.scope)


def test_a_json_positions_history_must_lead_to_it_from_a_start_of_either_form():
    # (mutation testing of notation.py: a history leading elsewhere, or a start given as a
    # position object, were in no test)
    s = State.deal("scopa", seed=3)
    first, other = s.legal_moves()[:2]
    after = s.play(first)
    d = json.loads(after.to_json())
    as_object = dict(d, history={"start": json.loads(s.to_json()), "plays": [str(first)]})
    back = State.from_json(as_object)
    assert back == after and back.history == after.history and back.origin == s
    with pytest.raises(
        scopa.PositionError, match="bad history: its plays lead to 'scopa .*not to this position"
    ):
        State.from_json(dict(d, history={"start": s.to_string(), "plays": [str(other)]}))
    with pytest.raises(scopa.PositionError, match="bad history start .*expected a position string or object"):
        State.from_json(dict(d, history={"start": json.loads(after.to_json()), "plays": []}))


def test_a_position_strings_error_quotes_the_string_once():
    for text in ("scopa x", "scopa 7dKc/2cAs 3c4s - -/- 0/0 5 - 1"):
        with pytest.raises(scopa.PositionError) as exc:
            State.from_string(text)
        assert str(exc.value).count(repr(text)) == 1, exc.value


def test_history_carried_along_equals_history_made_afresh():
    # (a state's history, once asked for, is carried to the states after it: the same plays as
    # its pickled copy, which makes them again from the plays' cards)
    s = State.deal("scopa", seed=11)
    assert s.history == ()
    while not s.is_over:
        s = s.play(s.legal_moves()[-1])
        assert s.history == pickle.loads(pickle.dumps(s)).history
        assert all(type(m) is Move for _, m in s.history)

    # a Move of a subclass played is recorded as the plain Move a history made afresh holds
    class Spelled(Move):
        pass

    s = State.deal("scopa", seed=11)
    assert s.history == ()
    s = s.play(Spelled.parse(str(s.legal_moves()[0])))
    assert [type(m) for _, m in s.history] == [Move]


def _replayed_one_by_one(state, plays):
    """What State._replay gives, made with play one play at a time (its reference)."""
    for i, move in enumerate(plays):
        try:
            state = state.play(move)
        except scopa.ScopaError as exc:
            return state, i, exc
    return state, len(plays), None


def test_a_history_replayed_at_once_refuses_each_card_not_in_the_hand_as_play_does():
    # (RULES §3: a seat plays a card of its hand; every card of the deck tried first, laid down
    # and with each capture written, next to the cards of the hand and the table)
    start = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    for card in scopa.DECK:
        for move in (str(card), f"{card}x3c", f"{card}x3c4s", Move.parse(str(card))):
            got, want = start._replay([move]), _replayed_one_by_one(start, [move])
            assert got[:2] == want[:2] and got[0].history == want[0].history, move
            assert (type(got[2]), str(got[2])) == (type(want[2]), str(want[2])), move


@pytest.mark.parametrize("game", ["scopa", "scopone_scientifico", "scopa4"])
def test_a_history_replayed_at_once_is_the_one_played_one_by_one(game):
    # A position's JSON history is replayed without a State made for each play (a play request
    # with 20 plays of history spent three quarters of its time there): the same states, the
    # same history and origin, and the same error at the same play, as play gives one by one.
    # Plays are written every way play takes them: whole, a card alone (laid down, or its one
    # capture, or ambiguous), Move objects, other spellings, and some that are not legal.
    import random

    rng = random.Random(7)
    seen = {"error": 0, "over": 0, "card alone": 0, "whole": 0, "not legal": 0}
    for seed in range(40):
        start = scopa.State.deal(game, seed=seed, dealer=seed % 2)
        if seed % 5 == 4:  # (a start with a history of its own: origin and history carried on)
            start = start.play(start.legal_moves()[0])
        s, plays = start, []
        while not s.is_over and rng.random() < 0.99:
            move = rng.choice(s.legal_moves())
            spelled = rng.choice([str(move), move, str(move).upper(), str(move.card)])
            seen["card alone" if spelled == str(move.card) and move.is_capture else "whole"] += 1
            if rng.random() < 0.03:  # (not legal: a capture the rules refuse, or no move)
                wrong = [
                    f"{move.card}x{t}" for t in s.table if f"{move.card}x{t}" not in map(str, s.legal_moves())
                ]
                spelled = rng.choice([*wrong, "zz", "7dx7d", 5, "Kcx3c"])
                seen["not legal"] += bool(wrong) and spelled in wrong
            plays.append(spelled)
            try:
                s = s.play(spelled)
            except scopa.ScopaError:
                break
        if s.is_over and rng.random() < 0.5:
            plays.append("7d")  # (the hand is over)
            seen["over"] += 1
        got, want = start._replay(plays), _replayed_one_by_one(start, plays)
        seen["error"] += want[2] is not None
        assert got[0] == want[0] and got[1] == want[1], (seed, plays)
        assert got[0].history == want[0].history and got[0].origin == want[0].origin
        assert got[0].to_json() == want[0].to_json()
        assert (type(got[2]), str(got[2])) == (type(want[2]), str(want[2])), (seed, plays)
    assert all(seen.values()), seen  # (each way in was met)


def test_the_class_takes_a_position_as_of_does_and_refuses_none():
    # an API audit: State() made an object whose first use (repr, ==) was an AttributeError,
    # and State(text) was Python's TypeError; it takes what State.of takes (Board(fen)'s way)
    s = State.deal("scopa", seed=1).play("3dx3c")
    for given in (s, s.to_string(), s.to_json(), s.to_json().encode(), s.to_dict()):
        made = State(given)
        assert made == State.of(given) and type(made) is State and repr(made) == repr(State.of(given))
    assert State(s).history == s.history and hash(State(s)) == hash(s)
    with pytest.raises(scopa.PositionError, match=r"State\(\) needs a position: State\(text or JSON\)"):
        State()
    with pytest.raises(scopa.PositionError, match="bad position 7: expected a State, a position string"):
        State(7)  # type: ignore[arg-type]
    made = State(s)
    with pytest.raises(AttributeError, match="immutable"):  # (not made again in place)
        made.__init__("scopa 7d/Kc 3c4s - -/- 0/0 0 - -")  # type: ignore[misc]
    assert made == s


@pytest.mark.parametrize("game", ["scopa", "scopone"])
def test_a_json_views_history_plays_in_turn_and_its_captures_are_the_capturers(game):
    # an API audit: a view's history was checked card by card only, so one seat's plays, a
    # history ending at the seat to move, or a capture in the other team's pile were taken
    s = State.deal(game, seed=4)
    n = s.rules.players
    while len(s.history) < n + 2 or not any(m.is_capture for _, m in s.history):
        s = s.play(s.legal_moves()[-1])
    v = s.view(s.turn)
    js = v.to_json()
    hist = js["history"]
    assert view_from_json(js) == v and view_from_json({**js, "history": hist[2:]}).history == v.history[2:]
    seat, move = next((p, m) for p, m in hist if "x" in m)
    with pytest.raises(
        scopa.PositionError, match=r"the played card must now be on the table or in a pile, played once"
    ):
        view_from_json({**js, "history": [hist[0], hist[0]]})
    with pytest.raises(
        scopa.PositionError,
        match=rf"seat {(hist[0][0] + 1) % n} plays after seat {hist[0][0]}, expected the seats in turn",
    ):
        view_from_json({**js, "history": hist[:1] + hist[2:]})  # (one play left out)
    last = hist[-1][0]
    with pytest.raises(
        scopa.PositionError, match=rf"its last play is seat {hist[-2][0]}'s, so seat {last} is to move"
    ):
        view_from_json({**js, "history": hist[:-1]})
    other = [list(p) for p in js["captured"]]
    other[seat % 2], other[1 - seat % 2] = other[1 - seat % 2], other[seat % 2]
    with pytest.raises(
        scopa.PositionError, match=rf"seat {seat} captured for team {seat % 2}, but its cards"
    ):
        view_from_json({**js, "captured": other, "last_capture": 1 - seat % 2})
