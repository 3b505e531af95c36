"""Sheet mode: the rules engine keeps every player's sheet; marks come from the terminal or bots.

The journal is exactly the game log of the rules engine (``new_game``, ``roll``, ``mark``,
``end_turn``), so ``pi-reader game replay`` reads it. Marks are typed in a short form::

    bob red 7          the action is inferred: white if 7 is the white sum and bob has not yet
                       used the white action, otherwise colour
    ann blue 9 colour  the action said explicitly (``white`` or ``colour``)
    ann pass           ann lets the current action go by
    undo               takes back the last mark of this turn

Every mark is checked by the engine against the roll that was read; an illegal one is refused
with the engine's reason. The turn ends when the next roll is read (the engine then gives the
active player a penalty if they marked nothing). Computer players move right after a roll is
read; an active computer player takes its colour action once every person has made or passed
their white mark, or at the latest when the next roll arrives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from pi_reader.appliance.notices import Notice, Outcome, Refused, notice
from pi_reader.rules import (
    LOCK_NUMBER,
    Action,
    Colour,
    Game,
    IllegalMove,
    Mark,
    Pass,
    Phase,
    Roll,
)

ENGLISH_COLOURS = {colour.value: colour for colour in Colour}


def typed_name_problems(names: Sequence[str]) -> list[str]:
    """Why typed marks could not tell these players apart: a typed line starts with the player's
    name as one word, matched without regard to case (see :meth:`SheetGame.command`)."""
    problems = [
        f"{name!r} has a space, and a typed mark starts with the name as one word: "
        f"write it as {'_'.join(name.split())!r}"
        for name in names
        if len(name.split()) != 1
    ]
    folded: dict[str, list[str]] = {}
    for name in names:
        folded.setdefault(name.strip().lower(), []).append(name)
    problems += [
        f"{' and '.join(same)} differ only in capitals, which typed marks do not tell apart: "
        "give them names that differ in letters"
        for same in folded.values()
        if len(same) > 1 and len(set(same)) > 1
    ]
    return problems


class SheetError(ValueError):
    """A sheet-mode journal that the engine refuses (names the event and the reason)."""


class ComputerPlayer(Protocol):
    """What sheet mode asks of a computer player (``pi_reader.players`` provides them)."""

    def choose(self, game: Game, player: str, action: Action) -> Mark | Pass:
        """A legal move for ``player`` in ``action`` of the current turn."""
        ...


class SheetGame:
    """A sheet-mode game: the engine, its events, and the computer players seated at it."""

    def __init__(
        self,
        players: Sequence[str],
        first: str | None = None,
        bots: Mapping[str, ComputerPlayer] | None = None,
        colour_words: Mapping[str, str] | None = None,
    ) -> None:
        names = list(players)
        if len(names) < 2:
            raise ValueError("sheet mode needs 2 to 5 players")
        self.game = Game(names, first)
        self.bots = dict(bots or {})
        unknown = sorted(set(self.bots) - set(names))
        if unknown:
            raise ValueError(f"computer players {unknown} are not seated in the game")
        self.events: list[dict[str, Any]] = [
            {"event": "new_game", "players": names, "first": first or names[0]}
        ]
        self.passed: set[tuple[str, Action]] = set()
        self.colour_words = {
            **ENGLISH_COLOURS,
            **{k.lower(): Colour(v) for k, v in (colour_words or {}).items()},
        }

    @classmethod
    def replay(
        cls,
        events: Sequence[Mapping[str, Any]],
        bots: Mapping[str, ComputerPlayer] | None = None,
        colour_words: Mapping[str, str] | None = None,
    ) -> SheetGame:
        if not events or events[0].get("event") != "new_game" or "mode" in events[0]:
            raise SheetError("a sheet-mode game log starts with new_game (and has no mode)")
        start = events[0]
        try:
            game = cls(start.get("players") or (), start.get("first"), bots, colour_words)
        except (IllegalMove, TypeError, ValueError) as error:
            raise SheetError(f"event 1: {error}") from None
        for number, event in enumerate(events[1:], start=2):
            try:
                game._apply(dict(event))
            except (IllegalMove, KeyError, TypeError, ValueError) as error:
                raise SheetError(f"event {number} {dict(event)} is refused: {error}") from None
        return game

    # --- state the loop asks for --------------------------------------------------------------
    @property
    def players(self) -> tuple[str, ...]:
        return self.game.players

    @property
    def active(self) -> str:
        return self.game.active

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def next_roller(self) -> str:
        """Who rolls next: the active player before their roll, the next one after it."""
        if self.game.phase is Phase.AWAITING_ROLL:
            return self.active
        players = self.players
        return players[(players.index(self.active) + 1) % len(players)]

    @property
    def removed(self) -> list[str]:
        return [colour.value for colour in self.game.removed_dice]

    @property
    def humans(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.bots)

    def undecided(self) -> list[tuple[str, Action]]:
        """The people (not computer players) still to mark or pass on the current roll: each
        white action first, then the active player's colour action. Empty before a roll."""
        if self.over or self.game.phase is not Phase.WHITE_ACTION:
            return []
        waiting = [
            (p, Action.WHITE)
            for p in self.humans
            if not self.game.has_marked_white(p) and (p, Action.WHITE) not in self.passed
        ]
        if self.active in self.humans and (self.active, Action.COLOUR) not in self.passed:
            waiting.append((self.active, Action.COLOUR))
        return waiting

    # --- events -------------------------------------------------------------------------------
    def roll(self, roll: Roll) -> Outcome:
        """A trusted roll was read: finish the previous turn, record the roll, let bots move."""
        if self.over:
            raise Refused(notice("sheet.game_over"))
        outcome = Outcome()
        if self.game.phase is not Phase.AWAITING_ROLL:
            self._finish_turn(outcome)
            if self.over:
                return outcome
        self._record({"event": "roll", "dice": roll.to_dict()}, outcome)
        outcome.notices.append(notice("roll.white_sum", sum=roll.white_sum))
        self._bots_white(outcome)
        self._maybe_bot_colour(outcome)
        return outcome

    def resume(self) -> Outcome:
        """After a restart mid-turn: let computer players make moves they had not written yet."""
        outcome = Outcome()
        if self.game.phase is Phase.WHITE_ACTION:
            self._bots_white(outcome)
            self._maybe_bot_colour(outcome)
        return outcome

    def command(self, text: str) -> Outcome:
        """One line typed at the terminal; Refused with what to say when it cannot be taken."""
        words = text.strip().lower().split()
        if not words:
            return Outcome()
        if words == ["undo"]:
            return self.undo()
        if self.over:
            raise Refused(notice("sheet.game_over"))
        player = self._player(words[0], text)
        if self.game.phase is Phase.AWAITING_ROLL:
            raise Refused(notice("sheet.no_roll"))
        if words[1:] == ["pass"]:
            return self.pass_action(player)
        if len(words) not in (3, 4) or words[1] not in self.colour_words:
            raise Refused(notice("sheet.unknown_command", text=text.strip()))
        colour = self.colour_words[words[1]]
        try:
            number = int(words[2])
        except ValueError:
            raise Refused(notice("sheet.unknown_command", text=text.strip())) from None
        if len(words) == 4:
            if words[3] not in ("white", "colour", "color"):
                raise Refused(notice("sheet.unknown_command", text=text.strip()))
            action = Action.WHITE if words[3] == "white" else Action.COLOUR
        else:
            action = self._infer_action(player, number)
        return self.mark(player, action, colour, number)

    def mark(self, player: str, action: Action, colour: Colour, number: int) -> Outcome:
        """``player`` marks ``number`` in the ``colour`` row in ``action``; Refused with the
        engine's reason when it is not legal now."""
        if self.over:
            raise Refused(notice("sheet.game_over"))
        if self.game.phase is Phase.AWAITING_ROLL:
            raise Refused(notice("sheet.no_roll"))
        outcome = Outcome()
        self._mark(player, action, colour, number, outcome)
        self._maybe_bot_colour(outcome)
        return outcome

    def may_pass(self, player: str, action: Action) -> bool:
        """Whether ``player`` may still make (or pass) ``action`` in this turn."""
        if (player, action) in self.passed or self.over:
            return False
        return self.game.is_legal(Pass(player, action))

    # --- internals ----------------------------------------------------------------------------
    def _player(self, word: str, text: str) -> str:
        for name in self.players:
            if name.lower() == word:
                return name
        if len(text.split()) >= 2:
            raise Refused(notice("sheet.unknown_player", player=text.split()[0]))
        raise Refused(notice("sheet.unknown_command", text=text.strip()))

    def _infer_action(self, player: str, number: int) -> Action:
        roll = self.game.current_roll
        white_open = self.game.phase is Phase.WHITE_ACTION
        if (
            roll is not None
            and white_open
            and number == roll.white_sum
            and not self.game.has_marked_white(player)
            and (player, Action.WHITE) not in self.passed
        ):
            return Action.WHITE
        return Action.COLOUR if player == self.active else Action.WHITE

    def _mark(
        self, player: str, action: Action, colour: Colour, number: int, outcome: Outcome
    ) -> None:
        removed_before = set(self.removed)
        try:
            self._record(
                {
                    "event": "mark",
                    "player": player,
                    "action": action.value,
                    "colour": colour.value,
                    "number": number,
                },
                outcome,
            )
        except IllegalMove as error:
            raise Refused(notice("sheet.refused", reason=error.reason)) from None
        outcome.notices.append(
            notice("sheet.mark", player=player, colour=colour.value, number=number)
        )
        if number == LOCK_NUMBER[colour]:
            outcome.notices.append(notice("lock.locked", player=player, row=colour.value))
        self._take_out(removed_before, outcome)

    def _take_out(self, removed_before: set[str], outcome: Outcome) -> None:
        for colour in self.removed:
            if colour not in removed_before:
                outcome.notices.append(notice("lock.take_out", die_object=colour))

    def pass_action(self, player: str) -> Outcome:
        """``player`` lets their white action go by, or (the active player, after it) the colour
        action."""
        if self.over:
            raise Refused(notice("sheet.game_over"))
        if self.game.phase is Phase.AWAITING_ROLL:
            raise Refused(notice("sheet.no_roll"))
        if (
            self.game.phase is Phase.WHITE_ACTION
            and not self.game.has_marked_white(player)
            and (player, Action.WHITE) not in self.passed
        ):
            self.passed.add((player, Action.WHITE))
        elif player == self.active:
            self.passed.add((player, Action.COLOUR))
        outcome = Outcome(notices=[notice("sheet.pass", player=player)])
        self._maybe_bot_colour(outcome)
        return outcome

    def undo(self, player: str | None = None) -> Outcome:
        """Take back the last mark of this turn (``player``'s last, when named)."""
        last_roll = max(i for i, e in enumerate(self.events) if e["event"] in ("roll", "new_game"))
        marks = [
            i
            for i, e in enumerate(self.events)
            if i > last_roll and e["event"] == "mark" and player in (None, e["player"])
        ]
        if not marks:
            raise Refused(notice("undo.nothing"))
        undone = self.events[marks[-1]]
        rebuilt = SheetGame.replay(
            self.events[: marks[-1]] + self.events[marks[-1] + 1 :], self.bots
        )
        rebuilt.colour_words = self.colour_words
        self.__dict__.update(rebuilt.__dict__)
        said = notice(
            "undo.mark", player=undone["player"], colour=undone["colour"], number=undone["number"]
        )
        return Outcome(notices=[said], rewrite=True)

    def _finish_turn(self, outcome: Outcome) -> None:
        """The next roll arrived: the active bot's colour action if still due, then end_turn."""
        self._bot_colour(outcome)
        active = self.active
        penalties = self.game.penalties(active)
        removed_before = set(self.removed)
        self._record({"event": "end_turn"}, outcome)
        self._take_out(removed_before, outcome)
        if self.game.penalties(active) > penalties:
            count = self.game.penalties(active)
            outcome.notices.append(notice("penalty.given", player=active, count=count))
        self.passed = set()

    def _bots_white(self, outcome: Outcome) -> None:
        for player, bot in self.bots.items():
            if self.over or self.game.phase is not Phase.WHITE_ACTION:
                return
            if self.game.has_marked_white(player):
                continue
            self._bot_move(bot.choose(self.game, player, Action.WHITE), outcome)

    def _maybe_bot_colour(self, outcome: Outcome) -> None:
        waiting = [
            p
            for p in self.humans
            if not self.game.has_marked_white(p) and (p, Action.WHITE) not in self.passed
        ]
        if not waiting:
            self._bot_colour(outcome)

    def _bot_colour(self, outcome: Outcome) -> None:
        active = self.active
        if (
            active in self.bots
            and not self.over
            and self.game.phase is Phase.WHITE_ACTION
            and (active, Action.COLOUR) not in self.passed
        ):
            self.passed.add((active, Action.COLOUR))
            self._bot_move(self.bots[active].choose(self.game, active, Action.COLOUR), outcome)

    def _bot_move(self, move: Mark | Pass, outcome: Outcome) -> None:
        if isinstance(move, Pass):
            self.passed.add((move.player, move.action))  # said by nobody: the table hears marks
            return
        self._mark(move.player, move.action, move.colour, move.number, outcome)

    def _record(self, event: dict[str, Any], outcome: Outcome) -> None:
        self._apply(event)
        outcome.written.append(event)

    def _apply(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "roll":
            self.game.roll(event["dice"])
        elif kind == "mark":
            self.game.mark(event["player"], event["action"], event["colour"], event["number"])
        elif kind == "end_turn":
            self.game.end_turn()
        else:
            raise ValueError(f"unknown event {kind!r}")
        self.events.append(event)

    def end_notices(self) -> list[Notice]:
        """Why the game ended, every player's score, and the winner(s)."""
        locked = self.game.locked
        if len(locked) >= 2:
            notices = [notice("end.two_locks")]
        else:
            notices = [notice("end.fourth_penalty", player=self.active)]
        for player in self.players:
            notices.append(notice("end.score", player=player, score=self.game.score(player).total))
        winners = list(self.game.winners)
        if len(winners) == 1:
            notices.append(notice("end.winner", players=winners))
        else:
            notices.append(notice("end.shared", players=winners))
        return notices
