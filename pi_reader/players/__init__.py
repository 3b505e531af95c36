"""Computer players and move advice, on top of the rules engine.

The strategies never decide legality themselves: every candidate move comes from the engine's
legal-move generation. What lives here is the strategy maths (dice odds, the value of a row's
future), the players, the tournament runner and the advice.
"""
