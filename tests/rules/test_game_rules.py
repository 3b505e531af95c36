"""Every rule of Qwixx, one test (or a few) each, driven through the public Game API."""

from __future__ import annotations

import pytest

from pi_reader.rules import (
    LOCK_NUMBER,
    ROW_NUMBERS,
    Action,
    Colour,
    Game,
    IllegalMove,
    Mark,
    Pass,
    Phase,
    Roll,
)

from .helpers import fill_row, roll_for, white_turn


def test_rows_run_the_right_way_and_end_in_their_lock_numbers() -> None:
    assert ROW_NUMBERS[Colour.RED] == ROW_NUMBERS[Colour.YELLOW] == tuple(range(2, 13))
    assert ROW_NUMBERS[Colour.GREEN] == ROW_NUMBERS[Colour.BLUE] == tuple(range(12, 1, -1))
    assert LOCK_NUMBER == {Colour.RED: 12, Colour.YELLOW: 12, Colour.GREEN: 2, Colour.BLUE: 2}


def test_a_game_has_one_to_five_distinct_players() -> None:
    with pytest.raises(IllegalMove, match="1 to 5 players"):
        Game([])
    with pytest.raises(IllegalMove, match="1 to 5 players"):
        Game(["A", "B", "C", "D", "E", "F"])
    with pytest.raises(IllegalMove, match="different name"):
        Game(["Ann", "Ann"])
    with pytest.raises(IllegalMove, match="non-empty"):
        Game(["Ann", " "])
    with pytest.raises(IllegalMove, match="'Dan' is not a player"):
        Game(["Ann", "Bob"], first="Dan")


def test_the_first_listed_player_starts_unless_another_is_named() -> None:
    assert Game(["Ann", "Bob", "Cid"]).active == "Ann"
    assert Game(["Ann", "Bob", "Cid"], first="Cid").active == "Cid"


def test_the_turn_passes_to_the_left_and_wraps_around() -> None:
    game = Game(["Ann", "Bob", "Cid"], first="Bob")
    seen = []
    for number in (7, 8, 9):
        seen.append(game.active)
        white_turn(game, number, {game.active: "red"})
    assert seen == ["Bob", "Cid", "Ann"]
    assert game.active == "Bob"


def test_marks_go_left_to_right_and_skipped_numbers_are_lost() -> None:
    game = Game(["Ann", "Bob"])
    white_turn(game, 5, {"Ann": "red", "Bob": "green"})
    row = game.row("Ann", "red")
    assert row.marked == (5,)
    assert row.lost == (2, 3, 4)
    game.roll(roll_for(game, 3))
    with pytest.raises(IllegalMove, match="3 is left of 5, the last mark in Ann's red row"):
        game.mark("Ann", "white", "red", 3)
    assert Mark("Ann", Action.WHITE, Colour.RED, 3) not in game.legal_marks("Ann", Action.WHITE)
    # Green runs 12 down to 2: after 5, a 3 lies to the right and is fine.
    game.mark("Bob", "white", "green", 3)
    assert game.row("Bob", "green").lost == (12, 11, 10, 9, 8, 7, 6, 4)


def test_a_number_cannot_be_marked_twice() -> None:
    game = Game(["Ann", "Bob"])
    white_turn(game, 7, {"Ann": "red", "Bob": "red"})
    game.roll(roll_for(game, 7))
    with pytest.raises(IllegalMove, match="already marked 7 in the red row"):
        game.mark("Ann", "white", "red", 7)


def test_the_white_action_marks_the_white_sum_for_everyone_once() -> None:
    game = Game(["Ann", "Bob", "Cid"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    with pytest.raises(IllegalMove, match=r"8 is not the sum of the white dice \(3\+4=7\)"):
        game.mark("Bob", "white", "red", 8)
    game.mark("Bob", "white", "red", 7)
    game.mark("Cid", "white", "blue", 7)
    game.mark("Ann", "white", "yellow", 7)  # the active player takes part too
    with pytest.raises(IllegalMove, match="Bob already marked in this white action"):
        game.mark("Bob", "white", "yellow", 7)
    assert game.legal_marks("Bob", Action.WHITE) == []
    assert game.has_marked_white("Bob")


def test_legal_white_marks_are_the_white_sum_in_every_row_that_takes_it() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    assert game.legal_marks("Bob", "white") == [
        Mark("Bob", Action.WHITE, colour, 7) for colour in Colour
    ]


def test_the_colour_action_is_a_white_die_plus_that_colour_for_the_active_player_only() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    legal = {(m.colour.value, m.number) for m in game.legal_marks("Ann", Action.COLOUR)}
    assert legal == {
        ("red", 5), ("red", 6), ("yellow", 8), ("yellow", 9),
        ("green", 9), ("green", 10), ("blue", 4), ("blue", 5),
    }  # fmt: skip
    assert game.legal_marks("Bob", Action.COLOUR) == []
    with pytest.raises(IllegalMove, match="only the active player, Ann, may use the colour action"):
        game.mark("Bob", "colour", "red", 5)
    with pytest.raises(IllegalMove, match=r"7 is not a white die plus the blue die .*: 4 or 5"):
        game.mark("Ann", "colour", "blue", 7)
    game.mark("Ann", "colour", "red", 6)
    with pytest.raises(IllegalMove, match="Ann already made the colour mark this turn"):
        game.mark("Ann", "colour", "yellow", 8)


def test_the_active_player_may_use_both_actions_in_one_row() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 5, 1, 1, 1))
    game.mark("Ann", "white", "red", 7)
    game.mark("Ann", "colour", "red", 9)
    assert game.row("Ann", "red").marked == (7, 9)


