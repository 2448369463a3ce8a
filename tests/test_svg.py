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


def test_layout_snapshots():
    # the layout's paths the dealt positions above never take, pinned (mutation testing: a
    # margin or a bound changed there kept every layout property): a stock beside a table of
    # two rows, side seats and scope marks (4 players); hands of 9 squeezed between the piles'
    # corners; the most scope marks drawn; a table of three rows; each in one deck (the deck
    # changes the faces, not the layout)
    cases = {
        "layout-scopa4": (crowded("scopa4", 3, 12, stock=12, pile=2, scope=4), 48),
        "layout-scientifico": (crowded("scopone_scientifico", 9, 0, pile=2, scope=1), 30),
        "layout-marks": (crowded("scopone", [0, 1, 1, 1], 0, pile=36, scope=16), 48),
        "layout-rows": (crowded("scopa", 3, 34).view(0), 13.5),
    }
    for name, (s, size) in cases.items():
        text = svg.position(s, size=size)
        assert not layout_problems(text), name
        path = SNAPSHOTS / f"{name}.svg"
        if os.environ.get("SCOPA_UPDATE_SNAPSHOTS"):
            path.write_text(text + "\n", encoding="utf-8")
        assert path.read_text(encoding="utf-8") == text + "\n", f"{path} changed: check it, then update it"


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
    assert f"seat {s.turn} to move" in label
    # a teacher's audit: "stock 0 cards" in a game that has no stock (it deals every card)
    assert "stock" not in label and "stock 30 cards" in svg.position(scopa.State.deal("scopa", seed=1))
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
        assert float(title.get("font-size", "0")) == pytest.approx(13 * size / 48, rel=1e-4)


def test_the_words_scale_with_the_pictures_size():
    # A teacher's audit (the open list): the words shrank below the default size but stayed
    # 13 px above it, tiny under cards 200 px wide; every word, its place and the picture now
    # scale with the size, as the cards do
    def words(size: float) -> tuple[float, list[tuple[str, float, float, float]]]:
        text = svg.position(positions()[3], size=size)
        assert not layout_problems(text)
        root = ET.fromstring(text)
        texts = [
            (t.text or "", float(t.get("font-size", "0")), float(t.get("x", "0")), float(t.get("y", "0")))
            for t in root.iter(NS + "text")
            if t.get("font-family", "").startswith("Helvetica") and not (t.text or "").isalnum()
        ]
        return float(root.get("width", "0")), texts

    width, small = words(48)
    assert len(small) >= 7  # (the title, four seats, two piles' lines)
    for size in (96, 200, 2000):
        big_width, big = words(size)
        k = size / 48
        assert big_width == pytest.approx(k * width, abs=0.5 * k + 0.5)  # (both rounded to a pixel)
        assert [t for t, *_ in big] == [t for t, *_ in small]
        for (t, font, x, y), (_, big_font, big_x, big_y) in zip(small, big, strict=True):
            assert big_font == pytest.approx(k * font, rel=1e-3), (size, t)
            assert (big_x, big_y) == (pytest.approx(k * x, abs=0.1 * k), pytest.approx(k * y, abs=0.1 * k))


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


# ---------------------------------------------------------------- the layout's geometry


