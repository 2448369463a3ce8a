"""The browser app in a real headless Chromium (Debian's chromium and chromium-driver, driven
by selenium) against a real ``scopa serve`` on a free localhost port: whole hands of 2-player
Scopa and Scopone scientifico played by clicking, a capture chosen among several, undo, the
score and the review, the keyboard, the record downloaded and loaded, no console errors,
and pages at phone and desktop sizes (saved as screenshots: SCOPA_SCREENSHOTS=DIR keeps them)."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import zoneinfo
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import scopa

#: CI sets SCOPA_REQUIRE_BROWSER=1 (.ci/run): there a missing browser or selenium is a failure.
REQUIRED = os.environ.get("SCOPA_REQUIRE_BROWSER") == "1"
try:
    from selenium import webdriver
except ImportError:
    if REQUIRED:
        raise
    pytest.skip("selenium is not installed (pip install '.[test]')", allow_module_level=True)
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    if REQUIRED:
        raise RuntimeError("SCOPA_REQUIRE_BROWSER=1, but chromium or chromedriver is not on the PATH")
    pytest.skip(
        "no Chromium and ChromeDriver on this machine (.ci/run installs Debian's chromium and "
        "chromium-driver with apt-get)",
        allow_module_level=True,
    )

#: A seed whose first hand gives you a card with two captures at your first turn (against greedy):
#: Qd takes Qs or Qb.
CHOICE_SEED, CHOICE_CARD = 7, "Qd"


def serving(*options: str) -> Iterator[str]:
    """A ``scopa serve`` on a free localhost port (with ``options``): its address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "scopa", "serve", "--port", "0", "--log-level", "warning", *options],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:  # (ended when the generator is closed too: contextlib.closing left two servers a run)
        line = proc.stdout.readline()
        assert "listening on" in line, line
        yield line.split("listening on ")[1].strip()
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    yield from serving()


@pytest.fixture
def hasty_server() -> Iterator[str]:
    """A server whose searches, a whole review included, stop after 50 ms."""
    yield from serving("--max-time", "0.05")


def make_browser(*extra: str) -> Any:
    o = Options()
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--window-size=1280,900", *extra,
    ):  # fmt: skip
        o.add_argument(arg)
    o.binary_location = CHROMIUM
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(DRIVER), options=o)
    d.set_script_timeout(30)
    return d


@pytest.fixture
def browser() -> Iterator[Any]:
    d = make_browser()  # (headless: no hover, no pointer, as make_browser(*MOUSE) has)
    yield d
    d.quit()


#: A headless Chromium that says it has a mouse (it says it has neither a pointer nor hover)
MOUSE = (
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4",
)


def state(d: Any) -> str:
    return d.find_element(By.ID, "status").get_attribute("data-state")


def downloaded_record(d: Any, ready: Callable[[Any], bool], timeout: float = 30) -> Any:
    """The JSON of the record the download link holds, once ``ready`` says it is the one
    expected (the link is made from the engine's answer, asked after each change of the match)."""
    deadline = time.monotonic() + timeout
    while True:
        text = d.execute_async_script(
            "const done = arguments[0], a = document.getElementById('download');"
            "if (!a.href) { done(null); return; }"
            "fetch(a.href).then(r => r.text()).then(done);"
        )
        if text is not None and ready(json.loads(text)):
            return json.loads(text)
        assert time.monotonic() < deadline, f"the download link's record never was the one expected: {text}"
        time.sleep(0.1)


def wait_for(d: Any, states: tuple[str, ...], timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = state(d)
        if s in states:
            return s
        if s == "error":
            pytest.fail(d.find_element(By.ID, "status").text)
        time.sleep(0.05)
    pytest.fail(f"status stayed {state(d)!r}, expected one of {states}")


def until(condition: Any, timeout: float = 30, show: Any = None) -> None:
    """Wait until ``condition()`` holds (the page plays asynchronously: a click's effect comes
    later); ``show()`` describes the page if it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except StaleElementReferenceException:
            pass
        time.sleep(0.05)
    assert condition(), f"the page never got there: {show() if show else ''}"


def still(d: Any, timeout: float = 10) -> None:
    """Wait until the page has stopped scrolling. A smooth scroll (the review's board coming
    into view) runs on after the click that began it, and a click sent meanwhile lands where
    its element was: CI saw Next hand's click lost (the hand stayed over), and a probe clicking
    at once saw 1 click in 15 land on another element."""
    last, steady = None, 0
    deadline = time.monotonic() + timeout
    while steady < 3 and time.monotonic() < deadline:
        at = d.execute_script("return [window.scrollX, window.scrollY]")
        steady = steady + 1 if at == last else 0
        last = at
        time.sleep(0.05)
    assert steady >= 3, f"the page was still scrolling after {timeout} s"


def hand_cards(d: Any) -> list[str]:
    """The hand's cards, read in one script call: the page may redraw the hand between the
    lookup of its buttons and the reading of each (a stale element)."""
    cards: list[str] = d.execute_script(
        "return Array.from(document.querySelectorAll('#hand button'), b => b.getAttribute('data-card'))"
    )
    return cards


def start(d: Any, url: str, game: str, seed: int) -> None:
    d.get(f"{url}/?seed={seed}")
    wait_for(d, ("idle",))
    deadline = time.monotonic() + 10
    while not d.find_elements(By.CSS_SELECTOR, "#difficulty option") and time.monotonic() < deadline:
        time.sleep(0.05)
    Select(d.find_element(By.ID, "game")).select_by_value(game)
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    d.find_element(By.ID, "new-game").click()


def play_to_hand_end(d: Any) -> None:
    """Click the first card of the hand (and the first capture offered) until the hand is over."""
    while True:
        s = wait_for(d, ("your-turn", "hand-over", "match-over"))
        if s != "your-turn":
            return
        try:
            buttons = [b for b in d.find_elements(By.CSS_SELECTOR, "#hand button") if b.is_enabled()]
            if not buttons:
                time.sleep(0.05)
                continue
            before = d.find_element(By.ID, "log").text  # (its length is capped: 300 lines)
            buttons[0].click()
            time.sleep(0.05)
            caps = d.find_elements(By.CSS_SELECTOR, "#captures button")
            if caps:
                caps[0].click()
            deadline = time.monotonic() + 30
            while d.find_element(By.ID, "log").text == before:
                assert time.monotonic() < deadline, "the click played nothing"
                time.sleep(0.05)
        except StaleElementReferenceException:
            continue


def move_text(move: str) -> str:
    """A move as the page writes it for people, French deck (the page's default)."""
    ranks = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
    suits = {"d": "diamonds", "c": "hearts", "s": "spades", "b": "clubs"}

    def name(card: str) -> str:
        return f"{ranks.get(card[0], card[0])} of {suits[card[1]]}"

    played, _, taken = move.partition("x")
    if not taken:
        return f"{name(played)}, laid down"
    return f"{name(played)} takes " + " and ".join(name(taken[i : i + 2]) for i in range(0, len(taken), 2))


def console_errors(d: Any) -> list[dict[str, Any]]:
    """The page's errors, but the browser's own line for a request to /api that the server refused
    (a loaded record is reviewed over POST /api, and a record refused is a 400 or a 413) and for
    the icon of /health (``without_animations`` opens it: JSON, no icon; the app names its own)."""
    return [
        e
        for e in d.get_log("browser")
        if e["level"] == "SEVERE"
        and not (e.get("source") == "network" and "/favicon.ico - " in e["message"])
        and not (
            e.get("source") == "network"
            and "/api - " in e["message"]
            and (
                "(Bad Request)" in e["message"]
                or "(Payload Too Large)" in e["message"]
                or "413" in e["message"]
            )
        )
    ]


def test_a_whole_scopa_hand_with_a_capture_choice_undo_score_and_review(server, browser, tmp_path):
    d = browser
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    assert CHOICE_CARD in hand_cards(d)
    table = [b.get_attribute("data-card") for b in d.find_elements(By.CSS_SELECTOR, "#table [data-card]")]
    assert {"Qs", "Qb"} <= set(table)
    # the card has two captures: each a button in #captures; the second one is played
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()
    choices = d.find_elements(By.CSS_SELECTOR, "#captures button")
    assert [b.get_attribute("data-move") for b in choices] == ["QdxQs", "QdxQb"]
    choices[1].click()
    until(lambda: CHOICE_CARD not in hand_cards(d) and state(d) == "your-turn")
    table = [b.get_attribute("data-card") for b in d.find_elements(By.CSS_SELECTOR, "#table [data-card]")]
    assert "Qb" not in table
    # undo: back to the turn before, the card in the hand again
    d.find_element(By.ID, "undo").click()
    until(lambda: CHOICE_CARD in hand_cards(d) and state(d) == "your-turn")
    assert "Undone" in d.find_element(By.ID, "log").text
    # picking the table cards works too: the card, then Qs
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()
    d.find_element(By.CSS_SELECTOR, '#table [data-card="Qs"]').click()
    until(lambda: CHOICE_CARD not in hand_cards(d) and state(d) == "your-turn")
    # the keyboard: key 1 plays the first card of the hand
    n = len(hand_cards(d))
    d.find_element(By.TAG_NAME, "body").send_keys("1")
    deadline = time.monotonic() + 30
    while len(hand_cards(d)) == n and state(d) == "your-turn" and time.monotonic() < deadline:
        time.sleep(0.05)
    play_to_hand_end(d)
    assert state(d) in ("hand-over", "match-over")
    # the focus goes to what comes next, not the status line (an audit: 4 tabs away)
    until(lambda: focused(d) in ("next-hand", "hand-end-title"), show=lambda: focused(d))
    until(lambda: "0 cards" in d.find_element(By.ID, "opponents").text)
    assert "(to move)" not in d.find_element(By.ID, "opponents").text  # nobody is, once it is over
    score = d.find_element(By.ID, "score").text
    assert "Total" in score and "Cards" in score and "Primiera" in score
    deadline = time.monotonic() + 60
    while not d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]") and time.monotonic() < deadline:
        time.sleep(0.1)
    rows = d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")
    assert len(rows) == 18  # each of your plays, reviewed
    rows[0].find_element(By.TAG_NAME, "button").click()
    deadline = time.monotonic() + 10
    while "Before play" not in d.find_element(By.ID, "review-board").text and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (
        "Before play 1" in d.find_element(By.ID, "review-board").text
        or "Before play 2" in d.find_element(By.ID, "review-board").text
    )
    # the record, downloaded: the engine's scopa-record (match_record) of the hand just played,
    # the link updated once the engine has answered (its data-plays: the plays it holds)
    raw = downloaded_record(d, lambda r: len(r["hands"]) == 1 and r["hands"][0]["score"] is not None)
    record = scopa.load_record(raw)
    assert len(record.hands[0].plays) == int(d.find_element(By.ID, "download").get_attribute("data-plays"))
    assert {"Event", "Date", "Player0", "Player1"} <= set(record.tags)
    assert "dealer" in raw["hands"][0]  # (the engine's record: the app's own wrote no dealer)
    assert not console_errors(d)
    shots(d, tmp_path, "desktop-review")


def test_a_whole_scopone_scientifico_hand(server, browser, tmp_path):
    d = browser
    start(d, server, "scopone_scientifico", 3)
    wait_for(d, ("your-turn",))
    assert len(hand_cards(d)) in (9, 10)
    labels = [b.get_attribute("aria-label") for b in d.find_elements(By.CSS_SELECTOR, "#hand button")]
    assert [x.split(":")[0] for x in labels] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"][
        : len(labels)
    ]
    seats = d.find_elements(By.CSS_SELECTOR, "#opponents .seat")
    assert len(seats) == 3 and "Your partner" in d.find_element(By.ID, "opponents").text
    shots(d, tmp_path, "desktop")
    play_to_hand_end(d)
    assert "Total" in d.find_element(By.ID, "score").text
    # the score's rows have their category as header, its columns the sides (the accessibility
    # audit: the categories were plain cells, a screen reader said a cell's points with its
    # column only)
    heads = d.execute_script(
        "return Array.from(document.querySelectorAll('#score tr'),"
        " r => [r.cells[0].tagName, r.cells[0].scope, r.cells[1].tagName])"
    )
    assert heads[0] == ["TH", "col", "TH"] and len(heads) >= 7
    assert all(h == ["TH", "row", "TD"] for h in heads[1:]), heads
    assert not console_errors(d)


def save_played(path: Path, hands: int = 1, seed: int = 2, **tags: str) -> scopa.Match:
    """A match of Scopa dealt from ``seed``, ``hands`` hands played by first legal moves (fewer
    if it ends before), its record saved to ``path`` with ``tags`` (its Event "loaded" unless
    given)."""
    m = scopa.Match("scopa", seed=seed)
    while len(m.hands) < hands and m.winner is None:
        m.play(m.state.legal_moves()[0])
    m.record({"Event": "loaded", **tags}).save(path)
    return m


def usable(d: Any, button: str) -> bool:
    """Whether the button of id ``button`` can be pressed: enabled, and not marked unavailable
    (a replay's Previous and Next play are marked so at either end, and keep the focus)."""
    b = d.find_element(By.ID, button)
    return bool(b.is_enabled() and b.get_attribute("aria-disabled") != "true")


def load_played(d: Any, server: str, path: Path, hands: int = 1, **tags: str) -> scopa.Match:
    """A match of ``hands`` hands played by first legal moves, saved to ``path`` (with
    ``tags``) and loaded into the page at ``server``."""
    m = save_played(path, hands, **tags)
    d.get(server + "/")
    wait_for(d, ("idle",))
    d.find_element(By.ID, "load").send_keys(str(path))
    return m


def test_load_a_record_to_replay_and_review(server, browser, tmp_path):
    d = browser
    m = load_played(d, server, tmp_path / "game.json")
    deadline = time.monotonic() + 60
    while "A record of" not in d.find_element(By.ID, "replay-title").text and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "A record of 1 hand, 36 plays" in d.find_element(By.ID, "replay-title").text
    assert "Before play 1" in d.find_element(By.ID, "replay-board").text
    d.find_element(By.ID, "replay-next").click()
    deadline = time.monotonic() + 10
    while "Before play 2" not in d.find_element(By.ID, "replay-board").text and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "Before play 2" in d.find_element(By.ID, "replay-board").text
    reviewed = d.find_elements(By.CSS_SELECTOR, "#replay-review tr[data-play]")
    assert len(reviewed) == 36
    # the review names the cards (French deck, the default); the notation is kept in data-move
    plays = [str(p) for p in m.record().hands[0].plays]
    for row in reviewed[:5]:
        move, cells = row.get_attribute("data-move"), row.find_elements(By.TAG_NAME, "td")
        assert move == plays[int(row.get_attribute("data-play"))]
        assert cells[1].text == move_text(move)
    # a play shown from the review is where Next play goes on from (an audit: it went on from
    # the step shown before, play 2)
    board = lambda: d.find_element(By.ID, "replay-board").text  # noqa: E731
    d.find_element(By.CSS_SELECTOR, '#replay-review tr[data-play="9"] button').click()
    until(lambda: "Before play 10" in board(), show=board)
    until(lambda: usable(d, "replay-next"))
    d.find_element(By.ID, "replay-next").click()
    until(lambda: "Before play 11" in board(), show=board)
    bad = tmp_path / "bad.json"
    js = m.record().to_json()
    js["hands"][0]["plays"][0] = "Zz"
    bad.write_text(json.dumps(js))
    d.find_element(By.ID, "load").send_keys(str(bad))
    deadline = time.monotonic() + 20
    while "refused" not in d.find_element(By.ID, "replay-title").text and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "hand 1, play 1 ('Zz')" in d.find_element(By.ID, "replay-title").text
    # a key given twice is refused as the engine reads it (the app once sent what JSON.parse
    # kept: the last); the record goes as its file's own text
    twice = tmp_path / "twice.json"
    twice.write_text(
        json.dumps(m.record().to_json()).replace('"version": 1', '"version": 1, "version": 1', 1)
    )
    d.find_element(By.ID, "load").send_keys(str(twice))
    until(lambda: "given twice" in d.find_element(By.ID, "replay-title").text, timeout=20)
    # the record shown before is put away (an audit found its board and buttons still working)
    assert d.find_element(By.ID, "replay-board").text == ""
    assert not d.find_elements(By.CSS_SELECTOR, "#replay-review tr[data-play]")
    assert not usable(d, "replay-next")
    # so is it for a file that is not JSON at all (it stayed, its buttons working)
    good = tmp_path / "game.json"
    d.find_element(By.ID, "load").send_keys(str(good))
    until(lambda: "A record of" in d.find_element(By.ID, "replay-title").text, timeout=60)
    assert usable(d, "replay-next")
    (tmp_path / "junk.json").write_text("{not json")
    d.find_element(By.ID, "load").send_keys(str(tmp_path / "junk.json"))
    until(lambda: d.find_element(By.ID, "replay-title").text.startswith("Not a record"), timeout=20)
    assert d.find_element(By.ID, "replay-board").text == ""
    assert not usable(d, "replay-next")
    assert d.find_element(By.ID, "replay-board").get_attribute("aria-live") == "polite"
    # and for a record of no hands (an audit of the app: the record before still stepped)
    d.find_element(By.ID, "load").send_keys(str(good))
    until(lambda: "A record of" in d.find_element(By.ID, "replay-title").text, timeout=60)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({**m.record().to_json(), "hands": []}))
    d.find_element(By.ID, "load").send_keys(str(empty))
    until(lambda: "holds no hand" in d.find_element(By.ID, "replay-title").text, timeout=20)
    assert d.find_element(By.ID, "replay-board").text == ""
    assert not usable(d, "replay-next")
    assert not console_errors(d)


