"""Read-only snapshots of a player's sheet: rows, marks, lost numbers and the score.

The game keeps its state in flat integer lists so it can be copied and searched quickly; these
frozen values are what it hands out to people and programs that want to look at a sheet.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_reader.rules.types import (
    COLOURS,
    LOCK_NUMBER,
    PENALTY_POINTS,
    ROW_NUMBERS,
    ROW_POINTS,
    Colour,
)


def row_points(marks: int) -> int:
    """Points for a row with ``marks`` marks (the lock symbol counts as one): 1, 3, 6, ... 78."""
    return ROW_POINTS[marks]


@dataclass(frozen=True, slots=True)
class Row:
    """One row of one sheet: the numbers marked (left to right) and whether this player locked it.

    ``closed`` says that the row is locked for everyone (by this player or another).
    """

    colour: Colour
    marked: tuple[int, ...]
    locked_here: bool
    closed: bool

    @property
    def marks(self) -> int:
        """Marks that score: the numbers marked plus the lock symbol."""
        return len(self.marked) + self.locked_here

    @property
    def points(self) -> int:
        return ROW_POINTS[self.marks]

    @property
    def lost(self) -> tuple[int, ...]:
        """Numbers crossed out for good: unmarked and left of the last mark."""
        if not self.marked:
            return ()
        numbers = ROW_NUMBERS[self.colour]
        last = numbers.index(self.marked[-1])
        return tuple(n for n in numbers[:last] if n not in self.marked)

    @property
    def open(self) -> tuple[int, ...]:
        """Numbers this player may still mark some day (none once the row is closed)."""
        if self.closed:
            return ()
        numbers = ROW_NUMBERS[self.colour]
        start = numbers.index(self.marked[-1]) + 1 if self.marked else 0
        return numbers[start:]

    @property
    def lock_number(self) -> int:
        return LOCK_NUMBER[self.colour]


@dataclass(frozen=True, slots=True)
class Score:
    """Points per row, the penalty points and the total of one player."""

    rows: dict[Colour, int]
    penalties: int
    total: int

    def to_json(self) -> dict[str, int]:
        """``{"red": .., "yellow": .., "green": .., "blue": .., "total": ..}``."""
        return {**{colour.value: self.rows[colour] for colour in COLOURS}, "total": self.total}


@dataclass(frozen=True, slots=True)
class Sheet:
    """A player's whole sheet: four rows and the penalties taken."""

    player: str
    rows: tuple[Row, ...]
    penalties: int

    def row(self, colour: Colour | str) -> Row:
        return self.rows[COLOURS.index(Colour(colour))]

    @property
    def locks(self) -> tuple[Colour, ...]:
        """Colours this player locked."""
        return tuple(row.colour for row in self.rows if row.locked_here)

    @property
    def score(self) -> Score:
        rows = {row.colour: row.points for row in self.rows}
        total = sum(rows.values()) - PENALTY_POINTS * self.penalties
        return Score(rows=rows, penalties=self.penalties, total=total)
