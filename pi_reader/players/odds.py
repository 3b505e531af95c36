"""Dice odds that the strategies reason with: how likely each sum is on one roll.

Everything here is exact rational arithmetic over the 6^k equally likely faces, so the tables can
be checked by hand (a white sum of 7 has 6 ways in 36) and do not drift with floating point.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

FACES = range(1, 7)
SUMS = range(2, 13)


@cache
def white_sum_odds() -> dict[int, Fraction]:
    """P(white1 + white2 = s) for s in 2..12 (6 ways in 36 for a 7, 1 way for a 2 or a 12)."""
    ways = {s: 0 for s in SUMS}
    for a, b in product(FACES, FACES):
        ways[a + b] += 1
    return {s: Fraction(n, 36) for s, n in ways.items()}


@cache
def colour_sum_odds() -> dict[int, Fraction]:
    """P(some white die + the colour die = s): the chance the colour action can offer s in a row.

    Either white die may be added to the colour die, so a sum is on offer when at least one of
    the two pairings makes it; the two events overlap, which is why this is not twice a 2-dice
    table.
    """
    ways = {s: 0 for s in SUMS}
    for w1, w2, c in product(FACES, FACES, FACES):
        for s in {w1 + c, w2 + c}:
            ways[s] += 1
    return {s: Fraction(n, 216) for s, n in ways.items()}