def _boxes(text: str) -> tuple[tuple[float, ...], list[tuple[str, str, tuple, str]]]:
    """The picture's viewBox (and its corners' radius) and its parts' boxes, as (kind, group,
    (x0, y0, x1, y1), name):
    kind a card, a text (about 0.6 em a letter: Helvetica's widest are M W and the capitals,
    its digits and lower case nearer 0.55), a scope mark or the last play's frame (its stroke
    too); group the root's child it is in (a seat, the table, a pile, the stock, the title)."""
    root = ET.fromstring(text)
    vx, vy, vw, vh = (float(v) for v in root.get("viewBox", "").split())
    out: list[tuple[str, str, tuple, str]] = []

    def walk(el: ET.Element, dx: float, dy: float, k: float, group: str) -> None:
        for name, args in re.findall(r"(\w+)\(([^)]*)\)", el.get("transform") or ""):
            v = [float(a) for a in re.split(r"[ ,]+", args.strip())]
            if name == "translate":
                dx, dy = dx + k * v[0], dy + k * v[1]
            elif name == "scale":
                assert len(v) == 1, el.get("transform")
                k *= v[0]
            else:  # (rotate: only inside a card's face, which is boxed whole)
                assert "card" in (el.get("class") or ""), el.get("transform")
        cls = (el.get("class") or "").split()
        if "card" in cls:
            out.append(("card", group, (dx, dy, dx + 60 * k, dy + 90 * k), el.get("data-card") or "back"))
            return
        if el.tag == NS + "text":
            font = float(el.get("font-size", "0"))
            x, y = float(el.get("x", "0")), float(el.get("y", "0"))
            w = 0.6 * font * len(el.text or "")
            x0 = x - {"start": 0, "middle": w / 2, "end": w}[el.get("text-anchor", "start")]
            out.append(("text", group, (x0, y - 0.8 * font, x0 + w, y + 0.25 * font), el.text or ""))
        elif el.tag == NS + "circle":
            cx, cy, r = (float(el.get(a, "0")) for a in ("cx", "cy", "r"))
            out.append(("mark", group, (cx - r, cy - r, cx + r, cy + r), ""))
        elif "last-play" in cls:
            x, y, w, h = (float(el.get(a, "0")) for a in ("x", "y", "width", "height"))
            s = float(el.get("stroke-width", "0")) / 2
            out.append(("frame", group, (x - s, y - s, x + w + s, y + h + s), ""))
        for child in el:
            walk(child, dx, dy, k, group)

    corner = 0.0
    for i, child in enumerate(root):
        if child.tag == NS + "rect" and i == 0:
            corner = float(child.get("rx", "0"))  # (the background, its corners rounded)
            continue
        group = child.get("class", "") + (child.get("data-seat") or child.get("data-team") or "")
        walk(child, 0.0, 0.0, 1.0, group or f"#{i}")
    return (vx, vy, vx + vw, vy + vh, corner), out


def _meet(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] - 0.01 and b[0] < a[2] - 0.01 and a[1] < b[3] - 0.01 and b[1] < a[3] - 0.01


def layout_problems(text: str) -> list[str]:
    """What is wrong with the picture's layout: a part outside the picture, parts of different
    groups over each other, a text over anything, a table card over another, the last play's
    frame over another card, a hand's card hiding the next one's corner (its rank and suit)."""
    view, items = _boxes(text)
    out = []
    for kind, group, box, name in items:
        if (
            box[0] < view[0] - 0.01
            or box[1] < view[1] - 0.01
            or box[2] > view[2] + 0.01
            or box[3] > view[3] + 0.01
        ):
            out.append(f"{kind} {name!r} of {group} outside the picture {view}: {box}")
        r = view[4]  # (and not out in a rounded corner)
        for sx, sy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
            cx = view[0] + r if sx < 0 else view[2] - r
            cy = view[1] + r if sy < 0 else view[3] - r
            dx = max(0.0, sx * ((box[0] if sx < 0 else box[2]) - cx))
            dy = max(0.0, sy * ((box[1] if sy < 0 else box[3]) - cy))
            if dx > 0 and dy > 0 and dx * dx + dy * dy > r * r + 0.01:
                out.append(f"{kind} {name!r} of {group} out in a rounded corner of the picture: {box}")
    for i, (k1, g1, b1, n1) in enumerate(items):
        for k2, g2, b2, n2 in items[i + 1 :]:
            if not _meet(b1, b2):
                continue
            same = g1 == g2
            if (
                not same
                or "text" in (k1, k2)
                or (g1 == "table" and k1 == k2 == "card")
                or ({k1, k2} == {"card", "frame"} and not text_is_last(text, n1 if k1 == "card" else n2))
            ):
                out.append(f"{k1} {n1!r} of {g1} over {k2} {n2!r} of {g2}")
    for group in {g for _, g, _, _ in items if g.startswith("seat")}:
        xs = sorted((b for k, g, b, _ in items if g == group and k == "card"), key=lambda b: (b[1], b[0]))
        for a, b in zip(xs, xs[1:], strict=False):
            step = max(b[0] - a[0], b[1] - a[1])
            if step < 0.25 * (a[2] - a[0]) - 0.01:
                out.append(f"{group}: a card hides the corner of the one before (step {step:.2f})")
    return out


