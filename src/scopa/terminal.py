"""The terminal game (``scopa play``): a match against the computer, drawn with ``rich``.

What a new player needs on screen: the dealt table before anyone plays, who deals, every
scopa, refill and the last capturer taking the table announced, "you" and "computer" with
two players, each hand's score with its counts and a pause, who won. Commands: a move's
number or its notation (``7d``, ``7dx3c4s``, suit symbols too), ``hint`` (the move with its
value and the runner-up), ``undo``, ``cards`` (the cards already played), ``help`` or ``?``,
``quit``. ``--save FILE`` writes the game's record after every hand and when the game
ends in the middle of one (quit, the end of input, Ctrl-C, SIGTERM, SIGHUP), trying a failed
save again at the end; ``--load FILE`` resumes one, its annotations kept; and at the end the
last hand's review is offered.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import threading
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from scopa import match as _match
from scopa.card import Card, CardSet
from scopa.errors import CardError, OptionError, ScopaError, count, show
from scopa.events import Event
from scopa.match import Match
from scopa.move import Move
from scopa.players import make_player
from scopa.players.pimc import PIMCPlayer
from scopa.records import (
    Annotation,
    HandRecord,
    MatchRecord,
    annotated,
    check_writable,
    load_record,
    record_file,
)
from scopa.rules import Rules
from scopa.scoring import HandScore
from scopa.state import State

__all__ = ["DECKS", "Game", "card_text", "cards_text", "move_text"]

DECKS: dict[str, dict[str, str]] = {
    "french": {"d": "♦", "c": "♥", "s": "♠", "b": "♣"},
    "italian": {"d": "d", "c": "c", "s": "s", "b": "b"},
}
"""The suit marks of each deck style: symbols (French) or the notation's letters (Italian)."""
#: Four colours, each dark enough for a light background and bright enough for a dark one:
#: coins gold, cups red, swords blue, clubs green.
COLOURS = {"d": "dark_goldenrod", "c": "red3", "s": "dodger_blue2", "b": "green4"}
SUIT_NAMES = {"d": "coins (denari)", "c": "cups (coppe)", "s": "swords (spade)", "b": "clubs (bastoni)"}


def notation_help(deck: str = "italian") -> str:
    """How cards are typed, each suit's letter with the mark ``deck`` shows it by (a teacher's
    audit: the help named the letters, the game showed the symbols).

    >>> notation_help("french").split("; ")[1][:40]
    'suits d ♦ coins (denari), c ♥ cups (copp'
    """
    marks = DECKS.get(deck, DECKS["italian"])
    shown = {s: s if marks[s] == s else f"{s} {marks[s]}" for s in SUIT_NAMES}
    suits = ", ".join(f"{shown[s]} {name}" for s, name in SUIT_NAMES.items())
    return (
        f"Cards are rank + suit: A 2 3 4 5 6 7 J Q K (J Q K count 8 9 10); suits {suits}. "
        "7dx3c4s plays 7d taking 3c and 4s."
    )


COMMANDS_HELP = (
    "Type a move's number from the list, or its notation (7d, 7dx3c4s; 7♦ works too). "
    "Commands: hint, undo, cards (the cards already played), help or ?, quit."
)


def text_shown(text: str, encoding: str) -> str:
    """``text`` with its dashes as hyphens where a terminal of ``encoding`` cannot show them
    (an ASCII terminal showed a review's reason as ``\\u2014 gave up the settebello``).

    >>> text_shown("7d?? — gave up the settebello", "ascii"), text_shown("a — b", "utf-8")
    ('7d?? - gave up the settebello', 'a — b')
    """
    try:
        "\u2014".encode(encoding)
    except (LookupError, UnicodeError):
        return text.replace("\u2014", "-")
    return text


def suits_shown(encoding: str) -> str:
    """The deck whose suit marks a terminal of ``encoding`` can show: ``french`` (the symbols),
    or ``italian`` (the letters) where they cannot be written (an ASCII terminal showed
    ``7\\u2666``).

    >>> suits_shown("utf-8"), suits_shown("ascii"), suits_shown("no such codec")
    ('french', 'italian', 'italian')
    """
    try:
        "".join(DECKS["french"].values()).encode(encoding)
    except (LookupError, UnicodeError):
        return "italian"
    return "french"


