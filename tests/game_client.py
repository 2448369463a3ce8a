"""A game app's side of the protocol, as a JavaScript client would write it: it deals, asks
for views and moves, plays, scores, and checks each play's events against the positions
(an independent re-derivation, RULES §3-§5). Shared by the stdio, HTTP and WebSocket tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Ask = Callable[[dict[str, Any]], dict[str, Any]]


def _cards(pos: dict[str, Any], key: str) -> set[str]:
    return set(pos.get(key) or [])


def check_events(
    before: dict[str, Any], move: str, after: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """The events of one play, re-derived from the JSON positions around it."""
    seat = before["turn"]
    team = seat % 2
    kinds = [e["type"] for e in events]
    table_before, table_after = _cards(before, "table"), _cards(after, "table")
    played = move.split("x")[0]
    captured = (
        {move.split("x")[1][i : i + 2] for i in range(0, len(move.split("x")[1]), 2)}
        if "x" in move
        else set()
    )
    # capture: with the cards taken from the table
    if "capture" in kinds:
        e = events[kinds.index("capture")]
        assert e["seat"] == seat and e["team"] == team and e["card"] == played
        assert set(e["cards"]) <= table_before and set(e["cards"]) == captured
        assert set(e["cards"]) | {played} <= set(after["captured"][team])
        assert "lay_down" not in kinds
    else:
        assert not captured
        # lay_down: the card played is on the table now, or went with it to the last capturer
        e = events[kinds.index("lay_down")]
        assert e == {"type": "lay_down", "seat": seat, "team": team, "card": played}, e
        assert played in table_after or (not table_after and played in set(sum(after["captured"], [])))
    # scopa: the team's scope went up by one
    gained = after["scope"][team] - before["scope"][team]
    assert gained == kinds.count("scopa") and gained in (0, 1)
    # refill: every seat gets a block when the stock shrinks
    dealt = len(before["stock"]) - len(after["stock"])
    refills = [e for e in events if e["type"] == "refill"]
    assert sum(e["count"] for e in refills) == dealt
    assert not refills or sorted(e["seat"] for e in refills) == list(range(len(before["hands"])))
    over = not after["stock"] and not any(after["hands"])
    # the last capturer takes what is left on the table
    left = (table_before - captured) | (set() if captured else {played})
    if over and left and after["last_capture"] is not None:
        e = events[kinds.index("table_to_last_capturer")]
        assert e["team"] == after["last_capture"] and set(e["cards"]) == left
        assert table_after == set()
    else:
        assert "table_to_last_capturer" not in kinds
    assert ("hand_over" in kinds) == over
    kinds_in_order = ("capture", "lay_down", "scopa", "refill", "table_to_last_capturer", "hand_over")
    order = [k for k in kinds_in_order if k in kinds]
    assert [k for k in kinds if k != "refill"] == [k for k in order if k != "refill"]


def play_hand(ask: Ask, rules: Any, seed: int, player: str = "greedy", time_ms: float = 50) -> dict[str, Any]:
    """One whole hand with only deal, view, bestmove, play and score; returns the score."""
    position = ask({"cmd": "deal", "rules": rules, "seed": seed})["position"]
    plays = 0
    while any(position["hands"]) or position["stock"]:
        seat = position["turn"]
        view = ask({"cmd": "view", "position": position, "seat": seat})["view"]
        hidden = [h for i, h in enumerate(view["hands"]) if i != seat]
        assert all(isinstance(h, int) for h in hidden) and isinstance(view["stock"], int)
        move = ask({"cmd": "bestmove", "view": view, "player": player, "time_ms": time_ms, "seed": seed})[
            "move"
        ]
        legal = ask({"cmd": "legal", "position": position})["moves"]
        assert move in legal
        reply = ask({"cmd": "play", "position": position, "move": move})
        check_events(position, move, reply["position"], reply["events"])
        position = reply["position"]
        plays += 1
        assert len(position["history"]["plays"]) == plays
    score = ask({"cmd": "score", "position": position})
    total = (
        sum(c["points"][0] for c in score["categories"].values()),
        sum(c["points"][1] for c in score["categories"].values()),
    )
    assert list(total) == score["points"]
    return score


def play_match(ask: Ask, rules: Any, target: int, seed: int) -> dict[str, Any]:
    """A whole match with match_new and match_play (first legal move each time)."""
    match = ask({"cmd": "match_new", "rules": rules, "target": target, "seed": seed})["match"]
    hands = 0
    while match["winner"] is None:
        legal = ask({"cmd": "legal", "position": match["position"]})["moves"]
        before = match
        reply = ask({"cmd": "match_play", "match": match, "move": legal[0]})
        match = reply["match"]
        kinds = [e["type"] for e in reply["events"]]
        if "hand_over" in kinds:
            hands += 1
            assert match["hands_played"] == hands == before["hands_played"] + 1
            points = next(e for e in reply["events"] if e["type"] == "hand_over")["points"]
            assert match["scores"] == [before["scores"][0] + points[0], before["scores"][1] + points[1]]
            assert ("match_over" in kinds) == (match["winner"] is not None)
            if match["winner"] is None:
                assert "deal" in kinds and match["dealer"] == (before["dealer"] + 1) % len(
                    match["position"]["hands"]
                )
    a, b = match["scores"]
    assert max(a, b) >= target and a != b and match["winner"] == (0 if a > b else 1)
    return match