def text_is_last(text: str, card: str) -> bool:
    return (
        f'data-card="{card}"' in text
        and re.search(rf'data-card="{card}"[^>]*data-last="true"', text) is not None
    )


def crowded(
    game: str, hand: int | list[int], table: int, *, stock: int = 0, pile: int = -1, scope: int = 0
) -> scopa.State:
    """A position of ``game`` built by hand: ``hand`` cards in every hand (or a list, seat 0's
    empty ones with seat 1 to move), ``table`` on the table, ``stock`` in the stock, the rest in
    the piles (``pile`` in team 0's, the rest in team 1's)."""
    n = scopa.Rules.preset(game).players
    sizes = hand if isinstance(hand, list) else [hand] * n
    cards = [str(c) for c in scopa.DECK]
    hands, rest = [], cards
    for k in sizes:
        hands.append(rest[:k])
        rest = rest[k:]
    on_table, rest = rest[:table], rest[table:]
    in_stock, rest = rest[:stock], rest[stock:]
    pile = len(rest) // 2 if pile < 0 else pile
    piles = [rest[:pile], rest[pile:]]
    turn = 1 if sizes[0] < sizes[1] else 0

    def field(xs: list[str]) -> str:
        return "".join(xs) or "-"

    last = 0 if piles[0] else 1 if piles[1] else "-"
    return scopa.State.from_string(
        f"{game} {'/'.join(field(h) for h in hands)} {field(on_table)} {field(in_stock)} "
        f"{'/'.join(field(p) for p in piles)} {scope}/{scope} {turn} {last} -"
    )


def crowded_positions():
    """Every table from 0 to 40 cards with the hands from (nearly) empty to full, in every preset."""
    for game in scopa.PRESETS:
        rules = scopa.Rules.preset(game)
        n, full = rules.players, rules.hand_size
        for sizes in ([0] + [1] * (n - 1), [1] * n, [full] * n):
            for table in range(0, 40 - sum(sizes) + 1):
                yield crowded(game, sizes, table)


def test_no_part_of_a_crowded_picture_lies_over_another_or_outside_it():
    # Found by an audit: with more than 16 cards on the table (a position built by hand, a long
    # game without captures) its rows ran over each other and over the hands; in Scopone the
    # piles' words ran over the hands; the stock lay over a long side hand
    for s in crowded_positions():
        for size in (8, 48):
            for text in (svg.position(s, size=size), svg.position(s.view(1), size=size)):
                problems = layout_problems(text)
                assert not problems, (s.to_string(), size, problems[:5])


def test_the_pictures_options_keep_the_layout():
    # every size, every deck, huge piles and many scope, the last play's frame, a finished hand
    cases = [
        crowded("scopone_scientifico", 10, 0, pile=0, scope=0),
        crowded("scopa", 3, 34),
        crowded("scopa", 3, 4, pile=13, scope=13),
    ]
    cases += [
        crowded("scopone", [0, 1, 1, 1], 0, pile=36, scope=16),
        crowded("scopa4", 3, 8, stock=12, pile=4, scope=4),
    ]
    lay = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    cases += [lay, lay.play("2c"), crowded("scopa", [0, 1], 30, pile=0)]
    for s in cases:
        for size in (8, 13.5, 30, 48, 61, 200, 2000):
            for deck in svg.DECKS:
                for text in [svg.position(s, size=size, deck=deck)] + [
                    svg.position(s, seat=seat, size=size, deck=deck) for seat in range(s.rules.players)
                ]:
                    problems = layout_problems(text)
                    assert not problems, (s.to_string(), size, deck, problems[:5])


def test_a_long_capture_in_the_title_stays_in_the_picture():
    # Found by an audit: an ace taking a table of 34 cards (ace_takes_all) wrote its move in
    # the title at 13 px, 870 px of words across a 750 px picture; the title shrinks to fit
    aces = [str(c) for c in scopa.DECK if c.rank == "A"]
    rest = [str(c) for c in scopa.DECK if c.rank != "A"]
    s = scopa.State.from_string(
        f"scopa;ace_takes_all=true {''.join(aces[:2] + rest[:1])}/{''.join(aces[2:] + rest[1:2])} "
        f"{''.join(rest[2:])} - -/- 0/0 0 - -"
    )
    s = s.play(next(m for m in s.legal_moves() if m.card.rank == "A"))
    assert len(s.history[-1][1].captures) == 34
    for size in (8, 48, 200):
        for text in (svg.position(s, size=size), svg.position(s.view(1), size=size)):
            assert not layout_problems(text), layout_problems(text)[:3]
            title = next(ET.fromstring(text).iter(NS + "text"))
            assert "last play seat 0 Adx" in (title.text or "")


