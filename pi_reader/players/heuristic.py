"""The heuristic strategy: hand-weighed rules of thumb, no look-ahead.

A mark is worth one mark (a little more in a row that already has many, since each mark there
scores more, and more again when it locks), less the numbers it loses, each weighed by how often
the dice offer it (a lost 7 hurts six times as much as a lost 2). As the game nears its end, by
penalties or locks anywhere at the table, lost numbers matter less: there is no time left to
use them, and the race to lock favours marking now. A penalty is weighed like any other cost,
so the strategy takes one on purpose when every mark would lose too much.
"""

from __future__ import annotations

from pi_reader.players.cautious import skipped_numbers
from pi_reader.players.odds import white_sum_odds
from pi_reader.players.plans import Plan
from pi_reader.players.strategy import PlanStrategy
from pi_reader.rules import Game, Mark

# Weights in units of "one plain mark".
ROW_MARK_BONUS = 0.1  # extra worth per mark already in the row
LOCK_BONUS = 2.0  # the lock counts a second mark and closes the row for everyone
LOST_NUMBER_COST = 1.0  # cost of losing a 7; other numbers by their odds relative to 7
END_DISCOUNT = 0.6  # how much cheaper lost numbers are when the game is about to end
PENALTY_COST = 2.5
_SEVEN = white_sum_odds()[7]
_LOST_WEIGHT = {n: float(p / _SEVEN) for n, p in white_sum_odds().items()}


def end_nearness(game: Game) -> float:
    """0 at the start, 1 when the next penalty or lock at the table may end the game."""
    worst_penalties = max(game.penalties(player) for player in game.players)
    locks = len(game.locked) + len(game.pending_locks)
    return min(1.0, max(worst_penalties / 3, float(locks)))


class Heuristic(PlanStrategy):
    """Rate a plan by its marks' worth less lost numbers, less a penalty if one is due."""

    name = "heuristic"

    def rate_all(self, game: Game, player: str, plans: list[Plan]) -> list[float]:
        lost_cost = LOST_NUMBER_COST * (1 - END_DISCOUNT * end_nearness(game))
        return [self._rate(game, plan, lost_cost) for plan in plans]

    def _rate(self, game: Game, plan: Plan, lost_cost: float) -> float:
        rating = -PENALTY_COST if plan.penalty_due else 0.0
        position = game
        for mark in plan.marks:
            rating += self._mark_worth(position, mark, lost_cost)
            position = position.copy()
            position.play(mark)
        return rating

    @staticmethod
    def _mark_worth(game: Game, mark: Mark, lost_cost: float) -> float:
        row = game.row(mark.player, mark.colour)
        lost = row.open[: skipped_numbers(game, mark)]
        worth = 1.0 + ROW_MARK_BONUS * row.marks
        if mark.number == row.lock_number:
            worth += LOCK_BONUS
        return worth - lost_cost * sum(_LOST_WEIGHT[n] for n in lost)
