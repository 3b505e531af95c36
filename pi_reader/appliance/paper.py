"""Paper mode: players keep their own sheets; the appliance keeps turns, locks and penalties.

The rules engine cannot be fed here: it needs every mark, and paper players only press a button
when they lock a row or take a penalty. So paper mode keeps its own small state, folded from its
own journal. The journal uses the game log's spelling where it can (``new_game``, ``roll``,
``end_turn``) and adds two events of its own::

    {"event": "new_game", "players": ["ann", "bob"], "first": "ann", "mode": "paper"}
    {"event": "roll", "dice": {"white1": 3, "white2": 4, "red": 2, ...}}
    {"event": "lock", "colour": "red"}            # someone pressed the red lock button
    {"event": "penalty", "player": "ann"}         # the penalty button, for the active player
    {"event": "end_turn"}                         # written when the next roll is read

The turn passes when the next roll is read. Undo takes back the last button event of the current
turn (the journal is rewritten without it). The game ends by the rules: when a second die is
removed (a third lock pressed in the same turn is still recorded) or at a fourth penalty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_reader.appliance.notices import Notice, Outcome, Refused, notice
from pi_reader.rules import DICE, Colour, InvalidRoll, Roll
from pi_reader.rules.types import LOCKS_TO_END, PENALTIES_TO_END


class PaperError(ValueError):
    """A paper-mode journal that cannot be replayed (names the event and why)."""


@dataclass
class PaperGame:
    """The paper-mode game, rebuilt from its events (``events`` is what the journal holds)."""

    players: tuple[str, ...]
    first: str
    events: list[dict[str, Any]] = field(default_factory=list)
    active_index: int = 0
    removed: list[str] = field(default_factory=list)
    penalties: dict[str, int] = field(default_factory=dict)
    last_roll: Roll | None = None
    turn_buttons: list[dict[str, Any]] = field(default_factory=list)
    end_reason: str | None = None  # "two_locks" or "fourth_penalty"
    ended_turn: int | None = None  # the turn (count of rolls) in which the game ended

    @classmethod
    def new(cls, players: Sequence[str], first: str | None = None) -> PaperGame:
        names = tuple(players)
        if not 2 <= len(names) <= 5 or len(set(names)) != len(names):
            raise ValueError(f"Qwixx needs 2 to 5 players with different names, not {names}")
        first = first or names[0]
        if first not in names:
            raise ValueError(f"the first player {first!r} is not one of {', '.join(names)}")
        game = cls(names, first)
        game._apply({"event": "new_game", "players": list(names), "first": first, "mode": "paper"})
        return game

    @classmethod
    def replay(cls, events: Sequence[Mapping[str, Any]]) -> PaperGame:
        """The game after ``events`` (a paper journal); PaperError naming the bad event."""
        if not events or events[0].get("event") != "new_game" or events[0].get("mode") != "paper":
            raise PaperError("a paper-mode game log starts with new_game with mode paper")
        start = events[0]
        try:
            game = cls.new(start.get("players") or (), start.get("first"))
        except (TypeError, ValueError) as error:
            raise PaperError(f"event 1: {error}") from None
        for number, event in enumerate(events[1:], start=2):
            try:
                game._apply(dict(event))
            except (Refused, InvalidRoll, KeyError, TypeError, ValueError) as error:
                reason = error.notice.key if isinstance(error, Refused) else str(error)
                raise PaperError(f"event {number} {dict(event)} is refused: {reason}") from None
        return game

    # --- what the loop asks -------------------------------------------------------------------
    @property
    def active(self) -> str:
        return self.players[self.active_index]

    @property
    def over(self) -> bool:
        return self.end_reason is not None

    @property
    def next_roller(self) -> str:
        """Who rolls next: the active player before their roll, the next one after it."""
        if self.last_roll is None:
            return self.active
        return self.players[(self.active_index + 1) % len(self.players)]

    @property
    def rolls(self) -> int:
        return sum(1 for e in self.events if e["event"] == "roll")

    def dice_in_play(self) -> tuple[str, ...]:
        return tuple(d for d in DICE if d not in self.removed)

    # --- events from the table ------------------------------------------------------------------
    def roll(self, roll: Roll) -> Outcome:
        """A trusted roll was read: end the previous turn, then record the roll."""
        if self.over:
            raise Refused(notice("sheet.game_over"))
        written: list[dict[str, Any]] = []
        if self.last_roll is not None:
            written.append(self._apply({"event": "end_turn"}))
        written.append(self._apply({"event": "roll", "dice": roll.to_dict()}))
        return Outcome(written, [notice("roll.white_sum", sum=roll.white_sum)])

    def press(self, button: str) -> Outcome:
        """A lock button (a colour), ``penalty`` or ``undo``; Refused when it cannot count."""
        if button == "undo":
            return self._undo()
        if self.last_roll is None:
            raise Refused(notice("sheet.no_roll"))
        if button == "penalty":
            event = {"event": "penalty", "player": self.active}
        else:
            event = {"event": "lock", "colour": Colour(button).value}
        self._apply(event)
        return Outcome([event], self._button_notices(event))

    # --- folding events -------------------------------------------------------------------------
    def _apply(self, event: dict[str, Any]) -> dict[str, Any]:
        kind = event.get("event")
        if kind == "new_game":
            self.active_index = self.players.index(self.first)
            self.penalties = dict.fromkeys(self.players, 0)
        elif kind == "roll":
            self._apply_roll(event)
        elif kind == "end_turn":
            if self.last_roll is None:
                raise ValueError("end_turn before any roll")
            self.active_index = (self.active_index + 1) % len(self.players)
            self.last_roll = None
            self.turn_buttons = []
        elif kind == "lock":
            self._apply_lock(event)
        elif kind == "penalty":
            self._apply_penalty(event)
        else:
            raise ValueError(f"unknown event {kind!r}")
        self.events.append(event)
        return event

    def _apply_roll(self, event: dict[str, Any]) -> None:
        if self.over:
            raise Refused(notice("sheet.game_over"))
        if self.last_roll is not None:
            raise ValueError("a second roll in one turn (end_turn missing)")
        dice = event["dice"]
        roll = Roll.from_dict(dice)  # values 1..6, names known
        if set(dice) != set(self.dice_in_play()):
            raise ValueError(f"the roll must name exactly the dice in play: {self.dice_in_play()}")
        self.last_roll = roll

    def _apply_lock(self, event: dict[str, Any]) -> None:
        colour = Colour(event["colour"]).value
        if self.last_roll is None:
            raise Refused(notice("sheet.no_roll"))
        if colour in self.removed:
            raise Refused(notice("lock.already", row=colour))
        if self.over and not (self.end_reason == "two_locks" and self.ended_turn == self.rolls):
            raise Refused(notice("sheet.game_over"))
        self.removed.append(colour)
        self.turn_buttons.append(event)
        if len(self.removed) >= LOCKS_TO_END and not self.over:
            self.end_reason, self.ended_turn = "two_locks", self.rolls

    def _apply_penalty(self, event: dict[str, Any]) -> None:
        player = event["player"]
        if self.over:
            raise Refused(notice("sheet.game_over"))
        if player != self.active:
            raise ValueError(f"a penalty is for the active player {self.active}, not {player!r}")
        if any(e["event"] == "penalty" for e in self.turn_buttons):
            raise Refused(notice("penalty.twice", player=player))
        self.penalties[player] += 1
        self.turn_buttons.append(event)
        if self.penalties[player] >= PENALTIES_TO_END:
            self.end_reason, self.ended_turn = "fourth_penalty", self.rolls

    def _undo(self) -> Outcome:
        if not self.turn_buttons:
            raise Refused(notice("undo.nothing"))
        undone = self.turn_buttons[-1]
        index = max(i for i, e in enumerate(self.events) if e is undone)
        rebuilt = PaperGame.replay(self.events[:index] + self.events[index + 1 :])
        self.__dict__.update(rebuilt.__dict__)
        if undone["event"] == "lock":
            colour = undone["colour"]
            return Outcome([], [notice("lock.undone", row=colour, die_object=colour)], True)
        return Outcome([], [notice("penalty.undone", player=undone["player"])], True)

    def _button_notices(self, event: dict[str, Any]) -> list[Notice]:
        if event["event"] == "lock":
            colour = event["colour"]
            return [
                notice("lock.locked_paper", row=colour),
                notice("lock.take_out", die_object=colour),
            ]
        player = event["player"]
        return [notice("penalty.given", player=player, count=self.penalties[player])]

    def end_notices(self) -> list[Notice]:
        """Why the game ended, each player's penalties, and a reminder to add up the sheets."""
        if self.end_reason == "two_locks":
            notices = [notice("end.two_locks")]
        else:
            notices = [notice("end.fourth_penalty", player=self.active)]
        notices += [
            notice("end.paper_penalties", player=p, count=self.penalties[p]) for p in self.players
        ]
        notices.append(notice("end.paper_count"))
        return notices