def card_text(card: Card | str, deck: str = "french") -> Text:
    """A card (a :class:`Card` or its notation) with its suit mark, in its suit's colour;
    ``deck``: one of :data:`DECKS`. Raises :class:`CardError` or :class:`OptionError` naming
    a bad one.

    >>> card_text("7d").plain, card_text("7d", deck="italian").plain
    ('7♦', '7d')
    """
    card = Card.parse(card)
    marks = DECKS.get(deck) if isinstance(deck, str) else None
    if marks is None:
        raise OptionError(f"unknown deck {show(deck)}: expected one of {', '.join(DECKS)}")
    return Text(f"{card.rank}{marks[card.suit]}", style=f"bold {COLOURS[card.suit]}")


def cards_text(cards: Iterable[Card | str], deck: str = "french") -> Text:
    """Cards side by side (``-`` for none)."""
    if isinstance(cards, str) or not isinstance(cards, Iterable):
        raise CardError(f"bad cards {show(cards)}: expected a list of cards (Cards or card strings)")
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(" ")
        out.append_text(card_text(c, deck))
    return out if len(out) else Text("-", style="dim")


def move_text(move: Move | str, deck: str = "french", taking: str = " takes ") -> Text:
    """A move (a :class:`Move` or its notation) with suit marks: the card, and what it takes,
    after ``taking`` (" takes " in a list of moves, ", taking " after "plays" in a sentence)."""
    move = Move.parse(move)
    out = card_text(move.card, deck)
    if move.is_capture:
        out.append(taking).append_text(cards_text(sorted(move.captures), deck))
    return out


def print_wrapped(console: Console, text: Text | str, label: str = "") -> None:
    """``label``, then ``text`` wrapped at the console's width, each further line indented as far
    as the label is long (a hanging indent: the cards of a long stock line up under its first),
    and no line ending in spaces (rich wrapped a line at the first column, a space left at each
    break)."""
    body = text if isinstance(text, Text) else Text(text)
    indent = cell_len(label)
    lines = body.wrap(console, max(8, console.width - indent))
    for i, line in enumerate(lines):
        line.rstrip()
        console.print(Text(label if i == 0 else " " * indent).append_text(line), soft_wrap=True)


def print_table(console: Console, title: str, table: Table) -> None:
    """A table under its title, the title a line of its own, as long as it is (rich padded a
    table's title with spaces to the table's width, and wrapped a longer one within it)."""
    print_wrapped(console, Text(title, style="table.title"))
    console.print(table)


#: The ``Player`` tag of the human's seat in the records the game saves (``--load`` seats you there).
YOU = "You"
#: A name the game gives a seat in its records' ``Player`` tags (:meth:`Game.name`'s, capitalised),
#: with its seat added too (as the text export adds it to a name two seats have).
_GAME_NAME = re.compile(r"(?:You|Your partner|The computer|Opponent \(seat \d+\))(?: \(seat \d+\))?")


def in_sentence(name: str) -> str:
    """A seat's name as a sentence says it after its first word: a name the game gives (``You``,
    ``Your partner``, ``The computer``, ``Opponent (seat 3)``), words rather than a person's name,
    in lower case ("dealt by you"); any other name as it is ("dealt by Anna").

    >>> in_sentence("You"), in_sentence("Your partner (seat 2)"), in_sentence("Anna")
    ('you', 'your partner (seat 2)', 'Anna')
    """
    return name[:1].lower() + name[1:] if _GAME_NAME.fullmatch(name) else name


#: What ends the game at any prompt (as Ctrl-D does).
QUIT_WORDS = ("quit", "exit", "q")


class _Quit(Exception):
    """The player asked to stop at a prompt that is not a move's."""


