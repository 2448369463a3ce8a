"""Game records (save, load, replay, validation), undo, and the move-by-move review."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import TWIN_RUN

import scopa
from scopa import CardSet, Match, Move, State
from scopa.players import PIMCPlayer, RandomPlayer
from scopa.records import Annotation, HandRecord, MatchRecord, RecordError, load_record, schema
from scopa.review import BLUNDER, MISTAKE, format_text, review

SCHEMA = jsonschema.Draft202012Validator(schema())


def played_match(game: str, target: int, seed: int) -> Match:
    m = Match(scopa.Rules.preset(game, target=target), seed=seed)
    rnd = random.Random(seed)
    while not m.is_over:
        m.play(rnd.choice(m.state.legal_moves()))
    return m


@pytest.mark.parametrize("game", scopa.PRESETS)
def test_records_round_trip_and_replay(game, tmp_path):
    m = played_match(game, 3, seed=7)
    rec = m.record({"Event": "test", "Player0": "Ada"})
    SCHEMA.validate(rec.to_json())
    path = tmp_path / "game.json"
    rec.save(path)
    back = load_record(path)
    assert back == load_record(path.read_text()) == load_record(json.loads(path.read_text()))
    assert (
        back.scores == m.scores
        and back.winner == m.winner
        and back.tags["Result"] == "{}-{}".format(*m.scores)
    )
    finals = [states[-1] for states in back.replay()]
    assert tuple(finals) == m.hands and all(s.is_over for s in finals)
    # RULES §5: hands and dealers in order, each deal a whole deck
    assert [h.dealer for h in back.hands] == [
        (m.first_dealer + i) % m.rules.players for i in range(len(m.hands))
    ]
    text = back.text()
    assert '[Event "test"]' in text and f"Hand {len(m.hands)} (dealer: " in text and "Match" in text


def test_a_single_hand_is_a_record_and_a_state_keeps_its_history():
    s = State.deal("scopone", seed=3, dealer=2)
    for _ in range(7):
        s = s.play(s.legal_moves()[0])
    hand = s.record()
    js = hand.to_json()
    SCHEMA.validate(js)
    assert js["format"] == "scopa-hand" and js["score"] is None and len(js["plays"]) == 7
    rec = load_record(js)
    assert len(rec.hands) == 1 and rec.hands[0].final() == s
    # undo walks back to the deal, one play at a time (RULES §3)
    back = s
    for _ in range(7):
        back = back.undo()
    assert back == s.origin and not back.history
    with pytest.raises(scopa.PositionError, match="nothing to undo"):
        back.undo()


def _bad(mutate):
    m = played_match("scopa", 3, seed=1)
    js = m.record().to_json()
    mutate(js)
    with pytest.raises(RecordError) as exc:
        load_record(js)
    return str(exc.value)


def _kings_deal(redeal_on_kings: bool) -> str:
    """A 2-player Scopa deal with three kings face up (RULES §6)."""
    rules = scopa.Rules.preset("scopa", redeal_on_kings=redeal_on_kings)
    kings, rest = ["Kd", "Kc", "Ks"], [c for c in scopa.card.DECK if str(c) not in ("Kd", "Kc", "Ks", "Ad")]
    hands, stock = [rest[:3], rest[3:6]], rest[6:]
    return State.from_cards(rules, hands, turn=1, table=[*kings, "Ad"], stock=stock, dealer=0).to_string()


def test_a_deal_of_three_kings_face_up_is_not_a_deal_when_they_are_dealt_again():
    # RULES §6: with redeal_on_kings (the default) such a deal is collected and dealt again
    with pytest.raises(RecordError, match="3 kings are dealt face up, and the rules .redeal_on_kings. deal"):
        HandRecord.from_json({"deal": _kings_deal(True), "plays": []}, scopa.Rules.preset("scopa"))
    off = scopa.Rules.preset("scopa", redeal_on_kings=False)
    assert HandRecord.from_json(
        {"deal": _kings_deal(False), "plays": []}, off
    ).deal.to_string() == _kings_deal(False)
    m = Match("scopa", seed=1).to_json()
    del m["seed"]
    m["position"] = State.from_string(_kings_deal(True)).to_dict()
    m["first_dealer"] = m["dealer"] = 0
    with pytest.raises(scopa.PositionError, match="bad match: hand 1: bad deal .*3 kings are dealt face up"):
        Match.from_json(m)


def test_format_versions_are_ints():
    m = played_match("scopa", 1, seed=1)
    for version in (True, 1.0, "1"):
        with pytest.raises(RecordError, match="not a"):
            load_record(dict(m.record().to_json(), version=version))
        with pytest.raises(RecordError, match="not a hand record"):
            HandRecord.from_json(dict(m.record().hands[0].to_json(), version=version))
        with pytest.raises(scopa.PositionError, match="not a match: format 'scopa-match', version"):
            Match.from_json(dict(m.to_json(), version=version))


def test_validation_names_the_hand_the_play_and_the_reason():
    def illegal(js):
        js["hands"][0]["plays"][3] = "Kcx2d"

    assert "hand 1, play 4 ('Kcx2d')" in _bad(illegal)

    def missing(js):  # the table's first card gone: 39 cards
        d = js["hands"][0]["deal"].split(" ")
        d[2] = d[2][2:]
        js["hands"][0]["deal"] = " ".join(d)

    assert _bad(missing).startswith("hand 1: bad deal") and "39 of the 40 cards" in _bad(missing)

    def twice(js):
        d = js["hands"][0]["deal"].split(" ")
        d[1] = d[1][:2] + d[1][:2] + d[1][4:]
        js["hands"][0]["deal"] = " ".join(d)

    assert "duplicate card" in _bad(twice)

    def score(js):
        js["hands"][0]["score"] = [9, 9]

    assert "hand 1: score [9, 9], but the replay gives" in _bad(score)

    def after_the_end(js):
        js["hands"].append(js["hands"][0])

    assert "the match was already won" in _bad(after_the_end) or "hand" in _bad(after_the_end)

    def plays_text(js):
        js["hands"][0]["plays"] = "2dx2c"

    assert _bad(plays_text) == "hand 1: 'plays' must be a list of at most 40 moves, got '2dx2c'"

    def dealer_text(js):
        js["hands"][0]["dealer"] = str(js["hands"][0]["dealer"])

    assert "bad dealer '" in _bad(dealer_text) and "expected the deal's seat" in _bad(dealer_text)

    def mid_hand(js):  # all 40 cards there, two of them already taken
        deal = State.from_string(js["hands"][0]["deal"])
        take = next(m for m in deal.legal_moves() if m.is_capture)
        js["hands"][0]["deal"] = deal.play(take).to_string()

    assert "cards were already captured (a position after plays, not a deal)" in _bad(mid_hand)

    def taken_by_team_0(js):  # (mutation testing: a deal whose cards team 0 alone took was read as 38 cards)
        s = State.from_string(js["hands"][0]["deal"])
        while not (s.team_to_move == 0 and any(m.is_capture for m in s.legal_moves())):
            s = s.play(next((m for m in s.legal_moves() if not m.is_capture), s.legal_moves()[0]))
        s = s.play(next(m for m in s.legal_moves() if m.is_capture))
        assert s.captured[0] and not s.captured[1]
        js["hands"][0]["deal"] = s.to_string()

    assert "cards were already captured (a position after plays, not a deal)" in _bad(taken_by_team_0)
    # a record's text is read up to MAX_RECORD_BYTES characters, 32 MiB (docs/records.md)
    from scopa.records import MAX_RECORD_BYTES

    assert MAX_RECORD_BYTES == 32 << 20
    with pytest.raises(RecordError, match=f"at most {MAX_RECORD_BYTES} accepted"):
        load_record("{" + " " * MAX_RECORD_BYTES)
    with pytest.raises(RecordError, match="not a match record nor a hand record"):
        load_record("{" + " " * (MAX_RECORD_BYTES - 2) + "}")
    # JSON text that is not an object is JSON, not a file name
    for text in ("[1, 2]", "[" + "1, " * 200 + "1]"):  # (the long one is no file name either)
        with pytest.raises(RecordError, match=r"a record must be a JSON object, got \[1, "):
            load_record(text)
    with pytest.raises(RecordError, match=r"cannot read the record '\[draft\] game.json': No such file"):
        load_record("[draft] game.json")  # a name, not JSON
    # a key given twice in one object is refused (Python's decoder kept the last, others the first)
    good = json.dumps(decided_record().to_json())
    twice = good.replace('"version": 1', '"version": 1, "version": 1', 1)
    assert twice != good
    with pytest.raises(RecordError, match="the key 'version' is given twice in one object"):
        load_record(twice)


def test_match_undo_goes_back_across_hands():
    m = Match("scopa", seed=2)
    while not m.hands:
        m.play(m.state.legal_moves()[0])
    assert m.state.history == () and len(m.hands) == 1
    final = m.hands[0]
    m.undo()
    assert m.hands == () and m.scores == (0, 0) and m.state == final.undo()
    m.play(final.history[-1][1])
    assert len(m.hands) == 1 and m.hands[0] == final
    fresh = Match("scopa", seed=2)
    with pytest.raises(scopa.PositionError, match="nothing to undo"):
        fresh.undo()


def test_resume_a_match_from_its_record():
    m = Match("scopone_scientifico", seed=4)
    for _ in range(55):  # into the second hand
        m.play(m.state.legal_moves()[0])
    resumed = Match.from_record(load_record(m.record().to_json()))
    assert resumed.scores == m.scores and resumed.state == m.state and resumed.dealer == m.dealer
    resumed.play(resumed.state.legal_moves()[0])
    m.play(m.state.legal_moves()[0])
    assert resumed.state == m.state


# ------------------------------------------------------------------ review


def test_review_marks_a_blunder_with_its_reason():
    # RULES §3.5: a sweep is a scopa; laying the king down instead gives it up.
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    p = review(s, time_limit=0.2).plays[0]
    assert str(p.best) == "7dx3c4s" and p.dd_loss == 1 and p.dd_best == scopa.Move.parse("7dx3c4s")
    assert p.loss > MISTAKE and p.mark in ("?", "??") and p.reason == "missed a sweep"
    best = review(State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("7dx3c4s"), time_limit=0.2)
    assert best.plays[0].loss == 0 and best.plays[0].dd_loss == 0 and best.plays[0].mark is None
    # a match's hand reviewed alone keeps its number in the report (an audit: the terminal's
    # end-of-match review said "hand 1" for the fourth hand)
    r = review(s, time_limit=0.2)
    assert format_text(r).startswith("hand 1, play 1: seat 0 Kc")
    assert format_text(r).splitlines()[0] == (
        "hand 1, play 1: seat 0 Kc? (best 7dx3c4s, loses 1.00, exact loss 1) — missed a sweep"
    )
    assert format_text(r, ["Ada", "Bo"], first_hand=4).startswith("hand 4, play 1: Ada Kc")
    # a loss just over a mark's threshold is not rounded onto it (a teacher's audit: "loses
    # 0.50" marked "?", a mistake being a loss over 0.5)
    p0 = r.plays[0]
    near = dataclasses.replace(
        p0, values={**p0.values, p0.move: p0.values[p0.best] - 0.5027}, loss=0.5027, mark="?"
    )
    shown = format_text(dataclasses.replace(r, plays=(near,)))
    assert "Kc? (best 7dx3c4s, loses 0.503, exact loss 1)" in shown, shown
    # its repr pastes back with the package's names (an API audit: PlayReview and Annotation
    # were not exported)
    names = {n: getattr(scopa, n) for n in scopa.__all__}
    assert eval(repr(r), names) == r
    noted = decided_record().hands[0].annotate({0: Annotation("x", "?")})
    assert eval(repr(noted), names) == noted


def _piles(*used: str) -> list[list[str]]:
    rest = [str(c) for c in scopa.DECK if str(c) not in used]
    return [rest[: len(rest) // 2], rest[len(rest) // 2 :]]


def test_review_reasons_compare_with_the_best_move_and_count_only_real_scope():
    from scopa.review import _concedes_scopa, _reason

    def position(hands, table, rules="scopa"):
        used = [c for h in hands for c in h] + table
        return State.from_cards(rules, hands, turn=0, table=table, captured=_piles(*used), last_capture=1)

    # the best move leaves the settebello to the opponent's 7c too: not what the play gave up
    s = position([["Ac", "Qc"], ["7c", "2b"]], ["7d", "Ab"])
    assert _reason(s, Move.parse("AcxAb"), Move.parse("Qc")) == "left a scopa"
    # laid down where the best move does not leave it: given up
    s = position([["7d", "Ks"], ["7c", "2b"]], ["3c", "3s"])
    assert _reason(s, Move.parse("7d"), Move.parse("Ks")) == "gave up the settebello"
    # RULES §4: the settebello on the table, a seven to take it, and a play that leaves it:
    # missed (not when the play takes it, or when the best move does not either)
    s = position([["7c", "Kc"], ["Qs", "2b"]], ["7d", "4s"])
    assert _reason(s, Move.parse("Kc"), Move.parse("7cx7d")) == "missed the settebello"
    assert _reason(s, Move.parse("7cx7d"), Move.parse("Kc")) is None
    # RULES §7: an ace's sweep under ace_takes_all is no scopa unless ace_sweep_is_scopa
    for is_scopa in (False, True):
        rules = scopa.Rules.preset("scopa", ace_takes_all=True, ace_sweep_is_scopa=is_scopa)
        s = position([["Ac", "Kc"], ["Ad", "2b"]], ["Qs", "3b"], rules)
        # (the mover's own ace sweep would be a scopa: then it missed one)
        assert _reason(s, Move.parse("Kc"), Move.parse("AcxQs3b")) == ("missed a sweep" if is_scopa else None)
    # RULES §7: a sweep on the hand's last play is no scopa unless scopa_on_last_play
    for on_last in (False, True):
        rules = scopa.Rules.preset("scopa", scopa_on_last_play=on_last)
        after = position([["2c"], ["5s"]], ["3b"], rules).play("2c")
        assert _concedes_scopa(after, CardSet.parse("5s").mask, rules.core_options) == on_last
        after = position([["2c", "Kc"], ["5s", "Qd"]], ["3b"], rules).play("2c")  # (not the last play)
        assert _concedes_scopa(after, CardSet.parse("5s").mask, rules.core_options)


def test_review_json_of_a_whole_game():
    m = played_match("scopa", 1, seed=3)
    rec = m.record()
    r = review(rec, time_limit=0.05 if TWIN_RUN else 0.1)
    js = r.to_json()
    n = sum(len(h.plays) for h in rec.hands)
    assert len(js["plays"]) == n
    assert [(p["hand"], p["play"]) for p in js["plays"]] == [
        (i, j) for i, h in enumerate(rec.hands) for j in range(len(h.plays))
    ]
    for p in js["plays"]:
        assert p["loss"] >= 0 and (p["dd_loss"] is None or p["dd_loss"] >= 0)
        assert p["mark"] == ("??" if p["loss"] > BLUNDER else "?" if p["loss"] > MISTAKE else None)
    # 2 players: the last plays of every hand are solved exactly (the stock order is known)
    assert all(p["dd_loss"] is not None for p in js["plays"][-6:])
    assert js["summary"]["teams"][0]["plays"] + js["summary"]["teams"][1]["plays"] == n
    # the worst plays: at most five, each that lost points, the biggest loss first
    worst = js["summary"]["worst"]
    assert worst and len(worst) <= 5 and all(w["loss"] > 0 for w in worst)
    assert [w["loss"] for w in worst] == sorted((p["loss"] for p in js["plays"]), reverse=True)[: len(worst)]
    assert len(worst) == min(5, sum(p["loss"] > 0 for p in js["plays"]))
    line = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc").play("2c").play("7dx3c4s")
    few = review(line, time_limit=0.1)
    assert [p.loss for p in few.plays] == [1.0, 0.0, 0.0]  # (the plays of no loss are no worst plays)
    assert few.summary()["worst"] == [few.plays[0].to_json()]
    annotated = r.annotate(rec)
    marks = sum(1 for h in annotated.hands for a in h.annotations.values() if a.mark)
    assert marks == sum(p["mark"] is not None for p in js["plays"])
    assert load_record(annotated.to_json()).hands[0].annotations == annotated.hands[0].annotations


def test_annotating_keeps_the_users_comments_and_refuses_another_game():
    # found by an audit: the review's annotations replaced the user's own on the plays it
    # marked, and a review annotated any record, another game's too
    m = played_match("scopa", 5, seed=1)
    rec = m.record()
    r = review(rec, time_limit=0.01, seed=1)
    marked = next(p for p in r.plays if p.mark)
    mine = rec.hands[marked.hand].annotate({marked.play: Annotation("my note", "!!")})
    hands = tuple(mine if i == marked.hand else h for i, h in enumerate(rec.hands))
    out = r.annotate(MatchRecord(rec.rules, hands, rec.tags)).hands[marked.hand].annotations[marked.play]
    assert out.comment is not None and out.comment.startswith("my note | loses ") and out.mark == marked.mark
    # annotated again by the same review: the same record (a researcher's audit: each run of a
    # pipeline added the review's comment once more), the user's note kept
    once = r.annotate(MatchRecord(rec.rules, hands, rec.tags))
    assert r.annotate(once) == once and r.annotate(r.annotate(rec)) == r.annotate(rec)
    other = played_match("scopa", 5, seed=2).record()
    different = r"not the game reviewed: hand 1, play 1 is \S+ in the review, \S+ in the record"
    with pytest.raises(RecordError, match=different):
        r.annotate(other)
    with pytest.raises(RecordError, match="not the game reviewed: the record has 1 hand, the review 2"):
        r.annotate(MatchRecord(rec.rules, rec.hands[:1]))
    # a record whose last hand stops a play short of the review's: that play is in no record
    last = rec.hands[-1]
    short = MatchRecord(rec.rules, (*rec.hands[:-1], HandRecord(last.deal, last.plays[:-1])))
    n, move = len(last.plays), last.plays[-1]
    unplayed = f"^not the game reviewed: hand 2, play {n} is {move} in the review, no play in the record$"
    with pytest.raises(RecordError, match=unplayed):
        r.annotate(short)


def test_a_play_whose_budget_is_too_short_for_a_sample_is_valued_on_one_whole_sample():
    # PIMC's limit now stops a sample's search (its moves then valued one play deep): a review
    # whose budget a play is that short values one whole sample, as it did before (a review
    # found plays marked from one-play values)
    s = State.deal("scopa", seed=4)
    for _ in range(3):
        s = s.play(s.legal_moves()[0])
    r = review(s, time_limit=1e-6, seed=5)
    assert all(p.reviewed for p in r.plays)
    before = s.origin
    for p in r.plays[:2]:  # (play j of hand 0 is valued with the seed 5 + j)
        whole = PIMCPlayer(seed=5 + p.play, samples=1, time_limit=None).evaluate(before.view(before.turn))
        assert p.values == {m: v for m, (v, _) in whole.items()}, p.play
        before = before.play(p.move)


def test_a_review_makes_its_exact_solver_once_and_only_when_a_play_is_solved(monkeypatch):
    # a review made a 64 MB solver as it began, 11 ms of a protocol review's 22 ms under a
    # 0.03 s maximum (a backend's audit: it valued no play and overran): made at the first play
    # it solves exactly (RULES §8: 24 plays from a Scopone hand's end, every play of Scopa's)
    review_module = sys.modules["scopa.review"]  # (scopa.review is the function)
    made = []

    class Counted(review_module.Solver):
        def __init__(self, *args: Any) -> None:
            made.append(args)
            super().__init__(*args)

    monkeypatch.setattr(review_module, "Solver", Counted)
    s = State.deal("scopone_scientifico", seed=4)
    for _ in range(6):
        s = s.play(s.legal_moves()[0])
    r = review(s, time_limit=0.01, seed=5)
    assert all(p.reviewed and p.dd_values is None for p in r.plays) and made == []
    # (a hand's last plays: solved at once by either core; the twin solved no whole deal's in time)
    line = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc").play("2c").play("7dx3c4s")
    r = review(line, time_limit=0.1, seed=5)
    assert sum(p.dd_values is not None for p in r.plays) == 3 and made == [(64,)]


def test_review_values_a_forced_play_too():
    # a play with one legal move loses nothing, but its value is the position's (it read 0.0)
    m = played_match("scopa", 1, seed=3)
    r = review(m.record(), time_limit=0.05)
    last = [p for p in r.plays if p.hand == 0][-2:]  # one card each: forced, and every card known
    for p in last:
        assert p.move == p.best and p.loss == 0 and p.dd_values is not None
        assert p.played_value == p.dd_values[p.move] == p.to_json()["value"]
    assert any(p.played_value != 0 for p in last) or m.hands[0].score().points == (0, 0)


def test_a_review_cut_short_counts_the_hands_it_reached():
    rec = played_match("scopa", 11, seed=2).record()
    assert len(rec.hands) > 1
    flag = scopa.StopFlag()
    r = review(
        rec, time_limit=0.02, limit=scopa.Limit(stop=flag), progress=lambda done, _: done >= 5 and flag.set()
    )
    s = r.summary()
    assert s["hands"] == len(rec.hands) and s["hands_reviewed"] == 1
    for seat, t in enumerate(s["seats"]):
        lost = sum(p.loss for p in r.plays if p.seat == seat and p.reviewed)
        assert t["loss_per_hand"] == round(lost, 4) and t["plays"] <= 5
    # every loss a float, a seat of no plays' too (an audit's doctest: the int 0 beside 1.0)
    one = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    seats = review(one, time_limit=0.05).summary()["seats"]
    assert seats[1]["plays"] == 0 and all(
        type(t[k]) is float for t in seats for k in ("loss", "loss_per_play")
    )
    # a play left out holds what its docstring and docs/records.md say: nothing valued
    out = [p for p in r.plays if not p.reviewed]
    assert out
    for p in out:
        assert p.best == p.move and p.values == {p.move: 0.0} and p.loss == 0.0
        assert (p.dd_values, p.dd_best, p.dd_loss, p.mark, p.reason) == (None,) * 5
        j = p.to_json()
        assert (j["value"], j["best_value"], j["loss"], j["best"]) == (0.0, 0.0, 0.0, str(p.move))
    whole = review(rec.hands[0], time_limit=0.02).summary()
    assert whole["hands_reviewed"] == whole["hands"] == 1
    # a hand dealt but not yet played is reached by a review no limit cut (docs/records.md)
    m = Match("scopa", seed=2)
    while not m.hands:
        m.play(m.state.legal_moves()[0])
    js = m.record().to_json()
    js["hands"].append({"dealer": m.state.dealer, "deal": m.state.to_string(), "plays": []})
    s = review(load_record(js), time_limit=0.02).summary()
    assert s["hands"] == s["hands_reviewed"] == 2
    assert s["seats"][0]["loss_per_hand"] == pytest.approx(s["seats"][0]["loss"] / 2, abs=1e-4)


def test_a_play_whose_exact_half_the_reviews_limit_cuts_short_is_left_out(monkeypatch):
    # the fair half valued, then the review's stop flag set while the solver runs: the exact
    # half is not exact, and the play is left out as a play the limit reached (nothing valued,
    # not half its figures), the plays after it too
    import importlib

    from scopa.solver import Solver

    module = importlib.import_module("scopa.review")  # (scopa.review is the function)
    flag = scopa.StopFlag()
    exact = []

    class Stopped(Solver):
        def analyze(self, state, limit=None):
            flag.set()
            a = super().analyze(state, limit)
            exact.append(a.exact)
            return a

    monkeypatch.setattr(module, "Solver", Stopped)
    s = State.deal("scopa", seed=1)
    line = s.play(s.legal_moves()[0])
    line = line.play(line.legal_moves()[0])
    r = review(line, time_limit=0.2, limit=scopa.Limit(stop=flag))
    assert exact == [False]  # (one play reached the solver, which the flag stopped)
    assert [p.reviewed for p in r.plays] == [False, False]
    for p, (_, move) in zip(r.plays, line.history, strict=True):
        assert (p.move, p.best, dict(p.values), p.loss) == (move, move, {move: 0.0}, 0.0)
        assert (p.dd_values, p.dd_best, p.dd_loss, p.mark, p.reason) == (None,) * 5


@pytest.mark.parametrize("game", ["scopa", "scopone_scientifico"])
def test_plays_a_review_never_reached_keep_their_seats(game):
    # past its limit the review no longer replays the record (it took 1.2 s under a 0.2 s
    # maximum on a large one): each play's seat follows from the order of play
    rec = played_match(game, 21, seed=4).record()
    flag = scopa.StopFlag(set=True)
    r = review(rec, limit=scopa.Limit(stop=flag))
    seats = []
    for h, hand in enumerate(rec.hands):
        s = hand.deal
        for j, move in enumerate(hand.plays):
            seats.append((h, j, s.turn, move))
            s = s.play(move)
    assert [(p.hand, p.play, p.seat, p.move) for p in r.plays] == seats
    assert not any(p.reviewed for p in r.plays) and r.summary()["hands_reviewed"] == 0


def test_the_text_of_a_review_cut_short_says_what_it_left_out():
    # (an audit: a review a limit stopped before any play said "no play lost more than half a
    # point" and nothing of the plays it never valued; its JSON says so, play by play)
    rec = played_match("scopa", 21, seed=4).record()
    total = sum(len(h.plays) for h in rec.hands)
    text = format_text(review(rec, limit=scopa.Limit(stop=scopa.StopFlag(set=True))))
    assert "no play lost more than half a point" not in text
    assert text.startswith("no play reviewed lost more than half a point")
    assert f"{total} of {total} plays not reviewed" in text
    line = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc").play("2c")
    whole = format_text(review(line, time_limit=0.1))
    assert "not reviewed" not in whole and whole.startswith("hand 1, play 1: seat 0 Kc?")
    assert "seat 1: 0.00 points lost per hand over 1 play, 0 mistakes" in whole  # ("1 plays" before)
    # each move as the caller writes moves (scopa play: its suit symbols), notation by default
    # (a record of no hands has no hand to write: "holds 0 hands (1..0)" before; a review found)
    with pytest.raises(RecordError, match="^bad hand 1: the record holds no hands$"):
        MatchRecord(scopa.Rules.preset("scopa"), ()).text(1)
    marked = review(line, time_limit=0.1)
    assert format_text(marked, moves=lambda m: f"<{m}>").startswith(
        "hand 1, play 1: seat 0 <Kc>? (best <7dx3c4s>, loses 1.00"
    )
    assert format_text(marked).startswith("hand 1, play 1: seat 0 Kc? (best 7dx3c4s")
    with pytest.raises(scopa.OptionError, match="^bad moves 'x': expected a function of a Move to its text$"):
        format_text(marked, moves="x")  # type: ignore[arg-type]
    one = format_text(review(line.origin.play("Kc"), limit=scopa.Limit(stop=scopa.StopFlag(set=True))))
    assert "\n1 of 1 play not reviewed: the review was stopped" in one, one  # ("1 of 1 plays")


def test_the_text_of_a_review_of_no_plays_says_there_were_none():
    # a teacher's audit: a hand dealt but not played read "seat 0: 0.00 points lost per hand
    # over 0 plays, ...", a line a seat; a seat that made no play (or none reviewed) says so too
    dealt = State.deal("scopa", seed=1)
    assert format_text(review(dealt)) == "no plays to review: the hand was dealt, nothing played"
    nothing = review(MatchRecord(scopa.Rules.preset("scopone"), ()), time_limit=0.05)
    assert format_text(nothing) == "no plays to review: the record holds no hands"
    one = review(State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc"), time_limit=0.1)
    assert format_text(one).endswith("\nseat 1: no plays made"), format_text(one)
    two = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc").play("2c")
    stopped = format_text(review(two, limit=scopa.Limit(stop=scopa.StopFlag(set=True))))
    assert stopped.endswith("\n\nseat 0: no plays reviewed\nseat 1: no plays reviewed"), stopped
    assert "0.00 points lost per hand over 0 plays" not in stopped


def test_a_review_of_no_hands_has_the_games_seats():
    r = review(MatchRecord(scopa.Rules.preset("scopone"), ()), time_limit=0.05)
    assert r.players == 4 and len(r.summary()["seats"]) == 4 and r.summary()["hands_reviewed"] == 0


def test_a_review_is_a_value_its_repr_pastes_back_and_it_is_checked_when_built_by_hand():
    # (a review's dicts made it unhashable, "unhashable type: 'dict'", and its values could be
    # changed; PlayReview("h", 0, 9, 3, "Kc", ...) was taken, to_json() then a KeyError, and a
    # Review of ints an AttributeError in summary())
    from scopa.review import PlayReview, Review

    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    r = review(s.play("Kc"), time_limit=0.1)
    p = r.plays[0]
    assert p.dd_values is not None and p.dd_best is not None  # (an exact value too: both dicts)
    names = {"Review": Review, "PlayReview": PlayReview, "Move": Move, "Rules": scopa.Rules}
    assert eval(repr(r), names) == r and hash(eval(repr(r), names)) == hash(r)
    with pytest.raises(TypeError, match="a play review's values cannot be changed"):
        p.values[p.move] = 9.0  # type: ignore[index]
    kc, seven = Move.parse("Kc"), Move.parse("7dx3c4s")
    good: dict[str, Any] = {
        "hand": 0, "play": 0, "seat": 0, "team": 0, "move": kc, "best": seven,
        "values": {kc: 3.0, seven: 4.0}, "loss": 1.0, "dd_values": {kc: 3, seven: 4}, "dd_best": seven,
        "dd_loss": 1, "mark": "?", "reason": None,
    }  # fmt: skip
    assert PlayReview(**good).to_json()["best_value"] == 4.0
    for key, bad, message in [
        ("hand", "h", "bad hand 'h': expected an int in 0..20999"),
        ("seat", 9, "bad seat 9: expected an int in 0..3"),
        ("team", 1, "bad team 1: seat 0 is on team 0"),
        ("team", False, "bad team False: expected an int in 0..1"),  # (to_json wrote "team": false)
        ("move", "Kc", "bad move 'Kc': expected a scopa.Move"),
        ("values", [], r"bad values \[\]: expected a dict of scopa.Move to a number"),
        ("values", {kc: 3.0}, "expected a dict of scopa.Move to a number, with 7dx3c4s"),
        ("values", {kc: "3", seven: 4.0}, "bad values"),
        ("loss", -1.0, "bad loss -1.0: expected a finite number >= 0"),
        ("dd_values", {kc: 3.5, seven: 4}, "bad dd_values .*: expected a dict of scopa.Move to an int"),
        ("dd_best", None, "bad dd_best None: expected a scopa.Move with dd_values"),
        ("dd_loss", -1, "bad dd_loss -1"),
        ("mark", "!!!", "bad mark '!!!': expected '\\?', '\\?\\?' or None"),
        ("reason", 3, "bad reason 3"),
        ("reviewed", 1, "bad reviewed 1: expected True or False"),
    ]:
        with pytest.raises(scopa.OptionError, match=message):
            PlayReview(**{**good, key: bad})
    play = PlayReview(**good)
    assert Review([play], 1, 2, 0.5).plays == (play,)
    # a marked play without a reason: its line of the text says none (no " — None")
    assert format_text(Review([play], 1, 2, 0.5)).splitlines()[0] == (
        "hand 1, play 1: seat 0 Kc? (best 7dx3c4s, loses 1.00, exact loss 1)"
    )
    for args, message in [
        (([1, 2], 1, 2, 0.5), r"bad plays \[1, 2\]: expected a tuple of PlayReview"),
        (((play,), 0, 2, 0.5), r"is not in the review's 0 hands of 2 seats"),
        (((dataclasses.replace(play, seat=2, team=0),), 1, 2, 0.5), r"review's 1 hand of 2 seats"),
        (((), 1, 3, 0.5), "bad players 3: expected 2 or 4"),
        (((), 1, 2.0, 0.5), "bad players 2.0: expected 2 or 4"),  # (summary() failed on it)
        (((), "x", 2, 0.5), "bad hands 'x'"),
        (((), 1, 2, -1.0), "bad seconds -1.0"),
    ]:
        with pytest.raises(scopa.OptionError, match=message):
            Review(*args)


def test_a_review_goes_to_json_and_back():
    # a review had no from_json (the open list: to_json/from_json pairs; its JSON kept only the
    # played and best moves' values, rounded): each play now carries every legal move's values,
    # unrounded, and Review.from_json gives back an equal review, cut short or whole, 2 or 4 seats
    from scopa import jsonio
    from scopa.review import PlayReview, Review

    for game, seed, budget in (("scopa", 3, None), ("scopone_scientifico", 4, None), ("scopa", 5, 0.02)):
        rec = played_match(game, 1, seed=seed).record()
        limit = None if budget is None else scopa.Limit(time=budget)
        r = review(rec, time_limit=0.01 if TWIN_RUN else 0.02, limit=limit)
        j = r.to_json()
        assert (j["format"], j["version"], j["players"], j["hands"]) == ("scopa-review", 1, r.players, 1)
        back = Review.from_json(jsonio.loads(jsonio.dumps(j)))
        assert back == r and hash(back) == hash(r) and back.to_json() == j
        assert back.annotations() == r.annotations() and back.summary() == r.summary()
        if budget is not None:
            assert not all(p.reviewed for p in back.plays)  # (a review cut short, read back)
        p = j["plays"][-1]
        assert set(p["values"]) == {str(m) for m in r.plays[-1].values}
    # what is read is checked: each figure against its values, the summary against its plays
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    j = review(s.play("Kc"), time_limit=0.1).to_json()
    play = j["plays"][0]

    def with_play(**changes: Any) -> dict[str, Any]:
        return {**j, "plays": [{**play, **changes}]}

    for bad, message in [
        ([], r"the review must be a JSON object, got \[\]"),
        (
            {**j, "format": "scopa-record"},
            "the review has format 'scopa-record', version 1, expected format",
        ),
        ({**j, "extra": 1}, r"unknown field 'extra' in the review"),
        ({k: v for k, v in j.items() if k != "hands"}, "the review lacks hands"),
        ({**j, "plays": {}}, r"bad plays \{\}: expected a list of plays' reviews"),
        ({**j, "players": 3}, "bad players 3: expected 2 or 4"),
        (
            with_play(values={"Kc": 3.0}),
            r'bad play 1 of the review: bad values \{"Kc": 3.0\}: expected a value of 7dx3c4s',
        ),
        (with_play(values={"Kc": 3.0, "kc": 3.0, "7dx3c4s": 4.0}), "the move Kc is given twice \\('kc'\\)"),
        (
            with_play(values={"Kc": 2.0, "7dx3c4s": 4.0}),
            "bad play 1 of the review: value 3.0, but its values give 2.0",
        ),
        (with_play(loss=0.5), "bad play 1 of the review: loss 0.5, but its values give 1.0"),
        (with_play(dd_loss=2), "bad play 1 of the review: dd_loss 2, but its values give 1"),
        (with_play(dd_loss=True), "dd_loss true, but its values give 1"),
        (with_play(move="zz"), "bad play 1 of the review: bad move 'zz'"),
        (with_play(extra=0), r"unknown field 'extra' in play 1 of the review"),
        (with_play(mark="!"), "bad mark '!'"),
        ({**j, "summary": {**j["summary"], "hands_reviewed": 0}}, "bad summary .*: its plays give"),
        ({**j, "summary": {**j["summary"], "hands_reviewed": True}}, "bad summary .*: its plays give"),
    ]:
        with pytest.raises(scopa.OptionError, match=message):
            Review.from_json(bad)
    with pytest.raises(scopa.OptionError, match="the play lacks dd_values"):
        PlayReview.from_json({k: v for k, v in play.items() if k != "dd_values"})


def test_a_play_whose_mover_knows_every_card_is_valued_exactly():
    # An audit of the review: once the stock is out in 2-player Scopa every card is known
    # (RULES §8), yet the fair values were PIMC's, whose model of the reply valued Ad and Qd
    # (exactly as good as 2bx2d) 0.75 below it and marked Ad a mistake of exact loss 0
    s = State.from_string(
        "scopa 7d6sKs/AdQd2b 2d5d6cJc - 6dKd3c3s6bKb/3d4dJdAc2c4c5c7cQcKcAs2s4s5s7sJsQsAb3b4b5b7bJbQb"
        " 0/2 1 1 0"
    )
    p = review(s.play("Ad"), time_limit=0.2).plays[0]
    assert p.dd_values is not None and p.values == {m: float(v) for m, v in p.dd_values.items()}
    assert (p.loss, p.dd_loss, p.mark, p.best) == (0.0, 0, None, Move.parse("Ad"))
    # with cards the mover cannot place (two other hands holding some, or a stock) its view's
    # values stay PIMC's: what it could know is not everything
    from scopa.review import _knows_every_card

    four = State.deal("scopone_scientifico", seed=3)
    assert not _knows_every_card(four.view(four.turn)) and not _knows_every_card(
        State.deal("scopa", seed=1).view(0)
    )
    while sum(bool(h) for h in four.hands) > 3:
        four = four.play(four.legal_moves()[0])
    # RULES §8: the mover and two other hands holding cards: it cannot tell which holds which
    assert sum(bool(h) for i, h in enumerate(four.hands) if i != four.turn) == 2
    assert not _knows_every_card(four.view(four.turn))
    while sum(bool(h) for h in four.hands) > 2:
        four = four.play(four.legal_moves()[0])
    assert _knows_every_card(four.view(four.turn))


def test_a_review_carries_the_rules_it_was_played_by(tmp_path):
    # the open list: a review's JSON and object said the seats and the hands but not the game,
    # so a review of a variant (RULES §7) read alone could not say what it valued; a review's
    # JSON written before it carried them is read with none
    from scopa import jsonio
    from scopa.review import Review

    rules = scopa.Rules.preset("scopa", napola=True, target=16)
    s = State.deal(rules, seed=4)
    while not s.is_over:
        s = s.play(s.legal_moves()[-1])
    rec = scopa.records.record_of([s], rules)
    r = review(rec, time_limit=0.01)
    assert r.rules == rules and review(s, time_limit=0.01, limit=scopa.Limit(time=0.001)).rules == rules
    j = r.to_json()
    assert j["rules"] == {"preset": "scopa", "target": 16, "napola": True}
    assert Review.from_json(jsonio.loads(jsonio.dumps(j))) == r
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    assert review(s.play("Kc"), time_limit=0.05).to_json()["rules"] == "scopa"
    old = {k: v for k, v in j.items() if k != "rules"}
    assert Review.from_json(old) == dataclasses.replace(r, rules=None)
    assert Review.from_json({**j, "rules": None}).rules is None
    assert dataclasses.replace(r, rules=None).to_json() == {**j, "rules": None}
    for bad, message in [
        ({**j, "rules": "poker"}, "bad rules of the review: unknown game 'poker'"),
        ({**j, "rules": "scopone"}, r"bad rules Rules\(game='scopone'.*a game of 2 players, or None"),
    ]:
        with pytest.raises(scopa.OptionError, match=message):
            Review.from_json(bad)
    with pytest.raises(scopa.OptionError, match="bad rules 'scopa': expected the scopa.Rules"):
        Review(r.plays, r.hands, r.players, r.seconds, "scopa")  # type: ignore[arg-type]
    # the command line says them: the text's last line, the JSON's field
    rec.save(tmp_path / "napola.json")
    out = subprocess.run(
        [sys.executable, "-m", "scopa", "review", "--time", "0.01", str(tmp_path / "napola.json")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0 and re.search(
        r"\n\d+ plays of Scopa with target=16 and napola=true reviewed in [\d.]+ s\n$", out.stdout
    ), out


def test_a_review_is_saved_to_a_file_and_loaded_back(tmp_path):
    # the open list: a review had no file of its own (a record has save and load_record), and
    # one of more than about 250 hands was past jsonio's 4 MB bound on JSON text, so it could
    # not be read back through the library; load_review reads what save and `scopa review
    # --json` write, up to the records' 32 MB
    from scopa import jsonio
    from scopa.review import Review

    load_review = scopa.load_review  # (scopa.review is the function: load_review is at the top)

    rec = tmp_path / "g.json"
    played_match("scopa", 1, seed=5).record().save(rec)
    r = review(scopa.load_record(rec).hands[0], time_limit=0.01)
    r.save(tmp_path / "r.json")
    assert load_review(tmp_path / "r.json") == r == load_review(str(tmp_path / "r.json"))
    assert load_review(r.to_json()) == r == load_review(jsonio.dumps(r.to_json()))
    # a review of 500 hands (its plays the one hand's, again and again): past jsonio.MAX_CHARS
    plays = tuple(dataclasses.replace(p, hand=h) for h in range(500) for p in r.plays)
    big = Review(plays, 500, r.players, r.seconds, r.rules)
    with pytest.raises(scopa.jsonio.JSONInputError, match=r"characters: at most 4194304 accepted"):
        Review.from_json(jsonio.loads(jsonio.dumps(big.to_json())))  # (the bound it was past)
    big.save(tmp_path / "big.json")
    assert (tmp_path / "big.json").stat().st_size > jsonio.MAX_CHARS
    assert load_review(tmp_path / "big.json") == big
    # what is not a review, or not there, is named; nothing is written where it cannot be
    (tmp_path / "text.json").write_text("a review?", encoding="utf-8")
    Match("scopa", seed=1).record().save(tmp_path / "rec.json")
    for source, message in [
        (tmp_path / "none.json", r"cannot read the review '.*none\.json': No such file or directory"),
        (tmp_path / "text.json", r"the review '.*text\.json' is not valid JSON: "),
        (tmp_path / "rec.json", r"expected format 'scopa-review'"),
        ("", r"cannot read the review '': expected a file name"),
        ("{not json", r"the review '\{not json' is not valid JSON"),
        (tmp_path, r"cannot read the review '.*': it is a directory; expected a file"),
    ]:
        with pytest.raises(scopa.OptionError, match=message):
            load_review(source)
    with pytest.raises(scopa.OptionError, match=r"cannot write the review to '.*nowhere.*': No such file"):
        r.save(tmp_path / "nowhere" / "r.json")
    assert not (tmp_path / "nowhere").exists()
    # `scopa review --json` writes what load_review reads
    out = subprocess.run(
        [sys.executable, "-m", "scopa", "review", str(rec), "--json", "--time", "0.01"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (tmp_path / "cli.json").write_text(out.stdout, encoding="utf-8")
    assert load_review(tmp_path / "cli.json").to_json() == json.loads(out.stdout)


def test_a_review_with_the_id_of_an_engine_reply_or_a_batch_line_is_read(tmp_path):
    # A docs audit: records.md says Review.from_json reads reviews saved by `scopa batch
    # review`, whose lines carry their job's "id" (as the engine's reply does): "unknown field
    # 'id' in the review". The id is read past; any other field is still refused
    from scopa.protocol import Protocol
    from scopa.review import Review

    rec = played_match("scopa", 1, seed=5).record()
    asked = {"cmd": "review", "id": "r1", "record": rec.to_json(), "time_ms": 5}
    reply = Protocol().handle(json.dumps(asked))
    assert reply is not None and reply["id"] == "r1"
    assert Review.from_json(reply).to_json() == {k: v for k, v in reply.items() if k != "id"}
    job = json.dumps({"id": 7, "record": rec.to_json()})
    (tmp_path / "in.jsonl").write_text(job + "\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "scopa", "batch", "review", str(tmp_path / "in.jsonl"), "-o",
         str(tmp_path / "out.jsonl"), "--workers", "1", "--time", "0.005"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (line,) = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["id"] == 7
    back = scopa.load_review(line)
    assert back.hands == 1 and len(back.plays) == 36 and Review.from_json(back.to_json()) == back
    with pytest.raises(scopa.OptionError, match=r"unknown field 'ids' in the review"):
        Review.from_json({**back.to_json(), "ids": 7})
    # a failed job's line is said to be one (it was "the review has no format, no version")
    failed = {"id": 8, "error": {"type": "RecordError", "message": "bad record 'x'"}}
    said = r"^not a review: the error of a failed job \(id 8\), RecordError: bad record 'x'$"
    with pytest.raises(scopa.OptionError, match=said):
        scopa.load_review(json.dumps(failed))


def test_a_reviews_json_with_an_int_past_a_floats_range_is_refused():
    # a value of 10**400 (strict JSON text: an integer of 401 digits, which jsonio.loads reads)
    # crashed Review.from_json and PlayReview.from_json with OverflowError (math.isfinite on it)
    from scopa import jsonio
    from scopa.review import PlayReview, Review

    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    text = jsonio.dumps(review(s.play("Kc"), time_limit=0.1).to_json())
    huge = "1" + "0" * 400
    for old, new, field in (
        ('"Kc":3.0}', f'"Kc":{huge}}}', "values"),
        ('"Kc":3}', f'"Kc":{huge}}}', "dd_values"),
    ):
        assert old in text
        obj = jsonio.loads(text.replace(old, new, 1))
        with pytest.raises(scopa.OptionError, match=f'bad play 1 of the review: bad {field}: "Kc": 1000'):
            Review.from_json(obj)
        with pytest.raises(scopa.OptionError, match=f"bad {field}: "):
            PlayReview.from_json(obj["plays"][0])
    play = review(s.play("Kc"), time_limit=0.1).plays[0]
    with pytest.raises(scopa.OptionError, match="bad values"):  # (built by hand: the same crash)
        dataclasses.replace(play, values={**play.values, play.move: 10**400})


def test_a_reviews_hands_and_plays_are_bounded_as_a_records_are():
    # Review.from_json took any count of hands: 10**400 (401 digits of strict JSON text) crashed
    # its summary with OverflowError (a loss divided by it), 10**9 made a review whose
    # annotations() built a list of 10**9 dicts; a play's index of 10**5000 was a review whose
    # JSON could not be written. A record holds at most scopa.match.MAX_HANDS hands, of 40 plays
    from scopa import jsonio
    from scopa.match import MAX_HANDS
    from scopa.review import MAX_REVIEW_PLAYS, PlayReview, Review

    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    r = review(s.play("Kc"), time_limit=0.1)
    text = jsonio.dumps(r.to_json())
    obj = jsonio.loads(text.replace('"hands":1,', '"hands":1' + "0" * 400 + ",", 1))
    with pytest.raises(
        scopa.OptionError, match=f"bad hands <int of 1329 bits>: expected an int in 0..{MAX_HANDS}"
    ):
        Review.from_json(obj)
    with pytest.raises(scopa.OptionError, match=f"bad hands {10**9}"):
        Review(r.plays, 10**9, 2, 0.5)
    assert Review(r.plays, MAX_HANDS, 2, 0.5).hands == MAX_HANDS
    play = r.to_json()["plays"][0]
    for field, bad, message in (
        ("play", 40, "bad play 40: expected an int in 0..39"),
        ("play", 10**5000, "bad play <int of 16610 bits>"),
        ("hand", MAX_HANDS, f"bad hand {MAX_HANDS}: expected an int in 0..{MAX_HANDS - 1}"),
    ):
        with pytest.raises(scopa.OptionError, match=message):
            PlayReview.from_json({**play, field: bad})
    assert PlayReview.from_json({**play, "play": 39, "hand": MAX_HANDS - 1}).play == 39
    # the plays read: a match's most hands of 40 plays each, and not one more (the list's length
    # checked before any play is read: below the bound the first play is what is refused)
    assert MAX_REVIEW_PLAYS == 40 * MAX_HANDS
    with pytest.raises(scopa.OptionError, match="^play 1 of the review must be"):
        Review.from_json({**r.to_json(), "plays": [0] * MAX_REVIEW_PLAYS})
    too_many = f"^a review of {MAX_REVIEW_PLAYS + 1} plays: at most {MAX_REVIEW_PLAYS} read$"
    with pytest.raises(scopa.OptionError, match=too_many):
        Review.from_json({**r.to_json(), "plays": [0] * (MAX_REVIEW_PLAYS + 1)})


def test_a_plays_json_is_refused_naming_what_it_holds():
    # PlayReview.from_json's messages said "bad the play: ...", named a figure the input did not
    # hold ("bad dd_loss None" for dd_values null beside dd_best and dd_loss, "bad dd_loss 0.0"
    # for dd_values of floats) and showed values as Python ({Move.parse('Kc'): 'x'}, "a dict of
    # scopa.Move"), not the JSON read
    from scopa.review import PlayReview

    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    play = review(s.play("Kc"), time_limit=0.1).to_json()["plays"][0]
    for changes, message in [
        ({"move": 7}, "^bad play: bad move 7: expected notation"),
        ({"dd_values": None}, "^bad play: bad dd_values None: expected a dict"),
        ({"dd_values": {"Kc": 3.0, "7dx3c4s": 4.0}}, '^bad play: bad dd_values: "Kc": 3.0, expected an int$'),
        ({"dd_values": {"Kc": 3}}, r'^bad play: bad dd_values \{"Kc": 3\}: expected a value of 7dx3c4s too$'),
        ({"dd_best": None}, "^bad play: bad dd_best None: expected a scopa.Move with dd_values"),
        ({"values": {"Kc": "x", "7dx3c4s": 4.0}}, '^bad play: bad values: "Kc": "x", expected a number$'),
        (
            {"values": {"Kc": 3.0, "7dx3c4s": True}},
            '^bad play: bad values: "7dx3c4s": true, expected a number$',
        ),
        ({"values": {"Kc": 3.0, "7dx3c4s": 4.0, "zz": 1.0}}, "^bad play: bad values: bad move 'zz'"),
        ({"dd_loss": 2}, "^bad play: dd_loss 2, but its values give 1$"),
    ]:
        with pytest.raises(scopa.OptionError, match=message):
            PlayReview.from_json({**play, **changes})
    assert PlayReview.from_json({**play, "dd_values": None, "dd_best": None, "dd_loss": None}).dd_loss is None
    with pytest.raises(scopa.OptionError, match="^bad play 2 of it: dd_loss 1, but its values give null$"):
        PlayReview._from_json({**play, "dd_values": None, "dd_best": None}, "play 2 of it")
    # the words naming the play are the review's reader's (private, as HandRecord's are)
    with pytest.raises(TypeError):
        PlayReview.from_json({**play, "dd_values": None, "dd_best": None}, "play 2 of it")  # type: ignore[call-arg]


def test_a_play_not_reviewed_holds_nothing_valued():
    # a play marked "reviewed": false but with its values, loss and mark was read back: its
    # review's summary counted it in no totals, yet listed it among the worst and annotate()
    # marked it in the record
    from scopa.review import PlayReview

    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    line = s.play("Kc")
    play = review(line, time_limit=0.1).to_json()["plays"][0]
    with pytest.raises(scopa.OptionError, match="a play not reviewed has best the move played"):
        PlayReview.from_json({**play, "reviewed": False})
    left_out = review(line, limit=scopa.Limit(stop=scopa.StopFlag(set=True))).plays[0]
    assert PlayReview.from_json(left_out.to_json()) == left_out and not left_out.reviewed
    for changes in (
        {"mark": "?"},
        {"loss": 0.5, "values": {left_out.move: -0.5, Move.parse("7dx3c4s"): 0.0}},
    ):
        with pytest.raises(scopa.OptionError, match="a play not reviewed"):
            dataclasses.replace(left_out, **changes)


@pytest.mark.skipif(TWIN_RUN, reason="slow on the twin")
def test_review_sees_the_random_players_mistakes():
    # PIMC against Random on the same deals: the review charges Random much more per play.
    losses = {0: [], 1: []}
    for seed in range(3):
        m = Match(scopa.Rules.preset("scopa", target=1), seed=seed)
        players = {0: PIMCPlayer(samples=16, time_limit=None, seed=seed), 1: RandomPlayer(seed=seed)}
        while not m.hands:
            st = m.state
            m.play(players[st.turn].choose(st.view(st.turn)))
        r = review(m.record(), time_limit=0.05)
        for p in r.plays:
            losses[p.seat].append(p.loss)
    pimc, rand = (sum(v) / len(v) for v in (losses[0], losses[1]))
    assert rand > 1.5 * pimc, (pimc, rand)


def test_review_and_replay_commands(tmp_path):
    m = played_match("scopa", 1, seed=5)
    path = tmp_path / "g.json"
    m.record().save(path)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "scopa",
            "review",
            str(path),
            "--json",
            "--time",
            "0.05",
            "--annotate",
            str(tmp_path / "a.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    js = json.loads(out.stdout)  # progress went to stderr: stdout is clean JSON
    assert len(js["plays"]) == sum(len(h.plays) for h in m.record().hands) and "summary" in js
    assert load_record(tmp_path / "a.json").hands[0].plays == m.record().hands[0].plays
    text = subprocess.run(
        [sys.executable, "-m", "scopa", "replay", str(path), "--text"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert text.returncode == 0 and text.stdout == load_record(path).text()
    bad = tmp_path / "bad.json"
    js2 = m.record().to_json()
    js2["hands"][0]["plays"][0] = "Zz"
    bad.write_text(json.dumps(js2))
    err = subprocess.run(
        [sys.executable, "-m", "scopa", "replay", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert err.returncode == 2 and "hand 1, play 1 ('Zz')" in err.stderr


def test_protocol_review_command():
    from scopa.protocol import Protocol

    m = played_match("scopa", 1, seed=6)
    hand = m.record().hands[0].to_json()
    reply = Protocol(max_time=5).handle(json.dumps({"cmd": "review", "id": 1, "record": hand, "time_ms": 30}))
    assert reply is not None and "error" not in reply and len(reply["plays"]) == len(hand["plays"])


def test_record_classes_are_plain_values():
    deal = State.deal("scopa", seed=1, dealer=0)
    rec = HandRecord(deal)
    assert rec.final() == deal and MatchRecord(deal.rules, (rec,)).scores == (0, 0)


# ------------------------------------------------------------------ audit: bad input, round trips


def decided_record(tags=None) -> MatchRecord:
    return played_match("scopa", 5, seed=1).record(tags)  # two hands, 4-0 then 1-2


def test_records_are_values_that_hash():
    # found by an audit: frozen records holding dicts (tags, annotations) could not be hashed
    rec = decided_record({"Event": "x"})
    again = load_record(rec.to_json())
    assert rec == again and hash(rec) == hash(again) and len({rec, again}) == 1
    noted = rec.hands[0].annotate({0: Annotation("a", "?")})
    assert hash(noted) == hash(load_record(MatchRecord(rec.rules, (noted,)).to_json()).hands[0])
    assert len({rec.hands[0], noted}) == 2 and {rec: 1}[again] == 1
    assert len({rec, decided_record({"Event": "y"})}) == 2


def test_load_record_of_an_unreadable_path_or_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match=r"cannot read the record 'a\\x00b': embedded null byte"):
        load_record("a\x00b")
    latin = tmp_path / "latin1.json"
    latin.write_bytes('{"format": "scopa-record", "tags": {"Event": "café"}}'.encode("latin-1"))
    with pytest.raises(RecordError, match=r"the record '.*latin1.json' is not valid JSON: not UTF-8"):
        load_record(latin)
    with pytest.raises(RecordError, match="cannot read the record '.*missing.json': No such file"):
        load_record(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="a record must be a JSON object, got \\[1\\]"):
        load_record([1])  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="the record '{\"format\": x}' is not valid JSON: Expecting value"):
        load_record('{"format": x}')  # (the text was not quoted)


def test_a_record_larger_than_the_limit_is_refused_on_load_and_on_save(tmp_path, monkeypatch):
    rec = decided_record()
    path = tmp_path / "g.json"
    rec.save(path)
    size = path.stat().st_size
    monkeypatch.setattr(scopa.records, "MAX_RECORD_BYTES", size)  # (at the limit: taken both ways)
    rec.save(tmp_path / "g.json")
    assert load_record(path) == rec
    monkeypatch.setattr(scopa.records, "MAX_RECORD_BYTES", size - 1)
    with pytest.raises(RecordError, match=f"larger than {size - 1} bytes"):
        load_record(path)
    with pytest.raises(RecordError, match=f"load_record reads at most {size - 1}"):
        rec.save(tmp_path / "h.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]


def test_save_to_a_path_that_cannot_be_written_is_an_option_error_and_leaves_no_file(tmp_path):
    rec = decided_record()
    with pytest.raises(
        scopa.OptionError, match="cannot write the record to '.*nowhere/x.json': No such file"
    ):
        rec.save(tmp_path / "nowhere" / "x.json")
    (tmp_path / "dir").mkdir()
    # a directory is named as for a read (it said the system's "Is a directory")
    with pytest.raises(scopa.OptionError, match="to '.*dir': it is a directory; expected a file$"):
        rec.save(tmp_path / "dir")
    assert [p.name for p in tmp_path.iterdir()] == ["dir"] and not any((tmp_path / "dir").iterdir())
    # an existing record is replaced whole, or left as it was
    path = tmp_path / "g.json"
    rec.save(path)
    before = path.read_bytes()
    with pytest.raises(RecordError, match="lone surrogate"):
        decided_record({"Event": "\ud800"}).save(path)  # refused when made: nothing written
    assert path.read_bytes() == before and not (tmp_path / "g.json.tmp").exists()


def test_a_hand_record_is_saved_as_a_hand_and_refused_as_a_match_is(tmp_path, monkeypatch):
    hand = decided_record().hands[0]
    path = tmp_path / "hand.json"
    hand.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == "scopa-hand"
    assert HandRecord.from_json(path.read_bytes()) == hand and load_record(path).hands == (hand,)
    with pytest.raises(scopa.OptionError, match="cannot write the hand's record to '': expected a file name"):
        hand.save("")
    with pytest.raises(scopa.OptionError, match="hand's record to '.*nowhere/x.json': No such file"):
        hand.save(tmp_path / "nowhere" / "x.json")
    monkeypatch.setattr(scopa.records, "MAX_RECORD_BYTES", path.stat().st_size - 1)
    with pytest.raises(RecordError, match="the hand's record takes .* bytes as JSON: load_record reads"):
        hand.save(tmp_path / "h.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand.json"]


def test_save_to_a_file_descriptor_or_a_read_only_file_is_refused(tmp_path, monkeypatch):
    # found by an audit: save(1) (or True) wrote the record into standard output and closed it
    # (an int is a file descriptor to os.stat and open); a file whose mode forbids writing was
    # replaced by the rename all the same (a shell's redirection would have been refused)
    rec = decided_record()
    r, w = os.pipe()
    try:
        for bad in (w, True, 1, 2, None, 3.5):
            with pytest.raises(scopa.OptionError, match=f"cannot write the record to '{bad}': expected str"):
                rec.save(bad)  # type: ignore[arg-type]
        os.fstat(w), os.fstat(1), os.fstat(2)  # (still open)
        os.set_blocking(r, False)
        with pytest.raises(BlockingIOError):
            os.read(r, 10)  # (nothing written into the pipe)
    finally:
        os.close(r)
        os.close(w)
    path = tmp_path / "ro.json"
    path.write_text("mine")
    path.chmod(0o444)
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m, **k: False if str(p) == str(path) else real(p, m, **k))
    with pytest.raises(scopa.OptionError, match="cannot write the record to '.*ro.json': Permission denied"):
        rec.save(path)  # (as root the mode would not stop a write: os.access says what it would)
    assert path.read_text() == "mine" and [p.name for p in tmp_path.iterdir()] == ["ro.json"]


def test_save_never_touches_another_file_and_keeps_the_files_mode(tmp_path):
    # the temporary file is a new one of its own: not PATH.tmp, never through a link
    rec = decided_record()
    other = tmp_path / "g.json.tmp"
    other.write_text("someone's file")
    victim = tmp_path / "victim.txt"
    victim.write_text("unrelated")
    (tmp_path / "h.json.tmp").symlink_to(victim)
    rec.save(tmp_path / "g.json")
    rec.save(tmp_path / "h.json")
    assert other.read_text() == "someone's file" and victim.read_text() == "unrelated"
    assert (tmp_path / "h.json.tmp").is_symlink() and not (tmp_path / "h.json").is_symlink()
    assert load_record(tmp_path / "h.json") == rec
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "g.json",
        "g.json.tmp",
        "h.json",
        "h.json.tmp",
        "victim.txt",
    ]
    (tmp_path / "g.json").chmod(0o600)
    rec.save(tmp_path / "g.json")  # replaced, with the mode it had
    assert (tmp_path / "g.json").stat().st_mode & 0o777 == 0o600


def test_a_failed_write_leaves_the_file_as_it_was_and_nothing_else(tmp_path, monkeypatch):
    import os

    from scopa import files

    path = tmp_path / "g.json"
    decided_record().save(path)
    before = path.read_bytes()

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(scopa.OptionError, match="cannot write the record to '.*g.json': No space left"):
        decided_record({"Event": "another"}).save(path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["g.json"]


def test_the_temporary_file_is_never_wider_than_the_file_it_replaces(tmp_path, monkeypatch):
    import os

    from scopa import files

    path = tmp_path / "g.json"
    decided_record().save(path)
    path.chmod(0o600)
    modes: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        modes.append(os.fstat(fd).st_mode & 0o777)
        real(fd)

    monkeypatch.setattr(files.os, "fsync", spy)
    decided_record({"Event": "again"}).save(path)
    assert modes == [0o600] and path.stat().st_mode & 0o777 == 0o600


def test_a_record_file_with_a_byte_order_mark_loads(tmp_path):
    # editors on Windows write one; scopa batch reads its input with one too
    rec = decided_record()
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(rec.to_json()).encode())
    assert load_record(path) == rec


def test_a_match_record_whose_dealer_does_not_move_on_is_refused():
    # RULES §5: the dealer moves one seat on in the order of play after each hand
    rec = decided_record()
    obj = rec.to_json()
    second = obj["hands"][1]
    assert rec.hands[1].dealer == (rec.hands[0].dealer + 1) % 2
    same = State.deal("scopa", seed=5, dealer=rec.hands[0].dealer)
    bad = HandRecord(same, ())
    with pytest.raises(
        RecordError,
        match="hand 2: dealt by seat 0, but the dealer moves one seat on after each hand: expected seat 1",
    ):
        MatchRecord(rec.rules, (rec.hands[0], bad))
    second["dealer"] = rec.hands[0].dealer
    second["deal"] = same.to_string()
    second["plays"], second["score"] = [], None
    with pytest.raises(RecordError, match="dealer moves one seat on"):
        load_record(obj)


@pytest.mark.parametrize(
    "plays, message",
    [
        (["garbage"], "bad play 1 'garbage': expected a scopa.Move"),
        ([1, 2], "bad play 1 1: expected a scopa.Move"),
        ("3dx3c", "bad plays '3dx3c': expected a list or tuple of scopa.Move"),
        ([None], "bad play 1 None"),
    ],
)
def test_a_hand_records_plays_must_be_moves(plays, message):
    with pytest.raises(RecordError, match=message):
        HandRecord(State.deal("scopa", seed=1, dealer=0), plays)


def test_match_and_hand_messages_name_their_own_fields():
    m = Match("scopa", seed=1)
    rnd = random.Random(1)
    while not m.hands:
        m.play(rnd.choice(m.state.legal_moves()))
    points = list(m.hands[0].score().points)
    obj = m.to_json()
    del obj["hands"][0]["points"]
    with pytest.raises(
        scopa.PositionError,
        match=rf"hand 1: no 'points', but the hand is over: expected \[{points[0]}, {points[1]}\]",
    ):
        Match.from_json(obj)
    obj["hands"][0]["points"] = [9, 9]
    with pytest.raises(scopa.PositionError, match=r"hand 1: points \[9, 9\], but the replay gives"):
        Match.from_json(obj)
    hand = m.record().hands[0].to_json()
    for version in (None, 2, "1"):
        bad = (
            {k: v for k, v in hand.items() if k != "version"}
            if version is None
            else {**hand, "version": version}
        )
        with pytest.raises(
            RecordError,
            match=r"not a hand record: format 'scopa-hand', "
            + ("no version" if version is None else f"version {re.escape(repr(version))}")
            + ", expected format 'scopa-hand' version 1",
        ):
            load_record(bad)


def test_the_play_command_with_an_unwritable_save_file_says_why(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "scopa", "play", "--seed", "1", "--opponent", "random"]
        + ["--save", str(tmp_path / "nowhere" / "x.json")],
        input="",  # (said before the first move: no move is read)
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert f"cannot write the record to '{tmp_path / 'nowhere' / 'x.json'}': no directory" in out.stderr
    assert "Your hand" not in out.stdout and "your hand" not in out.stdout.lower()
    record = tmp_path / "r.json"
    scopa.Match(scopa.Rules.preset("scopa"), seed=1).record().save(record)
    out = subprocess.run(
        [sys.executable, "-m", "scopa", "review", str(record), "--annotate", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # the write names a directory as the reads do (it said "it is a directory" alone)
    assert out.returncode == 2 and f"'{tmp_path}': it is a directory; expected a file" in out.stderr, (
        out.stderr
    )


def test_writing_into_a_device_or_a_pipe_is_not_refused_for_its_directory(tmp_path, monkeypatch):
    # found by a review: the check of a file to write asked whether its directory was writable,
    # so /dev/stdout and /dev/null (in /dev, which only root may write) were refused to everyone
    # else; what is not a regular file is written into as it is, so it is its own access that
    # counts. A link counts by the directory of the file it names. (The tests run as root, whom
    # os.access lets write anything: a user's os.access is faked here.)
    from scopa.records import check_writable

    closed = tmp_path / "closed"
    closed.mkdir()
    os.mkfifo(tmp_path / "pipe")
    (closed / "link.json").symlink_to(tmp_path / "target.json")
    (tmp_path / "ro.json").write_text("{}")
    real = os.access
    unwritable = {"/dev", str(closed), str(tmp_path / "ro.json")}
    monkeypatch.setattr(os, "access", lambda p, mode: str(p) not in unwritable and real(p, mode))
    for ok in ("/dev/null", tmp_path / "pipe", closed / "link.json", tmp_path / "new.json"):
        check_writable(ok, "the picture")
    with pytest.raises(
        scopa.OptionError, match=r"cannot write the picture to '.*new\.json': the directory .*closed"
    ):
        check_writable(closed / "new.json", "the picture")
    with pytest.raises(scopa.OptionError, match=r"ro\.json': it is not writable"):
        check_writable(tmp_path / "ro.json")


def hand_of_four_plays() -> State:
    s = State.deal("scopa", seed=2, dealer=1)
    for _ in range(4):
        s = s.play(s.legal_moves()[0])
    return s


@pytest.mark.parametrize(
    ("notes", "message"),
    [
        ({4: Annotation("x")}, r"annotation at play index 4: expected a play index in 0\.\.3"),
        ({-1: Annotation("x")}, r"annotation at play index -1: expected a play index in 0\.\.3"),
        ({"0": Annotation("x")}, r"annotation at play index '0': expected a play index"),
        ({True: Annotation("x")}, r"annotation at play index True: expected a play index"),
        ({0: "text"}, r"annotation at play index 0 \(play 1\): expected an Annotation, got 'text'"),
    ],
)
def test_annotations_are_checked_when_made_as_when_loaded(notes, message):
    rec = hand_of_four_plays().record()
    with pytest.raises(RecordError, match=message):
        rec.annotate(notes)
    with pytest.raises(RecordError, match=message):
        HandRecord(rec.deal, rec.plays, None, notes)
    (index, note), *_ = notes.items()
    if isinstance(note, Annotation):  # the same rule on load (prefixed with the hand)
        js = rec.to_json()
        js["annotations"] = [{"play": index, "comment": "x"}]
        with pytest.raises(RecordError, match="the hand: " + message):
            load_record(js)


@pytest.mark.parametrize(
    ("tags", "message"),
    [
        ({"Event": 5}, "bad tag Event 5: expected a string of at most 500 characters"),
        ({"Event": "x" * 501}, "bad tag Event 'xxx.*: expected a string of at most 500"),
        ({"Event": "\ud800"}, "lone surrogate"),
        ({"Event": 'x"]\n[Result "11-0'}, r"control character '\\n' \(a tag is one line of text\)"),
        ({"Site": "a\rb"}, "control character"),
        ({"Site": "a\u2028b"}, "control character"),
        # (an audit: a right-to-left override turned a seat's line of the text export round)
        ({"Player0": "a\u202eb"}, r"bidirectional control '\\u202e' \(it would reorder the text"),
        ({"Player0": "a\u2067b"}, "bidirectional control"),
        ({"Bad Name": "x"}, "bad tag name 'Bad Name': expected letters, digits or '_'"),
        ({"": "x"}, "bad tag name ''"),
        ({"Rules": "scopone"}, r"bad tag name 'Rules': the text export writes \[Rules\]"),
        ({5: "x"}, "bad tag name 5"),
    ],
)
def test_tags_are_checked_when_made_as_when_loaded(tags, message):
    m = played_match("scopa", 5, seed=1)
    with pytest.raises(RecordError, match=message):
        m.record(tags)
    js = m.record().to_json()
    js["tags"] = tags
    with pytest.raises(RecordError, match=message):
        load_record(js)


def test_text_export_escapes_tags_as_pgn_does():
    # a tag cannot forge a line of the export: quotes and backslashes escaped, no line breaks
    rec = decided_record({"Event": 'x"] [Result "11-0', "Site": "C:\\games\\"})
    lines = rec.text().splitlines()
    assert lines[0] == r'[Event "x\"] [Result \"11-0"]'
    assert lines[1] == r'[Site "C:\\games\\"]'
    assert sum(line.startswith("[Result ") for line in lines) == 1
    assert load_record(rec.to_json()).text() == rec.text()
    note = rec.hands[0].annotate({0: Annotation("one\nScore 11-0} two")})
    text = MatchRecord(rec.rules, (note, *rec.hands[1:])).text()
    assert "{one Score 11-0) two}" in text and "\nScore 11-0" not in text
    # a Windows line break is one break: one space, as a Unix one
    note = rec.hands[0].annotate({0: Annotation("one\r\ntwo\rthree")})
    assert "{one two three}" in MatchRecord(rec.rules, (note, *rec.hands[1:])).text()


def test_text_export_names_the_dealer_by_its_tag_whatever_the_name():
    # found by an audit: "Hand 1: You deals" for a seat named You
    rec = decided_record({"Player0": "You", "Player1": "Anna"})
    heads = [line for line in rec.text().splitlines() if line.startswith("Hand ")]
    names = ("You", "Anna")
    assert heads == [f"Hand {i + 1} (dealer: {names[h.dealer or 0]})" for i, h in enumerate(rec.hands)]
    assert {h.dealer for h in rec.hands} == {0, 1}


def test_text_export_hand_lines_say_whose_they_are_whatever_the_names():
    # found by an audit: a player named "table" gave two "table: ..." lines, one named "" a
    # line ": ..."; a name another line could have is followed by its seat
    cases = [
        ({"Player0": "table", "Player1": ""}, ["table (seat 0)", "seat 1"]),
        ({"Player0": "Bo", "Player1": "Bo"}, ["Bo (seat 0)", "Bo (seat 1)"]),
        ({"Player0": "seat 1", "Player1": "stock"}, ["seat 1 (seat 0)", "stock (seat 1)"]),
        ({"Player0": "seat 0", "Player1": "Anna"}, ["seat 0", "Anna"]),
        # (a second audit: a name written as one with its seat added named two seats alike)
        ({"Player0": "table (seat 1)", "Player1": "table"}, ["table (seat 1) (seat 0)", "table (seat 1)"]),
        ({"Player0": "Bo (seat 1)", "Player1": "Al"}, ["Bo (seat 1) (seat 0)", "Al"]),
        # (a third: `scopa play` names seat 1 "Opponent (seat 1)", written "Opponent (seat 1)
        # (seat 1)"; a name that ends with its own seat is kept, unless its start is a name too)
        ({"Player0": "You", "Player1": "Opponent (seat 1)"}, ["You", "Opponent (seat 1)"]),
        ({"Player0": "Bo", "Player1": "Bo (seat 1)"}, ["Bo", "Bo (seat 1) (seat 1)"]),
        ({"Player0": "Al", "Player1": "table (seat 1)"}, ["Al", "table (seat 1) (seat 1)"]),
    ]
    for tags, names in cases:
        rec = decided_record(tags)
        lines = rec.text().splitlines()
        first = lines.index(next(line for line in lines if line.startswith("Hand 1 ")))
        deal = rec.hands[0].deal
        assert lines[first + 1 : first + 4] == [
            f"  {names[0]}: {deal.hands[0]}",
            f"  {names[1]}: {deal.hands[1]}",
            f"  table: {deal.table or '-'}",
        ], tags
        assert lines[first] == f"Hand 1 (dealer: {names[rec.hands[0].dealer or 0]})"


def test_text_export_keeps_a_rounds_number_with_its_first_play():
    # an audit: a line broke between "7." and its play (in 18 of 60 such hands; 5 of these 20)
    filled = 0
    for seed in range(20):
        m = scopa.Match("scopone_scientifico", seed=seed)
        while not m.hands:
            m.play(m.state.legal_moves()[0])
        lines = m.record().text().splitlines()
        assert not [line for line in lines if re.search(r"\b\d+\.$", line)], seed
        assert max(map(len, lines)) <= 80
        # and filled as PGN does: a line breaks only where the next word would pass column 80
        # (mutation testing: breaking at 79 went unseen)
        start = next(i for i, line in enumerate(lines) if line.startswith("1. "))
        end = next(i for i, line in enumerate(lines) if line.startswith("Score "))
        plays = lines[start:end]
        for line, after in zip(plays, plays[1:], strict=False):
            unit = re.match(r"(\d+\. )?\S+", after)  # (a round's number goes with its play)
            assert unit and len(line) + 1 + len(unit.group(0)) > 80, (seed, line, after)
        filled += max(map(len, plays)) == 80
    assert filled  # (some line of these hands is exactly 80 columns)


def test_text_export_writes_the_rules_as_a_position_string_does():
    # found by an audit: "scopa; napola=True" (Python's booleans), where positions write true
    m = Match(scopa.Rules.preset("scopa", napola=True, target=3), seed=1)
    lines = m.record().text().splitlines()
    assert lines[:2] == ['[Rules "scopa;napola=true"]', '[Target "3"]']
    assert m.state.to_string().startswith("scopa;target=3;napola=true ")


def test_numbers_in_a_record_are_ints_not_floats_or_bools():
    js = decided_record().to_json()
    a, b = js["hands"][0]["score"]
    for bad in ([float(a), float(b)], [a, float(b)], [True, False], [a, b, 0], [a, -1]):
        js["hands"][0]["score"] = bad
        with pytest.raises(RecordError, match=re.escape(f"hand 1: bad score {bad}: expected two ints")):
            load_record(js)
    js["hands"][0]["score"] = [a, b]
    for target in (3.0, True, "3"):
        js["target"] = target
        expected = re.escape(f"bad record target {target!r}: expected an integer")
        with pytest.raises(RecordError, match=expected):
            load_record(js)
    hand = hand_of_four_plays().record().to_json()  # dealt by seat 1
    for dealer in (True, 1.0, "1", None):
        hand["dealer"] = dealer
        with pytest.raises(
            RecordError, match=re.escape(f"the hand: bad dealer {dealer!r}: expected the deal's seat, 1")
        ):
            load_record(hand)


def test_a_record_target_that_differs_from_its_rules_target_is_refused():
    # RULES §5: the target is the rules'; as Match.from_json, a different one is an error
    js = decided_record().to_json()
    js["rules"] = {"preset": "scopa", "target": 21}
    with pytest.raises(RecordError, match="record target 5 differs from its rules' 21"):
        load_record(js)
    del js["target"]
    assert load_record(js).target == 21
    js["target"] = 21.0  # (it "differed from its rules' 21")
    with pytest.raises(RecordError, match=r"bad record target 21.0: expected an integer, its rules' 21$"):
        load_record(js)
    # a hand record's rules are its own: a target its deal does not say is refused (an audit:
    # the deal's target was taken, without a word, and written back without the record's)
    hand = decided_record().hands[0].to_json()
    assert hand["rules"] == {"preset": "scopa", "target": 5} and ";target=5 " in hand["deal"]
    assert load_record(hand).rules.target == 5
    hand["rules"] = {"preset": "scopa", "target": 3}
    with pytest.raises(RecordError, match=r"the hand: the deal's target 5 is not the record's rules' \(3\)"):
        load_record(hand)


def test_records_read_back_equal_to_what_was_written(tmp_path):
    rec = decided_record({"Event": "round trip"})
    assert rec.winner is not None and rec.tags["Result"] == "{}-{}".format(*rec.scores)
    assert load_record(rec.to_json()) == rec
    rec.save(tmp_path / "g.json")
    assert load_record(tmp_path / "g.json") == rec
    # a Result given is kept; one is added to a decided record made without it
    assert MatchRecord(rec.rules, rec.hands).tags == {"Result": rec.tags["Result"]}
    assert MatchRecord(rec.rules, rec.hands, {"Result": "*"}).tags == {"Result": "*"}
    # an empty comment stays empty (it is not None)
    hand = hand_of_four_plays().record().annotate({0: Annotation(comment=""), 1: Annotation(mark="?")})
    back = load_record(hand.to_json()).hands[0]
    assert back.annotations == {0: Annotation(comment=""), 1: Annotation(mark="?")} == hand.annotations


def test_records_made_in_memory_that_load_would_refuse_are_refused_when_made():
    rec = decided_record()
    first, *rest = rec.hands
    unfinished = HandRecord(first.deal, first.plays[:3])
    with pytest.raises(RecordError, match="hand 1: unfinished, but more hands follow"):
        MatchRecord(rec.rules, (unfinished, *rest))
    with pytest.raises(RecordError, match=f"hand {len(rec.hands) + 1}: the match was already won"):
        MatchRecord(rec.rules, (*rec.hands, first))
    with pytest.raises(RecordError, match=r"bad score \(1\.0, 2\): expected two ints"):
        HandRecord(first.deal, first.plays, (1.0, 2))  # type: ignore[arg-type]
    other = State.deal("scopone", seed=1, dealer=0)
    with pytest.raises(RecordError, match="hand 1: the deal's rules 'scopone' are not the record's"):
        MatchRecord(rec.rules, (HandRecord(other),))
    # RULES §4 and §3: the score is the replay's; a hand's plays are legal where they are made
    points = first.score
    assert points is not None
    wrong = (points[0] + 1, points[1])
    with pytest.raises(RecordError, match=rf"score \({wrong[0]}, {wrong[1]}\), but the replay gives"):
        HandRecord(first.deal, first.plays, wrong)
    with pytest.raises(RecordError, match="no 'score', but the hand is over"):
        HandRecord(first.deal, first.plays)
    with pytest.raises(RecordError, match=r"score \(0, 0\) for a hand that is not over"):
        HandRecord(first.deal, first.plays[:3], (0, 0))
    with pytest.raises(RecordError, match=rf"play 2 \('{first.plays[0]}'\): "):
        HandRecord(first.deal, (first.plays[0], first.plays[0]))
    with pytest.raises(RecordError, match=f"play {len(first.plays) + 1} .*: the hand is already over"):
        HandRecord(first.deal, (*first.plays, first.plays[-1]), points)
    # a record made from a State checks its plays without replaying them, as from_json does
    assert HandRecord.from_state(first.final()) == first.annotate({}) == dataclasses.replace(first)


def test_records_of_more_hands_than_a_match_holds_are_refused(monkeypatch):
    # RULES §5: a match holds at most scopa.match.MAX_HANDS hands (see test_match_and_play)
    m = Match(scopa.Rules.preset("scopa", target=100), seed=1)
    while len(m.hands) < 3:
        m.play(m.state.legal_moves()[0])
    js = m.record().to_json()
    monkeypatch.setattr(scopa.match, "MAX_HANDS", 3)  # (as many as it holds: taken)
    assert load_record(js) == m.record()
    monkeypatch.setattr(scopa.match, "MAX_HANDS", 2)
    with pytest.raises(
        RecordError, match=r"a record of 3 hands: a match holds at most 2 \(scopa.match.MAX_HANDS\)"
    ):
        load_record(js)
    with pytest.raises(RecordError, match="a match holds at most 2"):
        m.record()


@pytest.mark.skipif(TWIN_RUN, reason="slow on the twin (the limit is tested with a small one too)")
def test_a_match_of_more_than_1000_hands_records_and_loads_back():
    # RULES §5: a match to the highest target takes thousands of hands
    m = Match(scopa.Rules.preset("scopa", target=10_000), seed=1)
    while len(m.hands) < 1001:
        m.play(m.state.legal_moves()[0])
    back = load_record(m.record().to_json())
    assert len(back.hands) == 1001 and back.scores == m.scores
    again = Match.from_json(m.to_json())
    assert again.to_json() == m.to_json()


def test_the_text_export_example_of_the_docs_is_the_demo_matchs():
    page = (Path(__file__).resolve().parent.parent / "docs" / "records.md").read_text(encoding="utf-8")
    example = page.split("## Text export", 1)[1].split("```\n", 2)[1].splitlines()
    m = Match("scopa", seed=3)
    while not m.is_over:
        m.play(m.state.legal_moves()[0])
    lines = m.record({"Event": "demo"}).text().splitlines()
    header = example.index("")
    assert example[:header] == lines[: lines.index("")]  # the tags exactly
    at = 0
    for want in example[header:]:  # then each line, in order ("..." ends a line cut short)
        while not (lines[at] == want or (want.endswith("...") and lines[at].startswith(want[:-3]))):
            at += 1
        at += 1


def test_the_record_schema_holds_as_many_hands_as_a_match():
    import json as _json

    from scopa.match import MAX_HANDS

    schema = _json.loads((Path(scopa.__file__).parent / "record.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["match"]["properties"]["hands"]["maxItems"] == MAX_HANDS


def test_an_annotation_says_something_and_a_play_has_one():
    rec = hand_of_four_plays().record()
    with pytest.raises(RecordError, match="an empty annotation: expected a comment, a mark or both"):
        Annotation()
    js = rec.to_json()
    js["annotations"] = [{"play": 0}]
    empty = r"the hand, annotation at play index 0 \(play 1\): an empty annotation"
    with pytest.raises(RecordError, match=empty):
        load_record(js)
    js["annotations"] = [{"play": 1, "mark": "?"}, {"play": 1, "mark": "!"}]
    two = r"the hand: two annotations at play index 1 \(play 2\): expected one a play"
    with pytest.raises(RecordError, match=two):
        load_record(js)
    js["annotations"] = [{"play": 1, "mark": "?"}, {"play": 2, "mark": "!"}]
    assert load_record(js).hands[0].annotations == {1: Annotation(mark="?"), 2: Annotation(mark="!")}
    # a null comment or mark is refused, as the schema refuses it (found by an audit: it loaded)
    for key, other in (("comment", {"mark": "!"}), ("mark", {"comment": "x"})):
        js["annotations"] = [{"play": 1, **other, key: None}]
        null = rf"the hand, annotation at play index 1 \(play 2\): {key} null: expected (a string|one of !!)"
        with pytest.raises(RecordError, match=null):
            load_record(js)


def test_match_records_and_review_refuse_what_is_not_a_record():
    s = hand_of_four_plays()
    with pytest.raises(RecordError, match="bad record hands None: expected a tuple of HandRecords"):
        MatchRecord(s.rules, None)  # type: ignore[arg-type]
    r = review(s, limit=scopa.Limit(time=5))
    assert r.annotate(s.record()) == r.annotate(MatchRecord(s.rules, (s.record(),))).hands[0]
    for bad in (7, s, None):
        with pytest.raises(
            RecordError, match=r"^bad record .*: expected a scopa.MatchRecord or a scopa.HandRecord$"
        ):
            r.annotate(bad)  # type: ignore[call-overload]
    assert r.annotate(MatchRecord(s.rules, (s.record(),))).hands[0].plays == s.record().plays


def _without(obj, path):
    """A deep copy of the JSON ``obj`` without the key at ``path`` (a tuple of keys/indexes)."""
    out = json.loads(json.dumps(obj))
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    return out


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (("format",), "not a match record"),
        (("version",), "not a match record"),
        (("rules",), "bad record rules"),
        (("hands",), "no 'hands' in the record"),
        (("hands", 0, "deal"), "hand 1: 'deal' must be a position string"),
        (("hands", 0, "plays"), "hand 1: no 'plays'"),
        (("hands", 1, "score"), "hand 2: no 'score', but the hand is over"),
    ],
)
def test_what_the_schema_requires_load_requires(path, message):
    # the loader and the shipped JSON Schema agree on the fields a record must have
    full = decided_record().to_json()
    jsonschema.validate(full, schema())
    bad = _without(full, path)
    if path[-1] != "score":  # (the schema cannot know that a hand is over: only the replay can)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema())
    with pytest.raises(RecordError, match=re.escape(message)):
        load_record(bad)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tags": {"Event day": "x"}}, "bad tag name 'Event day'"),
        ({"tags": {"Rules": "x"}}, "bad tag name 'Rules'"),
        ({"tags": {"Event": "one\ntwo"}}, "control character"),
        ({"tags": {"Event": "one\u2028two"}}, "control character"),
        ({"tags": {"Event": "one\n"}}, "control character"),  # (a final line break too)
        ({"tags": {"Event\n": "x"}}, "bad tag name 'Event\\n'"),
        ({"tags": {"Event": "a\u202db"}}, "bidirectional control"),
        ({"rules": {"preset": "scopa", "ace_sweep_is_scopa": True}}, "needs ace_takes_all=True"),
        ({"rules": {"preset": "scopa", "napoli": True}}, "unknown rule option 'napoli'"),
        ({"rules": {"preset": "scopa", "napola": 1}}, "bad napola 1"),
        ({"annotations": [{"play": 0}]}, "an empty annotation"),
        # (lone surrogates: valid JSON text, never UTF-8; the schema let them through)
        ({"tags": {"Event": "a\ud800b"}}, "lone surrogate"),
        ({"annotations": [{"play": 0, "comment": "a\udc00"}]}, "lone surrogate"),
    ],
)
def test_what_the_loader_refuses_the_schema_refuses(change, message):
    # the shipped JSON Schema refuses, on its own, what load_record refuses in tags, rules
    # and annotations (an audit found all of these valid by the schema)
    js = decided_record(tags={"Event": "x"}).to_json()
    if "annotations" in change:
        js["hands"][0]["annotations"] = change["annotations"]
    else:
        js.update(change)
    assert SCHEMA.is_valid(decided_record(tags={"Event": "x"}).to_json())
    assert not SCHEMA.is_valid(js)
    with pytest.raises(scopa.ScopaError, match=re.escape(message)):
        load_record(js)


def test_what_the_schema_leaves_optional_load_leaves_optional():
    full = decided_record(tags={"Event": "x"}).to_json()
    rec = load_record(full)
    for path in [("target",), ("tags",), ("hands", 0, "dealer"), ("hands", 1, "dealer")]:
        lighter = _without(full, path)
        jsonschema.validate(lighter, schema())
        assert load_record(lighter).hands == rec.hands
    unfinished = hand_of_four_plays().record().to_json()
    for path in [("score",), ("dealer",)]:
        lighter = _without(unfinished, path)
        jsonschema.validate(lighter, schema())
        assert load_record(lighter).hands == load_record(unfinished).hands


def test_a_play_that_is_no_move_is_named_within_bounds():
    # (found by the fuzzer) the message quotes a bad play through the bounded repr: an int too
    # long for str() or a list nested too deep for repr() is a RecordError, not a ValueError or
    # a RecursionError of the message itself
    rec = hand_of_four_plays().record().to_json()
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    for bad in (10**5000, deep, None):
        with pytest.raises(RecordError, match=r"the hand, play 1 \(.*\): "):
            HandRecord.from_json({**rec, "plays": [bad]})


def test_a_records_dicts_changed_after_it_was_made_are_checked_again_when_written(tmp_path):
    # found by an audit: a frozen record holds its tags and annotations in plain dicts; a tag
    # changed there was saved and exported (a raw line break in the text), and the file then
    # refused on load
    rec = decided_record()
    with pytest.raises(TypeError, match="a record's tags and annotations cannot be changed"):
        rec.tags["Rules"] = "evil\nline"  # (read-only since: an API audit, records hash)
    dict.__setitem__(rec.tags, "Rules", "evil\nline")  # (forced in)
    for write in (rec.to_json, rec.text, lambda: rec.save(tmp_path / "x.json")):
        with pytest.raises(RecordError, match="bad tag name 'Rules'"):
            write()
    assert not (tmp_path / "x.json").exists()
    hand = rec.hands[0]
    with pytest.raises(TypeError):
        hand.annotations[999] = Annotation(mark="?")
    dict.__setitem__(hand.annotations, 999, Annotation(mark="?"))
    with pytest.raises(RecordError, match="annotation at play index 999: expected a play index"):
        hand.to_json()


def test_text_export_writes_a_comments_bidirectional_controls_as_spaces():
    # Found by an audit: a tag may not hold U+202A..U+202E or U+2066..U+2069 (it would reorder
    # the text around it), but a comment's went into the movetext as they were, and an override
    # turned the plays after it on its line round
    hand = hand_of_four_plays().record()
    for control in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        text = MatchRecord(hand.rules, (hand.annotate({0: Annotation(comment=f"a{control}b")}),)).text()
        assert control not in text and "{a b}" in text


def test_a_play_longer_than_the_schema_allows_is_refused():
    # Found by an audit: a play padded with spaces past the schema's 64 characters loaded (the
    # notation is read stripped), though the shipped schema refuses the record.
    js = hand_of_four_plays().record().to_json()
    padded = dict(js, plays=[js["plays"][0] + " " * 70, *js["plays"][1:]])
    assert not SCHEMA.is_valid(padded)
    with pytest.raises(RecordError, match=r"the hand, play 1 \('.*'\): a play of 72 characters"):
        load_record(padded)
    at_most = dict(js, plays=[js["plays"][0] + " " * (64 - len(js["plays"][0])), *js["plays"][1:]])
    assert SCHEMA.is_valid(at_most)
    assert load_record(at_most).hands[0].plays == hand_of_four_plays().record().plays


def test_a_path_that_is_no_path_is_refused_as_a_record_error():
    # Found by an audit: a PathLike whose __fspath__ gives an int raised a TypeError from
    # load_record (MatchRecord.save already said it as an error of its own).
    class NoPath(os.PathLike):  # type: ignore[type-arg]
        def __fspath__(self):  # type: ignore[no-untyped-def]
            return 5

    with pytest.raises(RecordError, match=r"cannot read the record .*NoPath.*: expected .*__fspath__"):
        load_record(NoPath())


def test_the_review_module_and_the_review_function_are_both_reachable_as_documented():
    # scopa.review (and `import scopa.review as rv`) is the function, which shadows the
    # module's attribute on the package; the module's names come with `from scopa.review import`
    # (the module's docstring says so: an API review found docstrings naming scopa.review.X)
    import importlib
    import sys

    import scopa.review as rv
    from scopa.review import DEFAULT_TIME, PlayReview, Review, load_review
    from scopa.review import review as function

    assert rv is scopa.review is function and callable(rv)
    module = importlib.import_module("scopa.review")
    assert module is sys.modules["scopa.review"] and module.DEFAULT_TIME == DEFAULT_TIME > 0
    assert (scopa.Review, scopa.PlayReview, scopa.load_review) == (Review, PlayReview, load_review)
    assert "``import scopa.review as rv``" in (module.__doc__ or "")


def test_a_hand_records_reader_names_the_hand_itself():
    # An API review: `where`, the words its messages named the hand with, was a public argument
    # of HandRecord.from_json (for the match record's reader, which says "hand 2")
    import inspect

    assert list(inspect.signature(HandRecord.from_json).parameters) == ["obj", "rules"]
    with pytest.raises(RecordError, match=r"^the hand: expected a JSON object, got \[1\]$"):
        HandRecord.from_json([1])
    rec = decided_record().to_json()
    rec["hands"] = [rec["hands"][0], [1]]
    with pytest.raises(RecordError, match=r"hand 2: expected a JSON object, got \[1\]"):
        MatchRecord.from_json(rec)


def test_a_reviews_plays_by_seat_take_a_seat_of_its_game_only():
    # An API review: by_seat("0") and by_seat(2) of a 2-player game gave [] (no plays), where a
    # seat out of the game is refused elsewhere (State.view(2), HandScore.difference(2))
    import numpy as np

    s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    r = scopa.review(s.play("Kc").play("2c"), time_limit=0.1)
    assert [str(p.move) for p in r.by_seat(0)] == ["Kc"] and [str(p.move) for p in r.by_seat(1)] == ["2c"]
    assert r.by_seat(np.int64(1)) == r.by_seat(1)
    for bad in ("0", 2, -1, True, 1.0, None):
        with pytest.raises(scopa.OptionError, match=r"^bad seat .*: expected a seat in 0\.\.1$"):
            r.by_seat(bad)  # type: ignore[arg-type]
    four = scopa.review(scopa.State.deal("scopone", seed=1), time_limit=0.1)
    assert four.by_seat(3) == [] and four.players == 4
    with pytest.raises(scopa.OptionError, match=r"expected a seat in 0\.\.3$"):
        four.by_seat(4)


def test_the_loaders_take_their_own_objects():
    # An API review: load_record(a MatchRecord) and load_review(a Review) said "must be a JSON
    # object", where State.of, Rules.of, Card.parse and CardSet.parse take their own type
    from scopa.records import MatchRecord, load_record
    from scopa.review import load_review

    s = scopa.State.deal("scopa", seed=1)
    s = s.play(s.legal_moves()[0])
    hand = s.play(s.legal_moves()[0]).record()
    match = MatchRecord(hand.rules, (hand,))
    assert load_record(match) is match and load_record(hand) == match == load_record(hand.to_json())
    r = scopa.review(match, time_limit=0.1)
    assert load_review(r) is r and load_review(r.to_json()) == r
    for bad in (None, 5, s):
        with pytest.raises(scopa.ScopaError):
            load_record(bad)  # type: ignore[arg-type]
        with pytest.raises(scopa.ScopaError):
            load_review(bad)  # type: ignore[arg-type]


def test_a_hand_record_is_annotated_as_the_hand_it_is():
    # An API review: review(hand_record) was taken, review.annotate(hand_record) refused
    # ("expected a scopa.MatchRecord"); it gives back the hand record annotated, the same
    # annotations as the one-hand match record's
    import random

    from scopa.records import HandRecord, MatchRecord

    rng = random.Random(3)
    s = scopa.State.deal("scopa", seed=3)
    for _ in range(8):
        s = s.play(rng.choice(s.legal_moves()))
    hand = s.record()
    r = scopa.review(hand, time_limit=0.05)
    annotated = r.annotate(hand)
    assert isinstance(annotated, HandRecord) and annotated.plays == hand.plays
    assert annotated == r.annotate(MatchRecord(hand.rules, (hand,))).hands[0]
    assert annotated.annotations and annotated.annotations == r.annotations()[0]


def test_a_hand_records_reader_takes_rules_in_any_form_rules_of_takes():
    # An API review: State.deal, Match and arena took "scopa" or "scopa;napola=true";
    # HandRecord.from_json(obj, rules="scopa") refused them. A record built by hand holds a
    # Rules, as every value's fields hold values (docs/api/formats.md)
    from scopa.records import HandRecord, MatchRecord

    rules = scopa.Rules.preset("scopa", napola=True)
    s = scopa.State.deal(rules, seed=2)
    hand = s.play(s.legal_moves()[0]).record()
    inner = hand.to_json(standalone=False)
    for form in (rules, "scopa;napola=true", rules.to_json(), json.dumps(rules.to_json()).encode()):
        assert HandRecord.from_json(inner, rules=form) == hand
        assert HandRecord.from_json(json.dumps(inner), rules=form) == hand
    with pytest.raises(scopa.RulesError, match="unknown game 'briscola'"):
        HandRecord.from_json(inner, rules="briscola")
    with pytest.raises(scopa.RulesError, match="bad rules 5"):
        HandRecord.from_json(inner, rules=5)  # type: ignore[arg-type]
    # a hand record of its own given rules too: said so (it said "unknown fields 'format', ...")
    own = "the hand: a hand record of its own (it has its format and rules): expected it without rules="
    with pytest.raises(RecordError, match=re.escape(own)):
        HandRecord.from_json(hand.to_json(), rules=rules)
    assert HandRecord.from_json(hand.to_json()) == hand
    # a match record's reader names its hands its own way, and a hand there holds no rules
    match = MatchRecord(rules, (hand,)).to_json()
    match["hands"][0] = hand.to_json()
    with pytest.raises(RecordError, match="^hand 1: unknown fields 'format', 'rules', 'version'$"):
        scopa.records.load_record(match)
    for bad in ("scopa", None):
        with pytest.raises(RecordError, match=rf"^bad record rules {bad!r}: expected a Rules$"):
            MatchRecord(bad)  # type: ignore[arg-type]