def test_a_card_pressed_twice_escape_and_a_new_match_with_a_capture_choice_up(server, browser, tmp_path):
    # found by an audit of the app: a second press of a card after its play, before the hand was
    # redrawn, played it again ("illegal move", and "Reconnect and go on" took the focus); New
    # match left the last match's capture choice up (its buttons were errors); Escape did not
    # put a capture choice away
    d = browser
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()
    assert len(d.find_elements(By.CSS_SELECTOR, "#captures button")) == 2
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    until(lambda: not d.find_elements(By.CSS_SELECTOR, "#captures button"))
    assert d.execute_script("return document.activeElement.dataset.card") == CHOICE_CARD
    # a card of one move, pressed, then pressed again (its button kept) while the computer plays
    played = d.execute_script(
        "const esc = new KeyboardEvent('keydown', {key: 'Escape', bubbles: true});"
        "for (const b of document.querySelectorAll('#hand button')) {"
        "  b.click();"
        "  if (!document.querySelector('#captures button')) {"
        "    window.pressedTwice = b;"
        "    return b.dataset.card;"
        "  }"
        "  document.body.dispatchEvent(esc);"
        "}"
        "return null;"
    )
    assert played is not None
    until(lambda: played not in hand_cards(d) or state(d) != "your-turn")
    d.execute_script("window.pressedTwice.click()")
    wait_for(d, ("your-turn",))  # (fails at once on "error")
    assert "illegal" not in d.find_element(By.ID, "status").text
    assert not d.find_element(By.ID, "go-on").is_displayed()
    # a capture choice up, then New match: the choice goes with the match
    d.find_element(By.CSS_SELECTOR, "#hand button").click()
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn",))
    until(lambda: not d.find_elements(By.CSS_SELECTOR, "#captures button"))
    assert not console_errors(d)


def test_the_first_matchs_line_and_a_play_on_its_way_are_announced(server, browser):
    # found by an accessibility audit: the first match's "New match of ..." line was added to
    # the list of what happened (a live region) while the board holding it was still hidden, so
    # no screen reader read it; and "Your turn" stayed up while your play was on its way
    d = browser
    d.get(f"{server}/?seed=3")
    wait_for(d, ("idle",))
    d.execute_script(
        "window.logLines = [];"
        "new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)"
        "  window.logLines.push([n.textContent, !!n.closest('[hidden]')]); })"
        ".observe(document.getElementById('log'), {childList: true});"
    )
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#difficulty option")))
    Select(d.find_element(By.ID, "game")).select_by_value("scopa")
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn",))
    lines = d.execute_script("return window.logLines")
    assert lines and lines[0][0].startswith("New match of"), lines
    assert not any(hidden for _, hidden in lines), lines
    # a card of one move played: the status says so at once, before the engine answers
    said = d.execute_script(
        "const esc = new KeyboardEvent('keydown', {key: 'Escape', bubbles: true});"
        "for (const b of document.querySelectorAll('#hand button')) {"
        "  const name = b.getAttribute('aria-label');"
        "  b.click();"
        "  if (!document.querySelector('#captures button')) {"
        "    const s = document.getElementById('status');"
        "    return [s.dataset.state, s.textContent, name];"
        "  }"
        "  document.body.dispatchEvent(esc);"
        "}"
        "return null;"
    )
    assert said is not None
    state_now, text, name = said
    assert state_now == "waiting" and text == f"Playing the {name.split(': ', 1)[1]}…", said
    wait_for(d, ("your-turn", "hand-over"))
    assert not console_errors(d)


def test_animations_follow_reduced_motion_and_the_setting_is_kept(server, browser):
    # found by an audit: with reduced motion asked for, the Animations box stayed ticked and the
    # pause between the computer's moves stayed; the setting was lost at a reload
    d = browser
    d.get(f"{server}/")
    wait_for(d, ("idle",))
    assert d.find_element(By.ID, "animate").is_selected()  # (no preference: on)
    d.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
    )
    try:
        d.refresh()
        wait_for(d, ("idle",))
        assert not d.find_element(By.ID, "animate").is_selected()  # off until set
        d.find_element(By.ID, "animate").click()  # set: on, and kept
        d.refresh()
        wait_for(d, ("idle",))
        assert d.find_element(By.ID, "animate").is_selected()
    finally:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    d.find_element(By.ID, "animate").click()  # off, kept without the preference too
    d.refresh()
    wait_for(d, ("idle",))
    assert not d.find_element(By.ID, "animate").is_selected()
    assert "animate" not in (d.find_element(By.TAG_NAME, "body").get_attribute("class") or "")
    d.execute_script("localStorage.removeItem('scopa.animate')")
    assert not console_errors(d)


def test_a_card_is_raised_under_a_mouse_but_a_tap_leaves_none_raised(server):
    # an open-list item: on a touch screen the hover a tap leaves behind kept the card raised, as
    # if picked for a capture; the hover rule now applies where the device can hover only
    raised = "return getComputedStyle(arguments[0]).transform"
    looks = []
    for touch in (False, True):
        d = make_browser(*MOUSE)
        try:
            if touch:  # a phone: no hover (the hover left by the mouse moves below stays)
                d.execute_cdp_cmd(
                    "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5}
                )
            start(d, server, "scopa", 7)
            wait_for(d, ("your-turn",))
            assert d.execute_script("return matchMedia('(hover: hover)').matches") is not touch
            card = d.find_element(By.CSS_SELECTOR, "#hand .card-button:not(:disabled)")
            ActionChains(d).move_to_element(d.find_element(By.ID, "status")).perform()
            ActionChains(d).move_to_element(card).perform()
            time.sleep(0.3)  # (the raise's transition takes 120 ms)
            looks.append(d.execute_script(raised, card))
            assert not console_errors(d)
        finally:
            d.quit()
    assert looks[0] != "none" and looks[1] == "none", looks


@pytest.mark.parametrize("width", [320, 1280])
def test_the_other_seats_sit_in_one_row_as_at_a_real_table(server, browser, width):
    # The app audit's open list: at phone width the three other seats of Scopone stood one above
    # the other (three rows before the table), in the order 1, 2, 3 where play goes
    # counter-clockwise: now one row at every width, the seat before yours on the left, your
    # partner across (the middle), the next seat on the right, each fan of backs in its column
    d = browser
    d.set_window_size(width, 900)
    start(d, server, "scopone_scientifico", 5)
    wait_for(d, ("your-turn",))
    seats = d.execute_script(
        "return Array.from(document.querySelectorAll('#opponents .seat'), e => {"
        " const r = e.getBoundingClientRect(), f = e.querySelector('.seat-cards');"
        " return [Number(e.dataset.seat), r.left, r.top, r.right, f.scrollWidth, f.clientWidth]; })"
    )
    assert [s[0] for s in seats] == [3, 2, 1], seats  # (you are seat 0)
    assert len({round(s[2]) for s in seats}) == 1, seats  # one row
    assert seats[0][3] <= seats[1][1] and seats[1][3] <= seats[2][1], seats  # side by side
    assert all(scrolled <= client for *_, scrolled, client in seats), seats  # no fan spills over
    assert "partner" in d.find_element(By.CSS_SELECTOR, "#opponents .seat[data-seat='2']").text
    assert d.execute_script("return document.documentElement.scrollWidth") <= width
    assert not console_errors(d)


#: The review scrolled sideways by arguments[0] px: its box's left and right, whether it scrolls
#: sideways, and each Show button's left and right
SHOW_BUTTONS = (
    "const box = document.getElementById('review'); box.scrollLeft = arguments[0];"
    "const r = box.getBoundingClientRect();"
    "return [r.left, r.right, box.scrollWidth > box.clientWidth, Array.from("
    "box.querySelectorAll('tr[data-play] button'), b => b.getBoundingClientRect())"
    ".map(b => [b.left, b.right])];"
)


def test_phone_width(server, browser, tmp_path):
    d = browser
    d.set_window_size(320, 800)  # (the narrowest phone WCAG's reflow asks for)
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn", "waiting"))
    wait_for(d, ("your-turn",))
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 320, f"the page is {width} px wide at a 320 px window"
    images = d.find_elements(By.CSS_SELECTOR, "#hand img")
    assert images and all(img.get_attribute("alt") for img in images)  # text alternatives
    # the other hands are said by their label ("The computer: 3 cards"), not a card at a time
    backs = d.find_elements(By.CSS_SELECTOR, "#opponents .seat-cards")
    assert backs and all(b.get_attribute("aria-hidden") == "true" for b in backs)
    assert "3 cards" in d.find_element(By.ID, "opponents").text
    for group in ("opponents", "table", "captures", "hand"):  # a named region is a group
        assert d.find_element(By.ID, group).get_attribute("role") == "group"
    # touch targets of 24 px and more at phone width (the selects were 19-21 px)
    heights = d.execute_script(
        "return Array.from(document.querySelectorAll('#setup select, #setup input, #setup button'),"
        " e => e.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 24, heights
    sizes = d.execute_script(
        "return ['download', 'load', 'animate'].map(id => {"
        " const r = document.getElementById(id).getBoundingClientRect(); return [id, r.width, r.height]; })"
    )
    assert all(w >= 24 and h >= 24 for _, w, h in sizes), sizes  # the records' controls and the checkbox too
    # the House rules open: no sideways scrolling, each option's label a 44 px touch target
    d.find_element(By.CSS_SELECTOR, "#house-rules summary").click()
    until(lambda: d.find_element(By.ID, "house-rules").get_attribute("open") is not None)
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 320, f"the page is {width} px wide at a 320 px window with the House rules open"
    rows = d.execute_script(
        "return Array.from(document.querySelectorAll('#house-rules label, #house-rules summary'),"
        " e => e.getBoundingClientRect().height)"
    )
    assert len(rows) == 7 and min(rows) >= 44, rows
    d.find_element(By.CSS_SELECTOR, "#house-rules summary").click()
    shots(d, tmp_path, "phone")
    # a hand over, its score table and review, at twice the text size: still no sideways
    # scrolling (an audit found the score table 522 px wide and the game menu 373 px)
    play_to_hand_end(d)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    # the review's Show buttons in view (the app audit's open list: they were off to the right,
    # past the reasons): on a phone the review does not scroll sideways, a play a block
    edges = d.execute_script(SHOW_BUTTONS, 0)
    left, right, scrolls, buttons = edges
    assert not scrolls and buttons, edges
    assert all(left <= a and b <= right + 0.5 for a, b in buttons), edges
    d.execute_script("document.documentElement.style.fontSize = '200%'")
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 320, f"the page is {width} px wide at a 320 px window with 200% text"
    assert not console_errors(d)


def page_log(d: Any) -> str:
    """The end of the page's log, for a failure's message."""
    return str(d.find_element(By.ID, "log").text[-1500:])


def shots(d: Any, tmp_path: Path, name: str) -> None:
    where = Path(os.environ.get("SCOPA_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    assert d.save_screenshot(str(where / f"app-{name}.png"))


SETTLED = ("your-turn", "error", "hand-over")


def test_an_unseeded_match_double_clicked_and_undone_at_once_plays_on(server, browser):
    # Found by an audit: a match drawn without ?seed had a seed above 2**53, which JavaScript
    # rounds, so the match sent back was refused at the first play; a double click on New
    # match ran two loops; an Undo while the computer was about to move played its move on
    # the undone match. Each now plays on (wait_for fails on the error status).
    d = browser
    open_ready(d, server + "/")
    Select(d.find_element(By.ID, "game")).select_by_value("scopa")
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    d.execute_script("const b = document.getElementById('new-game'); b.click(); b.click();")
    wait_for(d, ("your-turn",))
    log_text = d.find_element(By.ID, "log").text
    assert log_text.count("New match") == 1 and log_text.count("The computer:") <= 1  # one loop, not two
    for _ in range(3):  # a play, then Undo the moment the computer's reply is asked for
        n = len(hand_cards(d))
        before = d.find_element(By.ID, "log").text
        # (Undo is clicked as soon as the page waits for the computer, not after a fixed delay:
        # while your own play is being sent the page ignores Undo, and on a loaded machine a
        # fixed delay fell there every time, so the hand ran down to a refill)
        d.execute_script(
            "clearInterval(window.undoWatch);"
            "document.querySelector('#hand button:not([disabled])').click();"
            "const choice = document.querySelector('#captures button');"  # (a card of several captures)
            "if (choice) choice.click();"
            "const t0 = performance.now();"
            "window.undoWatch = setInterval(() => {"
            "  const u = document.getElementById('undo');"
            "  if (document.getElementById('status').dataset.state === 'waiting' && !u.disabled) {"
            "    clearInterval(window.undoWatch); u.click();"
            "  } else if (performance.now() - t0 > 10000) clearInterval(window.undoWatch);"
            "}, 5);"
        )
        # (the play logged first: until then the status is the turn's before it, "your-turn",
        # and the checks below passed at once, racing the page's next redraw: a flake in CI)
        until(lambda before=before: d.find_element(By.ID, "log").text != before, show=lambda: page_log(d))
        until(
            lambda n=n: state(d) in SETTLED and len(hand_cards(d)) in (n, n - 1),
            show=lambda n=n: f"{state(d)}, {len(hand_cards(d))} cards of {n}; {page_log(d)}",
        )
        wait_for(d, ("your-turn", "hand-over"))
    d.execute_script("clearInterval(window.undoWatch);")
    assert "Undone" in d.find_element(By.ID, "log").text  # (an undo came while the computer was asked)
    # a card played by keyboard: the redrawn hand keeps the focus (it fell to <body> before)
    wait_for(d, ("your-turn",))
    playable = "#hand button:not([disabled])"
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, playable)), show=lambda: state(d))
    n = len(hand_cards(d))
    card = d.find_element(By.CSS_SELECTOR, "#hand button:not([disabled])")
    d.execute_script("arguments[0].focus()", card)
    card.send_keys(Keys.ENTER)
    caps = d.find_elements(By.CSS_SELECTOR, "#captures button")
    if caps:
        caps[0].send_keys(Keys.ENTER)
    until(lambda: len(hand_cards(d)) < n or state(d) == "hand-over")
    wait_for(d, ("your-turn", "hand-over"))
    focused = d.execute_script("return document.activeElement.id || document.activeElement.className")
    assert focused in ("card-button", "status"), focused
    assert not console_errors(d)


def test_a_two_hand_record_replays_every_hand(server, browser, tmp_path):
    d = browser
    m = load_played(d, server, tmp_path / "two.json", hands=2)
    until(lambda: "A record of 2 hands, 72 plays" in d.find_element(By.ID, "replay-title").text)
    assert len(d.find_elements(By.CSS_SELECTOR, "#replay-review h3")) == 2
    for _ in range(36):  # through the 36 plays of hand 1 to its end
        until(lambda: usable(d, "replay-next"))
        d.find_element(By.ID, "replay-next").click()
    until(lambda: "After the last play:" in d.find_element(By.ID, "replay-board").text)
    until(lambda: usable(d, "replay-next"))
    d.find_element(By.ID, "replay-next").click()  # into hand 2
    first = str(m.record().hands[1].plays[0])
    until(lambda: f"Before play 1 ({move_text(first)}):" in d.find_element(By.ID, "replay-board").text)
    assert state(d) != "error"


