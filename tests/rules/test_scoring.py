"""Scoring: the points table, the worked example of the rules, a full row, winners and ties."""

from __future__ import annotations

from pi_reader.rules import Colour, Game, Row, Sheet, row_points

from .helpers import fill_row, white_turn


def test_points_per_row_follow_the_table() -> None:
    table = [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78]
    assert [row_points(marks) for marks in range(1, 13)] == table
    assert row_points(0) == 0


def test_the_worked_example_scores_70() -> None:
    """4 red (10), 3 yellow (6), 8 green (36), 7 blue (28) and 2 penalties give 70: here played
    out turn by turn, Bob mirroring Ann's white marks so that only Ann's passes cost penalties."""
    game = Game(["Ann", "Bob"])
    plan = [("red", n) for n in (2, 3, 4, 5)] + [("yellow", n) for n in (2, 3, 4)]
    plan += [("green", n) for n in range(12, 4, -1)] + [("blue", n) for n in range(12, 5, -1)]
    for colour, number in plan:
        white_turn(game, number, {"Ann": colour, "Bob": colour})
    assert game.active == "Ann"  # after 22 turns
    white_turn(game, 8, {})  # Ann passes: a penalty
    white_turn(game, 8, {"Bob": "red"})
    white_turn(game, 9, {})  # and another
    score = game.score("Ann")
    assert score.rows == {Colour.RED: 10, Colour.YELLOW: 6, Colour.GREEN: 36, Colour.BLUE: 28}
    assert score.penalties == 2
    assert score.total == 70
    assert game.to_json()["players"][0]["score"] == {
        "red": 10, "yellow": 6, "green": 36, "blue": 28, "total": 70,
    }  # fmt: skip


def test_the_worked_example_as_a_sheet_value() -> None:
    rows = (
        Row(Colour.RED, (2, 3, 4, 5), locked_here=False, closed=False),
        Row(Colour.YELLOW, (2, 3, 4), locked_here=False, closed=False),
        Row(Colour.GREEN, (12, 11, 10, 9, 8, 7, 6, 5), locked_here=False, closed=False),
        Row(Colour.BLUE, (12, 11, 10, 9, 8, 7, 6), locked_here=False, closed=False),
    )
    assert Sheet("Ann", rows, penalties=2).score.total == 70


def test_a_full_row_of_twelve_marks_scores_78() -> None:
    game = Game(["Ann", "Bob"])
    fill_row(game, "red", list(range(2, 12)), ["Ann", "Bob"])
    white_turn(game, 12, {"Ann": "red", "Bob": "green"})
    row = game.row("Ann", "red")
    assert row.marked == tuple(range(2, 13))
    assert row.marks == 12
    assert row.points == 78
    assert row.lost == ()
    assert game.score("Ann").rows[Colour.RED] == 78


def test_the_highest_total_wins_and_ties_share() -> None:
    game = Game(["Ann", "Bob", "Cid"])
    numbers = iter(range(2, 12))
    while not game.over:  # Ann and Bob mark alike; Cid passes and takes penalties on his turns
        if game.active == "Cid":
            white_turn(game, 7, {})
        else:
            white_turn(game, next(numbers), {"Ann": "red", "Bob": "red"})
    assert game.end_reason == "Cid took a 4th penalty"
    assert game.score("Ann").total == game.score("Bob").total == 36
    assert game.winners == ("Ann", "Bob")
    assert game.to_json()["winners"] == ["Ann", "Bob"]
