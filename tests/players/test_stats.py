import math

import pytest

from pi_reader.players.stats import Interval, mean_interval, wilson_interval


def test_wilson_matches_a_hand_computed_value():
    # 20 successes in 100 trials: the textbook Wilson interval is [0.1333, 0.2888].
    interval = wilson_interval(20, 100)
    assert interval.estimate == pytest.approx(0.2)
    assert interval.low == pytest.approx(0.1333, abs=1e-4)
    assert interval.high == pytest.approx(0.2888, abs=1e-4)


def test_wilson_stays_inside_zero_and_one_at_the_extremes():
    assert wilson_interval(0, 10).low == 0.0
    assert wilson_interval(10, 10).high == pytest.approx(1.0)
    assert wilson_interval(0, 10).high > 0.0


def test_wilson_accepts_shared_ties_as_fractions():
    assert wilson_interval(2.5, 10).estimate == pytest.approx(0.25)


@pytest.mark.parametrize(("successes", "trials"), [(1, 0), (-1, 5), (6, 5)])
def test_wilson_refuses_impossible_counts(successes, trials):
    with pytest.raises(ValueError):
        wilson_interval(successes, trials)


def test_mean_interval_uses_the_sample_standard_deviation():
    values = [1.0, 2.0, 3.0, 4.0]
    interval = mean_interval(values)
    half = 1.959963984540054 * math.sqrt((5 / 3) / 4)
    assert interval == Interval(2.5, pytest.approx(2.5 - half), pytest.approx(2.5 + half))


def test_mean_interval_of_one_value_is_a_point_and_of_none_an_error():
    assert mean_interval([7.0]) == Interval(7.0, 7.0, 7.0)
    with pytest.raises(ValueError):
        mean_interval([])


def test_excludes():
    assert Interval(0.4, 0.3, 0.5).excludes(0.25)
    assert not Interval(0.3, 0.2, 0.4).excludes(0.25)
