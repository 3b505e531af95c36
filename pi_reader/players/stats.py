"""Summary statistics for tournaments: a mean with its 95% interval and a rate with Wilson's.

A tournament result is only worth printing with its uncertainty: "wins 31%" over 200 games and
over 20,000 games are different claims. Rates use the Wilson score interval, which stays inside
[0, 1] and behaves at rates near 0 or 1 where the plain normal interval does not. Means use the
normal interval with the sample standard deviation, fine for the hundreds of games a tournament
plays (the t quantile for n >= 100 differs from 1.96 in the second decimal).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z_95 = 1.959963984540054  # the two-sided 95% quantile of the standard normal


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% interval."""

    estimate: float
    low: float
    high: float

    def excludes(self, value: float) -> bool:
        """True when value lies outside the interval (the difference is significant at 5%)."""
        return value < self.low or value > self.high


def mean_interval(values: Sequence[float]) -> Interval:
    """The sample mean with a normal-approximation 95% interval (a point for a single value)."""
    if not values:
        raise ValueError("a mean needs at least one value")
    n = len(values)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, mean, mean)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z_95 * math.sqrt(variance / n)
    return Interval(mean, mean - half, mean + half)


def wilson_interval(successes: float, trials: int) -> Interval:
    """A success rate with its Wilson score 95% interval.

    successes may be fractional: a tie shared by k winners counts 1/k for each of them.
    """
    if trials <= 0:
        raise ValueError("a rate needs at least one trial")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} must lie between 0 and trials {trials}")
    rate = successes / trials
    z2 = Z_95 * Z_95
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (Z_95 / (1 + z2 / trials)) * math.sqrt(
        rate * (1 - rate) / trials + z2 / (4 * trials * trials)
    )
    return Interval(rate, max(0.0, centre - half), min(1.0, centre + half))
