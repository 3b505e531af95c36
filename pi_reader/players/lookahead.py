"""The look-ahead strategy: the plan with the best expected final standing.

Each plan of the turn (see :mod:`pi_reader.players.plans`) is played on a copy of the game and
the resulting position is valued by :class:`~pi_reader.players.evaluation.ValueModel`, which
prices each row's future by an expectation over all 216 white/white/colour faces for every roll
left. Alone (solo) the rating is the player's expected final score. At a table it is that less
the expected final score of the best rival: a game is won, not scored, so a lock that closes a
rival's good row, or an end of the game while ahead, counts for what it does to the others too.
The rivals' values change only with locks and the end of the game, so they are recomputed only
for the plans that bring those. A decision costs a few dozen engine copies and table look-ups.
"""

from __future__ import annotations

from pi_reader.players.evaluation import Table, ValueModel, game_ends
from pi_reader.players.plans import Plan
from pi_reader.players.strategy import PlanStrategy
from pi_reader.rules import Game

RIVALRY = 1.0  # weight of the best rival's expected score: a game is won, not scored


class Lookahead(PlanStrategy):
    """Maximise the expected final score, less the best rival's at a table."""

    name = "lookahead"

    def rate_all(self, game: Game, player: str, plans: list[Plan]) -> list[float]:
        model = ValueModel(len(game.players))
        table = Table.around(game, player)
        rivals = [other for other in game.players if other != player]
        rival_tables = {rival: Table.around(game, rival) for rival in rivals}
        closed = (game.locked, game.pending_locks)

        def best_rival(after: Game, ended: bool) -> float:
            return max(
                model.expected_score(after, rival, False, rival_tables[rival], ended)
                for rival in rivals
            )

        standing = best_rival(game, False) if rivals else 0.0
        ratings = []
        for plan in plans:
            mine = model.expected_score(plan.after, player, plan.penalty_due, table)
            if rivals:
                ended = game_ends(plan.after, player, plan.penalty_due)
                changed = ended or (plan.after.locked, plan.after.pending_locks) != closed
                rival = best_rival(plan.after, ended) if changed else standing
                mine -= RIVALRY * rival
            ratings.append(mine)
        return ratings