def test_white_marks_come_before_the_colour_mark() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    game.mark("Ann", "colour", "red", 5)
    assert game.phase is Phase.TURN_END
    with pytest.raises(IllegalMove, match="the white action is over"):
        game.mark("Bob", "white", "red", 7)
    with pytest.raises(IllegalMove, match="the white action is over"):
        game.mark("Ann", "white", "yellow", 7)


def test_nobody_marks_before_the_roll_and_the_dice_roll_once_per_turn() -> None:
    game = Game(["Ann", "Bob"])
    with pytest.raises(IllegalMove, match="nobody marks before the roll: Ann must roll first"):
        game.mark("Bob", "white", "red", 7)
    with pytest.raises(IllegalMove, match="no roll this turn"):
        game.end_turn()
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    with pytest.raises(IllegalMove, match="already rolled"):
        game.roll(Roll(3, 4, 2, 5, 6, 1))


def test_a_roll_must_name_exactly_the_dice_in_play() -> None:
    game = Game(["Ann", "Bob"])
    with pytest.raises(IllegalMove, match="lacks the green die, which is still in play"):
        game.roll({"white1": 1, "white2": 2, "red": 3, "yellow": 4, "blue": 5})
    assert game.phase is Phase.AWAITING_ROLL
    game.roll({"white1": 1, "white2": 2, "red": 3, "yellow": 4, "green": 6, "blue": 5})
    assert game.current_roll == Roll(1, 2, 3, 4, 6, 5)


def test_only_the_active_player_takes_a_penalty_for_marking_nothing() -> None:
    game = Game(["Ann", "Bob", "Cid"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    game.end_turn()  # nobody marked
    assert [game.penalties(p) for p in game.players] == [1, 0, 0]
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    game.mark("Ann", "white", "red", 7)  # only another player marks
    game.end_turn()
    assert [game.penalties(p) for p in game.players] == [1, 1, 0]


@pytest.mark.parametrize("action", ["white", "colour"])
def test_one_mark_in_either_action_spares_the_active_player_the_penalty(action: str) -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 3, 5, 6, 1))
    game.mark("Ann", action, "red", 7)
    game.end_turn()
    assert game.penalties("Ann") == 0


def test_passing_is_legal_while_the_player_may_act_and_changes_nothing() -> None:
    game = Game(["Ann", "Bob"])
    with pytest.raises(IllegalMove, match="before the roll"):
        game.play(Pass("Ann", Action.WHITE))
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    before = game.to_json()
    game.play(Pass("Bob", Action.WHITE))
    game.play(Pass("Ann", Action.COLOUR))
    assert game.to_json() == before
    assert not game.is_legal(Pass("Bob", Action.COLOUR))
    assert Pass("Bob", Action.WHITE) in game.legal_moves("Bob")
    assert Pass("Bob", Action.COLOUR) not in game.legal_moves("Bob")


def test_a_lock_is_refused_with_four_marks() -> None:
    game = Game(["Ann", "Bob"])
    fill_row(game, "red", [2, 3, 4, 5], ["Ann", "Bob"])
    game.roll(roll_for(game, 12))
    assert Mark("Ann", Action.WHITE, Colour.RED, 12) not in game.legal_marks("Ann", "white")
    needs_five = "the lock number 12 needs at least 5 marks in the red row first; Ann has 4"
    with pytest.raises(IllegalMove, match=needs_five):
        game.mark("Ann", "white", "red", 12)


