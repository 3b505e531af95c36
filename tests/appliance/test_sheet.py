"""Sheet mode: typed marks checked by the engine, undo, penalties, computer players' turns."""

from __future__ import annotations

import pytest

from pi_reader.appliance.notices import Refused
from pi_reader.appliance.sheet import SheetError, SheetGame
from pi_reader.rules import Action, Game, Mark, Pass, Roll

from .helpers import roll

ROLL = roll(3, 4, 2, 5, 6, 1)  # white sum 7; red 5/6, yellow 8/9, green 9/10, blue 4/5


def said(outcome) -> list[tuple[str, dict]]:
    notices = outcome if isinstance(outcome, list) else outcome.notices
    return [(n.key, dict(n.values)) for n in notices]


def refusal(game: SheetGame, line: str) -> tuple[str, dict]:
    with pytest.raises(Refused) as refused:
        game.command(line)
    return refused.value.notice.key, dict(refused.value.notice.values)


def test_marks_are_checked_against_the_roll_read() -> None:
    game = SheetGame(["ann", "bob"])
    assert refusal(game, "bob red 7") == ("sheet.no_roll", {})
    game.roll(ROLL)
    assert said(game.command("Bob RED 7")) == [
        ("sheet.mark", {"player": "bob", "colour": "red", "number": 7})
    ]
    assert game.events[-1] == {
        "event": "mark",
        "player": "bob",
        "action": "white",
        "colour": "red",
        "number": 7,
    }
    key, values = refusal(game, "bob red 8")
    assert key == "sheet.refused" and "already marked" in values["reason"]
    game.command("ann green 10")  # not the white sum: ann's colour action (white2 + green)
    assert game.events[-1]["action"] == "colour"
    key, values = refusal(game, "ann yellow 7")
    assert key == "sheet.refused"


def test_unknown_players_and_words_are_explained() -> None:
    game = SheetGame(["ann", "bob"])
    game.roll(ROLL)
    assert refusal(game, "cid red 7") == ("sheet.unknown_player", {"player": "cid"})
    assert refusal(game, "ann purple 7")[0] == "sheet.unknown_command"
    assert refusal(game, "ann red seven")[0] == "sheet.unknown_command"
    assert refusal(game, "ann red 7 sideways")[0] == "sheet.unknown_command"
    assert refusal(game, "hello")[0] == "sheet.unknown_command"


def test_colour_words_of_the_table_language_are_understood() -> None:
    game = SheetGame(["ann", "bob"], colour_words={"rot": "red"})
    game.roll(ROLL)
    game.command("bob rot 7")
    assert game.events[-1]["colour"] == "red"


def test_the_next_roll_ends_the_turn_with_a_penalty_for_an_idle_active_player() -> None:
    game = SheetGame(["ann", "bob"])
    game.roll(ROLL)
    game.command("bob red 7")
    outcome = game.roll(ROLL)
    assert [e["event"] for e in outcome.written] == ["end_turn", "roll"]
    assert ("penalty.given", {"player": "ann", "count": 1}) in said(outcome)
    assert game.active == "bob"


def test_undo_takes_back_the_last_mark_of_this_turn() -> None:
    game = SheetGame(["ann", "bob"])
    game.roll(ROLL)
    assert refusal(game, "undo") == ("undo.nothing", {})
    game.command("bob red 7")
    game.command("ann red 7")
    outcome = game.command("undo")
    assert outcome.rewrite
    assert said(outcome) == [("undo.mark", {"player": "ann", "colour": "red", "number": 7})]
    assert [e["event"] for e in game.events] == ["new_game", "roll", "mark"]
    game.command("ann red 7")  # the white mark can be made again


class FirstLegal:
    """A test double for a computer player: the first legal mark, else pass."""

    def choose(self, game: Game, player: str, action: Action) -> Mark | Pass:
        marks = game.legal_marks(player, action)
        return marks[0] if marks else Pass(player, action)


def test_computer_players_move_after_the_roll_and_the_active_one_waits_for_people() -> None:
    game = SheetGame(["ann", "robo"], first="robo", bots={"robo": FirstLegal()})
    outcome = game.roll(ROLL)
    marks = [e for e in outcome.written if e["event"] == "mark"]
    assert [(m["player"], m["action"]) for m in marks] == [("robo", "white")]
    # ann has not acted on the white sum yet: robo's colour action waits for her.
    outcome = game.command("ann pass")
    assert [(e["player"], e["action"]) for e in outcome.written] == [("robo", "colour")]
    assert said(outcome)[0] == ("sheet.pass", {"player": "ann"})


def test_a_computer_players_colour_action_is_made_at_the_latest_before_the_next_roll() -> None:
    game = SheetGame(["ann", "robo"], first="robo", bots={"robo": FirstLegal()})
    game.roll(ROLL)
    outcome = game.roll(ROLL)
    assert [e["event"] for e in outcome.written][:2] == ["mark", "end_turn"]


def test_replay_and_bad_journals() -> None:
    game = SheetGame(["ann", "bob"])
    game.roll(ROLL)
    game.command("bob red 7")
    again = SheetGame.replay(game.events)
    assert again.game.row("bob", "red").marks == 1
    with pytest.raises(SheetError, match="starts with new_game"):
        SheetGame.replay([{"event": "new_game", "players": ["a", "b"], "mode": "paper"}])
    bad = [
        *game.events,
        {"event": "mark", "player": "ann", "action": "white", "colour": "red", "number": 3},
    ]
    with pytest.raises(SheetError, match="event 4"):
        SheetGame.replay(bad)


def test_the_end_names_scores_and_the_winner() -> None:
    game = SheetGame(["ann", "bob"])
    for _ in range(7):
        game.roll(ROLL)
    game.roll(ROLL)  # ann's fourth penalty comes with this end of turn
    assert game.over
    assert said(game.end_notices()) == [
        ("end.fourth_penalty", {"player": "ann"}),
        ("end.score", {"player": "ann", "score": -20}),
        ("end.score", {"player": "bob", "score": -15}),
        ("end.winner", {"players": ["bob"]}),
    ]


def test_computer_players_of_the_players_package_play_a_game_to_its_end() -> None:
    import random

    from pi_reader.appliance.bots import seat_bots

    game = SheetGame(["robo", "max"], bots=seat_bots(["robo:heuristic", "max:cautious"]))
    rng = random.Random(7)
    marks_said = 0
    while not game.over:
        values = {d: rng.randint(1, 6) for d in ("white1", "white2")}
        values |= {c: rng.randint(1, 6) for c in ("red", "yellow", "green", "blue")}
        for colour in game.removed:
            del values[colour]
        outcome = game.roll(Roll.from_dict(values))
        marks_said += sum(n.key == "sheet.mark" for n in outcome.notices)
    marks_made = sum(e["event"] == "mark" for e in game.events)
    assert marks_said == marks_made > 20
    assert [n.key for n in game.end_notices()][-1] in ("end.winner", "end.shared")
    assert SheetGame.replay(game.events).game.to_json() == game.game.to_json()
