import pytest

from pi_reader.players.dice import DIE_NAMES, SeededDice, game_seed


def test_same_seed_same_rolls():
    a, b = SeededDice(7), SeededDice(7)
    assert [a.roll() for _ in range(50)] == [b.roll() for _ in range(50)]


def test_different_seeds_differ():
    assert [SeededDice(1).roll() for _ in range(5)] != [SeededDice(2).roll() for _ in range(5)]


def test_removed_dice_are_left_out_but_the_stream_stays_aligned():
    full, reduced = SeededDice(3), SeededDice(3)
    full.roll()
    reduced.roll(["white1", "white2", "yellow", "green", "blue"])
    in_play = ["white1", "white2", "yellow", "green"]
    expected = {k: v for k, v in full.roll().items() if k in in_play}
    assert reduced.roll(in_play) == expected


def test_faces_are_dice_faces_and_roughly_fair():
    dice = SeededDice(11)
    counts = dict.fromkeys(range(1, 7), 0)
    for _ in range(3000):
        roll = dice.roll()
        assert tuple(roll) == DIE_NAMES
        for face in roll.values():
            counts[face] += 1
    assert all(2600 < n < 3400 for n in counts.values())  # 3000 expected per face


def test_unknown_die_is_refused():
    with pytest.raises(ValueError, match="purple"):
        SeededDice(1).roll(["white1", "white2", "purple"])


def test_game_seeds_are_distinct_within_and_across_series():
    seeds = {game_seed(s, g) for s in range(3) for g in range(1000)}
    assert len(seeds) == 3000
