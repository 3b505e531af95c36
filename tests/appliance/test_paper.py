"""Paper mode's own state: turns, locks, penalties, undo, the end, and its journal replay."""

from __future__ import annotations

import pytest

from pi_reader.appliance.notices import Refused
from pi_reader.appliance.paper import PaperError, PaperGame

from .helpers import roll

ROLL = roll(3, 4, 2, 5, 6, 1)


def keys(outcome) -> list[str]:
    return [n.key for n in outcome.notices]


def test_the_turn_passes_when_the_next_roll_is_read() -> None:
    game = PaperGame.new(["ann", "bob", "cid"], first="bob")
    assert game.active == "bob"
    assert [e["event"] for e in game.roll(ROLL).written] == ["roll"]
    assert [e["event"] for e in game.roll(ROLL).written] == ["end_turn", "roll"]
    assert game.active == "cid"


def test_buttons_before_a_roll_and_twice_a_penalty_are_refused() -> None:
    game = PaperGame.new(["ann", "bob"])
    with pytest.raises(Refused) as refused:
        game.press("penalty")
    assert refused.value.notice.key == "sheet.no_roll"
    game.roll(ROLL)
    assert keys(game.press("penalty")) == ["penalty.given"]
    with pytest.raises(Refused) as refused:
        game.press("penalty")
    assert refused.value.notice.key == "penalty.twice"


def test_a_lock_removes_its_die_and_a_second_lock_ends_the_game() -> None:
    game = PaperGame.new(["ann", "bob"])
    game.roll(ROLL)
    assert keys(game.press("red")) == ["lock.locked_paper", "lock.take_out"]
    assert game.removed == ["red"]
    assert game.dice_in_play() == ("white1", "white2", "yellow", "green", "blue")
    with pytest.raises(Refused) as refused:
        game.press("red")
    assert refused.value.notice.key == "lock.already"
    with pytest.raises(ValueError, match="exactly the dice in play"):
        game.roll(ROLL)  # the red die is out of the game
    game.roll(roll(1, 2, 3, 4, 5, removed=["red"]))
    game.press("green")
    assert game.over and game.end_reason == "two_locks"
    game.press("blue")  # a third lock in the same turn still counts
    assert game.removed == ["red", "green", "blue"]
    with pytest.raises(Refused):
        game.roll(roll(1, 2, removed=["red", "yellow", "green", "blue"]))


def test_the_fourth_penalty_ends_the_game() -> None:
    game = PaperGame.new(["ann", "bob"])
    for _ in range(4):
        game.roll(ROLL)
        game.press("penalty")
        if not game.over:
            game.roll(ROLL)
    assert game.over and game.end_reason == "fourth_penalty"
    assert [n.key for n in game.end_notices()] == [
        "end.fourth_penalty",
        "end.paper_penalties",
        "end.paper_penalties",
        "end.paper_count",
    ]


def test_undo_takes_back_the_last_button_event_of_this_turn_only() -> None:
    game = PaperGame.new(["ann", "bob"])
    game.roll(ROLL)
    game.press("penalty")
    game.press("red")
    outcome = game.press("undo")
    assert outcome.rewrite and keys(outcome) == ["lock.undone"]
    assert game.removed == [] and game.penalties["ann"] == 1
    assert keys(game.press("undo")) == ["penalty.undone"]
    assert game.penalties["ann"] == 0
    game.press("penalty")
    game.roll(ROLL)
    with pytest.raises(Refused) as refused:
        game.press("undo")
    assert refused.value.notice.key == "undo.nothing"
    assert game.penalties["ann"] == 1


def test_replay_rebuilds_the_same_state() -> None:
    game = PaperGame.new(["ann", "bob"])
    game.roll(ROLL)
    game.press("red")
    game.roll(roll(1, 2, 3, 4, 5, removed=["red"]))
    game.press("penalty")
    again = PaperGame.replay(game.events)
    assert (again.active, again.removed, again.penalties) == ("bob", ["red"], {"ann": 0, "bob": 1})


@pytest.mark.parametrize(
    ("events", "reason"),
    [
        ([], "starts with new_game"),
        ([{"event": "new_game", "players": ["ann", "bob"]}], "starts with new_game"),
        ([{"event": "new_game", "players": ["ann"], "mode": "paper"}], "2 to 5 players"),
        (
            [{"event": "new_game", "players": ["a", "b"], "mode": "paper"}, {"event": "x"}],
            "unknown",
        ),
        (
            [{"event": "new_game", "players": ["a", "b"], "mode": "paper"}, {"event": "lock"}],
            "event 2",
        ),
        (
            [
                {"event": "new_game", "players": ["a", "b"], "mode": "paper"},
                {"event": "roll", "dice": {"white1": 9, "white2": 1}},
            ],
            "event 2",
        ),
    ],
)
def test_a_bad_paper_journal_names_the_event(events: list, reason: str) -> None:
    with pytest.raises(PaperError, match=reason):
        PaperGame.replay(events)