def test_a_lock_with_five_marks_counts_twice_closes_the_row_and_removes_the_die() -> None:
    game = Game(["Ann", "Bob"])
    fill_row(game, "red", [2, 3, 4, 5, 6], ["Ann", "Bob"])
    game.roll(roll_for(game, 12))
    game.mark("Ann", "white", "red", 12)
    row = game.row("Ann", "red")
    assert (row.marked, row.locked_here) == ((2, 3, 4, 5, 6, 12), True)
    assert (row.marks, row.points) == (7, 28)  # the lock symbol is a mark
    # Locks made in the white action take effect when it ends.
    assert game.pending_locks == (Colour.RED,)
    assert game.locked == ()
    game.mark("Bob", "white", "green", 12)
    game.end_turn()
    assert game.locked == game.removed_dice == (Colour.RED,)
    assert game.dice_in_play == ("white1", "white2", "yellow", "green", "blue")
    assert game.sheet("Ann").locks == (Colour.RED,)
    assert game.sheet("Bob").locks == ()
    assert game.row("Bob", "red").closed
    with pytest.raises(IllegalMove, match="the red die was removed when the red row locked"):
        game.roll(Roll(6, 6, 1, 1, 1, 1))
    game.roll(Roll(6, 5, None, 1, 1, 1))
    with pytest.raises(IllegalMove, match="the red row is locked"):
        game.mark("Ann", "white", "red", 11)
    with pytest.raises(IllegalMove, match="the red die has been removed"):
        game.mark("Ann", "colour", "red", 6)
    assert game.to_json()["players"][0]["locks"] == ["red"]


def test_two_players_may_lock_the_same_row_in_one_white_action() -> None:
    game = Game(["Ann", "Bob", "Cid"])
    fill_row(game, "yellow", [3, 4, 5, 6, 7], ["Ann", "Bob", "Cid"])
    game.roll(roll_for(game, 12))
    game.mark("Ann", "white", "yellow", 12)
    game.mark("Cid", "white", "yellow", 12)
    game.end_turn()
    assert game.sheet("Ann").locks == game.sheet("Cid").locks == (Colour.YELLOW,)
    assert game.row("Cid", "yellow").marks == 7
    assert game.locked == (Colour.YELLOW,)
    assert not game.over


def test_no_colour_action_on_a_row_locked_in_that_white_action() -> None:
    game = Game(["Ann", "Bob"])
    fill_row(game, "red", [2, 3, 4, 5, 6], ["Ann", "Bob"])
    assert game.active == "Bob"
    game.roll(Roll(6, 6, 6, 1, 1, 1))
    game.mark("Ann", "white", "red", 12)
    assert all(m.colour is not Colour.RED for m in game.legal_marks("Bob", Action.COLOUR))
    with pytest.raises(IllegalMove, match="the red row was locked in this white action"):
        game.mark("Bob", "colour", "red", 12)
    game.mark("Bob", "colour", "yellow", 7)
    assert game.locked == (Colour.RED,)


def test_the_active_player_may_lock_in_the_colour_action_at_once() -> None:
    game = Game(["Ann", "Bob"])
    fill_row(game, "blue", [12, 11, 10, 9, 8], ["Ann", "Bob"])
    assert game.active == "Bob"
    game.roll(Roll(1, 5, 1, 1, 1, 1))
    game.mark("Bob", "colour", "blue", 2)
    assert game.locked == (Colour.BLUE,)
    assert game.dice_in_play == ("white1", "white2", "red", "yellow", "green")


def test_the_fourth_penalty_ends_the_game_at_once() -> None:
    game = Game(["Ann", "Bob"])
    for _ in range(3):
        white_turn(game, 7, {})  # Ann passes
        white_turn(game, 7, {"Bob": "red"} if game.row("Bob", "red").marked == () else {})
    assert (game.penalties("Ann"), game.penalties("Bob")) == (3, 2)
    game.roll(roll_for(game, 7))
    game.end_turn()
    assert game.over and game.phase is Phase.OVER
    assert game.end_reason == "Ann took a 4th penalty"
    assert game.active == "Ann"
    assert game.winners == ("Bob",)
    with pytest.raises(IllegalMove, match="the game is over: Ann took a 4th penalty"):
        game.roll(roll_for(game, 7))
    with pytest.raises(IllegalMove, match="the game is over"):
        game.end_turn()


def _lock_red_then_fill(game: Game, colour: str, numbers: list[int]) -> None:
    """Everyone marks red 2..6, Ann locks red, then everyone marks ``numbers`` in ``colour``."""
    fill_row(game, "red", [2, 3, 4, 5, 6], list(game.players))
    white_turn(game, 12, {"Ann": "red", **{p: "blue" for p in game.players if p != "Ann"}})
    assert game.locked == (Colour.RED,)
    fill_row(game, colour, numbers, list(game.players))


def test_the_second_lock_in_the_colour_action_ends_the_game_at_once() -> None:
    game = Game(["Ann", "Bob"])
    _lock_red_then_fill(game, "yellow", [2, 3, 4, 5, 6])
    active = game.active
    game.roll(Roll(6, 1, None, 6, 1, 1))
    game.mark(active, "colour", "yellow", 12)
    assert game.over
    assert game.end_reason == "two rows are locked (red, yellow)"
    assert game.removed_dice == (Colour.RED, Colour.YELLOW)
    with pytest.raises(IllegalMove, match="the game is over"):
        game.end_turn()


