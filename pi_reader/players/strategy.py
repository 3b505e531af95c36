"""The player interface: a strategy answers one action of one player with a mark or a pass.

Strategies are stateless: everything they need is in the game (the engine's state with the roll
pending), so one instance may serve any number of seats and games.
"""

from __future__ import annotations

from typing import Protocol

from pi_reader.players.plans import Plan, turn_plans
from pi_reader.rules import Action, Game, Mark


class Strategy(Protocol):
    """What the appliance's sheet mode, ``--bot`` and the tournaments call."""

    name: str

    def choose(self, game: Game, player: str, action: Action | str) -> Mark | None:
        """The mark ``player`` makes in ``action`` now, or ``None`` to pass."""
        ...


class PlanStrategy:
    """A strategy that rates whole-turn plans (see :mod:`pi_reader.players.plans`).

    Subclasses give :meth:`rate_all`; the best-rated plan wins, the earliest on a tie (passes come
    first, so a strategy only marks for a strictly better rating).
    """

    name = "plan"

    def choose(self, game: Game, player: str, action: Action | str) -> Mark | None:
        action = Action(action)
        return self.best_plan(game, player, action).move_for(action)

    def best_plan(self, game: Game, player: str, action: Action) -> Plan:
        plans = turn_plans(game, player, action)
        ratings = self.rate_all(game, player, plans)
        best = max(range(len(plans)), key=ratings.__getitem__)
        return plans[best]

    def rate_all(self, game: Game, player: str, plans: list[Plan]) -> list[float]:
        """The rating of every plan of one decision (higher is better)."""
        raise NotImplementedError