def test_the_label_says_the_last_play():
    # Found by an audit: the title and the frame show the last play, but role="img" hides them
    # from screen readers and the aria-label did not say it
    s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    for text in (svg.position(s), svg.position(s.view(1))):
        assert "; last play seat 0 king of hearts laid on the table;" in ET.fromstring(text).get(
            "aria-label", ""
        )
    s = s.play("As").play("7dx3c4s")
    label = ET.fromstring(svg.position(s.view(0), deck="italian")).get("aria-label", "")
    # (a card's name all in its deck's language, as the browser app's: "7 of denari" was mixed)
    assert "; last play seat 0 7 di denari taking 3 di coppe, 4 di spade;" in label
    label = ET.fromstring(svg.position(s.view(0), deck="spanish")).get("aria-label", "")
    assert "; last play seat 0 7 de oros taking 3 de copas, 4 de espadas;" in label
    italian = svg.position(scopa.State.from_string("scopa AdKc/2cAs 3c4s - -/- 0/0 0 - 1"), deck="italian")
    assert "<title>asso di denari (Ad)</title>" in italian and "<title>re di coppe (Kc)</title>" in italian
    label = ET.fromstring(svg.position(scopa.State.deal("scopa", seed=1))).get("aria-label", "")
    assert "last play" not in label


def test_one_card_and_one_scopa_are_said_in_the_singular():
    # found by an audit of the pictures: "seat 0 holds 1 cards face down"; "1 scope" too
    s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    label = svg.position(s.view(1))
    assert "seat 0 holds 1 card face down" in label and "1 cards" not in label
    swept = scopa.State.from_string("scopa 7d/2c 7s - -/- 0/0 0 - 1").play("7d")
    # and "seat 0 holds empty" (a teacher's audit): a hand of no cards holds none
    assert "seat 0 holds no cards;" in svg.position(swept) and "holds empty" not in svg.position(swept)
    text = svg.position(swept)
    assert "team 0 pile 2 cards, 1 scopa;" in text and ">2 cards, 1 scopa</text>" in text, text


def test_a_variant_positions_picture_names_its_rule_options():
    # RULES §7 (a variants audit): the title and the screen readers' text named the game alone
    # ("scopa: seat 1 to move") for a position of other rules; the presets' pictures are as before
    s = scopa.State.deal(scopa.Rules.preset("scopa").replace(re_bello=True, napola=True, target=21), seed=1)
    root = ET.fromstring(svg.position(s))
    said = "Scopa with re_bello=true and napola=true"
    assert root.get("aria-label", "").startswith(f"{said}, seat 1 to move")
    assert f"{said}: seat 1 to move" in "".join(root.itertext())
    plain = ET.fromstring(svg.position(scopa.State.deal("scopa", seed=1)))
    assert plain.get("aria-label", "").startswith("Scopa, seat 1 to move")
    # the game as people name it, not its identifier (a teacher's audit: a screen reader spelt
    # "scopone underscore scientifico")
    four = ET.fromstring(svg.position(scopa.State.deal("scopone_scientifico", seed=1)))
    assert four.get("aria-label", "").startswith("Scopone scientifico, seat ")
    assert "scopone_scientifico" not in svg.position(scopa.State.deal("scopone_scientifico", seed=1))


def test_the_module_offers_its_renderers_alone():
    # (xml.sax's escape and quoteattr were module names as well, and card's argument went by "c")
    assert not hasattr(svg, "escape") and not hasattr(svg, "quoteattr")
    assert svg.card("Kb") == svg.card(scopa.Card.parse("Kb"))
    with pytest.raises(TypeError):
        svg.card(c="Kb")  # type: ignore[call-arg]
