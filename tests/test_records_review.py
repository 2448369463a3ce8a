"""Game records (save, load, replay, validation), undo, and the move-by-move review."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import jsonschema
import pytest
from conftest import TWIN_RUN

import scopa
from scopa import Match, State
from scopa.players import PIMCPlayer, RandomPlayer
from scopa.records import HandRecord, MatchRecord, RecordError, load_record, schema
from scopa.review import BLUNDER, MISTAKE, review

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
    assert finals == m.hands and all(s.is_over for s in finals)
    # RULES §5: hands and dealers in order, each deal a whole deck
    assert [h.dealer for h in back.hands] == [
        (m.first_dealer + i) % m.rules.players for i in range(len(m.hands))
    ]
    text = back.text()
    assert '[Event "test"]' in text and f"Hand {len(m.hands)}:" in text and "Match" in text


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


def test_match_undo_goes_back_across_hands():
    m = Match("scopa", seed=2)
    while not m.hands:
        m.play(m.state.legal_moves()[0])
    assert m.state.history == () and len(m.hands) == 1
    final = m.hands[0]
    m.undo()
    assert m.hands == [] and m.scores == (0, 0) and m.state == final.undo()
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
    annotated = r.annotate(rec)
    marks = sum(1 for h in annotated.hands for a in h.annotations.values() if a.mark)
    assert marks == sum(p["mark"] is not None for p in js["plays"])
    assert load_record(annotated.to_json()).hands[0].annotations == annotated.hands[0].annotations


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