def test_the_second_lock_in_the_white_action_ends_the_game_when_that_action_ends() -> None:
    game = Game(["Ann", "Bob"])
    _lock_red_then_fill(game, "yellow", [2, 3, 4, 5, 6])
    active, other = game.active, next(p for p in game.players if p != game.active)
    game.roll(Roll(6, 6, None, 1, 1, 1))
    game.mark(other, "white", "yellow", 12)
    assert not game.over  # the other players may still lock in this white action
    with pytest.raises(IllegalMove, match="the game ends with the white action"):
        game.mark(active, "colour", "green", 7)
    assert game.legal_marks(active, Action.COLOUR) == []
    game.end_turn()
    assert game.over
    assert game.penalties(active) == 0  # the game ended during the turn: no penalty
    assert game.locked == (Colour.RED, Colour.YELLOW)


def test_a_third_row_may_lock_together_with_the_second() -> None:
    game = Game(["Ann", "Bob"])
    fill_row(game, "red", [2, 3, 4, 5, 6], ["Ann", "Bob"])
    white_turn(game, 12, {"Ann": "red", "Bob": "green"})
    for number in (12, 11, 10, 9, 8):
        white_turn(game, number, {"Ann": "green", "Bob": "blue"})
    game.roll(roll_for(game, 2))
    game.mark("Ann", "white", "green", 2)
    game.mark("Bob", "white", "blue", 2)
    game.end_turn()
    assert game.over
    assert game.locked == (Colour.RED, Colour.GREEN, Colour.BLUE)
    assert game.end_reason == "two rows are locked (red, green, blue)"


def test_an_illegal_move_changes_nothing() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    game.mark("Bob", "white", "red", 7)
    before = (game.to_json(), game.phase, game.current_roll, game.pending_locks)
    for bad in (
        lambda: game.mark("Bob", "white", "red", 7),
        lambda: game.mark("Dan", "white", "red", 7),
        lambda: game.mark("Ann", "colour", "red", 12),
        lambda: game.roll(Roll(1, 1, 1, 1, 1, 1)),
    ):
        with pytest.raises(IllegalMove):
            bad()
        assert (game.to_json(), game.phase, game.current_roll, game.pending_locks) == before


def test_unknown_players_colours_actions_and_numbers_are_refused_with_reasons() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    not_a_player = r"'Dan' is not a player in this game \(players: Ann, Bob\)"
    with pytest.raises(IllegalMove, match=not_a_player):
        game.mark("Dan", "white", "red", 7)
    with pytest.raises(IllegalMove, match="'purple' is not a row colour"):
        game.mark("Ann", "white", "purple", 7)
    with pytest.raises(IllegalMove, match="'black' is not an action"):
        game.mark("Ann", "black", "red", 7)
    with pytest.raises(IllegalMove, match="13 is not on a sheet"):
        game.mark("Ann", "white", "red", 13)
    with pytest.raises(IllegalMove, match="whole number"):
        game.mark("Ann", "white", "red", "7")  # type: ignore[arg-type]
    with pytest.raises(IllegalMove, match="'Dan' is not a player"):
        game.legal_marks("Dan", Action.WHITE)


def test_solo_play_keeps_the_one_player_active() -> None:
    game = Game(["Solo"])
    game.roll(Roll(3, 4, 5, 5, 6, 1))
    game.mark("Solo", "white", "red", 7)
    game.mark("Solo", "colour", "red", 9)
    game.end_turn()
    assert game.active == "Solo"
    assert game.row("Solo", "red").marked == (7, 9)


def test_a_copy_is_independent() -> None:
    game = Game(["Ann", "Bob"])
    game.roll(Roll(3, 4, 2, 5, 6, 1))
    clone = game.copy()
    clone.mark("Ann", "white", "red", 7)
    clone.end_turn()
    assert game.row("Ann", "red").marked == ()
    assert game.active == "Ann" and clone.active == "Bob"
    game.mark("Bob", "white", "blue", 7)
    assert clone.row("Bob", "blue").marked == ()


def test_an_impossible_roll_is_an_illegal_move_too() -> None:
    game = Game(["Ann", "Bob"])
    with pytest.raises(IllegalMove, match="the red die shows 7, but a die shows 1 to 6"):
        game.roll({"white1": 1, "white2": 2, "red": 7, "yellow": 4, "green": 6, "blue": 5})
    with pytest.raises(ValueError, match="the white2 die shows 0"):
        Roll(1, 0, 1, 1, 1, 1)
    assert game.phase is Phase.AWAITING_ROLL
