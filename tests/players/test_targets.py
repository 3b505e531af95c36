"""The issue's playing-strength targets, on fixed seeds (slow: whole series of games).

Seeded games are deterministic, so these check that a change to the strategies keeps the
measured strength; the figures of docs/benchmarks.md come from benchmarks/bench_players.py on
more games.
"""

import pytest

from pi_reader.players import strategy
from pi_reader.players.match import solo_scores, tournament
from pi_reader.players.stats import mean_interval

pytestmark = pytest.mark.slow


def test_lookahead_solo_mean_is_at_least_100():
    scores = solo_scores(strategy("lookahead"), 1000, seed=0)
    assert mean_interval([float(s) for s in scores]).low >= 100


def test_lookahead_wins_clearly_against_three_heuristics():
    seats = [strategy("lookahead")] + [strategy("heuristic")] * 3
    lookahead = tournament(seats, 1000, seed=0)[0]
    assert lookahead.win_rate.low > 0.25, lookahead.win_rate