def test_plays_the_review_did_not_reach_say_so(hasty_server, browser, tmp_path):
    # Found by a review: the engine bounds a whole review by its maximum time, and the plays
    # it did not reach were shown as best moves ("the same", loss 0.00).
    d = browser
    load_played(d, hasty_server, tmp_path / "game.json")
    until(lambda: "A record of 1 hand, 36 plays" in d.find_element(By.ID, "replay-title").text)
    rows = d.find_elements(By.CSS_SELECTOR, "#replay-review tr[data-play]")
    cells = [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert len(cells) == 36 and cells[-1][2:4] == ["not reviewed", "-"]
    assert not any(c[2] == "not reviewed" and c[3] != "-" for c in cells)
    summary = d.find_element(By.CSS_SELECTOR, "#replay-review p").text
    if all(c[2] == "not reviewed" for c in cells):  # (an audit: it read "points lost: 0.00")
        assert summary == "No play was reviewed: the server's time for a review ran out.", summary
    else:
        assert summary.startswith("Points lost in this hand: "), summary
    assert not console_errors(d)


def test_the_hands_review_says_how_far_it_has_got(server, browser):
    # The server audit's open list: a hand's review (36 plays at 100 ms) said "Reviewing…" for
    # its seconds with no progress; it says how many plays of how many are reviewed, then the
    # table comes
    d = browser
    without_animations(d, server)
    start(d, server, "scopa", 5)
    d.execute_script(
        "window.reviewing = [];"
        "new MutationObserver(() => { const p = document.querySelector('#review > p');"
        "  if (p) window.reviewing.push(p.textContent); })"
        ".observe(document.getElementById('review'),"
        "  { childList: true, subtree: true, characterData: true });"
    )
    play_to_hand_end(d)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    said = d.execute_script("return window.reviewing")
    counts = [int(m.group(1)) for t in said if (m := re.fullmatch(r"Reviewing… (\d+) of 36 plays", t))]
    assert len(counts) >= 2 and counts == sorted(counts) and counts[-1] == 36, said
    assert said[0] == "Reviewing…", said  # (before the first play's line)
    assert not console_errors(d)


def test_the_app_keeps_to_the_servers_maximum_time(hasty_server, browser):
    # Found by an audit: the app asked for 300 ms a computer move and 500 ms a hint whatever
    # the server allowed, so under scopa serve --max-time 0.05 the computer could not move.
    d = browser
    start(d, hasty_server, "scopa", 3)
    wait_for(d, ("your-turn",))
    d.find_element(By.ID, "hint").click()
    until(lambda: d.find_element(By.ID, "hint-text").text.startswith("Hint:"))
    play_to_hand_end(d)
    assert state(d) == "hand-over" and not console_errors(d)


# ------------------------------------------------------------------ defects of an audit of the app


def focused(d: Any) -> str:
    """What has the focus: ``hand`` (a card of your hand), or the element's id or tag."""
    return str(
        d.execute_script(
            "const a = document.activeElement;"
            "return a && a.closest('#hand') ? 'hand' : a ? (a.id || a.tagName.toLowerCase()) : 'none'"
        )
    )


def test_hint_waits_for_its_answer_and_the_focus_is_never_dropped(server, browser, tmp_path):
    d = browser
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    # Hint pressed a dozen times at once: one hint is asked (each press used to ask one, past the
    # server's 8 requests in flight a connection: an error and a game that could not go on)
    d.execute_script("const h = document.getElementById('hint'); for (let i = 0; i < 12; i++) h.click();")
    until(lambda: d.find_element(By.ID, "hint-text").text.startswith("Hint:"))
    # (an audit: the runner-up's value had no sign and no "points", the best move's both)
    hint = d.find_element(By.ID, "hint-text").text
    said = r"\([+-]\d+\.\d\d points\)"
    assert re.fullmatch(rf"Hint: .+ {said}(; next best .+ {said})?", hint), hint
    assert state(d) == "your-turn"
    # Hint from the keyboard keeps the focus while the hint is thought of and after (found by
    # an audit: the button disabled itself and the focus fell to the page)
    d.execute_script(
        "document.getElementById('hint-text').textContent = ''; document.getElementById('hint').focus()"
    )
    d.switch_to.active_element.send_keys(Keys.ENTER)
    assert focused(d) == "hint"
    until(lambda: d.find_element(By.ID, "hint-text").text.startswith("Hint:"))
    assert focused(d) == "hint"
    # a play, then Undo from the keyboard: Undo disables itself, the focus goes to your hand
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()
    d.find_elements(By.CSS_SELECTOR, "#captures button")[0].click()
    until(lambda: d.find_element(By.ID, "undo").is_enabled())
    wait_for(d, ("your-turn",))
    # the focus waited on the status line while the computer played: at your turn it is on your hand
    until(lambda: focused(d) == "hand", show=lambda: focused(d))
    d.execute_script("document.getElementById('undo').focus()")
    d.switch_to.active_element.send_keys(Keys.ENTER)
    until(lambda: "Undone" in d.find_element(By.ID, "log").text)
    wait_for(d, ("your-turn",))
    until(lambda: focused(d) == "hand", show=lambda: focused(d))
    # the list of what happened scrolls from the keyboard: it is in the tab order; the latest
    # entry comes first, so the list counts down; it names the game as the page does
    log = d.find_element(By.ID, "log")
    assert log.get_attribute("tabindex") == "0" and log.get_attribute("reversed") is not None
    assert "New match of Scopa (2 players) to 11" in log.text
    # New match from the keyboard: at your turn the focus is on your hand (found by an audit:
    # it stayed on the button, a dozen tabs away from the cards)
    d.execute_script("document.getElementById('new-game').focus()")
    d.switch_to.active_element.send_keys(Keys.ENTER)
    until(lambda: "Undone" not in d.find_element(By.ID, "log").text)  # (the new match's log)
    wait_for(d, ("your-turn",))
    until(lambda: focused(d) == "hand", show=lambda: focused(d))
    # no header cell is empty (the score's and the review's tables)
    assert not console_errors(d)


def test_the_replay_steps_from_the_keyboard_and_names_the_records_players(server, browser, tmp_path):
    d = browser
    load_played(d, server, tmp_path / "game.json", Player0="Ada", Player1="Bo")
    until(lambda: "A record of 1 hand, 36 plays" in d.find_element(By.ID, "replay-title").text)
    d.execute_script("document.getElementById('replay-next').focus()")
    for step in (2, 3, 4):  # each Enter on Next play steps on: the button keeps the focus
        d.switch_to.active_element.send_keys(Keys.ENTER)
        until(
            lambda step=step: f"Before play {step}" in d.find_element(By.ID, "replay-board").text, timeout=10
        )
        until(lambda: focused(d) == "replay-next", timeout=10, show=lambda: focused(d))
    summary = d.find_element(By.CSS_SELECTOR, "#replay-review p").text
    assert summary.startswith("Points lost in this hand: Ada ") and ", Bo " in summary, summary
    board = d.find_element(By.ID, "replay-board").text  # the hands by the record's names
    assert "Ada:" in board and "Bo:" in board and "seat" not in board, board
    heads = d.execute_script(
        "return Array.from(document.querySelectorAll('#replay-review th'), t => t.textContent)"
    )
    assert all(heads) and "Position" in heads, heads
    # each hand a named group (an audit: a div's label, not exposed; "You's hand" for a You)
    labels = d.execute_script(
        "return Array.from(document.querySelectorAll('#replay-board [role=group]'), g => g.ariaLabel)"
    )
    assert labels == ["Ada's hand", "Bo's hand"], labels
    load_played(d, server, tmp_path / "you.json", Player0="You", Player1="Computer")
    until(lambda: "Before play 1" in d.find_element(By.ID, "replay-board").text)
    labels = d.execute_script(
        "return Array.from(document.querySelectorAll('#replay-board [role=group]'), g => g.ariaLabel)"
    )
    assert labels == ["Your hand", "Computer's hand"], labels


def test_enter_held_on_a_replays_next_play_stops_at_its_end(server, browser, tmp_path):
    # An accessibility audit: Next play disabled itself at the record's end and handed the focus
    # to Previous play, so Enter held down on Next ran the replay to its end and then back again
    # (Previous at the start, likewise forward). Each keeps the focus, marked unavailable there
    d = browser
    load_played(d, server, tmp_path / "game.json")
    until(lambda: "Step through it" in d.find_element(By.ID, "replay-title").text, timeout=60)
    board = lambda: d.find_element(By.ID, "replay-board").text  # noqa: E731
    rows = d.find_elements(By.CSS_SELECTOR, "#replay-review tr[data-play]")
    for button, row, end in (
        ("replay-next", rows[-1], "After the last play:"),
        ("replay-prev", rows[1], "Before play 1 "),
    ):
        row.find_element(By.TAG_NAME, "button").click()
        until(
            lambda row=row: board().startswith(f"Before play {int(row.get_attribute('data-play')) + 1} "),
            show=board,
        )
        d.execute_script("document.getElementById(arguments[0]).focus()", button)
        for _ in range(4):  # (a key held down: its first press reaches the end, the others stay there)
            d.switch_to.active_element.send_keys(Keys.ENTER)
            until(lambda end=end: board().startswith(end), timeout=10, show=board)
            time.sleep(0.2)  # (a step the wrong way, had there been one, would be drawn by now)
            assert board().startswith(end) and focused(d) == button, (board()[:40], focused(d))
        assert not usable(d, button)
        assert d.find_element(By.ID, button).get_attribute("aria-disabled") == "true"
    assert not console_errors(d)


def test_a_record_too_large_is_refused_and_the_match_goes_on(server, browser, tmp_path):
    d = browser
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    rec = scopa.Match("scopa", seed=2).record({"Event": "x" * 400}).to_json()
    rec["tags"] = {f"T{i}": "x" * 400 for i in range(3000)}  # about 1.2 MB: past the WebSocket's own limit
    big = tmp_path / "big.json"
    big.write_text(json.dumps(rec))
    d.find_element(By.ID, "load").send_keys(str(big))
    until(lambda: "refused" in d.find_element(By.ID, "replay-title").text)
    assert "a request larger than 65536 bytes" in d.find_element(By.ID, "replay-title").text
    assert state(d) == "your-turn"  # the game's connection stayed open
    before = d.find_element(By.ID, "log").text
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()
    d.find_elements(By.CSS_SELECTOR, "#captures button")[0].click()
    until(lambda: d.find_element(By.ID, "log").text != before)
    wait_for(d, ("your-turn", "hand-over"))


@contextlib.contextmanager
def computer_thinking(d: Any, url: str, time_ms: float) -> Iterator[Any]:
    """A new match whose computer leads (against greedy) on the page, its computer held
    thinking: the server's only worker (``--workers 1``) kept busy by a solve of ``time_ms`` on
    another client's WebSocket, which is yielded (to send it ``stop``)."""
    from websockets.sync.client import connect

    seed = next(s for s in range(100) if scopa.Match("scopa", seed=s).state.turn == 1)  # it leads
    d.get(f"{url}/?seed={seed}")
    wait_for(d, ("idle",))
    until(lambda: d.find_elements(By.CSS_SELECTOR, "#difficulty option"))
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    with connect(url.replace("http://", "ws://") + "/ws") as ws:
        deal = scopa.State.deal("scopone_scientifico", seed=1).to_string()
        ws.send(json.dumps({"cmd": "solve", "id": 1, "position": deal, "time_ms": time_ms}))
        until(lambda: health(url)["searches_running"] == 1)  # (the page's bestmove waits behind it)
        d.find_element(By.ID, "new-game").click()
        until(lambda: "thinking" in d.find_element(By.ID, "status").text)
        assert d.find_element(By.ID, "status").text.startswith("The computer is thinking")  # (a sentence)
        # (the status is set before the table is drawn: a CI run on the twin clicked a table
        # card before there was one)
        until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#table .table-card")))
        yield ws


class ThinkingWhenKilled:
    """A ``scopa serve`` with one worker, held busy by another client, killed while the page's
    match waits on it for the computer's first move (its bestmove sent on the page's
    connection); :meth:`restart` starts another on the same port. Both stopped at the end."""

    CMD = (sys.executable, "-m", "scopa", "serve", "--log-level", "warning", "--workers", "1")

    def __init__(self, d: Any) -> None:
        self.second: subprocess.Popen[str] | None = None
        self.first = subprocess.Popen([*self.CMD, "--port", "0"], stdout=subprocess.PIPE, text=True)
        try:
            self._kill_while_thinking(d)
        except BaseException:
            self.__exit__()
            raise

    def _kill_while_thinking(self, d: Any) -> None:
        assert self.first.stdout is not None
        url = self.first.stdout.readline().split("listening on ")[1].strip()
        self.port = url.rsplit(":", 1)[1]
        with computer_thinking(d, url, 9000):
            time.sleep(0.3)  # (its bestmove waits for the busy worker, on the page's connection)
            self.first.kill()  # (at once: a server stopped would answer the search it stopped)
            self.first.wait(10)

    def restart(self) -> None:
        self.second = subprocess.Popen([*self.CMD, "--port", self.port], stdout=subprocess.PIPE, text=True)
        assert self.second.stdout is not None and "listening on" in self.second.stdout.readline()

    def __enter__(self) -> ThinkingWhenKilled:
        return self

    def __exit__(self, *exc: object) -> None:
        for p in (self.first, self.second):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(10)


def test_a_connection_lost_while_the_computer_thinks_goes_on_from_a_button(browser):
    # the server dies while the computer's move is asked for, and stays away longer than the
    # page asks again (5 s): the page cannot go on by itself (no action of yours asks the
    # computer again), so a button reconnects and asks again
    import socket

    d = browser
    with ThinkingWhenKilled(d) as srv:
        until(lambda: state(d) == "error", show=lambda: d.find_element(By.ID, "status").text)
        until(
            lambda: d.find_element(By.ID, "go-on").is_displayed(),
            show=lambda: d.find_element(By.ID, "status").text,
        )
        assert focused(d) == "go-on"
        srv.restart()
        with socket.create_connection(("127.0.0.1", int(srv.port)), timeout=10):
            pass
        d.find_element(By.ID, "go-on").click()
        wait_for(d, ("your-turn",))
        assert not d.find_element(By.ID, "go-on").is_displayed()
        assert "greedy" not in d.find_element(By.ID, "status").text


def test_a_request_on_a_connection_its_server_closed_is_asked_again_of_the_next(browser):
    # An audit found why a click as the server restarted could need a second one: its request
    # went out on the old connection (still open to the page, its server gone) and was failed
    # "lost (your next action reconnects)". A request lost with its connection is asked again
    # for 5 s: here the computer's move, waiting behind a busy worker when the server dies and
    # comes back, goes on by itself (the go-on button was needed: 3 runs in 3)
    d = browser
    with ThinkingWhenKilled(d) as srv:
        srv.restart()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and state(d) != "your-turn":
            assert not d.find_element(By.ID, "go-on").is_displayed(), d.find_element(By.ID, "status").text
            # (an accessibility audit: the status said "your next action reconnects" meanwhile)
            assert "next action" not in d.find_element(By.ID, "status").text
            time.sleep(0.05)
        assert state(d) == "your-turn", d.find_element(By.ID, "status").text
        # (none but the browser's own lines for the attempts made while the server was down)
        assert not [e for e in console_errors(d) if "ERR_CONNECTION_REFUSED" not in e["message"]]


def test_a_lost_connection_says_the_page_reconnects_while_it_does(restartable, browser):
    # An accessibility audit: the status line said "your next action reconnects" while the page
    # was reconnecting by itself. It says so while it does, goes on by itself when the server
    # is back, and says what is left to do once it has stopped trying (5 s)
    d, srv = browser, restartable
    without_animations(d, srv.url)
    start(d, srv.url, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    status = lambda: d.find_element(By.ID, "status").text  # noqa: E731
    srv.stop()
    until(lambda: state(d) == "error", show=status)
    assert status() == "The connection to the engine was lost: reconnecting…"
    srv.start()
    until(lambda: state(d) == "your-turn", show=status)  # (no action of yours)
    assert status().startswith("Your turn")
    # the server away for longer: the page stops trying, and your next action reconnects
    srv.stop()
    until(lambda: "next action" in status(), timeout=20, show=status)
    assert state(d) == "error" and "could not reconnect" in status(), status()
    srv.start()
    play_first_card(d)
    assert not d.find_element(By.ID, "go-on").is_displayed()


def health(url: str) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(url + "/health", timeout=10) as r:
        return dict(json.loads(r.read()))


def saved(d: Any) -> Any:
    """The match the page saved in the browser's storage (None if none)."""
    return d.execute_script(
        "try { return JSON.parse(localStorage.getItem('scopa.match')) } catch { return 'not JSON' }"
    )


def play_first_card(d: Any, settled: tuple[str, ...] = ("your-turn", "hand-over")) -> str:
    """Click the hand's first card (and the first capture offered); wait until it is played
    and the page is in one of ``settled``. The card played."""
    card = hand_cards(d)[0]
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]').click()
    time.sleep(0.05)
    for b in d.find_elements(By.CSS_SELECTOR, "#captures button")[:1]:
        b.click()
    until(lambda: card not in hand_cards(d) and state(d) in settled)
    return card


#: Records, at every frame the page draws, the log's aria-live and how many lines it holds
FRAMES = (
    "window.frames_seen = []; (function tick() { const log = document.getElementById('log');"
    " if (log) window.frames_seen.push([log.getAttribute('aria-live'), log.children.length]);"
    " requestAnimationFrame(tick); })();"
)


def test_a_resumed_matchs_restored_lines_are_drawn_with_the_log_silent(server, browser):
    # The app audit's open list: resumeMatch turned the log's aria-live off and on again in one
    # task, so no frame drew the restored lines with the log silent, and a browser, which takes
    # a live region's changes into its accessibility tree at a frame, announced them all. A
    # frame draws them silent now, and the log speaks again for the line that follows.
    d = browser
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    play_first_card(d, ("your-turn",))
    restored = len(saved(d)["log"])
    assert restored >= 2
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FRAMES})
    d.refresh()
    wait_for(d, ("your-turn",))
    frames = d.execute_script("return window.frames_seen")
    assert ["off", restored] in frames, frames
    after = frames.index(["off", restored])
    assert ["polite", restored + 1] in frames[after:], frames  # ("... goes on.", announced)
    assert d.find_element(By.ID, "log").get_attribute("aria-live") == "polite"
    first = d.find_element(By.CSS_SELECTOR, "#log li").text
    assert first == "The match saved in this browser goes on.", first
    assert not console_errors(d)


