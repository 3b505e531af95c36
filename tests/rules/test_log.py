"""The game log: replaying good logs, every kind of bad line with its line number and reason,
torn last lines, and the writer (append, flush, fsync per event; resume after a power cut)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_reader.rules import Game, IllegalMove, RulesError
from pi_reader.rules.log import GameLog, GameLogError, replay, replay_lines

NEW_GAME = {"event": "new_game", "players": ["Ann", "Bob", "Cid"]}
ROLL = {
    "event": "roll",
    "dice": {"white1": 3, "white2": 4, "red": 2, "yellow": 5, "green": 6, "blue": 1},
}
END = {"event": "end_turn"}


def mark(player: str, action: str, colour: str, number: object) -> dict[str, object]:
    return {"event": "mark", "player": player, "action": action, "colour": colour, "number": number}


def lines_of(*events: object) -> list[str]:
    return [(e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events]


def replay_error(*events: object) -> GameLogError:
    with pytest.raises(GameLogError) as caught:
        replay_lines(lines_of(*events))
    return caught.value


def test_the_issue_format_replays_to_the_state() -> None:
    result = replay_lines(
        lines_of(
            NEW_GAME, ROLL, mark("Bob", "white", "red", 7), mark("Ann", "colour", "blue", 5), END
        )
    )
    state = result.game.to_json() if result.game else {}
    assert list(state) == ["players", "locked", "removed_dice", "active", "over", "winners"]
    assert state["players"][1] == {
        "name": "Bob",
        "marks": {"red": [7], "yellow": [], "green": [], "blue": []},
        "locks": [],
        "penalties": 0,
        "score": {"red": 1, "yellow": 0, "green": 0, "blue": 0, "total": 1},
    }
    assert state["players"][0]["marks"]["blue"] == [5]
    assert (state["active"], state["over"], state["winners"]) == ("Bob", False, [])
    assert result.events == 5


def test_the_issue_example_line_4_breaks_the_colour_rule_and_is_refused() -> None:
    """In the issue's format example Ann marks blue 7 with the colour action, but white 3 or 4
    plus blue 1 makes 4 or 5: the engine refuses it (the example shows the format only)."""
    error = replay_error(
        NEW_GAME, ROLL, mark("Bob", "white", "red", 7), mark("Ann", "colour", "blue", 7)
    )
    assert error.line == 4
    assert error.reason == "7 is not a white die plus the blue die (white 3 and 4, blue 1: 4 or 5)"
    assert error.game is not None and error.game.row("Bob", "red").marked == (7,)


def test_new_game_may_name_the_first_player() -> None:
    result = replay_lines(lines_of({**NEW_GAME, "first": "Cid"}))
    assert result.game is not None and result.game.active == "Cid"


BAD_LINES = [
    pytest.param(
        {"event": "shuffle"},
        'unknown event "shuffle" (events are new_game, roll, mark, end_turn)',
        id="unknown-event",
    ),
    pytest.param({"player": "Ann"}, 'the line has no "event" field', id="no-event"),
    pytest.param({"event": 3}, '"event" must be a string, not 3', id="event-not-string"),
    pytest.param("not json", "not valid JSON: Expecting value at column 1", id="not-json"),
    pytest.param(
        '{"event": "end_turn"',
        "not valid JSON: Expecting ',' delimiter at column 21",
        id="cut-json-mid-file",
    ),
    pytest.param("[1, 2]", "an event must be a JSON object, not a list", id="list-line"),
    pytest.param(
        '"end_turn"', 'an event must be a JSON object, not a string ("end_turn")', id="string-line"
    ),
    pytest.param("42", "an event must be a JSON object, not 42", id="number-line"),
    pytest.param("null", "an event must be a JSON object, not null", id="null-line"),
    pytest.param(
        mark("Bob", "white", "red", "7"),
        '"number" must be a whole number, not a string ("7")',
        id="number-string",
    ),
    pytest.param(
        mark("Bob", "white", "red", 7.0),
        '"number" must be a whole number, not 7.0',
        id="number-float",
    ),
    pytest.param(
        mark("Bob", "white", "red", True),
        '"number" must be a whole number, not true/false',
        id="number-bool",
    ),
    pytest.param(
        mark(3, "white", "red", 7), '"player" must be a string, not 3', id="player-number"
    ),
    pytest.param(
        mark("Bob", "white", ["red"], 7), '"colour" must be a string, not a list', id="colour-list"
    ),
    pytest.param(
        mark("Bob", "white", "purple", 7),
        "'purple' is not a row colour (expected one of red, yellow, green, blue)",
        id="unknown-colour",
    ),
    pytest.param(
        mark("Bob", "both", "red", 7),
        "'both' is not an action (expected white or colour)",
        id="unknown-action",
    ),
    pytest.param(
        mark("Bob", "white", "red", 14),
        "14 is not on a sheet (rows run from 2 to 12)",
        id="number-off-sheet",
    ),
    pytest.param(
        {"event": "mark", "player": "Bob", "action": "white", "colour": "red"},
        'a mark event needs a "number" field',
        id="missing-field",
    ),
    pytest.param(
        {**mark("Bob", "white", "red", 7), "when": 1},
        'unexpected field "when" in a mark event (its fields: player, action, colour, number)',
        id="extra-field",
    ),
    pytest.param(
        {"event": "end_turn", "player": "Ann"},
        'unexpected field "player" in a end_turn event (its fields: none)',
        id="extra-field-end",
    ),
    pytest.param(
        mark("Dan", "white", "red", 7),
        "'Dan' is not a player in this game (players: Ann, Bob, Cid)",
        id="player-not-in-game",
    ),
    pytest.param(
        mark("Bob", "white", "red", 8),
        "8 is not the sum of the white dice (3+4=7)",
        id="white-number-wrong",
    ),
    pytest.param(
        mark("Ann", "colour", "red", 9),
        "9 is not a white die plus the red die (white 3 and 4, red 2: 5 or 6)",
        id="colour-number-wrong",
    ),
    pytest.param(
        mark("Bob", "colour", "red", 5),
        "only the active player, Ann, may use the colour action",
        id="colour-by-other",
    ),
    pytest.param(
        ROLL, "the dice were already rolled this turn; end the turn first", id="second-roll"
    ),
    pytest.param(
        NEW_GAME,
        "new_game may only be the first event: this log already holds a game",
        id="second-new-game",
    ),
    pytest.param(
        {"event": "roll", "dice": [3, 4]},
        '"dice" must be an object of die names and values, not a list',
        id="dice-list",
    ),
]


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
def test_a_bad_line_after_a_roll_is_reported_with_its_number_and_reason(
    line: object, reason: str
) -> None:
    error = replay_error(NEW_GAME, ROLL, line, END)
    assert (error.line, error.reason) == (3, reason)
    assert error.game is not None
    assert error.game.to_json() == replay_lines(lines_of(NEW_GAME, ROLL)).game.to_json()  # type: ignore[union-attr]


BAD_ROLLS = [
    pytest.param(
        {"white1": 3, "white2": 4, "red": 2, "yellow": 5, "blue": 1},
        "the roll lacks the green die, which is still in play",
        id="missing-die",
    ),
    pytest.param(
        {"white1": 3, "red": 2, "yellow": 5, "green": 6, "blue": 1},
        "the roll lacks the white2 die",
        id="missing-white",
    ),
    pytest.param(
        {"white1": 0, "white2": 4, "red": 2, "yellow": 5, "green": 6, "blue": 1},
        "the white1 die shows 0, but a die shows 1 to 6",
        id="value-0",
    ),
    pytest.param(
        {"white1": 3, "white2": 4, "red": 7, "yellow": 5, "green": 6, "blue": 1},
        "the red die shows 7, but a die shows 1 to 6",
        id="value-7",
    ),
    pytest.param(
        {"white1": 3, "white2": 4, "red": 2, "yellow": "5", "green": 6, "blue": 1},
        "the yellow die must be a whole number, got '5'",
        id="value-string",
    ),
    pytest.param(
        {"white1": 3, "white2": 4, "red": 2, "yellow": 5, "green": 6, "blue": 1, "purple": 2},
        "unknown die 'purple' (dice are white1, white2, red, yellow, green, blue)",
        id="unknown-die",
    ),
]


@pytest.mark.parametrize(("dice", "reason"), BAD_ROLLS)
def test_a_bad_roll_is_reported(dice: dict[str, object], reason: str) -> None:
    error = replay_error(NEW_GAME, {"event": "roll", "dice": dice})
    assert (error.line, error.reason) == (2, reason)


def test_marks_and_end_turn_before_the_roll_are_refused() -> None:
    error = replay_error(NEW_GAME, mark("Bob", "white", "red", 7))
    assert (error.line, error.reason) == (2, "nobody marks before the roll: Ann must roll first")
    error = replay_error(NEW_GAME, END)
    assert (error.line, error.reason) == (2, "there was no roll this turn: Ann must roll first")


def test_white_marks_after_the_colour_mark_are_refused() -> None:
    error = replay_error(
        NEW_GAME, ROLL, mark("Ann", "colour", "red", 5), mark("Bob", "white", "red", 7)
    )
    assert (error.line, error.reason) == (
        4,
        "the white action is over: the colour mark has been made this turn",
    )


def test_the_log_must_start_with_new_game_with_two_to_five_distinct_players() -> None:
    cases = [
        ((ROLL,), "the log must start with a new_game event, not roll"),
        (({"event": "new_game", "players": ["Ann"]},), "a game has 2 to 5 players, not 1"),
        (({"event": "new_game", "players": list("ABCDEF")},), "a game has 2 to 5 players, not 6"),
        (
            ({"event": "new_game", "players": "Ann,Bob"},),
            '"players" must be a list of names, not a string ("Ann,Bob")',
        ),
        (
            ({"event": "new_game", "players": ["Ann", "Ann"]},),
            "every player needs a different name: Ann, Ann",
        ),
        (
            ({"event": "new_game", "players": ["Ann", 7]},),
            "a player's name must be a non-empty string, not 7",
        ),
        (({**NEW_GAME, "first": "Dan"},), "\"first\" names 'Dan', who is not among the players"),
    ]
    for events, reason in cases:
        error = replay_error(*events)
        assert (error.line, error.reason, error.game) == (1, reason, None)


def test_an_empty_log_is_an_error() -> None:
    with pytest.raises(GameLogError, match="line 1: the log is empty"):
        replay_lines([])


def test_blank_lines_are_skipped_but_still_counted() -> None:
    result = replay_lines(["\n", json.dumps(NEW_GAME) + "\n", "  \n", json.dumps(ROLL) + "\n"])
    assert result.events == 2
    with pytest.raises(GameLogError) as caught:
        replay_lines(["\n", json.dumps(NEW_GAME) + "\n", "\n", json.dumps(END) + "\n"])
    assert caught.value.line == 4


def _log_until_red_locks() -> list[object]:
    """Ann and Bob mark red 2..6 (Cid marks yellow), then Ann locks red."""
    events: list[object] = [NEW_GAME]
    game = Game(["Ann", "Bob", "Cid"])
    for number in (2, 3, 4, 5, 6, 12):
        dice = {"white1": 1, "white2": number - 1, "red": 1, "yellow": 1, "green": 1, "blue": 1}
        if number > 7:
            dice.update(white1=6, white2=number - 6)
        events.append({"event": "roll", "dice": dice})
        game.roll(dice)
        players = ["Ann"] if number == 12 else ["Ann", "Bob"]
        for player in players:
            events.append(mark(player, "white", "red", number))
            game.mark(player, "white", "red", number)
        cid_row = "green" if number == 12 else "yellow"
        events.append(mark("Cid", "white", cid_row, number))
        game.mark("Cid", "white", cid_row, number)
        events.append(END)
        game.end_turn()
    assert game.locked
    return events


def test_a_removed_die_in_a_roll_is_refused() -> None:
    events = _log_until_red_locks()
    error = replay_error(*events, ROLL)
    assert error.line == len(events) + 1
    assert error.reason == (
        "the red die was removed when the red row locked; a roll names only the dice in play"
    )
    roll_without_red = {
        "event": "roll",
        "dice": {k: v for k, v in ROLL["dice"].items() if k != "red"},
    }
    assert replay_lines(lines_of(*events, roll_without_red)).game is not None


def test_nothing_is_accepted_after_the_game_is_over() -> None:
    events: list[object] = [NEW_GAME]
    for _ in range(3 * 3 + 1):  # Ann, Bob, Cid pass until Ann's 4th penalty
        events += [ROLL, END]
    result = replay_lines(lines_of(*events))
    assert result.game is not None and result.game.over
    for extra in (ROLL, END, mark("Bob", "white", "red", 7)):
        error = replay_error(*events, extra)
        assert error.line == len(events) + 1
        assert error.reason == "the game is over: Ann took a 4th penalty"


def test_a_torn_last_line_is_an_error_when_strict_and_a_warning_when_tolerated(
    tmp_path: Path,
) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text("".join(lines_of(NEW_GAME, ROLL)) + '{"event": "mark", "pla')
    with pytest.raises(GameLogError) as caught:
        replay(path)
    assert caught.value.line == 3
    assert caught.value.reason.startswith("not valid JSON")
    result = replay(path, tolerate_torn_tail=True)
    assert result.events == 2
    assert result.warnings == [
        "line 3 is incomplete (a torn write, probably a power cut) and was ignored"
    ]


def test_a_torn_multibyte_character_is_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    whole = "".join(lines_of({"event": "new_game", "players": ["Zoë", "Bob"]})).encode()
    path.write_bytes(whole + '{"event": "mark", "player": "Zoë'.encode()[:-1])
    assert replay(path, tolerate_torn_tail=True).warnings
    with pytest.raises(GameLogError, match="line 2: the line is not valid UTF-8 text"):
        replay(path)


def test_a_whole_last_line_without_newline_is_not_torn(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text("".join(lines_of(NEW_GAME)) + json.dumps(ROLL))
    assert replay(path).events == 2
    assert replay(path, tolerate_torn_tail=True).warnings == []


def test_a_bad_last_line_that_parses_is_never_excused_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text("".join(lines_of(NEW_GAME)) + json.dumps(mark("Dan", "white", "red", 7)))
    with pytest.raises(GameLogError, match="line 2: 'Dan' is not a player"):
        replay(path, tolerate_torn_tail=True)


def test_the_writer_appends_and_fsyncs_every_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    path = tmp_path / "game.jsonl"
    with GameLog.create(path, ["Ann", "Bob", "Cid"]) as log:
        log.roll({"white1": 3, "white2": 4, "red": 2, "yellow": 5, "green": 6, "blue": 1})
        log.mark("Bob", "white", "red", 7)
        log.mark("Ann", "colour", "blue", 5)
        log.end_turn()
        state = log.game.to_json()
    assert path.read_text().splitlines() == [
        '{"event": "new_game", "players": ["Ann", "Bob", "Cid"]}',
        '{"event": "roll", "dice": {"white1": 3, "white2": 4, "red": 2, "yellow": 5, "green": 6, '
        '"blue": 1}}',
        '{"event": "mark", "player": "Bob", "action": "white", "colour": "red", "number": 7}',
        '{"event": "mark", "player": "Ann", "action": "colour", "colour": "blue", "number": 5}',
        '{"event": "end_turn"}',
    ]
    assert len(synced) >= 5  # one per event (and the directory once)
    assert replay(path).game.to_json() == state  # type: ignore[union-attr]


def test_the_writer_writes_nothing_for_an_illegal_event(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    with GameLog.create(path, ["Ann", "Bob"], first="Bob") as log:
        with pytest.raises(IllegalMove):
            log.mark("Ann", "white", "red", 7)
        with pytest.raises(IllegalMove):
            log.end_turn()
    assert path.read_text() == '{"event": "new_game", "players": ["Ann", "Bob"], "first": "Bob"}\n'


def test_create_refuses_an_existing_log_and_solo_games(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(NEW_GAME) + "\n")
    with pytest.raises(FileExistsError):
        GameLog.create(path, ["Ann", "Bob"])
    with pytest.raises(RulesError, match="2 to 5 players, not 1"):
        GameLog.create(tmp_path / "solo.jsonl", ["Ann"])


def test_resume_cuts_a_torn_tail_and_carries_on(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text("".join(lines_of(NEW_GAME, ROLL)) + '{"event": "mark", "player": "B')
    with GameLog.resume(path) as log:
        assert log.warnings == [
            "line 3 is incomplete (a torn write, probably a power cut) and was ignored"
        ]
        log.mark("Bob", "white", "red", 7)
        log.end_turn()
    result = replay(path)  # strict: the file is whole again
    assert result.events == 4
    assert result.game is not None and result.game.active == "Bob"


def test_resume_adds_the_missing_newline_of_a_whole_last_line(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(NEW_GAME) + "\n" + json.dumps(ROLL))
    with GameLog.resume(path) as log:
        log.end_turn()
    assert replay(path).events == 3


def test_resume_refuses_a_log_whose_only_line_is_torn(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text('{"event": "new_game", "players": ["Ann", "B')
    with pytest.raises(GameLogError, match="line 1: the log holds no complete new_game event"):
        GameLog.resume(path)
