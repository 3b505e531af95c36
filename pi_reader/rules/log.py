"""The game log: a JSON Lines file of events, replayable from the start.

One event per line (the format is a contract; outside tests feed it)::

    {"event": "new_game", "players": ["Ann", "Bob", "Cid"], "first": "Bob"}
    {"event": "roll", "dice": {"white1": 3, "white2": 4, "red": 2, "yellow": 5, "green": 6,
    "blue": 1}}                   (one line in the file; wrapped here)
    {"event": "mark", "player": "Bob", "action": "white", "colour": "red", "number": 7}
    {"event": "end_turn"}

Reading (:func:`replay`, :func:`replay_lines`) parses line by line and applies each event to a
:class:`~pi_reader.rules.game.Game`, which alone decides legality. The first malformed or illegal
event raises :class:`GameLogError` with its 1-based line number, the reason, and the game as it was
before that line. Lines holding only white space are skipped (a writer never makes them; they can
only come from a hand edit and carry no event). A log has 2 to 5 players.

A final line without a newline that does not parse is a torn write (power cut mid-append). Strict
reading reports it like any bad line; ``tolerate_torn_tail=True`` drops it with a warning, and
:meth:`GameLog.resume` also cuts it from the file before appending.

Writing (:class:`GameLog`) checks each event against the game first, then appends it, flushes
and ``fsync``s, so a game survives a power cut and resumes by replay.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_reader.rules.game import Game
from pi_reader.rules.types import (
    Action,
    Colour,
    Mark,
    Move,
    Pass,
    Roll,
    RulesError,
    players_problem,
)

LOG_MIN_PLAYERS = 2

_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # event: (required fields, optional fields)
    "new_game": (("players",), ("first",)),
    "roll": (("dice",), ()),
    "mark": (("player", "action", "colour", "number"), ()),
    "end_turn": ((), ()),
}


class GameLogError(RulesError):
    """A game log line that is malformed or illegal.

    ``line`` counts from 1; ``game`` is the state before that line (``None`` when no game had
    started yet).
    """

    def __init__(self, line: int, reason: str, game: Game | None) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason
        self.game = game


@dataclass(frozen=True, slots=True)
class NewGame:
    """The first event of a log: who plays, and who rolls first."""

    players: tuple[str, ...]
    first: str | None = None


@dataclass(frozen=True, slots=True)
class EndTurn:
    """The active player's turn is over."""


Event = NewGame | Roll | Mark | EndTurn


# ------------------------------------------------------------------------------- events <-> JSON


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object of an event, in the log's spelling and field order."""
    if isinstance(event, NewGame):
        obj: dict[str, Any] = {"event": "new_game", "players": list(event.players)}
        if event.first is not None:
            obj["first"] = event.first
        return obj
    if isinstance(event, Roll):
        return {"event": "roll", "dice": event.to_dict()}
    if isinstance(event, Mark):
        return {
            "event": "mark",
            "player": event.player,
            "action": event.action.value,
            "colour": event.colour.value,
            "number": event.number,
        }
    return {"event": "end_turn"}


# ``pi-reader run`` in paper mode writes a journal that starts like a game log but holds only
# the table's buttons (locks, penalties), not the marks the rules engine would need.
PAPER_JOURNAL = (
    "this is a paper-mode journal of pi-reader run: the players kept their own sheets, so it "
    "holds no marks for the rules engine to replay (only a sheet-mode journal is a game log)"
)