def test_a_reload_goes_on_with_the_match(server, browser):
    # found by an audit: a reload or Back lost the match in play. It is saved in the browser
    # whenever it is drawn: the hand, the log and Undo are all there after a reload, and a hand
    # over comes back with its score and its review
    d = browser
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    first = play_first_card(d, ("your-turn",))
    hand, log = hand_cards(d), d.find_element(By.ID, "log").text
    assert saved(d)["match"]["position"]["turn"] == 0
    d.refresh()
    wait_for(d, ("your-turn",))
    assert hand_cards(d) == hand
    text = d.find_element(By.ID, "log").text
    assert text.startswith("The match saved in this browser goes on.") and text.endswith(log), text
    # a saved log of more lines than the page keeps comes back as its last 300 (the page once
    # put all of a long stored log on screen)
    entry = saved(d)
    entry["log"] = [[f"line {i}", False] for i in range(400)]
    d.execute_script("localStorage.setItem('scopa.match', arguments[0])", json.dumps(entry))
    d.refresh()
    wait_for(d, ("your-turn",))
    lines = d.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(lines) == 300 and lines[-1].text == "line 101" and len(saved(d)["log"]) == 300
    assert Select(d.find_element(By.ID, "difficulty")).first_selected_option.get_attribute("value") == (
        "greedy"
    )
    assert d.find_element(By.ID, "undo").is_enabled()  # what was before your play is kept too
    d.find_element(By.ID, "undo").click()
    until(lambda: first in hand_cards(d) and state(d) == "your-turn")
    play_to_hand_end(d)
    s = state(d)
    assert s == "hand-over", s
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    d.refresh()
    wait_for(d, ("hand-over",))
    assert "Total" in d.find_element(By.ID, "score").text
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    # the review's boards name the seats as the table does
    d.find_element(By.CSS_SELECTOR, "#review tr[data-play] button").click()
    until(lambda: "Before play" in d.find_element(By.ID, "review-board").text, timeout=10)
    still(d)  # (the board scrolls into view: Next hand is clicked where it comes to rest)
    board = d.find_element(By.ID, "review-board").text
    assert "You:" in board and "The computer:" in board and "seat" not in board, board
    d.find_element(By.ID, "next-hand").click()
    wait_for(d, ("your-turn",))
    assert len(hand_cards(d)) == 3 and saved(d)["handOver"] is None
    assert not console_errors(d)


def test_a_saved_match_that_cannot_go_on_is_forgotten(server, browser):
    d = browser
    d.get(server + "/")
    wait_for(d, ("idle",))
    good = {"version": 1, "undo": [], "handOver": None, "seat": 0, "deck": "french", "player": "greedy",
            "game": "scopa", "target": 11, "log": [["a line", False]]}  # fmt: skip
    for stored, says in (
        # (each says so: an audit found these forgotten without a word)
        ("not json", "could not go on"),
        (json.dumps({**good, "version": 2, "match": {"winner": None}}), "could not go on"),
        (json.dumps({**good, "player": "nobody", "match": {"winner": None}}), "could not go on"),
        (json.dumps({**good, "match": {"winner": None, "position": "garbage"}}), "could not go on"),
    ):
        d.execute_script("localStorage.setItem('scopa.match', arguments[0])", stored)
        d.refresh()
        # (the page's first words say "Choose a game" too: it is done when the storage is empty)
        until(lambda says=says: saved(d) is None and says in d.find_element(By.ID, "status").text, timeout=30)
        assert state(d) == "idle", d.find_element(By.ID, "status").text
        assert not d.find_element(By.ID, "board").is_displayed()
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn", "hand-over"))
    assert saved(d)["match"]["winner"] is None
    # found by an audit: a saved match the page takes but the engine refuses (another version of
    # it, an entry edited by hand) went on and failed at every play; a log or an undo of the
    # wrong shape left a page that failed at every reload; a deck named like a built-in
    # property drew no card: each is forgotten, with a word
    real = saved(d)
    for change in (
        lambda e: e["match"].update(version=99),
        lambda e: e["match"].update(format="another-format"),
        lambda e: e.update(log=[5]),
        lambda e: e.update(undo=[None]),
        lambda e: e.update(deck="__proto__"),
        lambda e: e.update(seat=1),  # (the computer's: you are seat 0 in every match)
    ):
        entry = json.loads(json.dumps(real))
        change(entry)
        d.execute_script("localStorage.setItem('scopa.match', arguments[0])", json.dumps(entry))
        d.refresh()
        until(
            lambda: saved(d) is None and "could not go on" in d.find_element(By.ID, "status").text, timeout=30
        )
        assert state(d) == "idle", d.find_element(By.ID, "status").text
    assert not console_errors(d)


def test_a_match_this_browser_cannot_keep_is_not_brought_back_old(server, browser):
    # found by an audit: with the storage full, a reload brought back the match as it was at
    # its last save (plays lost, to be played again otherwise); now the old save is forgotten
    # and the log says that a reload will not bring the match back
    d = browser
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    assert saved(d) is not None
    d.execute_script(
        "Storage.prototype.setItem = function () { throw new DOMException('full', 'QuotaExceededError'); }"
    )
    play_first_card(d)
    assert saved(d) is None
    log = d.find_element(By.ID, "log").text
    assert log.count("This browser could not keep the match: a reload will not bring it back.") == 1, log


def test_a_match_another_tab_saves_over_is_said_once(server, browser):
    # Found by an audit: two tabs on one address overwrite each other's saved match without a
    # word (one match per browser and address). The tab whose save was overwritten says so
    # once, and no more until it saves again.
    d = browser
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    first = d.current_window_handle
    d.switch_to.new_window("tab")
    d.get(server + "/?seed=6")  # (this tab takes the saved match up and saves it again)
    wait_for(d, ("your-turn",))
    until(lambda: bool(saved(d)))
    d.execute_script("localStorage.setItem('scopa.match', JSON.stringify(arguments[0]))", saved(d))
    d.close()
    d.switch_to.window(first)
    words = "Another tab saved its match in this browser"
    until(lambda: words in d.find_element(By.ID, "log").text, timeout=10)
    assert d.find_element(By.ID, "log").text.count(words) == 1
    # played on here, this tab's match is the one kept again: a later overwrite is said again
    play_first_card(d)
    assert d.find_element(By.ID, "log").text.count(words) == 1
    assert not console_errors(d)


# ------------------------------------------------------------------ defects of a second audit of the app


class Restartable:
    """A ``scopa serve`` that can be stopped and started again on the same port."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        self.start()
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self, *options: str) -> None:
        cmd = [sys.executable, "-m", "scopa", "serve", "--log-level", "warning", "--port", str(self.port)]
        self.proc = subprocess.Popen([*cmd, *options], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "listening on" in line, line
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@pytest.fixture
def restartable() -> Iterator[Restartable]:
    r = Restartable()
    yield r
    r.stop()


def open_ready(d: Any, url: str) -> None:
    """Open the app at ``url`` and wait until it is idle and its Computer menu is filled."""
    d.get(url)
    wait_for(d, ("idle",))
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#difficulty option")))


def without_animations(d: Any, url: str) -> None:
    """No match saved in the browser, and animations off (set on a page of the server's origin
    that is not the app: the app would save its match again)."""
    d.get(f"{url}/health")
    d.execute_script("localStorage.clear(); localStorage.setItem('scopa.animate', 'off')")


def test_next_hand_and_undo_with_the_engine_gone_wait_on_the_button(restartable, browser):
    # An audit: Undo or Next hand pressed while the server was down left the last position
    # drawn, its cards playable (a click then played into the position undone), Undo enabled
    # and the focus on the page; nothing but a reload went on.
    d, srv = browser, restartable
    without_animations(d, srv.url)
    start(d, srv.url, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    first = play_first_card(d)
    shown = hand_cards(d)
    srv.stop()
    d.find_element(By.ID, "undo").click()
    until(lambda: state(d) == "error" and d.find_element(By.ID, "go-on").is_displayed())
    assert focused(d) == "go-on"
    assert not any(b.is_enabled() for b in d.find_elements(By.CSS_SELECTOR, "#hand button"))
    assert not d.find_element(By.ID, "undo").is_enabled() and not d.find_element(By.ID, "hint").is_enabled()
    assert hand_cards(d) == shown  # (the last position is still drawn: none of it playable)
    srv.start()
    d.find_element(By.ID, "go-on").click()
    wait_for(d, ("your-turn",))
    assert first in hand_cards(d)  # the position undone, drawn
    play_to_hand_end(d)
    until(lambda: d.find_element(By.ID, "next-hand").is_displayed())
    srv.stop()
    d.find_element(By.ID, "next-hand").click()
    until(lambda: state(d) == "error" and d.find_element(By.ID, "go-on").is_displayed())
    assert focused(d) == "go-on" and not d.find_element(By.ID, "undo").is_enabled()
    srv.start()
    # (the accessibility audit: the button hid itself with the focus on it, which fell to the
    # page while the engine was asked again; it waits on the status line now)
    d.execute_script(WATCH_FOCUS)
    d.find_element(By.ID, "go-on").click()
    wait_for(d, ("your-turn",))
    assert len(hand_cards(d)) == 3  # (the console has the refused connections' lines)
    until(lambda: focused(d) == "hand", show=lambda: focused(d))
    assert d.execute_script("return window.focusLost") == []


def test_a_capture_choice_is_put_away_by_undo_and_by_another_card(server, browser):
    # An audit: after Undo with a capture choice up, one click on a table card played a capture
    # of the card chosen before; and table cards picked for one card of the hand stayed marked
    # when another was pressed (pressing one again then picked it).
    d = browser
    without_animations(d, server)
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    play_first_card(d)
    card = next(c for c in hand_cards(d) if c[0] == "Q")
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]').click()
    assert len(d.find_elements(By.CSS_SELECTOR, "#captures button")) == 2
    d.find_element(By.ID, "undo").click()
    wait_for(d, ("your-turn",))
    hand = hand_cards(d)
    d.find_element(By.CSS_SELECTOR, '#table [data-card="Qs"]').click()
    assert d.find_element(By.ID, "hint-text").text == "First choose the card of your hand that captures."
    time.sleep(0.5)
    assert hand_cards(d) == hand and state(d) == "your-turn"
    # seed 25, your first turn: 2c Qs 6b in hand, 2d 2s 3b 4b on the table
    without_animations(d, server)  # (and no saved match to go on with)
    d.get(f"{server}/?seed=25")
    wait_for(d, ("idle",))
    assert d.find_element(By.ID, "download").get_attribute("href") is None  # (no record: no link)
    start(d, server, "scopa", 25)
    wait_for(d, ("your-turn",))
    assert {"Qs", "6b"} <= set(hand_cards(d))
    # table cards are toggle buttons only while a capture is chosen (they always were)
    assert d.find_element(By.CSS_SELECTOR, '#table [data-card="3b"]').get_attribute("aria-pressed") is None
    d.find_element(By.CSS_SELECTOR, '#hand button[data-card="Qs"]').click()
    assert d.find_element(By.CSS_SELECTOR, '#table [data-card="3b"]').get_attribute("aria-pressed") == "false"
    # the arrow keys move along the hand from the hand only, not from the capture choice
    d.find_element(By.CSS_SELECTOR, "#captures button").send_keys(Keys.ARROW_RIGHT)
    assert d.execute_script("return document.activeElement.closest('#captures') !== null")
    d.find_element(By.CSS_SELECTOR, '#table [data-card="3b"]').click()
    assert d.find_element(By.CSS_SELECTOR, '#table [data-card="3b"]').get_attribute("aria-pressed") == "true"
    d.find_element(By.CSS_SELECTOR, '#hand button[data-card="6b"]').click()
    picked = d.find_element(By.CSS_SELECTOR, '#table [data-card="3b"]')
    assert picked.get_attribute("aria-pressed") == "false" and "selected" not in picked.get_attribute("class")


def test_a_key_held_down_plays_one_card(server, browser):
    # An audit: holding "1" down (the key's repeats) played the whole hand, turn after turn.
    d = browser
    without_animations(d, server)
    start(d, server, "scopa", 1)
    wait_for(d, ("your-turn",))
    key = {"key": "1", "code": "Digit1", "text": "1", "windowsVirtualKeyCode": 49, "nativeVirtualKeyCode": 49}
    d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", **key})
    for _ in range(30):  # (about a second of a key held down)
        d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", "autoRepeat": True, **key})
        time.sleep(0.03)
    d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", **key})
    wait_for(d, ("your-turn", "hand-over"))
    time.sleep(0.5)
    mine = [line for line in d.find_element(By.ID, "log").text.splitlines() if line.startswith("You:")]
    assert len(mine) == 1, mine
    # the same, without timing: a repeated key press plays nothing (a play clears the hint line at
    # once), a first press plays (the check can see a play)
    wait_for(d, ("your-turn",))
    press = (
        "const hint = document.getElementById('hint-text'); hint.textContent = 'marker';"
        "const key = new KeyboardEvent('keydown', {key: '1', repeat: arguments[0], bubbles: true});"
        "document.body.dispatchEvent(key);"
        "return hint.textContent"
    )
    assert d.execute_script(press, True) == "marker"
    assert d.execute_script(press, False) == ""


def test_a_start_the_engine_failed_goes_on_from_the_button(server, browser):
    # An audit: when the first hello failed, the page never recovered (New match did nothing,
    # the player list stayed empty, a saved match was not resumed). The first three connections
    # go to a closed port here: the page's own two (the engine's first, and its start's), and
    # the button's first try. (CI found the button left up after a start that worked: pressed,
    # it went on with no match)
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    d = browser
    d.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument",
        {
            "source": "const Real = window.WebSocket; let n = 0;"
            "window.WebSocket = class extends Real { constructor(u, p) {"
            f" super(n++ < 3 ? 'ws://127.0.0.1:{closed}/ws' : u, p) }} }};"
        },
    )
    d.get(f"{server}/?seed=3")
    until(lambda: state(d) == "error" and d.find_element(By.ID, "go-on").is_displayed())
    assert focused(d) == "go-on" and not d.find_elements(By.CSS_SELECTOR, "#difficulty option")
    d.find_element(By.ID, "go-on").click()  # (the third connection fails too)
    until(lambda: state(d) == "error" and d.find_element(By.ID, "go-on").is_displayed())
    assert not d.find_elements(By.CSS_SELECTOR, "#difficulty option")
    d.find_element(By.ID, "go-on").click()
    until(lambda: len(d.find_elements(By.CSS_SELECTOR, "#difficulty option")) > 6)
    until(lambda: state(d) == "idle" and not d.find_element(By.ID, "go-on").is_displayed())
    assert d.find_element(By.ID, "status").text == "Choose a game and press New match."
    # an audit: the button, hidden, dropped the focus to the page
    assert focused(d) == "game", focused(d)
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn",))
    assert len(d.find_elements(By.CSS_SELECTOR, "#difficulty option")) == len(
        {o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#difficulty option")}
    )


def test_a_server_restarted_with_a_lower_maximum_time_is_kept_to(restartable, browser):
    # An audit: the server's maximum search time was read once, at the page's start: restarted
    # with --max-time 0.2, every computer move was refused (300 ms asked) until a reload.
    d, srv = browser, restartable
    without_animations(d, srv.url)
    start(d, srv.url, "scopa", CHOICE_SEED)
    Select(d.find_element(By.ID, "difficulty")).select_by_value("pimc")  # (asks for 300 ms a move)
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn",))
    srv.stop()
    until(lambda: state(d) == "error")  # (the page saw its connection lost)
    srv.start("--max-time", "0.2")
    # one click plays (the status said the connection was lost before it: the click's own outcome
    # is the card leaving the hand, or an error of its own, "Error: ..."); the time limit refused
    # ("above the engine's maximum") would fail here, as it did before the fix
    snap = "const s = document.getElementById('status'); return [s.dataset.state, s.textContent]"
    press = (
        "const b = document.querySelector(`#hand button[data-card='${arguments[0]}']`);"
        "if (!b || b.disabled) return false;"
        "b.click(); document.querySelector('#captures button')?.click(); return true"
    )
    card = hand_cards(d)[0]
    assert d.execute_script(press, card)
    until(lambda: card not in hand_cards(d) or d.execute_script(snap)[1].startswith("Error:"))
    assert card not in hand_cards(d) and "maximum" not in d.execute_script(snap)[1], d.execute_script(snap)
    until(lambda: d.execute_script(snap)[0] in ("your-turn", "hand-over", "error"))
    assert "maximum" not in d.execute_script(snap)[1], d.execute_script(snap)


def test_at_a_matchs_end_the_status_says_what_undo_does(server, browser):
    # an audit: Undo stayed enabled at the end of a match (it takes back your last play, as at a
    # hand's end), while the status said only "Press New match to play again"
    d = browser
    without_animations(d, server)
    d.get(f"{server}/?seed=2")
    wait_for(d, ("idle",))
    until(lambda: d.find_elements(By.CSS_SELECTOR, "#difficulty option"))
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    target = d.find_element(By.ID, "target")
    target.clear()
    target.send_keys("1")
    d.find_element(By.ID, "new-game").click()
    while wait_for(d, ("your-turn", "hand-over", "match-over")) != "match-over":
        if state(d) == "hand-over":
            d.find_element(By.ID, "next-hand").click()
            wait_for(d, ("your-turn", "match-over"))
            continue
        play_first_card(d, ("your-turn", "hand-over", "match-over"))
    status = d.find_element(By.ID, "status").text
    assert status.endswith("Press New match to play again (Undo takes back your last play)."), status
    until(lambda: d.find_element(By.ID, "undo").is_enabled())  # (drawn again once the play is done)


# ------------------------------------------------------------------ the page's engine on a scripted socket

SCRIPTED_SOCKETS = """
const done = arguments[arguments.length - 1];
const { Engine } = await import("/engine.js");
const sockets = [];
class Scripted {
  static CONNECTING = 0; static OPEN = 1; static CLOSING = 2; static CLOSED = 3;
  constructor(url) { this.readyState = 0; this.sent = []; sockets.push(this); }
  send(text) { this.sent.push(JSON.parse(text)); }
  open() { this.readyState = 1; this.onopen(); }
  reply(obj) { this.onmessage({ data: JSON.stringify(obj) }); }
  greet() { this.open(); this.reply({ id: this.sent[0].id, version: "x", max_time_ms: null }); }
  close() { this.readyState = 3; this.onclose(); }
}
const tick = (ms = 0) => new Promise((ok) => setTimeout(ok, ms));
const real = window.WebSocket;
window.WebSocket = Scripted;
const out = {};
try {
  const e = new Engine("ws://scripted/ws");
  sockets[0].greet();
  // 1. a request lost with its connection is asked again on the next one; the engine's own
  // error there is said at once (it was asked again every 200 ms for 5 s)
  const asked = e.ask({ cmd: "play", position: "p", move: "Kc" });
  asked.catch(() => {});
  await tick();
  sockets[0].close();
  await tick(300);
  sockets[1].greet();
  await tick();
  const request = sockets[1].sent[1];
  const t0 = performance.now();
  sockets[1].reply({ id: request.id, error: { type: "IllegalMoveError", message: "illegal move 'Kc'" } });
  const error = await asked.then(() => null, (err) => err);
  const soon = performance.now() - t0 < 150;
  await tick(600);  // (nothing asked again meanwhile: no new socket, no new request)
  out.first = [sockets[0].sent.length, request.cmd, error && error.type, soon, sockets.length];
  out.first.push(sockets[1].sent.length);
  // 2. a connection closing (CLOSING) is replaced; its late close fails its own requests, which
  // are asked again, and leaves the newer one's alone (the first hung for ever)
  const waiting = e.ask({ cmd: "ping" });
  await tick();
  sockets[1].readyState = 2;
  const newer = e.ask({ cmd: "legal", position: "q" });
  await tick();
  sockets[2].greet();
  await tick();
  sockets[1].close();
  await tick(300);
  const onNewer = sockets[2].sent.slice(1).map((m) => m.cmd).sort();
  for (const m of sockets[2].sent.slice(1)) sockets[2].reply({ id: m.id, done: m.cmd });
  out.second = [onNewer, (await waiting).done, (await newer).done, sockets.length];
  // 3. a request asked with onInfo is sent with "progress": true and gets its own info lines,
  // in order, before its reply; another request's lines and a line of no request go nowhere
  const seen = [];
  const reviewed = e.ask({ cmd: "review", record: {} }, (info) => seen.push(info.done));
  const plain = e.ask({ cmd: "ping" });
  await tick();
  const [r, p] = sockets[2].sent.slice(-2);
  for (const [id, done] of [[r.id, 1], [p.id, 9], [12345, 8], [r.id, 2]]) {
    sockets[2].reply({ id, info: { done } });
  }
  sockets[2].reply({ id: p.id, pong: true });
  sockets[2].reply({ id: r.id, plays: [] });
  out.third = [r.progress === true, "progress" in p, seen, (await reviewed).plays.length, (await plain).pong];
  // 4. a request longer than hello's max_request_bytes is refused before it is sent, and the
  // requests waiting stay (the server's error for it, with no id, failed them all: a JS audit)
  e.hello.max_request_bytes = 200;
  const waits = e.ask({ cmd: "ping" });
  await tick();
  const sentBefore = sockets[2].sent.length;
  const big = await e.ask({ cmd: "ping", pad: "é".repeat(95) }).then(() => null, (err) => err);
  const last = sockets[2].sent[sentBefore - 1];
  sockets[2].reply({ id: last.id, pong: 4 });
  out.fourth = [big && big.type, big && big.message, sockets[2].sent.length - sentBefore, (await waits).pong];
  // 5. a connection lost between requests (a server stopped in the page's pause): the next
  // request finds the server gone and is asked again while it comes back (it failed at once)
  const before = sockets.length;
  sockets[before - 1].close();
  await tick();
  const after = e.ask({ cmd: "ping" });
  await tick();
  sockets[before].onerror();  // (the server not back yet)
  sockets[before].close();
  await tick(300);
  sockets[before + 1].greet();
  await tick();
  const pinged = sockets[before + 1].sent[1];
  sockets[before + 1].reply({ id: pinged.id, pong: 5 });
  out.fifth = [await after.then((r) => r.pong, (err) => String(err)), sockets.length - before];
} catch (err) {
  out.error = String(err && err.stack || err);
} finally {
  window.WebSocket = real;
}
done(out);
"""


def test_the_pages_engine_asks_again_only_what_its_connection_lost(server, browser):
    # a review: after one lost connection, the engine's own errors were asked again for 5 s; an
    # audit: requests on a connection closing when a newer one replaced it were never failed
    d = browser
    d.get(server)
    wait_for(d, ("idle", "your-turn", "waiting"))
    out = d.execute_async_script("(async () => {" + SCRIPTED_SOCKETS + "})()")
    assert "error" not in out, out.get("error")
    assert out["first"] == [2, "play", "IllegalMoveError", True, 2, 2], out
    assert out["second"] == [["legal", "ping"], "ping", "legal", 3], out
    assert out["third"] == [True, False, [1, 2], 0, True], out
    kind, said, sent, pong = out["fourth"]
    assert (kind, sent, pong) == ("ProtocolError", 0, 4), out
    found = re.fullmatch(r"a request of (\d+) bytes: the server reads at most 200 \(its \w+\)", said)
    assert found and 220 <= int(found.group(1)) <= 224, said  # (é two bytes: about 126 characters)
    assert out["fifth"] == [5, 2], out  # (a browser audit: "cannot reach the engine" at once)


def test_a_reload_shows_the_matchs_own_game_not_the_menus(server, browser):
    # An audit: the Game menu changed in the middle of a 2-player match (for the next New
    # match) was saved as the match's, so a reload showed "Scopone scientifico" for it
    d = browser
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    Select(d.find_element(By.ID, "game")).select_by_value("scopone_scientifico")
    play_first_card(d, ("your-turn",))
    assert saved(d)["game"] == "scopa"
    d.refresh()
    wait_for(d, ("your-turn",))
    assert Select(d.find_element(By.ID, "game")).first_selected_option.get_attribute("value") == "scopa"
    assert len(d.find_elements(By.CSS_SELECTOR, "#opponents .seat")) == 1
    assert not console_errors(d)


def house_rules(d: Any) -> dict[str, tuple[bool, bool]]:
    """Each House rules box's option: (ticked, usable)."""
    boxes = d.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('#house-rules input'),"
        " b => [b.dataset.option, [b.checked, !b.disabled]]))"
    )
    return {option: (ticked, usable) for option, (ticked, usable) in boxes.items()}


