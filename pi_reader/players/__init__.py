"""Computer players and move advice, on top of the rules engine.

The strategies never decide legality themselves: every candidate move comes from the engine's
legal-move generation. What lives here is the strategy maths (dice odds, the value of a row's
future), the players, the tournament runner and the advice.

The interface for the appliance (sheet mode, ``--bot``)::

    from pi_reader.players import choose
    mark = choose(game, "Bob", "white")            # a pi_reader.rules.Mark, or None to pass
    mark = choose(game, "Bob", "colour", "heuristic")
"""

from pi_reader.players.registry import STRATEGIES, STRONGEST, UnknownStrategy, choose, strategy
from pi_reader.players.strategy import Strategy

__all__ = ["STRATEGIES", "STRONGEST", "Strategy", "UnknownStrategy", "choose", "strategy"]