def event_from_json(obj: object) -> Event:
    """The event a parsed JSON line holds; :class:`RulesError` with the reason if malformed.

    Only the shape is checked here; whether the event may happen now is the game's question.
    """
    if not isinstance(obj, dict):
        raise RulesError(f"an event must be a JSON object, not {_json_kind(obj)}")
    if "event" not in obj:
        raise RulesError('the line has no "event" field')
    name = obj["event"]
    if not isinstance(name, str):
        raise RulesError(f'"event" must be a string, not {_json_kind(name)}')
    if name not in _FIELDS:
        raise RulesError(f'unknown event "{name}" (events are {", ".join(_FIELDS)})')
    if name == "new_game" and obj.get("mode") == "paper":
        raise RulesError(PAPER_JOURNAL)
    required, optional = _FIELDS[name]
    for key in required:
        if key not in obj:
            raise RulesError(f'a {name} event needs a "{key}" field')
    for key in obj:
        if key != "event" and key not in required and key not in optional:
            allowed = ", ".join(required + optional) or "none"
            raise RulesError(f'unexpected field "{key}" in a {name} event (its fields: {allowed})')
    if name == "new_game":
        return _new_game(obj)
    if name == "roll":
        dice = obj["dice"]
        if not isinstance(dice, dict):
            raise RulesError(
                f'"dice" must be an object of die names and values, not {_json_kind(dice)}'
            )
        return Roll.from_dict(dice)
    if name == "mark":
        player = _string(obj, "player")
        action = _string(obj, "action")
        colour = _string(obj, "colour")
        number = obj["number"]
        if isinstance(number, bool) or not isinstance(number, int):
            raise RulesError(f'"number" must be a whole number, not {_json_kind(number)}')
        return Mark(player, action, colour, number)  # type: ignore[arg-type]  # checks spelling
    return EndTurn()


def _new_game(obj: Mapping[str, Any]) -> NewGame:
    players = obj["players"]
    if not isinstance(players, list):
        raise RulesError(f'"players" must be a list of names, not {_json_kind(players)}')
    problem = players_problem(players, LOG_MIN_PLAYERS, json.dumps)
    if problem is not None:
        raise RulesError(problem)
    first = obj.get("first")
    if "first" in obj:
        if not isinstance(first, str):
            raise RulesError(f'"first" must be a player\'s name, not {_json_kind(first)}')
        if first not in players:
            raise RulesError(f'"first" names {first!r}, who is not among the players')
    return NewGame(tuple(players), first)


