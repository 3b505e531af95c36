from fractions import Fraction

from pi_reader.players.odds import colour_sum_odds, white_sum_odds


def test_white_sums_are_the_two_dice_triangle():
    odds = white_sum_odds()
    assert odds[7] == Fraction(6, 36)
    assert odds[2] == odds[12] == Fraction(1, 36)
    assert sum(odds.values()) == 1


def test_colour_sums_count_either_white_die_once():
    odds = colour_sum_odds()
    # 12 needs the colour die on 6 and at least one white 6: 1/6 * 11/36.
    assert odds[12] == Fraction(11, 216)
    # Two offers per roll (fewer when the whites are equal), so the total lies between 1 and 2.
    assert 1 < sum(odds.values()) < 2


def test_tables_are_symmetric_so_ascending_and_descending_rows_are_alike():
    for table in (white_sum_odds(), colour_sum_odds()):
        assert all(table[s] == table[14 - s] for s in range(2, 13))