def test_house_rules_start_a_match_of_a_variant_and_come_back_with_it(server, browser):
    # The open list: the app's Game menu had the presets only, though the engine plays every
    # rule option (RULES §3.2, §7). The House rules ask the engine for them; the match's rules
    # are the engine's, shown in the log and on a reload; an ace's sweep as a scopa only with
    # the ace taking all (the engine refuses it alone)
    d = browser
    open_ready(d, f"{server}/?seed=5")
    assert set(house_rules(d)) == {
        "capture_rule", "ace_takes_all", "ace_sweep_is_scopa", "re_bello", "napola", "scopa_on_last_play"
    }  # fmt: skip
    assert not any(ticked for ticked, _ in house_rules(d).values())
    assert house_rules(d)["ace_sweep_is_scopa"] == (False, False)
    d.find_element(By.CSS_SELECTOR, "#house-rules summary").send_keys(Keys.ENTER)  # (from the keyboard)
    until(lambda: d.find_element(By.ID, "house-rules").get_attribute("open") is not None)
    box = {
        o: d.find_element(By.CSS_SELECTOR, f'#house-rules input[data-option="{o}"]') for o in house_rules(d)
    }
    box["ace_takes_all"].click()
    assert house_rules(d)["ace_sweep_is_scopa"] == (False, True)
    box["ace_sweep_is_scopa"].click()
    box["ace_takes_all"].click()  # (taken back: its sweep's box goes with it)
    assert house_rules(d)["ace_sweep_is_scopa"] == (False, False)
    for option in ("napola", "re_bello", "capture_rule"):
        box[option].send_keys(Keys.SPACE)
    assert d.find_element(By.CSS_SELECTOR, '#house-rules input[data-option="napola"]').accessible_name
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn",))
    rules = saved(d)["match"]["rules"]
    assert rules == {"preset": "scopa", "capture_rule": "fewest", "re_bello": True, "napola": True}, rules
    assert scopa.Match.from_json(saved(d)["match"]).rules == scopa.Rules.preset(
        "scopa", capture_rule="fewest", re_bello=True, napola=True
    )
    log = d.find_element(By.ID, "log").text
    assert "New match of Scopa (2 players) with the fewest cards captured, re bello, napola to 11" in log
    # the menu changed for the next match; a reload shows the match's own rules
    box["napola"].click()
    Select(d.find_element(By.ID, "game")).select_by_value("scopone_scientifico")
    play_first_card(d, ("your-turn",))
    d.refresh()
    wait_for(d, ("your-turn",))
    assert Select(d.find_element(By.ID, "game")).first_selected_option.get_attribute("value") == "scopa"
    ticked = {o for o, (t, _) in house_rules(d).items() if t}
    assert ticked == {"capture_rule", "re_bello", "napola"}, ticked
    assert d.find_element(By.ID, "house-rules").get_attribute("open") is not None
    play_to_hand_end(d)  # (scored by the match's rules: their rows in the score)
    until(lambda: "Napola" in d.find_element(By.ID, "score").text)
    assert "Re bello" in d.find_element(By.ID, "score").text
    # unticked, New match plays the preset (its rules a name, as the engine writes a preset's)
    for option in ticked:
        d.find_element(By.CSS_SELECTOR, f'#house-rules input[data-option="{option}"]').click()
    d.find_element(By.CSS_SELECTOR, '#house-rules input[data-option="ace_takes_all"]').click()
    d.find_element(By.ID, "new-game").click()
    until(lambda: saved(d) and saved(d)["match"]["rules"] != rules and state(d) == "your-turn")
    assert saved(d)["match"]["rules"] == {"preset": "scopa", "ace_takes_all": True}
    assert "New match of Scopa (2 players) with asso piglia tutto to 11" in d.find_element(By.ID, "log").text
    assert not console_errors(d)


def go_back(d: Any, timeout: float = 30) -> None:
    """Go back a page, as the Back button does (the session history's traversal), and wait
    until the page before is shown and loaded. Not selenium's ``back()``: chromedriver, waiting
    for that navigation, lost a page the back-forward cache restored when the machine was busy
    ("timeout from aborted by navigation: Not attached to an active page", 1 run in 5 beside a
    browser suite and a CPU hog, twice in CI), the page shown all the same. The traversal is
    started after the script's reply, and a command the page's swap aborts is asked again."""
    before = d.current_url
    d.execute_script("setTimeout(() => history.back(), 0)")
    deadline = time.monotonic() + timeout
    while True:
        try:
            if d.current_url != before and d.execute_script("return document.readyState") == "complete":
                return
        except WebDriverException:  # (chromedriver's wait aborted by the swap of pages)
            pass
        assert time.monotonic() < deadline, f"still at {before} {timeout} s after going back"
        time.sleep(0.05)


def test_back_to_a_hand_over_says_nothing_of_the_closed_connection(server, browser):
    # An audit: the page Back brought from the browser's cache at a hand's end (or before a
    # match) said "The connection to the engine was lost": its closed connection's close came
    # after the page was shown again, and nothing had replaced it
    d = browser
    without_animations(d, server)
    start(d, server, "scopa", 5)
    play_to_hand_end(d)
    # (a review still asked would reconnect, its answer lost with the connection: wait for it)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    d.execute_script("window.kept = true")
    d.get(server + "/health")
    go_back(d)
    assert d.execute_script("return window.kept === true")  # (from the back-forward cache)
    time.sleep(1)
    assert state(d) == "hand-over", d.find_element(By.ID, "status").text
    d.find_element(By.ID, "next-hand").click()
    wait_for(d, ("your-turn",))
    # (the browser's own lines: /health's favicon, the WebSocket closed as the page was cached)
    assert not [e for e in console_errors(d) if e.get("source") != "network"]


def test_enter_in_the_points_field_starts_a_match_without_reloading(server, browser):
    # An audit: Enter in "To ... points" submitted the form, which reloaded the page at "/?":
    # the seed, the points typed and the focus were lost, and no match began
    d = browser
    open_ready(d, f"{server}/?seed=5")
    d.execute_script("window.kept = true")
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    target = d.find_element(By.ID, "target")
    target.clear()
    target.send_keys("3", Keys.ENTER)
    wait_for(d, ("your-turn",))
    assert d.execute_script("return window.kept === true") and d.current_url.endswith("?seed=5")
    assert saved(d)["target"] == 3 and "to 3" in d.find_element(By.ID, "match-score").text
    until(lambda: focused(d) == "hand", show=lambda: focused(d))
    assert not console_errors(d)


def test_a_seed_in_the_address_that_is_no_seed_is_said_and_the_match_plays(server, browser):
    # An audit: ?seed=abc or ?seed=-1 made New match fail with the server's error ("'seed' must
    # be an integer ..."); the match is dealt at random and the log says why
    d = browser
    log_text = lambda: d.find_element(By.ID, "log").text  # noqa: E731
    for bad in ("abc", "-1", "1e3", "12345678901234567890"):
        d.get(f"{server}/?seed={bad}")  # (the match before, resumed: a new one is asked for)
        wait_for(d, ("idle", "your-turn", "computer-turn"))
        until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#difficulty option")))
        Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
        d.find_element(By.ID, "new-game").click()
        wait_for(d, ("your-turn", "computer-turn"))
        said = f'The address\'s seed "{bad}" is not a whole number of at most 15 digits'
        until(lambda said=said: said in log_text(), show=log_text)
    assert not console_errors(d)


def open_for_records(d: Any, server: str) -> Any:
    """The page at ``server`` opened and idle; a function reading its replay's title (what
    became of a record file chosen)."""
    d.get(server + "/")
    wait_for(d, ("idle",))
    return lambda: d.find_element(By.ID, "replay-title").text


def test_the_same_record_chosen_again_is_loaded_again(server, browser, tmp_path):
    # An audit: a file corrected after it was refused, chosen again, was not loaded (the
    # browser fires no change for the same choice)
    d = browser
    title = open_for_records(d, server)
    path = tmp_path / "game.json"
    path.write_text("{bad")
    d.find_element(By.ID, "load").send_keys(str(path))
    until(lambda: title().startswith("Not a record"), show=title)
    # (what became of the file is announced: the focus stays on the file input)
    assert d.find_element(By.ID, "replay-title").get_attribute("aria-live") == "polite"
    save_played(path, Event="one")
    d.find_element(By.ID, "load").send_keys(str(path))
    until(lambda: "A record of 1 hand" in title(), timeout=60, show=title)
    assert not console_errors(d)


def test_a_record_chosen_while_another_is_checked_is_the_one_shown(server, browser, tmp_path):
    # An audit: a record chosen while a longer one was still checked was replaced by the longer
    # one's replay when its answer came (the file input naming the one chosen last)
    d = browser
    title = open_for_records(d, server)
    save_played(tmp_path / "one.json", Event="one")
    save_played(tmp_path / "three.json", 3, seed=3, Event="three")
    # three hands (108 plays to review), then one at once: the one is shown, and stays
    d.find_element(By.ID, "load").send_keys(str(tmp_path / "three.json"))
    d.find_element(By.ID, "load").send_keys(str(tmp_path / "one.json"))
    until(lambda: "A record of 1 hand" in title(), timeout=60, show=title)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        assert "A record of 1 hand" in title(), title()
        time.sleep(0.1)
    assert "Before play 1" in d.find_element(By.ID, "replay-board").text
    assert not console_errors(d)


