"""Small frozen value types of the rules engine: colours, actions, dice, rolls and moves.

They carry no game state, so they can be cached, hashed, compared and passed between threads
freely; the :class:`~pi_reader.rules.game.Game` alone decides whether a move is legal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum


class RulesError(Exception):
    """Base of every error the rules engine raises."""


class IllegalMove(RulesError):
    """The game refuses an event (a mark, a roll, a pass, the end of a turn) at this point.

    ``reason`` is a sentence a person at the table understands.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidRoll(IllegalMove, ValueError):
    """A roll that no six dice could show (a value outside 1..6, an unknown die, no white die).

    An :class:`IllegalMove`, so one ``except IllegalMove`` catches everything the game refuses.
    """


class Colour(StrEnum):
    """The four coloured rows (and their dice). The values are the JSON spelling."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"


class Action(StrEnum):
    """The two actions of a turn, in their order."""

    WHITE = "white"
    COLOUR = "colour"


COLOURS: tuple[Colour, ...] = tuple(Colour)
# Dice in their fixed order; a roll names the two white dice and the coloured dice still in play.
WHITE_DICE: tuple[str, str] = ("white1", "white2")
DICE: tuple[str, ...] = (*WHITE_DICE, *(colour.value for colour in COLOURS))

# Each row read left to right; the last number is the lock number.
ASCENDING = tuple(range(2, 13))
DESCENDING = tuple(range(12, 1, -1))
ROW_NUMBERS: dict[Colour, tuple[int, ...]] = {
    Colour.RED: ASCENDING,
    Colour.YELLOW: ASCENDING,
    Colour.GREEN: DESCENDING,
    Colour.BLUE: DESCENDING,
}
LOCK_NUMBER: dict[Colour, int] = {colour: numbers[-1] for colour, numbers in ROW_NUMBERS.items()}
MARKS_TO_LOCK = 5
# Points for 0..12 marks in a row (the lock counts as a mark), and per penalty.
ROW_POINTS: tuple[int, ...] = tuple(n * (n + 1) // 2 for n in range(13))
PENALTY_POINTS = 5
PENALTIES_TO_END = 4
LOCKS_TO_END = 2
MIN_PLAYERS = 1  # solo play (one player, always active) is allowed from Python
MAX_PLAYERS = 5


def players_problem(
    names: Sequence[object], minimum: int, spell: Callable[[object], str]
) -> str | None:
    """Why ``names`` cannot be a game's players (their count, an empty or non-text name, a name
    twice), or None: one rule for the engine and the game log, each with its own minimum and its
    own spelling of a bad name (``spell``)."""
    if not minimum <= len(names) <= MAX_PLAYERS:
        return f"a game has {minimum} to {MAX_PLAYERS} players, not {len(names)}"
    for name in names:
        if not isinstance(name, str) or not name.strip():
            return f"a player's name must be a non-empty string, not {spell(name)}"
    if len(set(names)) != len(names):
        return f"every player needs a different name: {', '.join(map(str, names))}"
    return None


def parse_colour(value: Colour | str) -> Colour:
    """The colour named by ``value`` ("red", ...), or :class:`IllegalMove` naming the choices."""
    try:
        return Colour(value)
    except ValueError:
        choices = ", ".join(c.value for c in COLOURS)
        raise IllegalMove(f"{value!r} is not a row colour (expected one of {choices})") from None


def parse_action(value: Action | str) -> Action:
    """The action named by ``value`` ("white" or "colour"), or :class:`IllegalMove`."""
    try:
        return Action(value)
    except ValueError:
        raise IllegalMove(f"{value!r} is not an action (expected white or colour)") from None


def _die_value(die: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRoll(f"the {die} die must be a whole number, got {value!r}")
    if not 1 <= value <= 6:
        raise InvalidRoll(f"the {die} die shows {value}, but a die shows 1 to 6")
    return value


@dataclass(frozen=True, slots=True)
class Roll:
    """The values of the dice in play; a coloured die that left the game is ``None``.

    Which dice must be present depends on the game (removed dice), so :meth:`Game.roll` checks
    that; the roll itself only guarantees real die values.
    """

    white1: int
    white2: int
    red: int | None = None
    yellow: int | None = None
    green: int | None = None
    blue: int | None = None

    def __post_init__(self) -> None:
        # The common case (real die values) is checked first and fast: rolls are made per turn
        # by computer players searching ahead.
        values = (self.white1, self.white2, self.red, self.yellow, self.green, self.blue)
        for value in values:
            if value is not None and (type(value) is not int or not 0 < value < 7):
                break
        else:
            if values[0] is not None and values[1] is not None:
                return
        for n, (die, value) in enumerate(zip(DICE, values, strict=True)):
            if value is not None or n < 2:
                _die_value(die, value)  # raises with the reason

    @classmethod
    def from_dict(cls, dice: Mapping[str, object]) -> Roll:
        """Build a roll from ``{"white1": 3, ..., "blue": 1}`` (the game log's spelling)."""
        unknown = [name for name in dice if name not in DICE]
        if unknown:
            raise InvalidRoll(f"unknown die {unknown[0]!r} (dice are {', '.join(DICE)})")
        for white in WHITE_DICE:
            if white not in dice:
                raise InvalidRoll(f"the roll lacks the {white} die")
        values = {name: _die_value(name, value) for name, value in dice.items()}
        return cls(**values)

    def to_dict(self) -> dict[str, int]:
        """The dice present, in the game log's spelling and order."""
        return {die: value for die in DICE if (value := getattr(self, die)) is not None}

    @property
    def white_sum(self) -> int:
        """The number every player may mark in the white action."""
        return self.white1 + self.white2

    def die(self, colour: Colour | str) -> int | None:
        """The value of a coloured die, ``None`` if it is not in this roll."""
        value: int | None = getattr(self, Colour(colour).value)
        return value

    def colour_sums(self, colour: Colour | str) -> tuple[int, ...]:
        """The numbers the active player may form for ``colour`` (a white die plus that die)."""
        value = self.die(colour)
        if value is None:
            return ()
        return tuple(sorted({self.white1 + value, self.white2 + value}))


@dataclass(frozen=True, slots=True)
class Mark:
    """A player marks ``number`` in the ``colour`` row with the ``action``'s dice."""

    player: str
    action: Action
    colour: Colour
    number: int

    def __post_init__(self) -> None:
        # Accept the plain spellings ("white", "red") and keep the enum members.
        object.__setattr__(self, "action", parse_action(self.action))
        object.__setattr__(self, "colour", parse_colour(self.colour))
        if isinstance(self.number, bool) or not isinstance(self.number, int):
            raise IllegalMove(f"the number must be a whole number, not {self.number!r}")
        if not 2 <= self.number <= 12:
            raise IllegalMove(f"{self.number} is not on a sheet (rows run from 2 to 12)")

    def __str__(self) -> str:
        return f"{self.player} {self.action.value} {self.colour.value} {self.number}"


@dataclass(frozen=True, slots=True)
class Pass:
    """A player lets an action go by without marking (legal while that player could act)."""

    player: str
    action: Action

    def __post_init__(self) -> None:
        object.__setattr__(self, "action", parse_action(self.action))

    def __str__(self) -> str:
        return f"{self.player} passes the {self.action.value} action"


Move = Mark | Pass
