"""Pictures of the game (scopa.svg): well-formed SVG whose cards are the position's, nothing of
the hidden cards in a view, and snapshots of a few positions in each deck (regenerate them
with SCOPA_UPDATE_SNAPSHOTS=1 after a deliberate change of the drawing)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import scopa
from scopa import svg

NS = "{http://www.w3.org/2000/svg}"
SNAPSHOTS = Path(__file__).parent / "snapshots"


def face_up(text: str) -> list[str]:
    root = ET.fromstring(text)
    assert root.tag == NS + "svg"
    return [g.get("data-card") for g in root.iter(NS + "g") if g.get("data-card")]  # type: ignore[misc]


def backs(text: str) -> int:
    return sum(1 for g in ET.fromstring(text).iter(NS + "g") if "back" in (g.get("class") or "").split())


def mentions(text: str, card: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(card)}(?![A-Za-z0-9])", text) is not None


def positions() -> list[scopa.State]:
    out = []
    for i, game in enumerate(scopa.PRESETS):
        s = scopa.State.deal(game, seed=i, dealer=i % 2)
        for _ in range(5 + i):
            s = s.play(s.legal_moves()[-1])
        out.append(s)
    return out


@pytest.mark.parametrize("deck", svg.DECKS)
def test_every_card_is_one_element_with_its_name(deck):
    for c in scopa.DECK:
        text = svg.card(c, deck=deck)
        assert face_up(text) == [str(c)]
    assert backs(svg.card_back()) == 1 and face_up(svg.card_back()) == []
    with pytest.raises(scopa.ScopaError, match="unknown deck 'tarot'"):
        svg.card("7d", deck="tarot")


@pytest.mark.parametrize("deck", svg.DECKS)
def test_a_state_shows_every_card_in_play(deck):
    for s in positions():
        text = svg.position(s, deck=deck)
        shown = sorted(face_up(text))
        expected = sorted(str(c) for c in [*(c for h in s.hands for c in h), *s.table])
        assert shown == expected
        root = ET.fromstring(text)
        turn = [g.get("data-seat") for g in root.iter(NS + "g") if g.get("data-turn")]
        assert turn == [str(s.turn)]
        piles = {
            g.get("data-team"): (g.get("data-count"), g.get("data-scope"))
            for g in root.iter(NS + "g")
            if g.get("class") == "pile"
        }
        assert piles == {str(t): (str(len(s.captured[t])), str(s.scope[t])) for t in (0, 1)}


@pytest.mark.parametrize("deck", svg.DECKS)
def test_a_view_holds_nothing_of_the_hidden_cards(deck):
    for s in positions():
        for seat in range(s.rules.players):
            v = s.view(seat)
            for text in (svg.position(v, deck=deck), svg.position(s, seat=seat, deck=deck)):
                assert sorted(face_up(text)) == sorted(str(c) for c in [*v.hand, *v.table])
                hidden = [c for h in (s.hands[i] for i in range(s.rules.players) if i != seat) for c in h]
                hidden += list(s.stock)
                assert not [str(c) for c in hidden if mentions(text, str(c))]
                assert backs(text) >= sum(len(s.hands[i]) for i in range(s.rules.players) if i != seat)


def test_the_last_play_is_highlighted():
    s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    root = ET.fromstring(svg.position(s))
    last = [g.get("data-card") for g in root.iter(NS + "g") if g.get("data-last")]
    assert last == ["Kc"] and "last play seat 0 Kc" in svg.position(s)


def test_jupyter_reprs():
    s = positions()[0]
    assert s._repr_svg_() == svg.position(s)
    assert s.view(1)._repr_svg_() == svg.position(s.view(1))
    assert scopa.Card.parse("Qs")._repr_svg_() == svg.card("Qs")


@pytest.mark.parametrize("deck", svg.DECKS)
def test_snapshots(deck):
    SNAPSHOTS.mkdir(exist_ok=True)
    for i, s in enumerate(positions()[:2]):
        for name, text in (
            (f"{deck}-{i}-state", svg.position(s, deck=deck)),
            (f"{deck}-{i}-view", svg.position(s.view(1), deck=deck)),
        ):
            path = SNAPSHOTS / f"{name}.svg"
            if os.environ.get("SCOPA_UPDATE_SNAPSHOTS"):
                path.write_text(text + "\n", encoding="utf-8")
            assert path.read_text(encoding="utf-8") == text + "\n", (
                f"{path} changed: check it, then update it"
            )


def test_svg_and_deal_commands(tmp_path):
    out = tmp_path / "p.svg"
    s = positions()[1]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scopa",
            "svg",
            s.to_string(),
            "-o",
            str(out),
            "--seat",
            "2",
            "--deck",
            "spanish",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text() == svg.position(scopa.State.from_string(s.to_string()), seat=2, deck="spanish")
    deal = tmp_path / "d.svg"
    done = subprocess.run(
        [sys.executable, "-m", "scopa", "deal", "--game", "scopa", "--seed", "3", "--svg", str(deal)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert deal.read_text() == svg.position(scopa.State.deal("scopa", seed=3, dealer=0))


def test_a_finished_hand_has_nobody_to_move_and_the_label_names_every_card_shown():
    # Found by an audit: a finished hand was drawn with "seat 1 to move", and the text
    # screen readers get (the root's aria-label; role="img" hides the cards' titles) named
    # only the table.
    over = scopa.State.from_string("scopa 7d/- 3c4s - -/- 0/0 0 - -").play("7dx3c4s")
    for text in (svg.position(over), svg.position(over.view(1))):
        root = ET.fromstring(text)
        assert "hand over" in root.get("aria-label", "") and "to move" not in text
        assert not [g for g in root.iter(NS + "g") if g.get("data-turn")]
    s = positions()[3]  # Scopone scientifico, four hands
    label = ET.fromstring(svg.position(s)).get("aria-label", "")
    assert f"seat {s.turn} to move" in label and f"stock {len(s.stock)} cards" in label
    # by the cards' names, as the deck has them (an audit: codes such as "Qc" were read out)
    assert all(svg._label(c, "french") in label for c in [*s.table, *(c for h in s.hands for c in h)])
    assert not any(mentions(label, str(c)) for c in s.table)
    italian = ET.fromstring(svg.position(s, deck="italian")).get("aria-label", "")
    assert all(svg._label(c, "italian") in italian for c in s.table) and italian != label
    assert "team 0 pile" in label and "team 1 pile" in label
    view = s.view(2)
    label = ET.fromstring(svg.position(view)).get("aria-label", "")
    assert all(svg._label(c, "french") in label for c in view.hand) and "your hand (seat 2)" in label
    assert f"seat 3 holds {view.hand_sizes[3]} cards face down" in label


def test_the_right_hand_seats_label_stays_in_the_picture():
    # Found by an audit: a short right-hand row's label began near the edge and ran off it
    # ("seat 1 to m"); it now ends at the picture's edge
    s = scopa.State.from_string(
        "scopone_scientifico Kb/As/7b/Qc Kd4c3bJb - 6dQd7cJcKc6sKsAbQb/"
        "Ad2d3d4d5d7dJdAc2c3c5c6c2s3s4s5s7sJsQs2b4b5b6b 1/1 1 1 0"
    )
    root = ET.fromstring(svg.position(s))
    width = float(root.get("width", "0"))
    right = next(g for g in root.iter(NS + "g") if g.get("data-seat") == "1")
    label = next(t for t in right.iter(NS + "text") if "seat 1" in (t.text or ""))
    assert label.text == "seat 1 to move" and label.get("text-anchor") == "end"
    assert float(label.get("x", "0")) <= width - 10


def test_small_pictures_shrink_their_words():
    # Found by an audit: at the smallest size (8) the 13 px title and the labels ran off the
    # 145 px picture and over each other; the words shrink with the cards below the default
    s = positions()[3]  # (Scopone scientifico: the longest title)
    for size in (8, 20, 48, 200):
        root = ET.fromstring(svg.position(s, size=size))
        width = float(root.get("width", "0"))
        for t in root.iter(NS + "text"):
            font = float(t.get("font-size", "0"))
            if t.get("font-family", "").startswith("Helvetica") and t.text and "seat" in t.text:
                assert 0.55 * font * len(t.text) <= width, (
                    size,
                    t.text,
                    font,
                    width,
                )  # (about 0.55 em a letter)
        title = next(root.iter(NS + "text"))
        assert float(title.get("font-size", "0")) == pytest.approx(13 * min(1.0, size / 48), rel=1e-4)


def test_seats_go_round_counter_clockwise():
    # RULES §2: seat i+1 plays after seat i, counter-clockwise at a real table: drawn from
    # seat 0 at the bottom, seat 1 sits on the right and seat 3 on the left.
    s = scopa.State.deal("scopone", seed=1, dealer=3)
    root = ET.fromstring(svg.position(s))
    x = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "seat":
            x[int(g.get("data-seat", -1))] = float(g.find(NS + "text").get("x", 0))  # type: ignore[union-attr]
    assert x[1] > x[0] > x[3]
    with pytest.raises(scopa.OptionError, match="bad seat 2: the view is seat 1's"):
        svg.position(s.view(1), seat=2)
    assert svg.position(s.view(1), seat=1) == svg.position(s.view(1))


def test_a_size_is_any_real_number_in_range_numpy_and_fractions_too():
    # the open list: a NumPy int (a width computed with an array) was "bad size np.int64(100)"
    import fractions

    np = pytest.importorskip("numpy")
    state = scopa.State.deal("scopa", seed=1)
    for size, width in (
        (np.int64(100), "100"),
        (np.float32(60.5), "60.5"),
        (fractions.Fraction(121, 2), "60.5"),
    ):
        assert f'width="{width}"' in svg.card("7d", size=size) and f'width="{width}"' in svg.card_back(
            size=size
        )
        assert svg.position(state, size=size) == svg.position(state, size=float(size))
    for bad in (np.bool_(True), np.float64("nan"), True, "60", 7, 10**400, float("inf")):
        with pytest.raises(
            scopa.OptionError, match=re.escape(f"bad size {scopa.errors.show(bad)}: expected")
        ):
            svg.card("7d", size=bad)
