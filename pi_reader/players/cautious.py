"""The cautious strategy: marks only numbers that lose at most one number of the row.

It takes as many such marks as the turn allows, losing as few numbers as possible, and passes
otherwise, even when that costs the active player a penalty. The rating is exact counting, no
probabilities: it is the baseline the other strategies must beat.
"""

from __future__ import annotations

from pi_reader.players.plans import Plan
from pi_reader.players.strategy import PlanStrategy
from pi_reader.rules import Game, Mark

MAX_SKIPPED = 1


def skipped_numbers(game: Game, mark: Mark) -> int:
    """How many still-open numbers of the row ``mark`` passes over (and so loses for good)."""
    open_numbers = game.row(mark.player, mark.colour).open
    return open_numbers.index(mark.number) if mark.number in open_numbers else 0


class Cautious(PlanStrategy):
    """Never skip more than one number; otherwise prefer more marks and fewer lost numbers."""

    name = "cautious"

    def rate_all(self, game: Game, player: str, plans: list[Plan]) -> list[float]:
        return [self._rate(game, plan) for plan in plans]

    @staticmethod
    def _rate(game: Game, plan: Plan) -> float:
        skipped = 0
        position = game
        for mark in plan.marks:
            lost = skipped_numbers(position, mark)
            if lost > MAX_SKIPPED:
                return float("-inf")
            skipped += lost
            position = position.copy()
            position.play(mark)
        return len(plan.marks) * 10 - skipped