def _string(obj: Mapping[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise RulesError(f'"{key}" must be a string, not {_json_kind(value)}')
    return value


def _json_kind(value: object) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "true/false"}
    if value is None:
        return "null"
    for kind, words in kinds.items():
        if isinstance(value, kind):
            return f"{words} ({json.dumps(value)[:40]})" if kind is str else words
    return json.dumps(value)


def apply_event(game: Game | None, event: Event) -> Game:
    """Apply ``event`` to ``game`` (``None`` before the first event); the game after it."""
    if isinstance(event, NewGame):
        if game is not None:
            raise RulesError("new_game may only be the first event: this log already holds a game")
        return Game(event.players, first=event.first)
    if game is None:
        kind = event_to_json(event)["event"]
        raise RulesError(f"the log must start with a new_game event, not {kind}")
    if isinstance(event, Roll):
        game.roll(event)
    elif isinstance(event, Mark):
        game.play(event)
    else:
        game.end_turn()
    return game


# ------------------------------------------------------------------------------- reading


@dataclass
class Replay:
    """The outcome of reading a log: the game (``None`` if none started) and any warnings."""

    game: Game | None
    events: int = 0
    warnings: list[str] = field(default_factory=list)
    # Bytes of the file that hold whole, applied lines (where an append may start).
    good_bytes: int = 0


def replay_lines(lines: Iterable[str], *, tolerate_torn_tail: bool = False) -> Replay:
    """Replay text lines (each with its newline, as a file yields them)."""
    return _replay((line.encode("utf-8") for line in lines), tolerate_torn_tail)


def replay(path: str | os.PathLike[str], *, tolerate_torn_tail: bool = False) -> Replay:
    """Replay the log at ``path``; :class:`GameLogError` at the first bad line.

    ``OSError`` if the file cannot be read.
    """
    with open(path, "rb") as file:
        return _replay(iter(file), tolerate_torn_tail)


def _replay(raw_lines: Iterable[bytes], tolerate_torn_tail: bool) -> Replay:
    result = Replay(game=None)
    number = 0
    for number, raw in enumerate(raw_lines, start=1):
        complete = raw.endswith(b"\n")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if not complete and tolerate_torn_tail and (text is None or _unparsable(text)):
            result.warnings.append(
                f"line {number} is incomplete (a torn write, probably a power cut) and was ignored"
            )
            return result
        if text is None:
            raise GameLogError(number, "the line is not valid UTF-8 text", result.game)
        if text.strip():
            _apply_line(result, number, text)
        result.good_bytes += len(raw)
    if number == 0:
        raise GameLogError(1, "the log is empty: it must start with a new_game event", None)
    if result.game is None:
        raise GameLogError(number, "the log holds no event: it must start with new_game", None)
    return result


def _unparsable(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return True
    return False


def _json_fault(error: ValueError | RecursionError) -> str:
    """Why a line is not JSON, in words: the decoder's message and where (its messages may end
    in "at", as "Unterminated string starting at", so the column is joined to fit)."""
    if isinstance(error, RecursionError):
        return "arrays or objects nested too deeply to be a game event"
    if not isinstance(error, json.JSONDecodeError):
        return str(error)
    joint = " " if error.msg.endswith(" at") else " at "
    return f"{error.msg}{joint}column {error.colno}"


def _apply_line(result: Replay, number: int, text: str) -> None:
    try:
        obj = json.loads(text.rstrip("\r\n"))  # columns then count within the line
    except (ValueError, RecursionError) as error:
        raise GameLogError(number, f"not valid JSON: {_json_fault(error)}", result.game) from None
    try:
        result.game = apply_event(result.game, event_from_json(obj))
    except RulesError as error:
        # The game refuses an event before changing anything, so it is the state before the line.
        reason = getattr(error, "reason", None) or str(error)
        raise GameLogError(number, reason, result.game) from None
    result.events += 1


# ------------------------------------------------------------------------------- writing


class GameLog:
    """A game bound to its log file: each event is checked by the game, then appended, flushed
    and fsynced. An illegal event raises :class:`~pi_reader.rules.types.IllegalMove` and
    writes nothing.

    Make one with :meth:`create` (a new game) or :meth:`resume` (carry on after a restart).
    """

    def __init__(self, path: Path, game: Game, warnings: Sequence[str] = ()) -> None:
        self.path = path
        self.game = game
        self.warnings = list(warnings)
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    @classmethod
    def create(
        cls, path: str | os.PathLike[str], players: Sequence[str], first: str | None = None
    ) -> GameLog:
        """Start a new game in a new (or empty) log file."""
        path = Path(path)
        if path.exists() and path.stat().st_size > 0:
            raise FileExistsError(f"{path} already holds a game log; resume it or choose another")
        event = NewGame(tuple(players), first)
        # The same checks as reading: what this writes, replay accepts.
        game = apply_event(None, event_from_json(event_to_json(event)))
        log = cls(path, game)
        log._append(event)
        _fsync_directory(path)
        return log

    @classmethod
    def resume(cls, path: str | os.PathLike[str]) -> GameLog:
        """Replay an existing log and open it for appending; a torn last line is cut off (its
        warning is in ``warnings``). :class:`GameLogError` for any other bad line."""
        path = Path(path)
        result = replay(path, tolerate_torn_tail=True)
        if result.game is None:
            raise GameLogError(1, "the log holds no complete new_game event", None)
        with open(path, "r+b") as file:
            file.truncate(result.good_bytes)
            if result.good_bytes:
                file.seek(result.good_bytes - 1)
                if file.read(1) != b"\n":
                    file.write(b"\n")  # a last line that was whole but had no newline
            file.flush()
            os.fsync(file.fileno())
        return cls(path, result.game, result.warnings)

    replay = staticmethod(replay)
    replay_lines = staticmethod(replay_lines)

    def roll(self, dice: Roll | Mapping[str, object]) -> Roll:
        roll = self.game.roll(dice)
        self._append(roll)
        return roll

    def mark(self, player: str, action: Action | str, colour: Colour | str, number: int) -> Mark:
        mark = self.game.mark(player, action, colour, number)
        self._append(mark)
        return mark

    def play(self, move: Move) -> None:
        """Make a move; a pass is checked but leaves no line (the log has no pass event)."""
        self.game.play(move)
        if not isinstance(move, Pass):
            self._append(move)

    def end_turn(self) -> None:
        self.game.end_turn()
        self._append(EndTurn())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _append(self, event: Event) -> None:
        self._file.write(json.dumps(event_to_json(event), ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())


def _fsync_directory(path: Path) -> None:
    """Make the new file's directory entry durable too (POSIX; a no-op where unsupported)."""
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