def test_new_match_pressed_again_and_again_stops_the_searches_it_supersedes(server, browser):
    # An audit: New match pressed 25 times in under a second (Enter held down on it repeats)
    # against level 6 left each superseded match's computer search running on the page's one
    # connection, and the ninth request in flight was refused: "Error: 8 requests of this
    # connection in flight (at most 8)", the match stopped at a "Reconnect and go on" button
    d = browser
    open_ready(d, f"{server}/?seed=1")  # (your partner deals: the computer leads, a search at once)
    Select(d.find_element(By.ID, "game")).select_by_value("scopone_scientifico")
    Select(d.find_element(By.ID, "difficulty")).select_by_value("level6")
    d.execute_async_script(
        "const [b, done] = arguments; let n = 0;"
        "const t = setInterval(() => { b.click(); if (++n === 25) { clearInterval(t); done(); } }, 33);",
        d.find_element(By.ID, "new-game"),
    )
    wait_for(d, ("your-turn",))
    assert not d.find_element(By.ID, "go-on").is_displayed()
    play_first_card(d, ("your-turn", "hand-over"))
    assert not console_errors(d)


def test_the_review_board_shows_the_position_asked_last(server, browser):
    # An audit: "show" pressed on the hand's last play, then at once on its first, left the
    # board at the last play: its position, 35 plays to replay, came after the first's
    d = browser
    start(d, server, "scopa", 5)
    play_to_hand_end(d)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    shows = d.find_elements(By.CSS_SELECTOR, "#review tr[data-play] button")
    first = int(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")[0].get_attribute("data-play"))
    d.execute_script("arguments[0].click(); setTimeout(() => arguments[1].click(), 20)", shows[-1], shows[0])
    board = lambda: d.find_element(By.ID, "review-board").text  # noqa: E731
    until(lambda: board().startswith(f"Before play {first + 1} "), timeout=10, show=board)
    time.sleep(1)  # (the last play's position, had it been drawn, would be up by now)
    assert board().startswith(f"Before play {first + 1} "), board()
    assert not console_errors(d)


def test_the_lines_under_a_review_scrolled_sideways_stay_in_view(server, browser, tmp_path):
    # An audit: at 360 px the review's table (495 px in a 336 px box) is scrolled sideways to
    # reach its "show" buttons, and the points lost under it scrolled too: "Points lost in this
    # hand: you 4.09," was cut off at the left (the line at x -147..189); a replay's too. (A
    # phone now shows each play as a block: a table wider than its box is one at twice the text
    # size past a phone's width, here; its Show buttons stay at the box's right edge)
    d = browser
    d.set_window_size(700, 800)
    start(d, server, "scopone_scientifico", 3)
    play_to_hand_end(d)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    d.execute_script("document.documentElement.style.fontSize = '200%'")
    for scroll in (0, 10_000):
        left, right, scrolls, buttons = edges = d.execute_script(SHOW_BUTTONS, scroll)
        assert scrolls and buttons, edges  # (a table wider than its box: the case in question)
        assert all(left <= a and b <= right + 0.5 for a, b in buttons), edges
    out = (
        "const out = [];"
        "for (const t of document.querySelectorAll(arguments[0])) {"
        " let s = t.parentElement; while (getComputedStyle(s).overflowX === 'visible') s = s.parentElement;"
        " s.scrollLeft = s.scrollWidth; const box = s.getBoundingClientRect();"
        " for (const e of s.querySelectorAll(':scope > p, :scope > h3')) {"
        "  const r = e.getBoundingClientRect();"
        "  if (r.left < box.left - 1 || r.right > box.right + 1)"
        "   out.push([e.textContent, r.left, r.right, box.left]); } }"
        "return out"
    )
    assert d.execute_script(out, "#review table") == []
    m = scopa.Match("scopone_scientifico", seed=2)
    while len(m.hands) < 2 and m.winner is None:
        m.play(m.state.legal_moves()[0])
    m.record({"Event": "two"}).save(tmp_path / "two.json")
    d.find_element(By.ID, "load").send_keys(str(tmp_path / "two.json"))
    until(lambda: "A record of 2 hands" in d.find_element(By.ID, "replay-title").text, timeout=60)
    assert d.execute_script(out, "#replay-review table") == []
    assert d.execute_script("return document.documentElement.scrollWidth") <= 700
    assert not console_errors(d)


#: The review's cells a phone does not show whole, as [play, column, left, right]: out of the
#: page's width, or under another cell of their row (the Show button's); and whether the page or
#: the review scrolls sideways
REVIEW_CELLS = """
const width = document.documentElement.clientWidth, box = document.getElementById('review');
const out = [];
for (const r of box.querySelectorAll('tr[data-play]')) {
  const rects = Array.from(r.cells, c => c.getBoundingClientRect());
  rects.forEach((a, i) => {
    if (!a.width) return;  // (no mark)
    const under = rects.some((b, j) => j !== i && b.width && a.left < b.right - 0.5 && b.left < a.right - 0.5
      && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5);
    if (a.left < -0.5 || a.right > width + 0.5 || under) out.push([r.dataset.play, i, a.left, a.right]);
  });
}
return [out, document.documentElement.scrollWidth > width, box.scrollWidth > box.clientWidth];
"""


def test_the_review_reads_at_phone_width_without_scrolling_sideways(server, browser):
    # An accessibility audit: at 360 px the review's loss and mark columns were off the screen
    # (the table scrolled sideways in its box) and the best move's text was cut under the Show
    # buttons' column, kept at the right edge. On a phone each play is a block, its cells one
    # under the other, each named by its column; the table is still one for screen readers
    d = browser
    without_animations(d, server)
    d.set_window_size(360, 800)
    start(d, server, "scopa", 5)
    play_to_hand_end(d)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    for width in (360, 320):
        d.set_window_size(width, 800)
        time.sleep(0.2)
        hidden, page_scrolls, review_scrolls = d.execute_script(REVIEW_CELLS)
        assert not hidden and not page_scrolls and not review_scrolls, (
            width,
            hidden,
            page_scrolls,
            review_scrolls,
        )
        row = d.find_element(By.CSS_SELECTOR, "#review tr[data-play]")
        loss = row.find_elements(By.TAG_NAME, "td")[3]
        named = d.execute_script("return getComputedStyle(arguments[0], '::before').content", loss)
        assert "Loss" in named, named  # (named by its column, shown before it)
        assert d.find_element(By.CSS_SELECTOR, "#review th").aria_role == "columnheader"
        assert loss.aria_role == "cell"
    assert not console_errors(d)


#: The status line's top and bottom, the window's height, and what has the focus: its id (or
#: tag), top and bottom
STATUS_AND_FOCUS = (
    "const s = document.getElementById('status').getBoundingClientRect(), a = document.activeElement;"
    "const r = a.getBoundingClientRect();"
    "return [s.top, s.bottom, innerHeight, a.closest('#hand') ? 'hand' : a.id || a.tagName, r.top, r.bottom]"
)


def test_the_status_line_stays_in_view_at_320_by_568(server, browser):
    # An accessibility audit: at 320 x 568 the first move of the focus (into your hand at your
    # turn, at the page's start too, and each Tab on) scrolled the status line out of view, so
    # "Your turn" or "The computer is thinking" was not seen. It stays at the top of the window,
    # and what has the focus is scrolled clear of it
    d = browser
    size = {"width": 320, "height": 568, "deviceScaleFactor": 1, "mobile": False}
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", size)
    try:
        without_animations(d, server)
        start(d, server, "scopa", 5)
        wait_for(d, ("your-turn",))
        until(lambda: focused(d) == "hand", show=lambda: focused(d))
        seen = [d.execute_script(STATUS_AND_FOCUS)]
        d.refresh()  # (the page's start: the focus goes to your hand)
        wait_for(d, ("your-turn",))
        until(lambda: focused(d) == "hand", show=lambda: focused(d))
        seen.append(d.execute_script(STATUS_AND_FOCUS))
        for _ in range(6):  # (on through the board, the log and the records)
            ActionChains(d).send_keys(Keys.TAB).perform()
            seen.append(d.execute_script(STATUS_AND_FOCUS))
        play_to_hand_end(d)  # (the focus on Next hand)
        until(lambda: focused(d) == "next-hand", show=lambda: focused(d))
        seen.append(d.execute_script(STATUS_AND_FOCUS))
        for top, bottom, height, what, a_top, a_bottom in seen:
            assert 0 <= top and bottom <= height, seen  # the status line in view
            clear = a_top >= bottom - 0.5 or a_bottom <= top + 0.5
            assert what in ("status", "BODY") or clear, (what, seen)  # and what has the focus clear of it
        assert {"hand", "hint", "log", "load", "next-hand"} <= {s[3] for s in seen}, seen
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert not console_errors(d)


def test_a_table_card_clicked_while_the_computer_thinks_says_to_wait(browser):
    # the app audit (open list): a click on a table card while the computer was to play said
    # "First choose the card of your hand that captures", a play that could not be made then.
    # The computer is held thinking by a server of one worker kept busy by another client.
    d = browser
    server = serving("--workers", "1", "--max-time", "0")  # (no maximum: its search runs till stopped)
    url = next(server)

    def says(text: str) -> None:
        hint = lambda: d.find_element(By.ID, "hint-text").text  # noqa: E731
        until(lambda: hint() == text, show=hint)

    try:
        without_animations(d, url)
        with computer_thinking(d, url, 60000) as ws:
            d.find_elements(By.CSS_SELECTOR, "#table .table-card")[0].click()
            says("Wait for your turn: the computer is to play.")
            assert state(d) == "waiting" and not d.find_elements(By.CSS_SELECTOR, "#table .selected")
            ws.send(json.dumps({"cmd": "stop", "id": 2}))  # the computer plays; then it is your turn
            wait_for(d, ("your-turn",))
            says("")  # (the wait is over: said no longer)
            d.find_elements(By.CSS_SELECTOR, "#table .table-card")[0].click()  # (your turn, no card chosen)
            says("First choose the card of your hand that captures.")
    finally:
        next(server, None)  # (the rest of the generator: the server terminated)


#: Installed in the page: each moment the focus is lost (on <body>, or on an element removed or
#: hidden) is noted in window.focusLost, with what had it last and the status then; checked at
#: each change of the page (a MutationObserver) and at each frame.
WATCH_FOCUS = """
window.focusLost = [];
let had = document.activeElement;
const check = () => {
  const a = document.activeElement;
  const lost = !a || a === document.body || !a.isConnected || a.closest('[hidden]');
  if (lost && had) {
    window.focusLost.push((had.id || had.dataset.move || had.dataset.card || had.tagName) + ' @ ' +
      document.getElementById('status').dataset.state);
    had = null;
  } else if (!lost) had = a;
};
new MutationObserver(check).observe(document.body, {subtree: true, childList: true, attributes: true});
const frame = () => { check(); requestAnimationFrame(frame); };
requestAnimationFrame(frame);
"""


def test_a_whole_hand_from_the_keyboard_never_drops_the_focus(server, browser):
    # the accessibility audit: a capture chosen from the keyboard (Enter on a capture's button)
    # dropped the focus to the page while the computer played (the button was removed under
    # it): a screen reader then reads from the top of the page
    d = browser
    at = "const a = document.activeElement; return a.dataset.move || a.dataset.card || a.id || a.tagName"

    def press(key: str) -> None:
        ActionChains(d).send_keys(key).perform()

    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    until(lambda: focused(d) == "hand", show=lambda: focused(d))
    d.execute_script(WATCH_FOCUS)
    press(str(hand_cards(d).index(CHOICE_CARD) + 1))
    until(lambda: d.execute_script(at) == "QdxQs")  # the capture choice has the focus, visibly
    assert d.execute_script("return document.activeElement.matches(':focus-visible')")
    press(Keys.TAB)
    assert d.execute_script(at) == "QdxQb"
    plays = 0
    while state(d) == "your-turn":  # each turn: Enter on what has the focus (a card, a capture)
        card = d.execute_script(at)[:2]
        assert d.execute_script("return document.activeElement.matches(':focus-visible')")
        press(Keys.ENTER)
        if d.find_elements(By.CSS_SELECTOR, "#captures button"):
            assert d.execute_script("return document.activeElement.closest('#captures') !== null")
            press(Keys.ENTER)
        until(lambda c=card: c not in hand_cards(d) and state(d) in ("your-turn", "hand-over", "match-over"))
        plays += 1
        if state(d) == "your-turn":
            until(lambda: focused(d) == "hand", show=lambda: focused(d))
    assert plays == 18
    until(lambda: focused(d) == "next-hand", show=lambda: focused(d))
    press(Keys.ENTER)  # Next hand
    wait_for(d, ("your-turn",))
    until(lambda: focused(d) == "hand", show=lambda: focused(d))
    assert d.execute_script("return window.focusLost") == []
    assert not console_errors(d)


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two CSS colours as getComputedStyle gives them (rgb(...))."""

    def luminance(colour: str) -> float:
        r, g, b = (int(x) / 255 for x in re.findall(r"\d+(?:\.\d+)?", colour)[:3])
        lin = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_cards_names_say_their_state_and_their_marks_are_seen(server, browser):
    # the accessibility audit: the last card laid down was marked by an orange ring only (its
    # name did not say it), the card of your hand whose capture is being chosen was not marked at
    # all, nor were the table cards it can take; the orange of the marks was 2.8:1 against the
    # felt (3:1 is WCAG's least for a state's mark), and a picked card differed from the last
    # card laid down by the ring's width only
    d = browser
    names = (
        "return Array.from(document.querySelectorAll('#hand button, #table .table-card'),"
        " b => [b.dataset.card, b.getAttribute('aria-label'), b.className])"
    )
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    for card, name, classes in d.execute_script(names):
        assert ("the last card played" in name) == ("last" in classes.split()), (card, name)
    # the capture choice: the card of your hand says so, the table says what it can take
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#captures button")))
    said = {card: name for card, name, _ in d.execute_script(names)}
    assert said[CHOICE_CARD].endswith("queen of diamonds, choosing what it takes"), said
    for card, name in (("Qs", "queen of spades"), ("Qb", "queen of clubs")):
        assert said[card] == f"{name} on the table, can be taken by the queen of diamonds", said
    assert not any("can be taken" in n for c, n in said.items() if c not in ("Qs", "Qb")), said
    pending = d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]')
    assert "pending" in pending.get_attribute("class").split()
    # a card no capture of it takes is not picked (an audit: it was, and nothing came of it)
    other = next(c for c in said if c not in ("Qs", "Qb") and c not in hand_cards(d))
    d.find_element(By.CSS_SELECTOR, f"#table [data-card='{other}']").click()
    assert (
        d.find_element(By.CSS_SELECTOR, f"#table [data-card='{other}']").get_attribute("aria-pressed")
        == "false"
    )
    style = (
        "const s = getComputedStyle(arguments[0]); return [s.borderTopColor, s.transform, s.borderTopStyle]"
    )
    felt = d.execute_script("return getComputedStyle(document.querySelector('.felt')).backgroundColor")
    # the cards it can take: framed (white dashes), as their names say
    for card in ("Qs", "Qb"):
        colour, _, line = d.execute_script(
            style, d.find_element(By.CSS_SELECTOR, f"#table [data-card='{card}']")
        )
        assert line == "dashed" and contrast(colour, felt) >= 3, (card, colour, line)
    # the last card laid down: its ring 3:1 and more on the felt too (played until there is one)
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    until(lambda: not d.find_elements(By.CSS_SELECTOR, "#captures button"))
    deadline = time.monotonic() + 60
    while not d.find_elements(By.CSS_SELECTOR, "#table .last") and state(d) == "your-turn":
        assert time.monotonic() < deadline
        play_first_card(d)
    for card, name, classes in d.execute_script(names):
        assert ("the last card played" in name) == ("last" in classes.split()), (card, name)
    ring = d.execute_script("return getComputedStyle(document.querySelector('#table .last')).boxShadow")
    assert contrast(re.search(r"rgba?\([^)]*\)", ring).group(0), felt) >= 3, ring
    # in forced colours (no shadows drawn) the last card played is still told from the others
    look = (
        "return Array.from(document.querySelectorAll('#table .table-card'), b => {"
        " const s = getComputedStyle(b); return [b.classList.contains('last'),"
        " [s.borderTopStyle, s.borderTopWidth, s.outlineStyle, s.boxShadow]]; })"
    )
    forced = {"features": [{"name": "forced-colors", "value": "active"}]}
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", forced)
    try:
        looks = d.execute_script(look)
    finally:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    last = [x for on, x in looks if on]
    assert last and all(x != last[0] for on, x in looks if not on), looks
    # a picked card: marked by more than a colour (raised), its mark 3:1 and more on the felt
    # (seed 25, your first turn: Qs takes 2d, 3b and 4b, or 2s, 3b and 4b; 3b alone is no capture yet)
    without_animations(d, server)  # (and no saved match to go on with)
    start(d, server, "scopa", 25)
    wait_for(d, ("your-turn",))
    d.find_element(By.CSS_SELECTOR, '#hand button[data-card="Qs"]').click()
    d.find_element(By.CSS_SELECTOR, "#table [data-card='3b']").click()
    picked = d.find_element(By.CSS_SELECTOR, "#table [data-card='3b']")
    assert picked.get_attribute("aria-pressed") == "true"
    colour, transform, line = d.execute_script(style, picked)
    assert contrast(colour, felt) >= 3 and line == "solid", (colour, felt, line)
    assert transform != "none"  # (raised: a picked card is not told by its colour alone)
    assert not console_errors(d)


#: Each table card's marks (last, takeable, selected) and its border's style on each side
BORDERS = (
    "return Array.from(document.querySelectorAll('#table .table-card'), b => {"
    " const s = getComputedStyle(b), marks = ['last', 'takeable', 'selected'];"
    " return [marks.map(c => b.classList.contains(c)),"
    " [s.borderTopStyle, s.borderRightStyle, s.borderBottomStyle, s.borderLeftStyle].join(' ')]; })"
)


def test_in_forced_colours_each_mark_of_a_table_card_has_a_line_of_its_own(server, browser):
    # An accessibility audit (WCAG 1.4.1): in forced colours (a Windows contrast theme, one
    # colour for every line) the last card played and a card the chosen card can take were both
    # framed in dashes, told apart by their colour alone. Each mark, and each two of them, is a
    # line of its own there. (Seed 2, greedy, the first card played each turn: a capture choice
    # comes with the last card played on the table)
    d = browser
    without_animations(d, server)
    start(d, server, "scopa", 2)
    while True:
        assert wait_for(d, ("your-turn", "hand-over", "match-over")) == "your-turn", "no such choice"
        position = saved(d)["match"]["position"]
        plays = position.get("history", {}).get("plays", [])
        last = plays[-1] if plays and "x" not in plays[-1] else None  # (a card laid down)
        legal = [str(m) for m in scopa.State.from_json(position).legal_moves()]
        choices = {card: [m for m in legal if m.startswith(card + "x")] for card in position["hands"][0]}
        card = next((c for c, moves in choices.items() if len(moves) > 1), None)
        if last in position["table"] and card:
            break
        play_first_card(d)
    takes = {m[i : i + 2] for m in choices[card] for i in range(3, len(m), 2)}
    # a card to pick that is no capture by itself
    pick = next(t for t in sorted(takes) if t != last and f"{card}x{t}" not in choices[card])
    forced = {"features": [{"name": "forced-colors", "value": "active"}]}
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]').click()
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#captures button")))
    looks: dict[tuple[bool, ...], set[str]] = {}
    try:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", forced)
        for step in ("choosing", "picked", "put away"):
            if step == "picked":
                d.find_element(By.CSS_SELECTOR, f"#table [data-card='{pick}']").click()
                until(
                    lambda: (
                        "selected"
                        in d.find_element(By.CSS_SELECTOR, f"#table [data-card='{pick}']").get_attribute(
                            "class"
                        )
                    )
                )
            elif step == "put away":
                d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
                until(lambda: not d.find_elements(By.CSS_SELECTOR, "#captures button"))
            for marks, look in d.execute_script(BORDERS):
                looks.setdefault(tuple(marks), set()).add(look)
    finally:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    # the last card (that can be taken, or not), cards that can be taken, one picked (a card
    # with no mark has a button's thin frame: solid, as a picked card's, which is raised too)
    marked = {marks: seen for marks, seen in looks.items() if any(marks)}
    kinds = {(True, True, False), (True, False, False), (False, True, False), (False, True, True)}
    assert set(marked) == kinds, looks
    assert all(len(seen) == 1 for seen in marked.values()), looks  # (each mark drawn alike)
    drawn = [next(iter(seen)) for seen in marked.values()]
    assert len(set(drawn)) == len(drawn), looks  # (and each unlike the others)
    assert not console_errors(d)


#: The page's targets (a checkbox's and the file input's is their label, when larger), as
#: [what, width, height], those shown only.
TARGETS = """
const out = [];
for (const e of document.querySelectorAll('button, a[href], select, input, summary')) {
  let r = e.getBoundingClientRect();
  if (!r.width || e.closest('[hidden]')) continue;
  const label = e.closest('label');
  if (label && label.getBoundingClientRect().height > r.height) r = label.getBoundingClientRect();
  out.push([e.id || e.dataset.card || e.textContent.trim().slice(0, 30), r.width, r.height]);
}
return out;
"""


def test_touch_targets_at_tablet_width(server, browser):
    # the accessibility audit: from 481 px wide the Animations box's label, the download link,
    # the file's label and the House rules' labels were 19 px high (WCAG asks 24 px and more),
    # and a touch screen wider than a phone (a tablet, 768 px) had none of the phone's 44 px
    d = browser
    d.set_window_size(768, 900)
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    d.find_element(By.CSS_SELECTOR, "#house-rules summary").click()
    targets = d.execute_script(TARGETS)
    assert len(targets) > 20
    small = [t for t in targets if t[1] < 24 or t[2] < 24]
    assert not small, small
    # a touch screen of that width: 44 px high, as on a phone (the match goes on after the reload)
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        d.refresh()
        wait_for(d, ("your-turn",))
        assert d.execute_script("return matchMedia('(pointer: coarse)').matches")
        d.find_element(By.CSS_SELECTOR, "#house-rules summary").click()
        small = [t for t in d.execute_script(TARGETS) if t[1] < 44 or t[2] < 44]
        assert not small, small
        width = d.execute_script("return document.documentElement.scrollWidth")
        assert width <= 768
    finally:
        d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    assert not console_errors(d)


#: Run before the page's own scripts (``slow_sends``): every WebSocket message the page sends
#: waits ``window.wsDelay`` ms first, a slow connection (from the page's start when the tab's
#: sessionStorage says so: ``wsDelay``), and each command sent is kept in ``window.wsSent`` in
#: order (the engine's replies come as fast as ever)
SLOW_SENDS = """
window.wsDelay = Number(sessionStorage.getItem('wsDelay') || 0); window.wsSent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  try { window.wsSent.push(JSON.parse(data).cmd); } catch (e) { window.wsSent.push(null); }
  const ws = this;
  setTimeout(() => { try { send.call(ws, data); } catch (e) {} }, window.wsDelay);
};
"""


def slow_sends(d: Any) -> None:
    """The page's WebSocket messages held ``window.wsDelay`` ms each from its next load on."""
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SLOW_SENDS})


