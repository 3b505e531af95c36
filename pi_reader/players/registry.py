"""Strategies by name, and the one-call interface the appliance uses.

    from pi_reader.players import choose
    mark = choose(game, "Bob", Action.WHITE, "lookahead")   # a Mark, or None to pass
"""

from __future__ import annotations

from pi_reader.players.cautious import Cautious
from pi_reader.players.heuristic import Heuristic
from pi_reader.players.lookahead import Lookahead
from pi_reader.players.strategy import Strategy
from pi_reader.rules import Action, Game, Mark

STRATEGIES: dict[str, type[Strategy]] = {
    "cautious": Cautious,
    "heuristic": Heuristic,
    "lookahead": Lookahead,
}
STRONGEST = "lookahead"


class UnknownStrategy(ValueError):
    """A strategy name that is not one of :data:`STRATEGIES`."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown strategy {name!r} (strategies: {', '.join(STRATEGIES)})")
        self.name = name


def strategy(name: str) -> Strategy:
    """The strategy called ``name`` (case and surrounding spaces ignored)."""
    key = name.strip().lower()
    if key not in STRATEGIES:
        raise UnknownStrategy(name)
    return STRATEGIES[key]()


def choose(
    game: Game, player: str, action: Action | str, strategy_name: str = STRONGEST
) -> Mark | None:
    """The mark ``player`` should make in ``action`` now, or ``None`` to pass.

    ``game`` must be waiting for that action (rolled, the action still open for the player);
    otherwise there is nothing legal to make and the answer is ``None``. For the active player
    asked for the white action, the choice already takes the colour action that follows into
    account; ask again for the colour action once the white marks are made.
    """
    return strategy(strategy_name).choose(game, player, action)
