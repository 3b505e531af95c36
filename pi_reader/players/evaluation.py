"""The look-ahead strategy's value of a position: a player's expected final score.

Expected final score = for each open row, the row-value model's expected final row score given
the rolls the game probably has left, plus the exact points of closed rows, minus 5 per penalty.
The position is read from the engine (rows, penalties, locks, pending locks); when it ends the
game the value is simply the score.

How many rolls are left is the one guess, made from the two ways a game ends:

* penalties: a player runs into penalties faster the fewer numbers their rows still offer, so a
  player has about ``room * (5 - penalties) / 6`` own turns left, ``room`` counting the numbers
  still open in their rows (fitted to solo play); with n players that is n times as many rolls.
* locks: a row can lock once another player has 5 marks in it, so it locks in about
  ``ROLLS_PER_MARK`` rolls per missing mark plus the wait for its lock number; the game ends at
  the second lock. (The player's own locks are their choice and are valued when they happen.)

The horizon is the shorter of the two, taken over all players at the table; a row's own horizon
is also cut short by another player locking it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pi_reader.players.odds import colour_sum_odds, white_sum_odds
from pi_reader.players.row_value import ROW_LENGTH, RowValues, row_values
from pi_reader.rules import COLOURS, Game, row_points
from pi_reader.rules.types import LOCKS_TO_END, MARKS_TO_LOCK, PENALTIES_TO_END, PENALTY_POINTS

# The chance that a roll's white sum, or the colour sums on the player's own turn, is a given row's
# to take (see row_value). Fitted by seeded games: solo 0.5; at a table the white sum is wanted
# by every player and the race to lock rewards taking it, so 0.3 there.
SOLO_WHITE_SHARE = 0.5
TABLE_WHITE_SHARE = 0.3
COLOUR_SHARE = 0.5
HORIZON_PENALTY_ROOM = 5  # penalties "left" in the horizon formula: one more than the 4 allowed
HORIZON_DIVISOR = 6  # open numbers per own turn left, fitted to solo play
ROLLS_PER_MARK = 1.0  # rolls another player needs per missing mark in a row (at a table)
# The lock number (12 or 2: the tables are symmetric) as the white sum, and as a white die plus the
# row's die.
WHITE_LOCK_CHANCE = float(white_sum_odds()[12])
COLOUR_LOCK_CHANCE = float(colour_sum_odds()[12])


@dataclass(frozen=True)
class RowState:
    """What the value model needs of a row: where marking may go on, how many marks, if closed."""

    next_index: int
    marks: int
    closed: bool


def row_states(game: Game, player: str) -> tuple[RowState, ...]:
    """The player's four rows; a row locked in the open white action already counts as closed."""
    pending = set(game.pending_locks)
    states = []
    for colour in COLOURS:
        row = game.row(player, colour)
        closed = row.closed or colour in pending
        states.append(RowState(ROW_LENGTH - len(row.open), row.marks, closed))
    return tuple(states)


def own_turns_left(rows: tuple[RowState, ...], penalties: int) -> float:
    """The penalty horizon of one player, in that player's own turns (see the module doc)."""
    room = sum(ROW_LENGTH - row.next_index for row in rows if not row.closed)
    return room * max(HORIZON_PENALTY_ROOM - penalties, 0) / HORIZON_DIVISOR


def rolls_to_lock(rows: tuple[RowState, ...], players: int) -> tuple[float, ...]:
    """Per colour, the rolls until this player could lock that row (infinite once it is closed)."""
    wait = 1 / (WHITE_LOCK_CHANCE + COLOUR_LOCK_CHANCE / players)
    return tuple(
        math.inf
        if row.closed
        else max(MARKS_TO_LOCK - row.marks, 0) * ROLLS_PER_MARK + wait
        for row in rows
    )


@dataclass(frozen=True)
class Table:
    """What the other players contribute to the horizon; their sheets do not change while one
    player weighs their own plans, so it is worked out once per decision."""

    players: int
    turns_left: float  # the smallest penalty horizon among the others, in their own turns
    lock_rolls: tuple[float, ...]  # per colour, the soonest another player could lock it

    @classmethod
    def around(cls, game: Game, player: str) -> Table:
        players = len(game.players)
        turns = math.inf
        locks = [math.inf] * len(COLOURS)
        for other in game.players:
            if other == player:
                continue
            rows = row_states(game, other)
            turns = min(turns, own_turns_left(rows, game.penalties(other)))
            locks = [min(a, b) for a, b in zip(locks, rolls_to_lock(rows, players), strict=True)]
        return cls(players, turns, tuple(locks))


@dataclass(frozen=True)
class ValueModel:
    """The expected-final-score model for one game size (the row tables are cached per size)."""

    players: int

    @property
    def rows(self) -> RowValues:
        white_share = SOLO_WHITE_SHARE if self.players == 1 else TABLE_WHITE_SHARE
        return row_values(white_share, COLOUR_SHARE / self.players)

    def rolls_left(self, rows: tuple[RowState, ...], penalties: int, table: Table) -> float:
        """The horizon: rolls until a 4th penalty or a 2nd lock, whichever seems sooner."""
        turns = min(own_turns_left(rows, penalties), table.turns_left)
        # The player's own locks are their own choice (and valued as such when they happen), so
        # only the other players' readiness to lock makes the game end sooner than planned.
        lock_rolls = sorted(
            closing for row, closing in zip(rows, table.lock_rolls, strict=True) if not row.closed
        )
        locks_missing = LOCKS_TO_END - sum(row.closed for row in rows)
        return min(turns * self.players, lock_rolls[locks_missing - 1])

    def expected_score(
        self, game: Game, player: str, penalty_due: bool, table: Table, ended: bool = False
    ) -> float:
        """The player's expected final score in ``game`` (plus a penalty when ``penalty_due``).

        ``table`` is :meth:`Table.around` the position the player is deciding in; ``ended``
        says the game ends with the position whatever it shows (another player's 4th penalty).
        """
        rows = row_states(game, player)
        penalties = game.penalties(player) + penalty_due
        locks = sum(row.closed for row in rows)
        score: float = -PENALTY_POINTS * penalties
        if ended or game.over or locks >= LOCKS_TO_END or penalties >= PENALTIES_TO_END:
            return float(score + sum(row_points(row.marks) for row in rows))
        rolls = self.rolls_left(rows, penalties, table)
        values = self.rows
        for row, closing in zip(rows, table.lock_rolls, strict=True):
            if row.closed:
                score += row_points(row.marks)
            else:
                # Another player may lock this row before the game ends.
                score += values.value(row.next_index, row.marks, min(rolls, closing))
        return float(score)


def game_ends(game: Game, player: str, penalty_due: bool) -> bool:
    """Whether the position ends the game (counting a due penalty and locks still pending)."""
    locks = len(game.locked) + len(game.pending_locks)
    penalties = game.penalties(player) + penalty_due
    return game.over or locks >= LOCKS_TO_END or penalties >= PENALTIES_TO_END