def test_on_a_slow_connection_the_latest_action_wins(server, browser):
    # An audit on a connection of 0.8 s a round trip: a card played while a hint was asked for
    # left "Thinking about a hint…" up for good; New match pressed while a play was on its way
    # said "your turn" with the computer to move (two computer loops ran at once); New match
    # pressed while the page was starting was dropped, the saved match brought back over it
    d = browser
    slow_sends(d)
    without_animations(d, server)
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    d.execute_script("window.wsDelay = 400")
    card = next(c for c in hand_cards(d) if c != CHOICE_CARD)  # (one move: played at its click)
    d.execute_script(
        "document.getElementById('hint').click(); setTimeout(() => arguments[0].click(), 50)",
        d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]'),
    )
    until(lambda: card not in hand_cards(d) and state(d) == "your-turn", timeout=60)
    time.sleep(2)  # (the hint's two requests, had they been answered late, have been by now)
    assert d.find_element(By.ID, "hint-text").text != "Thinking about a hint…"
    # a play, then New match of Scopone before its answer: the new match's turn, drawn once
    card = hand_cards(d)[0]
    Select(d.find_element(By.ID, "game")).select_by_value("scopone_scientifico")
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]').click()
    for b in d.find_elements(By.CSS_SELECTOR, "#captures button")[:1]:
        b.click()
    d.execute_script(  # (from here: the old match's computer is not asked; "your turn" said only at yours)
        "window.wsSent = []; window.wrongTurns = [];"
        "const check = () => { if (document.getElementById('status').dataset.state === 'your-turn'"
        " && document.querySelector('#opponents .seat.turn'))"
        " window.wrongTurns.push(document.getElementById('opponents').textContent); };"
        "const o = new MutationObserver(check);"
        "for (const id of ['status', 'opponents']) o.observe(document.getElementById(id),"
        " {attributes: true, childList: true, characterData: true, subtree: true});"
    )
    d.find_element(By.ID, "new-game").click()
    until(lambda: len(hand_cards(d)) == 10 and state(d) == "your-turn", timeout=90, show=lambda: page_log(d))
    time.sleep(3)  # (a second computer loop, had one run on, would have played by now)
    assert state(d) == "your-turn" and len(hand_cards(d)) == 10, page_log(d)
    assert "(to move)" not in d.find_element(By.ID, "opponents").text
    assert all(b.is_enabled() for b in d.find_elements(By.CSS_SELECTOR, "#hand button"))
    log = page_log(d).splitlines()
    assert sum("New match" in line for line in log) == 1
    # one computer loop: the computer asked once for each of its plays in the new match
    plays = sum(line.startswith(("Your partner:", "Opponent (seat")) for line in log)
    assert d.execute_script("return window.wsSent.filter(c => c === 'bestmove').length") == plays, log
    assert d.execute_script("return window.wrongTurns") == []
    # a reload, and New match of Scopa at once, while the page starts: the Scopa match is played
    assert saved(d)["game"] == "scopone_scientifico"
    d.execute_script("sessionStorage.setItem('wsDelay', '400')")  # (the page's hello held too)
    d.refresh()
    Select(d.find_element(By.ID, "game")).select_by_value("scopa")
    d.find_element(By.ID, "new-game").click()
    until(lambda: len(hand_cards(d)) == 3 and state(d) == "your-turn", timeout=90, show=lambda: page_log(d))
    time.sleep(2)
    assert "goes on" not in page_log(d) and d.find_element(By.ID, "game").get_attribute("value") == "scopa"
    assert len(hand_cards(d)) == 3 and not console_errors(d)


def test_a_replays_step_asks_one_play_and_an_earlier_hands_board_goes(server, browser, tmp_path):
    # An audit: each step of a replay or a review asked the engine for every play from the
    # deal again (28 s a step on a slow connection); an earlier hand's review board stayed up
    # under the next match's hand end; a double click on Undo took back two plays
    d = browser
    slow_sends(d)
    load_played(d, server, tmp_path / "game.json")
    until(lambda: "Step through it" in d.find_element(By.ID, "replay-title").text, timeout=60)
    rows = d.find_elements(By.CSS_SELECTOR, "#replay-review tr[data-play]")
    rows[-1].find_element(By.TAG_NAME, "button").click()  # the last play: every play before it asked
    last = int(rows[-1].get_attribute("data-play"))
    until(lambda: f"Before play {last + 1} " in d.find_element(By.ID, "replay-board").text, timeout=30)
    assert d.execute_script("return window.wsSent.filter(c => c === 'play').length") == last
    board = lambda: d.find_element(By.ID, "replay-board").text  # noqa: E731
    steps = (("replay-prev", f"Before play {last} "), ("replay-next", f"Before play {last + 1} "))
    for button, shown in (*steps, ("replay-next", "After the last play:")):  # the last step asks one play
        d.find_element(By.ID, button).click()
        until(lambda shown=shown: board().startswith(shown), timeout=30, show=board)
    assert d.execute_script("return window.wsSent.filter(c => c === 'play').length") == last + 1
    # a hand's review board, then New match: gone
    without_animations(d, server)
    start(d, server, "scopa", 5)
    play_to_hand_end(d)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    d.find_element(By.CSS_SELECTOR, "#review tr[data-play] button").click()
    until(lambda: "Before play" in d.find_element(By.ID, "review-board").text, timeout=30)
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn",))
    assert d.find_element(By.ID, "review-board").text == ""
    # two plays, then Undo clicked twice at once: one play taken back
    play_first_card(d)
    play_first_card(d)
    n = len(hand_cards(d))
    d.execute_script("const b = document.getElementById('undo'); b.click(); b.click()")
    until(lambda: state(d) == "your-turn" and "Undone" in page_log(d), timeout=60)
    time.sleep(1)
    assert page_log(d).count("Undone") == 1 and len(hand_cards(d)) in (n + 1, 3), page_log(d)
    assert not console_errors(d)


def test_the_hand_end_says_its_points_and_the_marks_their_words(server, browser, tmp_path):
    # The accessibility audit: the hand's points were never read out (the focus goes to Next
    # hand, after the score table; the heading said "Hand over" at the match's end too); the
    # review's "?" and "??" were skipped by screen readers; a table card the card chosen cannot
    # take was picked with nothing said; the points field's "1e1" (10) read as 1; the record's
    # date was UTC's
    d = browser
    without_animations(d, server)
    open_ready(d, f"{server}/?seed={CHOICE_SEED}")
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    d.execute_script("document.getElementById('target').value = '1e1'")
    d.find_element(By.ID, "new-game").click()
    wait_for(d, ("your-turn",))
    assert "to 10:" in page_log(d) and d.find_element(By.ID, "target").get_attribute("value") == "10"
    # Qd takes Qs or Qb: 7s is no capture of it (RULES §3: a card takes a card of its rank)
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()
    sevens = d.find_elements(By.CSS_SELECTOR, '#table [data-card="7s"]')
    assert sevens, "seed 7's first table has the 7 of spades"
    sevens[0].click()
    assert d.find_element(By.ID, "hint-text").text == "The queen of diamonds cannot take the 7 of spades."
    seven = d.find_element(By.CSS_SELECTOR, '#table [data-card="7s"]')
    assert "selected" not in seven.get_attribute("class") and seven.get_attribute("aria-pressed") == "false"
    queens = [d.find_element(By.CSS_SELECTOR, f'#table [data-card="{c}"]') for c in ("Qs", "Qb")]
    assert all("takeable" in q.get_attribute("class") for q in queens)  # (seen, as their names say)
    assert "takeable" not in seven.get_attribute("class")
    d.find_element(By.CSS_SELECTOR, '#table [data-card="Qs"]').click()
    play_to_hand_end(d)
    until(lambda: d.find_element(By.ID, "score").text != "")
    totals = d.execute_script(
        "const t = document.querySelector('#score table'); return [...t.rows].at(-1).innerText"
    ).split()
    title = d.find_element(By.ID, "hand-end-title").text
    assert title == f"Hand over: you {totals[1]}, the computer {totals[2]}", (title, totals)
    assert d.find_element(By.ID, "next-hand").get_attribute("aria-describedby") == "hand-end-title"
    assert f"you {totals[1]}, the computer {totals[2]}" in d.find_element(By.ID, "status").text
    # the record's date is the player's own: a time zone whose date is not UTC's today
    now = datetime.datetime.now(datetime.timezone.utc)
    zone = next(
        z
        for z in ("Pacific/Kiritimati", "Pacific/Pago_Pago")
        if now.astimezone(zoneinfo.ZoneInfo(z)).date() != now.date()
    )
    d.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
    try:
        d.find_element(By.ID, "next-hand").click()
        wait_for(d, ("your-turn",))
        play_first_card(d)  # (the link's record is asked again when the match changes)
        record = downloaded_record(d, lambda r: len(r["hands"]) == 2)
        local = datetime.datetime.now(zoneinfo.ZoneInfo(zone)).strftime("%Y.%m.%d")
        assert record["tags"]["Date"] == local, (record["tags"], zone)
    finally:
        d.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
    # a record of a hand played at random, loaded: its marks are said in words
    rng, m = random.Random(3), scopa.Match("scopa", seed=3)
    while not m.hands:
        m.play(rng.choice(m.state.legal_moves()))
    m.record({"Event": "random"}).save(tmp_path / "random.json")
    d.find_element(By.ID, "load").send_keys(str(tmp_path / "random.json"))
    until(lambda: "Step through it" in d.find_element(By.ID, "replay-title").text, timeout=60)
    marks = d.execute_script(
        "return [...document.querySelectorAll('#replay-review .mark-bad')].map(c => "
        "[c.querySelector('abbr').textContent, c.querySelector('abbr').title,"
        " c.querySelector('.visually-hidden').textContent])"
    )
    assert marks, "a hand played at random has mistakes"
    assert all(
        (mark, title) in (("?", "mistake"), ("??", "blunder")) and hidden == f" {title}"
        for mark, title, hidden in marks
    )
    assert not console_errors(d)


#: A card's name with the Italian deck and with the Spanish, in the deck's language
CARD_NAMES = {
    "italian": r"(?:asso|[2-7]|fante|cavallo|re) di (?:denari|coppe|spade|bastoni)",
    "spanish": r"(?:as|[2-7]|sota|caballo|rey) de (?:oros|copas|espadas|bastos)",
}

#: The card names the page shows for the cards of the hand and the table: their buttons' names,
#: their pictures' text alternatives and the capture choice's buttons, as [what, text]
SHOWN_NAMES = """
const out = [];
const label = (b) => b.getAttribute('aria-label');
for (const b of document.querySelectorAll('#hand button')) out.push(['hand', label(b).split(/: |,/)[1]]);
for (const b of document.querySelectorAll('#table button')) out.push(['table', label(b).split(' on the')[0]]);
for (const i of document.querySelectorAll('#board img:not([alt=""])')) out.push(['img', i.alt]);
for (const b of document.querySelectorAll('#captures button')) out.push(['capture', b.textContent]);
return out;
"""