class _Ended(BaseException):
    """The game was ended by a signal (SIGTERM, or SIGHUP: its terminal closed): the hand so
    far is saved, and the command ends with 128 + the signal's number, as the signal would."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass
class Game:
    """One terminal session: the match, who sits where, and the console."""

    match: Match
    human: int
    players: dict[int, Any]
    console: Console
    deck: str = "french"
    save: str | None = None
    ask: Callable[[str], str] = field(default=input)
    #: the seconds a hint thinks at most (None: its 128 samples whatever they take)
    hint_seconds: float | None = 0.5
    loaded_tags: dict[str, str] = field(default_factory=dict)
    #: the resumed record's hands, whose annotations are kept when the record is saved again
    loaded_hands: Sequence[HandRecord] = ()
    #: why the last save failed (tried again when the game ends), or None
    unsaved: ScopaError | None = None
    #: set when the game leaves its loop: a signal then is noted in ``_signalled``, not raised
    _ending: bool = field(default=False, init=False, repr=False)
    #: set by the first hint, which says what its numbers are
    hinted: bool = field(default=False, init=False, repr=False)
    _signalled: int | None = field(default=None, init=False, repr=False)
    #: whether this session has written its record (a resumed game left at a fresh hand has
    #: not: its hands go to --save then)
    saved: bool = False

    @property
    def rules(self) -> Rules:
        return self.match.rules

    # ------------------------------------------------------------------ names

    def name(self, seat: int) -> str:
        if seat == self.human:
            return "you"
        if self.rules.players == 2:
            return "the computer"
        return "your partner" if (seat & 1) == (self.human & 1) else f"opponent (seat {seat})"

    def is_you(self, team: int) -> bool:
        """Whether ``team`` is called "you" (the player alone, in a 2-player game)."""
        return self.rules.players == 2 and team == self.human

    def team_name(self, team: int) -> str:
        if self.rules.players == 2:
            return "you" if self.is_you(team) else "the computer"
        return "your team" if team == (self.human & 1) else "their team"

    def say(self, *parts: str | Text) -> None:
        line = Text()
        for p in parts:
            line.append_text(p if isinstance(p, Text) else Text(p))
        self.console.print(line)

    def say_cards(self, label: str, cards: Text) -> None:
        """A line of cards after its label, wrapped under its first card (a teacher's audit: the
        40 cards of "Not seen yet" wrapped to the first column)."""
        print_wrapped(self.console, cards, label)

    # ------------------------------------------------------------------ drawing

    def show_deal(self, state: State) -> None:
        game = self.rules.hand_rules().display_name  # (a teacher's audit: "scopone_scientifico: hand 2")
        title = f"{game}: hand {len(self.match.hands) + 1}, {self.scores_text()}"
        if len(title) + 4 <= self.console.width:
            self.console.rule(title)
        else:  # (a rule cuts a title it cannot hold: the scores and the target were lost)
            self.console.rule()
            self.say(Text(title, style="bold"))
        dealer = self.name(state.dealer or 0).capitalize()
        if state.history:  # (a hand resumed, or gone back to by undo: the position follows)
            n = len(state.history)
            self.say(f"{dealer} dealt; {n} card{'s' if n != 1 else ''} played so far in this hand.")
            return
        self.say(f"{dealer} deal{'s' if state.dealer != self.human else ''}.")
        self.say_cards("Table: ", cards_text(state.table, self.deck))

    def show_turn(self, state: State) -> list[Move]:
        for seat in range(self.rules.players):
            if seat != self.human:
                n = len(state.hands[seat])
                self.say(f"  {self.name(seat)}: {count(n, 'card')} in hand")
        self.say_cards("  table: ", cards_text(state.table, self.deck))
        if state.stock:
            self.say(f"  stock: {count(len(state.stock), 'card')}")
        mine = self.human & 1
        for team in (mine, 1 - mine):  # (each team's pile, yours first as in the score's table)
            pile = "your pile" if self.is_you(team) else f"{self.team_name(team)}'s pile"
            taken = f"{count(len(state.captured[team]), 'card')}, {count(state.scope[team], 'scopa')}"
            self.say(f"  {pile}: {taken}")
        self.say_cards("  your hand: ", cards_text(state.hands[self.human], self.deck))
        legal = state.legal_moves()
        for i, m in enumerate(legal, 1):
            shown = move_text(m, self.deck)
            # (its notation after it, to type; not when the letters shown are the notation: a
            # lay-down of an ASCII terminal or the Italian deck read "2d   (2d)")
            self.say(f"  {i}. ", shown, Text("" if shown.plain == str(m) else f"   ({m})", style="dim"))
        return legal

    def scores_text(self) -> str:
        a, b = self.match.scores
        mine = self.human & 1
        us, them = (a, b)[mine], (a, b)[1 - mine]
        return f"{self.team_name(mine)} {us}, {self.team_name(1 - mine)} {them} (to {self.rules.target})"

    def announce(self, seat: int, move: Move, events: Sequence[Event]) -> None:
        who = self.name(seat)
        # (a teacher's audit: "The computer plays 5♥ takes 3♦ 2♣", two verbs in one sentence)
        played = move_text(move, self.deck, taking=", taking ")
        self.say(f"{who.capitalize()} play{'s' if seat != self.human else ''} ", played)
        for e in events:
            if e.type == "scopa":
                verb = "sweep" if self.is_you(e.team or 0) else "sweeps"
                team = self.team_name(e.team or 0).capitalize()
                self.say(Text(f"  Scopa! {team} {verb} the table.", style="bold"))
            elif e.type == "refill" and e.seat == self.human:
                self.say(Text(f"  New cards: {e.count} each from the stock.", style="italic"))
            elif e.type == "table_to_last_capturer" and e.cards:
                self.say(
                    f"  The table goes to the last capturer, {self.team_name(e.team or 0)}: ",
                    cards_text(e.cards, self.deck),
                )

    def show_score(self, score: HandScore) -> None:
        mine = self.human & 1
        cols = (mine, 1 - mine)
        t = Table()
        t.add_column("")
        t.add_column(self.team_name(mine), justify="right")
        t.add_column(self.team_name(1 - mine), justify="right")

        def row(label: str, pts: tuple[int, int], detail: tuple[Any, Any] | None = None) -> None:
            cells = []
            for c in cols:
                cell = str(pts[c])
                if detail is not None:  # (a team without primiera: "none", as it had "--84")
                    cell += f" ({'none' if detail[c] is None else detail[c]})"
                cells.append(cell)
            t.add_row(label, *cells)

        row("cards", score.carte, score.cards)
        row("coins", score.denari, score.coins)
        row("primiera", score.primiera, score.primiera_totals)
        row("settebello", score.settebello)
        row("scope", score.scope)
        if self.rules.re_bello:
            row("re bello", score.re_bello)
        if self.rules.napola:
            row("napola", score.napola)
        t.add_row("total", *(str(score.points[c]) for c in cols), style="bold")
        # (the counts are in the table, each after its points: a teacher's audit read them again
        # in a line under it, "cards 22-18, coins 8-2, primiera none-72")
        print_table(self.console, "Hand score", t)

    def show_played(self, state: State) -> None:
        played = CardSet._from_mask(
            sum(1 << m.card.index for _, m in state.history)
            | (state.origin.captured[0].mask | state.origin.captured[1].mask)
        )
        unseen = state.view(self.human).unseen  # (the cards taken from the table were seen too)
        taken = CardSet._from_mask((state.captured[0].mask | state.captured[1].mask) & ~played.mask)
        self.say_cards("Played this hand: ", cards_text(played, self.deck))
        if taken:  # (they were in neither list)
            self.say_cards("Taken from the table: ", cards_text(taken, self.deck))
        self.say_cards("Not seen yet: ", cards_text(unseen, self.deck))

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        """Play until the match is over, ``quit`` or the end of input (status 0). SIGTERM and
        SIGHUP (the terminal closed) end it as Ctrl-C does, the hand so far saved (status 128 +
        the signal). A record that could not be saved is tried once more at the end; if it
        still cannot be, an :class:`OptionError` says so (status 2)."""
        self._ending, self._signalled = False, None  # (a Game run again starts afresh)
        previous = self._catch_signals()
        try:
            try:
                try:
                    status = self._run()
                finally:  # (from here a signal is noted, not raised: the game is ending, its save
                    self._ending = True  # to be made; a closed terminal's SIGHUP follows its EOF)
            except (EOFError, _Quit):  # (at any prompt: a move, the next hand, the review)
                self._print()  # (the line typed on ends, as the shell's prompt follows)
                status = 0
            except (KeyboardInterrupt, BrokenPipeError):  # (Ctrl-C; a reader of the output gone)
                self._print()
                self._save_unfinished()
                raise
            except _Ended as exc:
                self._print()
                self._save_unfinished()
                return 128 + exc.signum
            self._save_unfinished()
            if self._signalled is not None:  # (SIGTERM or SIGHUP as the game ended: saved, and said)
                return 128 + self._signalled
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        if self.unsaved is not None:
            raise OptionError(f"the game was not saved to {self.save}: {self.unsaved}")
        return status

    def _catch_signals(self) -> dict[int, Any]:
        """SIGTERM and SIGHUP raise :class:`_Ended` while the game runs (the main thread only:
        the handlers of the signals it replaced, to put back)."""
        if threading.current_thread() is not threading.main_thread():
            return {}

        def ended(signum: int, frame: object) -> None:
            # (once: a closed terminal may send SIGHUP twice, and a second one in the save
            # would stop it)
            for sig in previous:
                signal.signal(sig, signal.SIG_IGN)
            if self._ending:  # (the game is ending anyway: raised here, it would lose the save)
                self._signalled = signum
                return
            raise _Ended(signum)

        previous: dict[int, Any] = {}
        for name in ("SIGTERM", "SIGHUP"):
            sig = getattr(signal, name, None)
            if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:  # (nohup's stays)
                previous[sig] = signal.signal(sig, ended)
        return previous

    def _help(self) -> None:
        self.console.print(notation_help(self.deck))
        # (the symbols only where they can be shown: a terminal that cannot has the letters)
        shown = COMMANDS_HELP
        if suits_shown(self.console.encoding) != "french":
            shown = COMMANDS_HELP.replace("; 7♦ works too", "")
        self.console.print(shown)

    def _print(self, *what: Any, **options: Any) -> None:
        """Print, best effort (a terminal that closed, a reader gone): the save comes first."""
        with contextlib.suppress(OSError):
            self.console.print(*what, **options)

    def _save_unfinished(self) -> None:
        """With ``--save``, write the record with the hand being played, when the game ends
        in the middle of one (quit, the end of input, Ctrl-C, SIGTERM or SIGHUP): ``--load`` goes
        on from there; or the record as it stands, when the last save failed or when nothing
        was saved yet of a resumed game's hands (``--load A --save B`` left at a fresh hand)."""
        if not self.match.is_over and self.match.state.history:
            self._save("the hand so far included", ending=True)
        elif self.unsaved is not None or (not self.saved and self.match.hands):
            self._save(ending=True)
        elif self.save and not self.saved:  # (it said nothing: a player looked for the file)
            self._print(Text(f"nothing played: nothing saved to {self.save}", style="dim"))

    def _save(self, what: str = "", ending: bool = False) -> None:
        if not self.save:
            return
        try:
            self._record().save(self.save)
        except ScopaError as exc:  # (a full disk, a folder gone: the game goes on)
            self.unsaved = exc
            going_on = "" if ending else "; the game goes on (saving again at its end)"
            self._print(Text(f"not saved: {exc}{going_on}", style="red"))
            return
        self.unsaved = None
        self.saved = True
        self._print(Text(f"saved to {self.save}" + (f" ({what})" if what else ""), style="dim"))

    def _record(self) -> MatchRecord:
        """The match's record with this session's tags, and the annotations of the hands it
        resumed (a resumed hand's plays undone take their notes with them)."""
        record = self.match.record(self.tags())
        notes: list[dict[int, Annotation]] = []
        for i, hand in enumerate(record.hands):
            loaded = self.loaded_hands[i] if i < len(self.loaded_hands) else None
            if loaded is None or loaded.deal != hand.deal:
                notes.append({})
                continue
            same = 0  # (the plays still the loaded ones: a note on a play undone and replaced goes)
            while same < min(len(loaded.plays), len(hand.plays)) and loaded.plays[same] == hand.plays[same]:
                same += 1
            notes.append({k: a for k, a in loaded.annotations.items() if k < same})
        return annotated(record, notes) if any(notes) else record

    def _run(self) -> int:
        c = self.console
        self._help()
        shown_deal = None
        while not self.match.is_over:
            if self.match._at_limit():  # (a resumed record that stopped undecided)
                c.print(
                    f"The match stopped undecided after {_match.MAX_HANDS} hands, the most a match holds"
                    " (scopa.match.MAX_HANDS).",
                    markup=False,
                )
                return 0
            state = self.match.state
            if state.origin is not shown_deal:  # (a new hand; or one resumed, or undone back to)
                self.show_deal(state)
                shown_deal = state.origin
            if state.turn != self.human:
                move = self.players[state.turn].choose(state.view(state.turn))
                self._play(state, move)
                continue
            legal = self.show_turn(state)
            while True:
                answer = as_typed(self.ask("your move> ")).strip()
                outcome = self._command(answer, state, legal)
                if outcome == "quit":
                    return 0
                if outcome == "played" or outcome == "redraw":
                    break
        a, b = self.match.scores
        mine = self.human & 1
        me, them = (a, b)[mine], (a, b)[1 - mine]
        if self.match.winner == mine:
            c.print(
                Text(
                    f"{'You win' if self.rules.players == 2 else 'Your team wins'} {me}-{them}!", style="bold"
                )
            )
        else:
            who = "The computer wins" if self.rules.players == 2 else "Their team wins"
            c.print(Text(f"{who} {them}-{me}.", style="bold"))
        self._offer_review()
        return 0

    def _command(self, answer: str, state: State, legal: list[Move]) -> str:
        """Act on one line typed by the player: ``played``, ``redraw``, ``quit`` or ``again``."""
        c = self.console
        # (commands by their first word: a teacher's audit typed "hint me" and read "bad move
        # 'hintme'"; a move's words are cards, never one of these)
        words = answer.split()
        word = words[0].lower() if words else ""
        if word in QUIT_WORDS:
            return "quit"
        if word in ("help", "?", "h"):
            self._help()
            return "again"
        if word == "cards":
            self.show_played(state)
            return "again"
        if word == "hint":
            view = state.view(self.human)
            # (seeded by the position: the same hint each time it is asked for, where a
            # stream shared by every hint gave another number, or another move, at each ask)
            key = zlib.crc32(json.dumps(view.to_json(), sort_keys=True).encode())
            values = PIMCPlayer(seed=key, time_limit=self.hint_seconds).evaluate(view)
            ranked = sorted(values, key=lambda m: -values[m][0])
            best = ranked[0]
            line = Text("hint: ").append_text(move_text(best, self.deck)).append(f" ({values[best][0]:+.2f})")
            if len(ranked) > 1:
                second = ranked[1]
                line.append(", then ").append_text(move_text(second, self.deck)).append(
                    f" ({values[second][0]:+.2f})"
                )
            c.print(line)
            if not self.hinted:  # (what the numbers are, said with the first hint)
                c.print(
                    Text(
                        "(each number: the points your side is expected to end this hand ahead, "
                        "or behind, after that move)",
                        style="dim",
                    )
                )
                self.hinted = True
            return "again"
        if word == "undo":
            return self._undo()
        if not answer:
            return "again"
        if answer.isascii() and answer.isdigit():
            n = int(answer) if len(answer) < 8 else 0
            if not 1 <= n <= len(legal):
                shown = answer if len(answer) <= 12 else answer[:12] + "..."  # (ASCII digits)
                why = f"no move {shown}: choose 1 to {len(legal)}, or type a move"
                c.print(Text(why, style="red"))
                return "again"
            choice: Move | str = legal[n - 1]
        else:
            choice = "".join(answer.split())  # ("7b x 5d 2s" said "unknown card ' 5'")
        try:
            move = state.resolve(choice)
        except ScopaError as exc:
            c.print(self._why_not(choice, state, exc))
            return "again"
        self._play(state, move)
        return "played"

    def _why_not(self, choice: Move | str, state: State, exc: ScopaError) -> Text:
        """Why a move typed cannot be played, to the player: a card not in the hand is said in
        the deck's symbols ("A♦ is not in your hand: A♥ 2♠ 4♣"), not as the library says it to
        a program ("the hand of seat 0")."""
        try:
            card = choice.card if isinstance(choice, Move) else Move.parse(choice).card
        except ScopaError:
            card = None
        hand = state.hands[state.turn]
        if card is None or card in hand:
            return Text(str(exc), style="red")
        return (
            Text(style="red")
            .append_text(card_text(card, self.deck))
            .append(" is not in your hand: ")
            .append_text(cards_text(hand, self.deck))
        )

    def _play(self, state: State, move: Move) -> None:
        hands_before = len(self.match.hands)
        _, events = self.match.play_events(move)
        self.announce(state.turn, move, events)
        if len(self.match.hands) > hands_before:
            self.show_score(self.match.history[-1])
            self.console.print(self.scores_text())
            self._save()
            if not self.match.is_over:
                answer = self.ask("press Enter for the next hand ")  # (EOFError: the game ends)
                if answer.strip().lower() in QUIT_WORDS:
                    raise _Quit

    def _undo(self) -> str:
        """Take back plays until it is the player's turn again; say what was undone. Before
        the player's first play there is nothing to undo (the computer's plays stay made)."""
        done = [p for hand in self.match.hands for p in hand.history] + list(self.match.state.history)
        if all(seat != self.human for seat, _ in done):
            self.console.print("nothing to undo")
            return "again"
        undone: list[Text] = []
        try:
            while True:
                state = self.match.state
                if not state.history:
                    if not self.match.hands:
                        break
                last_seat, last_move = (
                    self.match.hands[-1].history[-1] if not state.history else state.history[-1]
                )
                self.match.undo()
                undone.append(Text(f"{self.name(last_seat)} ").append_text(move_text(last_move, self.deck)))
                if last_seat == self.human:
                    break
        except ScopaError:
            pass
        if not undone:
            self.console.print("nothing to undo")
            return "again"
        self.say("undid: ", Text(", ").join(reversed(undone)))  # (as the plays were shown)
        return "redraw"

    def tags(self) -> dict[str, str]:
        """The tags saved: a resumed record's own (its event, date, names), with this
        session's seat as ``You`` (how ``--load`` finds it again) and the seats it does not
        name given their players."""
        tags = {k: v for k, v in self.loaded_tags.items() if k != "Result"}  # (the record's own)
        n = self.rules.players
        # (the names this game gives, whatever seat was the player's: a record resumed at another
        # seat had "Your partner" for an opponent)
        ours = {YOU, "The computer", "Your partner", *(f"Opponent (seat {s})" for s in range(n))}
        for s in range(n):
            key = f"Player{s}"
            if s == self.human:
                tags[key] = YOU
            elif tags.get(key) is None or tags[key] in ours:
                tags[key] = self.name(s).capitalize()
        return tags

    def _offer_review(self) -> None:
        from scopa.review import format_text, review

        if not self.match.hands:
            return
        answer = self.ask("review the last hand? (y/N) ").strip().lower()
        if answer not in ("y", "yes"):
            return
        last = self.match.hands[-1]
        self.console.print("reviewing...")
        r = review(last, time_limit=0.1)
        names = [self.name(s) for s in range(self.rules.players)]
        # (in the game's own suit symbols: a newcomer's audit read "you As?? (best Qbx7d2b" in a
        # screen of symbols)
        text = format_text(r, names, len(self.match.hands), lambda m: move_text(m, self.deck).plain)
        self.console.print(text_shown(text, self.console.encoding), markup=False)


