"""The engine protocol: JSON lines on stdin/stdout (``scopa engine``), see docs/engine-protocol.md.

>>> e = Engine()
>>> e.handle('{"cmd": "legal", "id": 1, "position": "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"}')
{'id': 1, 'moves': ['7dx3c4s', 'Kc']}
>>> e.handle('{"cmd": "nope"}')["error"]["type"]
'UnknownCommand'
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping
from typing import IO, Any

from scopa.card import DECK, CardSet, cards_mask
from scopa.errors import PositionError, ScopaError
from scopa.move import Move
from scopa.notation import FORMAT_VERSION
from scopa.players import PLAYERS, make_player
from scopa.rules import PRESETS, Rules
from scopa.solver import Solver
from scopa.state import State
from scopa.version import __version__
from scopa.view import PlayerView

__all__ = ["PROTOCOL_VERSION", "Engine", "serve", "view_from_json"]

#: Version of the engine protocol, reported by ``hello``.
PROTOCOL_VERSION = 1


class ProtocolError(ScopaError):
    """A request that is not a valid protocol message."""


def _position(obj: object) -> State:
    """A position given as a JSON object or as a position string."""
    if isinstance(obj, str):
        return State.from_string(obj)
    if isinstance(obj, Mapping):
        return State.from_json(obj)
    raise ProtocolError(f"'position' must be a JSON position object or a position string, got {obj!r}")


def _history_from_json(obj: object, players: int, table: int, piles: int) -> tuple[tuple[int, Move], ...]:
    """The optional ``history`` of a view: ``[[seat, "move"], ...]``, the hand's plays in order.
    Every played card must now be on the table or in a pile, every captured card in a pile."""
    if not isinstance(obj, list):
        raise PositionError(f"bad history {obj!r}: expected a list of [seat, move] pairs")
    out = []
    played = 0
    for item in obj:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], int)
            or isinstance(item[0], bool)
            or not 0 <= item[0] < players
            or not isinstance(item[1], str)
        ):
            raise PositionError(f"bad history entry {item!r}: expected [seat in 0..{players - 1}, move]")
        move = Move.parse(item[1])
        if not move.card.mask & (table | piles) & ~played or move.capture_mask & ~piles:
            raise PositionError(
                f"bad history entry {item!r}: the played card must now be on the table or in a pile, "
                "played once, and the captured cards in a pile"
            )
        played |= move.card.mask
        out.append((item[0], move))
    return tuple(out)


def view_from_json(obj: object) -> PlayerView:
    """A player view: the JSON position format with every hand but the seat to move's given
    as its number of cards, and the stock as its length; optionally ``history``, the plays of
    the hand so far as ``[[seat, "move"], ...]`` (PIMC reads the opponent's hand from them).

    >>> v = view_from_json({"rules": "scopa", "hands": [["7d", "Kc"], 2], "table": ["3c", "As"],
    ...                     "stock": 0, "turn": 0, "history": [[0, "As"]]})
    >>> v.hand_sizes, str(v.hand), [(seat, str(m)) for seat, m in v.history]
    ((2, 2), '7d Kc', [(0, 'As')])
    """
    if not isinstance(obj, Mapping):
        raise ProtocolError(f"'view' must be a JSON object, got {obj!r}")
    d = dict(obj)
    rules = Rules.from_json(d.get("rules"))
    turn = d.get("turn")
    hands = d.get("hands")
    n = rules.players
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn < n:
        raise PositionError(f"bad turn {turn!r}: expected a seat in 0..{n - 1}")
    if not isinstance(hands, list) or len(hands) != n:
        raise PositionError(f"bad hands {hands!r}: expected {n} entries, one per seat")
    for seat, h in enumerate(hands):
        if seat == turn and not isinstance(h, list):
            raise PositionError(f"hand {seat} (the seat to move) must be a list of cards, got {h!r}")
        if seat != turn and (not isinstance(h, int) or isinstance(h, bool) or h < 0):
            raise PositionError(f"hand {seat} must be a number of cards, got {h!r}")
    stock = d.get("stock", 0)
    if not isinstance(stock, int) or isinstance(stock, bool) or stock < 0:
        raise PositionError(f"'stock' in a view must be its number of cards, got {stock!r}")
    # Validate everything else through a full position with stand-in hidden cards.
    own = hands[turn]
    known = cards_mask(own, f"hand {turn}")
    for key in ("table",):
        known |= cards_mask(d.get(key) or [], key)
    for pile in d.get("captured") or []:
        known |= cards_mask(pile if isinstance(pile, list) else [], "a pile")
    free = [c for c in range(40) if not known >> c & 1]
    need = sum(h for seat, h in enumerate(hands) if seat != turn) + stock
    if need > len(free):
        raise PositionError(f"the view hides {need} cards but only {len(free)} cards are unaccounted for")
    filled: list[Any] = []
    at = 0
    for seat, h in enumerate(hands):
        if seat == turn:
            filled.append(h)
        else:
            filled.append([str(DECK[c]) for c in free[at : at + h]])
            at += h
    full = dict(d)
    full["hands"] = filled
    full["stock"] = [str(DECK[c]) for c in free[at : at + stock]]
    full.pop("history", None)
    v = State.from_json(full).view(turn)
    piles = v.captured[0].mask | v.captured[1].mask
    history = _history_from_json(d.get("history", []), n, v.table.mask, piles)
    # every unaccounted card may be hidden: none is known to be out of play
    return dataclasses.replace(v, out_of_play=CardSet._from_mask(0), history=history)


class Engine:
    """Answers protocol requests; one instance keeps its solver's table between requests."""

    def __init__(self) -> None:
        self.solver = Solver()

    def handle(self, line: str) -> dict[str, Any] | None:
        """The reply to one request line (``None`` for ``quit``)."""
        req_id: Any = None
        try:
            try:
                req = json.loads(line)
            except ValueError as exc:
                raise ProtocolError(f"not a JSON line: {exc}") from None
            if not isinstance(req, dict):
                raise ProtocolError(f"a request must be a JSON object, got {type(req).__name__}")
            req_id = req.get("id")
            cmd = req.get("cmd")
            handler = getattr(self, f"_cmd_{cmd}", None) if isinstance(cmd, str) else None
            if handler is None:
                reply = {
                    "error": {
                        "type": "UnknownCommand",
                        "message": f"unknown command {cmd!r}: expected "
                        "one of hello, legal, play, solve, analyze, bestmove, quit",
                    }
                }
            else:
                reply = handler(req)
                if reply is None:
                    return None
        except ScopaError as exc:
            reply = {"error": {"type": type(exc).__name__, "message": str(exc)}}
        except (KeyError, TypeError) as exc:
            reply = {"error": {"type": "ProtocolError", "message": f"bad request: {exc}"}}
        if req_id is not None or "error" in reply:
            reply = {"id": req_id, **reply}
        return reply

    @staticmethod
    def _field(req: Mapping[str, Any], key: str) -> Any:
        if key not in req:
            raise ProtocolError(f"request {req.get('cmd')!r} needs a {key!r} field")
        return req[key]

    def _cmd_hello(self, req: Mapping[str, Any]) -> dict[str, Any]:
        defaults = Rules()
        return {
            "name": "scopa",
            "version": __version__,
            "protocol": PROTOCOL_VERSION,
            "position_format": FORMAT_VERSION,
            "presets": list(PRESETS),
            "options": {k: v for k, v in defaults.__dict__.items() if k != "game"},
            "players": list(PLAYERS),
        }

    def _cmd_legal(self, req: Mapping[str, Any]) -> dict[str, Any]:
        state = _position(self._field(req, "position"))
        return {"moves": [str(m) for m in state.legal_moves()]}

    def _cmd_play(self, req: Mapping[str, Any]) -> dict[str, Any]:
        state = _position(self._field(req, "position"))
        move = self._field(req, "move")
        if not isinstance(move, str):
            raise ProtocolError(f"'move' must be move notation, got {move!r}")
        return {"position": state.play(move).to_dict()}

    def _cmd_solve(self, req: Mapping[str, Any]) -> dict[str, Any]:
        state = _position(self._field(req, "position"))
        limit = req.get("node_limit")
        r = self.solver.solve(state, node_limit=limit)
        return {
            "value": r.value,
            "exact": r.exact,
            "lower": r.lower,
            "upper": r.upper,
            "best": None if r.best_move is None else str(r.best_move),
            "pv": [str(m) for m in r.pv],
            "nodes": r.nodes,
            "seconds": round(r.seconds, 6),
        }

    def _cmd_analyze(self, req: Mapping[str, Any]) -> dict[str, Any]:
        state = _position(self._field(req, "position"))
        return {"moves": {str(m): v for m, v in self.solver.analyze(state).items()}}

    def _cmd_bestmove(self, req: Mapping[str, Any]) -> dict[str, Any]:
        view = view_from_json(self._field(req, "view"))
        name = req.get("player", "pimc")
        time_ms = req.get("time_ms", 100)
        if not isinstance(time_ms, (int, float)) or isinstance(time_ms, bool) or time_ms <= 0:
            raise ProtocolError(f"'time_ms' must be a positive number, got {time_ms!r}")
        seed = req.get("seed")
        options: dict[str, Any] = {}
        if name in ("pimc", "ismcts"):
            options["time_limit"] = time_ms / 1000
        player = make_player(name, seed=seed, **options)
        return {"move": str(player.choose(view))}

    def _cmd_quit(self, req: Mapping[str, Any]) -> None:
        return None


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Serve requests line by line until ``quit`` or end of input; returns the exit status."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    engine = Engine()
    for line in stdin:
        if not line.strip():
            continue
        reply = engine.handle(line)
        if reply is None:
            break
        stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        stdout.flush()
    return 0
