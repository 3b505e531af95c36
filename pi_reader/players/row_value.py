"""Expected final score of one row, by dynamic programming over the rolls still to come.

A row is seen by its position, not its colour: ``next_index`` is the first number still markable
(0 for a fresh row, counted in the row's own order, so red 2 and green 12 are both index 0) and
``marks`` the numbers marked so far. The white and white+colour sum tables are symmetric
(P(s) = P(14 - s)), so ascending and descending rows share one table.

The model plays each row on its own for ``t`` more rolls. On each roll the row is offered the
white sum with probability ``white_share`` and the two white+colour sums with probability
``colour_share``; the shares stand for the chance that this row, and not another row or a
pause, gets that roll's mark (for a non-active player the colour share also carries 1/players).
Within a roll the row may take the white sum, a colour sum, or the white then a colour sum further
right, exactly as a player may. The lock number needs five marks and closes the row with two
marks (number and lock). The value after ``t`` rolls is the row's score by the table
1, 3, 6, ..., 78; the table entry R[t, next_index, marks] is its expectation under the best
play of this one-row game.

The one-row game is a model, not the rules: the strategies use it only to price the future of a
row, while what is legal is always asked of the rules engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np

from pi_reader.rules import ROW_NUMBERS, Colour, row_points
from pi_reader.rules.types import MARKS_TO_LOCK

ROW_LENGTH = len(ROW_NUMBERS[Colour.RED])  # numbers in a row; the last is the lock number
LOCK_INDEX = ROW_LENGTH - 1
MAX_MARKS = ROW_LENGTH + 1  # every number and the lock
_UNREACHABLE = -1.0e9


def _roll_indices() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of the 216 (white1, white2, colour) faces, the row indices of the three sums."""
    faces = np.array(list(product(range(1, 7), repeat=3)))
    white1, white2, colour = faces.T
    return white1 + white2 - 2, white1 + colour - 2, white2 + colour - 2


@dataclass(frozen=True)
class RowValues:
    """The table R[t, next_index, marks] of expected final row scores, t = 0..horizon rolls."""

    table: np.ndarray

    @property
    def horizon(self) -> int:
        return int(self.table.shape[0]) - 1

    def value(self, next_index: int, marks: int, rolls_left: float) -> float:
        """Expected final score of an open row, interpolating between whole numbers of rolls."""
        t = min(max(rolls_left, 0.0), float(self.horizon))
        low = int(t)
        high = min(low + 1, self.horizon)
        frac = t - low
        a = self.table[low, next_index, marks]
        return float(a + frac * (self.table[high, next_index, marks] - a))


@cache
def row_values(white_share: float, colour_share: float, horizon: int = 120) -> RowValues:
    """Solve the one-row game for t = 0..horizon rolls (cached; a few tens of milliseconds)."""
    if not (0 <= white_share <= 1 and 0 <= colour_share <= 1):
        raise ValueError("shares are probabilities in [0, 1]")
    white, colour1, colour2 = _roll_indices()
    marks = np.arange(MAX_MARKS + 1)
    next_index = np.arange(ROW_LENGTH)
    # legal[p, m, i]: index i may be marked from a row at next_index p with m marks.
    i = np.arange(ROW_LENGTH)
    legal = (i[None, None, :] >= next_index[:, None, None]) & (
        (i[None, None, :] < LOCK_INDEX) | (marks[None, :, None] >= MARKS_TO_LOCK)
    )
    locked_score = np.array(
        [row_points(min(int(m) + 2, MAX_MARKS)) for m in marks], dtype=np.float64
    )
    # m <= p always holds for reachable states; cap the table at 12 marks for the others.
    table = np.empty((horizon + 1, ROW_LENGTH, MAX_MARKS + 1))
    table[0] = np.array(
        [row_points(min(int(m), MAX_MARKS)) for m in marks], dtype=np.float64
    )[None, :]
    one_more = np.minimum(marks + 1, MAX_MARKS)
    white_open = white < LOCK_INDEX  # a white lock ends the row: no colour mark after it
    p_after_white = np.where(white_open, white + 1, LOCK_INDEX)
    white_legal = legal[:, :, white]  # (p, m, rolls)
    for t in range(1, horizon + 1):
        previous = table[t - 1]
        # after[p, m, i]: value of marking index i (then playing on with t-1 rolls), or unreachable.
        after = np.full((ROW_LENGTH, MAX_MARKS + 1, ROW_LENGTH), _UNREACHABLE)
        for idx in range(LOCK_INDEX):
            after[:, :, idx] = previous[idx + 1, one_more][None, :]
        after[:, :, LOCK_INDEX] = locked_score[None, :]
        after = np.where(legal, after, _UNREACHABLE)
        stay = previous[:, :, None]  # shape (p, m, 1): pass
        take_white = after[:, :, white]  # (p, m, rolls)
        take_colour = np.maximum(after[:, :, colour1], after[:, :, colour2])
        # White then colour: the white index w moves the row to (w + 1, m + 1); then a colour sum.
        second = np.maximum(
            after[p_after_white[None, :], one_more[:, None], colour1[None, :]],
            after[p_after_white[None, :], one_more[:, None], colour2[None, :]],
        )  # (m, rolls)
        second = np.where(white_open[None, :], second, _UNREACHABLE)
        both = np.where(white_legal, second[None, :, :], _UNREACHABLE)
        best_white = np.maximum(stay, take_white)
        best_colour = np.maximum(stay, take_colour)
        best_both = np.maximum(np.maximum(best_white, take_colour), both)
        w, c = white_share, colour_share
        expected = (
            w * c * best_both.mean(axis=2)
            + w * (1 - c) * best_white.mean(axis=2)
            + (1 - w) * c * best_colour.mean(axis=2)
            + (1 - w) * (1 - c) * previous
        )
        table[t] = expected
    return RowValues(table)