def as_typed(line: str) -> str:
    """A line read with ``surrogateescape`` (bytes that are not the locale's text) as the player
    typed it: as UTF-8 when its bytes are UTF-8 (a ``7♦`` typed in a UTF-8 terminal whose
    locale says ASCII), else as it is (the move's message then quotes the escapes).

    >>> as_typed("7\\udce2\\udc99\\udca6"), as_typed("7\\udce2\\udc99")
    ('7♦', '7\\udce2\\udc99')
    """
    try:  # (text without escapes comes back as it was)
        return line.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeError:
        return line


def start(
    rules: Rules,
    *,
    seed: int | None,
    seat: int | None,
    partner: str | None,
    opponent: str,
    deck: str,
    save: str | None,
    load: str | None,
    console: Console,
    ask: Callable[[str], str] = input,
) -> Game:
    """A game from the command line's options (a resumed record with ``load``, whose rules it
    keeps; the player's seat, unless given, is the record's ``Player`` tag that says ``You``,
    else 0). ``partner`` (default ``pimc``) is for a 4-seat game only."""
    if save is not None:
        check_writable(save)  # (now, not at the end of the first hand)
    if load is not None:
        record = load_record(record_file(load))
        match = Match.from_record(record, seed=seed)
        rules = match.rules
        if seat is None:
            yours = [s for s in range(rules.players) if record.tags.get(f"Player{s}") == YOU]
            seat = yours[0] if len(yours) == 1 else 0
    else:
        match = Match(rules, seed=seed)
    if seat is None:
        seat = 0
    n = rules.players
    if not 0 <= seat < n:
        raise OptionError(f"bad seat {seat}: expected a seat in 0..{n - 1} for {rules.game}")
    if partner is not None and n == 2:
        raise OptionError(f"--partner {partner}: {rules.game} is a 2-player game, without partners")
    partner = partner or "pimc"
    players = {}
    for s in range(n):
        if s == seat:
            continue
        name = partner if (s & 1) == (seat & 1) else opponent
        # (no match seed, no player seed: each session's players draw afresh, as its deals do)
        players[s] = make_player(name, seed=None if seed is None else seed * 10 + s)
    tags = dict(record.tags) if load is not None else {}
    hands = record.hands if load is not None else ()
    game = Game(
        match, seat, players, console, deck=deck, save=save, ask=ask, loaded_tags=tags, loaded_hands=hands
    )
    if load is not None:
        resumed = f"resumed {load}: {count(len(match.hands), 'hand')} played, {game.scores_text()}"
        console.print(resumed, markup=False)
    return game
