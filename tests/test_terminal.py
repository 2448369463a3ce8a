"""``scopa play`` in a pseudo-terminal, as a new player uses it: a whole hand with hint, bad
input, undo and save; then resumed with --load and played to the end, with the review."""

from __future__ import annotations

import json
import os
import sys

import pytest

import scopa
from scopa.records import load_record

pexpect = pytest.importorskip("pexpect")
if os.name == "nt":
    pytest.skip("pseudo-terminals are a POSIX thing", allow_module_level=True)

PROMPTS = [r"your move> ", r"press Enter for the next hand", r"review the last hand\? \(y/N\) ", pexpect.EOF]


def spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, COLUMNS="250", LINES="50", TERM="xterm", NO_COLOR="1")
    return pexpect.spawn(
        sys.executable, ["-m", "scopa", "play", *args], env=env, encoding="utf-8", timeout=60
    )


def test_a_session_with_save_load_undo_hint_and_review(tmp_path):
    save = str(tmp_path / "game.json")
    common = ["--game", "scopa", "--opponent", "greedy", "--seed", "4", "--target", "11", "--save", save]
    p = spawn(*common)
    p.expect("suits d coins \\(denari\\), c cups \\(coppe\\), s swords \\(spade\\), b clubs \\(bastoni\\)")
    p.expect("deal")  # the dealer is named and the table shown before anyone plays
    p.expect("Table: ")
    p.expect(PROMPTS[0])
    p.sendline("help")
    p.expect("Commands: hint, undo")
    p.expect(PROMPTS[0])
    p.sendline("hint")
    p.expect(r"hint: .+ \([+-]\d\.\d\d\)")
    p.expect(PROMPTS[0])
    p.sendline("99")
    p.expect("no move 99: choose 1 to \\d")
    p.expect(PROMPTS[0])
    p.sendline("zz")
    p.expect("bad move 'zz'")
    p.expect(PROMPTS[0])
    p.sendline("1")
    p.expect("You play")
    p.expect(PROMPTS[0])
    p.sendline("undo")
    p.expect("undid: .*you ")
    p.expect(PROMPTS[0])
    p.sendline("cards")
    p.expect("Played this hand: ")
    p.expect(PROMPTS[0])
    # play on (the first move each time) to the end of the first hand
    while True:
        p.sendline("1")
        i = p.expect(PROMPTS)
        if i != 0:
            break
    assert i == 1, "the first hand should not end an 11-point match"
    assert "Hand score" in p.before
    assert "cards " in p.before and "coins " in p.before and "primiera " in p.before
    p.expect("saved to") if "saved to" not in p.before else None
    rec = load_record(save)
    assert rec.hands and rec.hands[0].score is not None
    p.terminate(force=True)

    # resume: the finished hand is kept, the match goes on to its end
    p = spawn(*common, "--load", save)
    p.expect("resumed .*: 1 hand\\(s\\) played")
    while True:
        i = p.expect(PROMPTS)
        if i == 0:
            p.sendline("1")
        elif i == 1:
            p.sendline("")
        elif i == 2:
            before = p.before
            p.sendline("y")
            break
        else:
            pytest.fail("the game ended without offering the review:\n" + p.before)
    assert "You win" in before or "The computer wins" in before
    p.expect("points lost per hand")
    p.expect(pexpect.EOF)
    final = load_record(save)
    assert final.winner is not None and max(final.scores) >= 11
    assert json.loads(open(save).read())["tags"]["Player0"] == "You"
    m = scopa.Match.from_record(final)
    assert m.is_over and m.scores == final.scores


def test_italian_deck_and_options():
    p = spawn(
        "--game", "scopone_scientifico", "--deck", "italian", "--option", "capture_rule=fewest", "--seed", "2"
    )
    p.expect(PROMPTS[0])
    hand = p.before.split("your hand: ")[1].splitlines()[0]
    assert len(hand.split()) == 10 and not set(hand) & set("♦♥♠♣") and set(hand) & set("dcsb")
    p.sendline("quit")
    p.expect(pexpect.EOF)
    bad = spawn("--game", "scopa", "--option", "nonsense=1")
    bad.expect("unknown rule option 'nonsense'")
    bad.expect(pexpect.EOF)