def test_card_names_are_in_the_decks_language(server, browser):
    # An accessibility audit: with the Italian deck a card was the "fante of coppe", and the French
    # deck's House rules spoke of coins. A card's name is in its deck's language ("fante di
    # coppe", "sota de copas"); the House rules name the suit of coins as the deck has it
    d = browser
    without_animations(d, server)
    open_ready(d, f"{server}/?seed={CHOICE_SEED}")
    rules = lambda: d.find_element(By.ID, "house-rules").get_attribute("textContent")  # noqa: E731
    assert "coin" not in rules() and "the king of diamonds scores 1" in rules(), rules()
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    for deck, (king, coins) in {
        "italian": ("re di denari", "denari"),
        "spanish": ("rey de oros", "oros"),
    }.items():
        Select(d.find_element(By.ID, "deck")).select_by_value(deck)
        assert f"the king of coins ({king}) scores 1" in rules() and f"of coins ({coins}) score 3" in rules()
        d.find_element(By.ID, "new-game").click()
        until(lambda: state(d) == "your-turn" and len(hand_cards(d)) == 3)
        d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()  # (two captures)
        until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#captures button")))
        name = CARD_NAMES[deck]
        shown = d.execute_script(SHOWN_NAMES)
        assert {what for what, _ in shown} == {"hand", "table", "img", "capture"}, shown
        for what, text in shown:
            pattern = rf"{name} takes {name}" if what == "capture" else name
            assert re.fullmatch(pattern, text, re.IGNORECASE), (deck, what, text)
        d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    Select(d.find_element(By.ID, "deck")).select_by_value("french")  # (and back)
    assert "the king of diamonds" in rules()
    assert not console_errors(d)


#: The words of another language the page shows, by language: the Italian and Spanish decks'
#: cards and suits, the game's Italian words
FOREIGN_WORDS = {
    "it": r"denari|coppe|spade|bastoni|asso|fante|cavallo|re di|\d di|scopa|scope|scopone|primiera"
    r"|settebello|bello|napola|piglia",
    "es": r"oros|copas|espadas|bastos|as de|sota|caballo|rey|\d de",
}

#: Each [language, text, language it is marked with] of the words of another language the page
#: shows (arguments[0]: {language: regex source}), in text and in pictures' text alternatives;
#: a select's options are left out (an option holds no span: the game's names are proper names)
MARKED = """
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const seen = [];
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (!n.parentElement.closest('option, script')) seen.push([n.textContent, n.parentElement]);
}
for (const img of document.querySelectorAll('img[alt]')) seen.push([img.alt, img]);
for (const [lang, words] of Object.entries(arguments[0])) {
  const re = new RegExp(`(?<![\\p{L}])(?:${words})(?![\\p{L}])`, 'giu');
  for (const [text, el] of seen) {
    for (const m of text.matchAll(re)) out.push([lang, text, el.closest('[lang]').lang]);
  }
}
return out;
"""


def test_the_words_of_italian_and_spanish_are_marked_with_their_language(server, browser):
    # An accessibility audit (WCAG 3.1.2, the language of parts): the Italian and Spanish words
    # (the cards of those decks, their suits, scopa, primiera, the house rules) were read as
    # English. Each is in an element of its language, in text and in a picture's text alternative
    d = browser
    without_animations(d, server)
    open_ready(d, f"{server}/?seed=5")
    Select(d.find_element(By.ID, "difficulty")).select_by_value("greedy")
    for option in ("napola", "re_bello"):  # (their rows in the score too)
        d.execute_script(f"document.querySelector('#house-rules input[data-option=\"{option}\"]').click()")
    for deck in ("italian", "spanish"):
        Select(d.find_element(By.ID, "deck")).select_by_value(deck)
        d.find_element(By.ID, "new-game").click()
        until(lambda: state(d) == "your-turn" and "New match" in page_log(d))
        d.find_element(By.ID, "show-played").click()  # (the cards played, as pictures)
        play_to_hand_end(d)
        until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
        d.find_element(By.CSS_SELECTOR, "#review tr[data-play] button").click()  # (a position's board)
        until(lambda: "Before play" in d.find_element(By.ID, "review-board").text, timeout=30)
        marked = d.execute_script(MARKED, FOREIGN_WORDS)
        langs = {lang for lang, _, _ in marked}
        assert langs == {"it", "es"} if deck == "spanish" else {"it"}, (deck, langs)
        wrong = [m for m in marked if m[0] != m[2]]
        assert not wrong, (deck, wrong[:10], len(wrong))
        d.find_element(By.ID, "show-played").click()
    assert not console_errors(d)


#: The labels of the page that begin with a word of its own, as [what, text]: the other seats',
#: the piles', the capture choice's, the score's and the review's headings, the review's buttons
#: and the boards' rows, the levels and players of the Computer menu
LABELS = """
const out = [];
const add = (what, sel, text = (e) => e.textContent.trim()) =>
  document.querySelectorAll(sel).forEach((e) => out.push([what, text(e)]));
add('seat', '#opponents .seat p');
for (const part of document.getElementById('piles').textContent.split(' · ')) out.push(['piles', part]);
add('capture prompt', '#captures p');
add('capture', '#captures button');
add('heading', '#score th, #review th');
add('show', '#review tr[data-play] button');
add('show name', '#review tr[data-play] button', (e) => e.getAttribute('aria-label'));
add('board row', '#review-board .mini', (e) => e.firstChild.textContent);
add('board group', '#review-board [role=group]', (e) => e.getAttribute('aria-label'));
add('level', '#difficulty optgroup[label=Levels] option');
add('player', '#difficulty optgroup[label=Players] option'); // (their values the engine's names)
return out;
"""


def test_labels_begin_with_a_capital_letter(server, browser):
    # An accessibility audit: the capture choice's prompt, the piles, the other seats' labels,
    # the score's and the review's headings began in lower case ("the computer: 3 cards",
    # "category", "you"), unlike the rest of the page
    d = browser
    without_animations(d, server)
    start(d, server, "scopa", CHOICE_SEED)
    wait_for(d, ("your-turn",))
    d.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{CHOICE_CARD}"]').click()  # (two captures)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#captures button")))
    labels = d.execute_script(LABELS)
    d.find_elements(By.CSS_SELECTOR, "#captures button")[0].click()
    play_to_hand_end(d)
    until(lambda: bool(d.find_elements(By.CSS_SELECTOR, "#review tr[data-play]")), timeout=60)
    d.find_element(By.CSS_SELECTOR, "#review tr[data-play] button").click()
    until(lambda: "Before play" in d.find_element(By.ID, "review-board").text, timeout=30)
    labels += d.execute_script(LABELS)
    kinds = {what for what, _ in labels}
    assert kinds == {
        "seat", "piles", "capture prompt", "capture", "heading", "show", "show name", "board row",
        "board group", "level", "player",
    }, kinds  # fmt: skip
    lower = [(what, text) for what, text in labels if not text[:1].isupper()]
    assert not lower, lower
    assert not console_errors(d)


# ------------------------------------------------------------------ /engine.js in another site's page

OTHER_SITES_PAGE = """
const done = arguments[arguments.length - 1];
try {
  const { Engine } = await import(arguments[0] + "/engine.js");
  const engine = new Engine(arguments[0].replace("http", "ws") + "/ws");
  let { position } = await engine.ask({ cmd: "deal", rules: "scopa", seed: 7, dealer: 1 });
  let plays = 0, over = false;
  while (!over) {
    const { view } = await engine.ask({ cmd: "view", position, seat: position.turn });
    const { move } = await engine.ask({ cmd: "bestmove", view, player: "greedy" });
    const reply = await engine.ask({ cmd: "play", position, move });
    over = reply.events.some((e) => e.type === "hand_over");
    position = reply.position;
    plays += 1;
  }
  const { points } = await engine.ask({ cmd: "score", position });
  done({ protocol: engine.hello.protocol, plays, points, history: position.history.plays.length });
} catch (err) {
  done({ error: String(err && err.message || err) });
}
"""


def test_another_sites_page_plays_through_the_served_engine_js(browser, tmp_path):
    # The server audit's open list: /engine.js, the app's own client, was not documented for
    # reuse. docs/tutorials/javascript.md's way: a page of another origin, allowed by --cors,
    # imports it from the server and plays a whole hand over its WebSocket
    import functools
    import http.server
    import threading

    (tmp_path / "index.html").write_text("<!doctype html><title>another site</title>", encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{site.server_address[1]}"
    try:
        d = browser
        for cors, plays in ((origin, True), (None, False)):
            with contextlib.closing(serving(*(["--cors", cors] if cors else []))) as started:
                url = next(started)
                d.get(f"{origin}/index.html")
                got = d.execute_async_script(OTHER_SITES_PAGE, url)
                # and the tutorial's own example, as written (its port the server's)
                page = Path(__file__).parent.parent / "docs" / "tutorials" / "javascript.md"
                example = None
                if page.exists():
                    text = page.read_text(encoding="utf-8").split("## In a browser", 1)[1]
                    example = text.split("```js\n", 1)[1].split("```", 1)[0]
                    port = url.rsplit(":", 1)[1]
                    example = example.replace("8765", port) + "\narguments[arguments.length - 1](position);"
                    example = (
                        f"try {{ {example} }} catch (err) {{ arguments[arguments.length - 1](String(err)); }}"
                    )
                shown = d.execute_async_script(example) if example and plays else None
            if plays:
                assert "error" not in got, got
                assert got["protocol"] == 2 and got["plays"] == got["history"] == 36, got
                assert len(got["points"]) == 2, got
                legal = [str(m) for m in scopa.State.deal("scopa", seed=7, dealer=1).legal_moves()]
                if shown is not None:  # (one play, a legal one, of the deal)
                    assert len(shown["history"]["plays"]) == 1 and shown["history"]["plays"][0] in legal, (
                        shown
                    )
            else:  # (without --cors the browser refuses the module to another site's page)
                assert "error" in got, got
    finally:
        site.shutdown()
        site.server_close()


def test_number_keys_play_a_card_only_from_the_hand_the_table_or_nowhere_in_particular(server, browser):
    # an accessibility audit (WCAG 2.1.4): 2 pressed on another control (a replay's Next play,
    # Hint, New match) played a card of the live match; the log's play lines began in lower
    # case ("you: 4 of diamonds, laid down"); the points field's spoken name ("Play to
    # (points)") was not its visible label, "To 11 points" (WCAG 2.5.3)
    d = browser
    without_animations(d, server)
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    assert d.find_element(By.ID, "target").accessible_name.split() == ["To", "points"]  # (its label's words)
    n = len(hand_cards(d))
    hint = d.find_element(By.ID, "hint")
    d.execute_script("arguments[0].focus()", hint)
    ActionChains(d).send_keys("1").perform()
    time.sleep(0.5)
    assert len(hand_cards(d)) == n and state(d) == "your-turn" and focused(d) == "hint"
    d.execute_script("document.activeElement.blur()")  # (nowhere in particular: the key plays)
    ActionChains(d).send_keys("1").perform()
    until(lambda: len(hand_cards(d)) < n or state(d) != "your-turn")
    lines = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#log li")]
    assert any(line.startswith("You: ") for line in lines), lines
    assert not any(line.startswith(("you: ", "the computer: ")) for line in lines), lines
    assert not console_errors(d)


# ------------------------------------------------------------------ an audit's open list: clarity

#: Before the page's scripts: the engine's hello names one more player, one the app does not know
A_NEW_PLAYER = """
const Real = window.WebSocket;
window.WebSocket = class extends Real {
  set onmessage(f) {
    super.onmessage = (e) => {
      const reply = JSON.parse(e.data);
      if (Array.isArray(reply.players)) reply.players = [...reply.players, "newcomer"];
      f({ data: JSON.stringify(reply) });
    };
  }
  get onmessage() { return super.onmessage; }
};
"""


def test_the_computer_menus_players_are_said_in_plain_words(server, browser):
    # An audit's open list: the Computer menu's Players were the engine's names ("random",
    # "greedy", "pimc", "ismcts"); each says in words how it plays now, its value still the
    # engine's name (the protocol's), and a name the app does not know is shown as it is
    d = browser
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": A_NEW_PLAYER})
    open_ready(d, server)
    options = d.execute_script(
        "return Array.from(document.querySelectorAll('#difficulty optgroup[label=Players] option'),"
        " o => [o.value, o.textContent])"
    )
    assert options == [
        ["random", "Random: plays any legal card"],
        ["greedy", "Greedy: a club player's rules, one play ahead"],
        ["pimc", "PIMC: samples the hidden cards"],
        ["ismcts", "ISMCTS: searches a tree of plays"],
        ["newcomer", "newcomer"],
    ], options
    assert d.find_element(By.ID, "difficulty").get_attribute("value") == "level4"
    assert not console_errors(d)


def test_a_skip_link_takes_the_focus_to_the_game(server, browser):
    # An audit's open list: no skip link. The page's first Tab stop is "Skip to the game", seen
    # when focused, and it takes the focus to the main region (past the New match form)
    d = browser
    without_animations(d, server)
    open_ready(d, server)
    d.execute_script("document.activeElement.blur()")
    link = d.find_element(By.CSS_SELECTOR, "a[href='#main']")
    hidden = d.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return r.bottom <= 0 || r.width <= 1", link
    )
    assert hidden  # (out of sight until focused)
    ActionChains(d).send_keys(Keys.TAB).perform()
    assert d.switch_to.active_element == link and link.text == "Skip to the game"
    box = d.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        " return [r.top, r.left, r.width, r.height, innerWidth]",
        link,
    )
    top, left, width, height, window = box
    assert top >= 0 and left >= 0 and left + width <= window and width > 24 and height >= 24, box  # seen
    link.send_keys(Keys.ENTER)
    until(lambda: focused(d) == "main", show=lambda: focused(d))
    assert d.find_element(By.TAG_NAME, "main").get_attribute("tabindex") == "-1"
    ActionChains(d).send_keys(Keys.TAB).perform()  # (on into the game's controls, past the form)
    assert d.switch_to.active_element.find_elements(By.XPATH, "ancestor::main")
    # in a match: there too, and its number keys play your cards from there
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    d.execute_script("arguments[0].focus()", d.find_element(By.CSS_SELECTOR, "a[href='#main']"))
    ActionChains(d).send_keys(Keys.ENTER).perform()
    until(lambda: focused(d) == "main", show=lambda: focused(d))
    n = len(hand_cards(d))
    ActionChains(d).send_keys("1").perform()
    until(lambda: len(hand_cards(d)) < n or state(d) != "your-turn")
    assert not console_errors(d)


def test_the_house_rules_say_what_they_are_and_why_the_aces_sweep_waits(server, browser):
    # An audit's open list: the House rules' legend ("Options the sources' games play without")
    # did not say plainly what they are, and the box of an ace's sweep as a scopa, disabled until
    # an ace takes the whole table, was skipped by Tab without a word of why
    d = browser
    open_ready(d, server)
    d.find_element(By.CSS_SELECTOR, "#house-rules summary").click()
    until(lambda: d.find_element(By.ID, "house-rules").get_attribute("open") is not None)
    legend = d.find_element(By.CSS_SELECTOR, "#house-rules legend").text
    assert legend == "Rule variants for the next match, each off unless ticked", legend
    sweep = d.find_element(By.CSS_SELECTOR, '#house-rules input[data-option="ace_sweep_is_scopa"]')
    ace = d.find_element(By.CSS_SELECTOR, '#house-rules input[data-option="ace_takes_all"]')

    def why() -> str:
        ids = (sweep.get_attribute("aria-describedby") or "").split()
        notes = [d.find_element(By.ID, i) for i in ids]
        return " ".join(n.text for n in notes if n.is_displayed())

    assert not sweep.is_enabled()
    assert why() == "Only when an ace takes the whole table: tick that rule first.", why()
    ace.click()
    assert sweep.is_enabled() and why() == ""  # (usable: nothing to say)
    assert not d.find_elements(By.CSS_SELECTOR, "#house-rules .why:not([hidden])")
    ace.click()
    assert not sweep.is_enabled() and why().startswith("Only when an ace takes the whole table")
    d.set_window_size(320, 800)
    until(lambda: d.execute_script("return innerWidth") <= 320)
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 320, width  # (the note wraps at phone width)
    assert not console_errors(d)


def test_the_mini_cards_are_readable_at_phone_width(server, browser):
    # An audit's open list: the small cards of Cards played, the review's and the replay's
    # boards were 26 px wide at phone width, too small to read; 32 px and more now, the page
    # still not scrolled sideways at 320 px
    d = browser
    without_animations(d, server)
    d.set_window_size(320, 800)
    start(d, server, "scopa", 5)
    wait_for(d, ("your-turn",))
    play_first_card(d, ("your-turn",))
    d.find_element(By.ID, "show-played").click()
    until(lambda: d.find_element(By.ID, "played").is_displayed())
    widths = d.execute_script(
        "return Array.from(document.querySelectorAll('#played .mini img'),"
        " i => i.getBoundingClientRect().width)"
    )
    assert len(widths) >= 2 and min(widths) >= 32, widths
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 320, f"the page is {width} px wide at a 320 px window"
    assert not console_errors(d)
