"""The text drawing of a game for a person: rows, marks, crossed-out numbers, the turn's state."""

from __future__ import annotations

from pi_reader.rules import Game, Roll
from pi_reader.rules.render import render_game, render_row

from .helpers import fill_row


def test_a_row_shows_marked_lost_and_open_numbers_with_marks_and_points() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(1, 3, 1, 1, 1, 1))
    game.mark("Ann", "white", "green", 4)
    line = render_row(game.row("Ann", "green"))
    lost = " -12- -11- -10-  -9-  -8-  -7-  -6-  -5-"
    assert line.startswith(f"  green  {lost}  [4]   3    2    L ")
    assert line.endswith(" 1 mark    1")


def test_a_locked_row_shows_the_lock_and_closed() -> None:
    game = Game(["Ann", "Bob"])
    fill_row(game, "red", [2, 3, 4, 5, 6], ["Ann", "Bob"])
    game.roll(Roll(6, 6, 1, 1, 1, 1))
    game.mark("Ann", "white", "red", 12)
    text = render_game(game)
    assert "Locked in this white action: red." in text
    game.end_turn()
    ann_red = render_row(game.row("Ann", "red"))
    assert "[12]  [L]  closed  7 marks  28" in ann_red
    assert "closed" in render_row(game.row("Bob", "red"))
    assert "Locked rows / removed dice: red" in render_game(game)


def test_the_last_line_says_where_the_turn_stands() -> None:
    game = Game(["Ann", "Bob"], first="Bob")
    assert render_game(game).endswith("Next: Bob rolls the dice.")
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    assert render_game(game).endswith(
        "Bob's turn: white 3+4=7, red 2, yellow 5, green 6, blue 1. "
        "White action open, then Bob's colour action."
    )
    game.mark("Bob", "colour", "red", 5)
    assert render_game(game).endswith("Bob's turn: the colour mark is made; the turn ends next.")
    assert "Bob  (active)" in render_game(game)
