import numpy as np
import pytest

from pi_reader.players.row_value import row_values
from pi_reader.rules import row_points


def test_no_rolls_left_is_the_current_score():
    table = row_values(0.5, 0.5).table
    for marks in range(12):
        assert np.all(table[0, :, marks] == row_points(marks))


def test_one_white_roll_near_the_lock_by_hand():
    # Red row, 11 and 12 left (index 9 and the lock), 5 marks, one roll with the white sum only:
    # 11 (2/36) gives 6 marks, 12 (1/36) gives the lock and 7 marks, anything else stays at 5.
    value = row_values(1.0, 0.0).value(9, 5, 1)
    assert value == pytest.approx((2 * 21 + 1 * 28 + 33 * 15) / 36)


def test_a_fresh_row_with_both_offers_marks_at_least_once_per_roll():
    # White and colour sums every roll: the first roll always marks, often twice.
    value = row_values(1.0, 1.0).value(0, 0, 1)
    assert 1 < value < 3


def test_more_rolls_never_hurt_because_passing_is_allowed():
    table = row_values(0.5, 0.3).table
    assert np.all(np.diff(table, axis=0) >= -1e-9)


def test_a_row_further_left_is_worth_at_least_as_much():
    table = row_values(0.5, 0.3).table
    for marks in range(6):
        column = table[30, marks:, marks]  # reachable: next_index >= marks
        assert np.all(np.diff(column) <= 1e-9)


def test_values_stay_within_a_full_row():
    assert row_values(1.0, 1.0).table.max() <= 78


def test_interpolation_and_clamping_between_whole_rolls():
    values = row_values(0.5, 0.5)
    low, high = values.value(0, 0, 10), values.value(0, 0, 11)
    assert values.value(0, 0, 10.5) == pytest.approx((low + high) / 2)
    assert values.value(0, 0, -3) == 0
    assert values.value(0, 0, 10_000) == values.value(0, 0, values.horizon)


def test_shares_must_be_probabilities():
    with pytest.raises(ValueError):
        row_values(1.5, 0.5)
