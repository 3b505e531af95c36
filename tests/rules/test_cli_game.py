"""``pi-reader game replay``: the JSON contract, the error contract, and the text for a person."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_reader.cli import main

DEMO = Path(__file__).resolve().parents[1] / "data" / "games" / "demo.jsonl"
STATE_KEYS = ["players", "locked", "removed_dice", "active", "over", "winners"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["game", "replay", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path: Path, *events: object) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events))
    return path


NEW_GAME = {"event": "new_game", "players": ["Ann", "Bob"]}
ROLL = {
    "event": "roll",
    "dice": {"white1": 3, "white2": 4, "red": 2, "yellow": 5, "green": 6, "blue": 1},
}


def test_the_bundled_demo_game_replays_to_its_end(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, str(DEMO), "--json")
    state = json.loads(out)
    assert status == 0
    assert list(state) == STATE_KEYS
    assert state["over"] is True
    assert len(state["locked"]) >= 2 and state["removed_dice"] == state["locked"]
    totals = {p["name"]: p["score"]["total"] for p in state["players"]}
    assert state["winners"] == [name for name, t in totals.items() if t == max(totals.values())]
    for player in state["players"]:
        assert list(player) == ["name", "marks", "locks", "penalties", "score"]
        assert list(player["marks"]) == ["red", "yellow", "green", "blue"]
        assert list(player["score"]) == ["red", "yellow", "green", "blue", "total"]


def test_the_text_shows_sheets_scores_and_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, str(DEMO))
    assert status == 0
    assert "Game over: two rows are locked" in out
    assert "[n] marked   -n- crossed out (lost)" in out
    for name in ("Ann", "Bob", "Cid"):
        assert f"\n{name}\n" in f"\n{out}"
    assert "total" in out and "penalties" in out


def test_the_text_says_who_is_next(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        NEW_GAME,
        ROLL,
        {"event": "mark", "player": "Bob", "action": "white", "colour": "red", "number": 7},
        {"event": "end_turn"},
    )
    status, out, _ = run(capsys, str(path))
    assert status == 0
    assert "Next: Bob rolls the dice." in out
    assert "  red      -2-  -3-  -4-  -5-  -6-  [7]   8    9 " in out
    assert "penalties 1 (-5)" in out  # Ann marked nothing on her turn


def test_a_bad_line_exits_2_with_the_error_and_the_state_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = {"event": "mark", "player": "Dan", "action": "white", "colour": "red", "number": 7}
    path = write(tmp_path, NEW_GAME, ROLL, bad, {"event": "end_turn"})
    status, out, _ = run(capsys, str(path), "--json")
    printed = json.loads(out)
    assert status == 2
    assert printed["error"] == {
        "line": 3,
        "reason": "'Dan' is not a player in this game (players: Ann, Bob)",
    }
    assert list(printed) == ["error", *STATE_KEYS]
    assert printed["active"] == "Ann"
    assert [p["penalties"] for p in printed["players"]] == [0, 0]  # the end_turn was not applied


def test_a_bad_first_line_prints_the_state_of_no_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "{oops")
    status, out, _ = run(capsys, str(path), "--json")
    assert status == 2
    assert json.loads(out) == {
        "error": {
            "line": 1,
            "reason": (
                "not valid JSON: Expecting property name enclosed in double quotes at column 2"
            ),
        },
        "players": [],
        "locked": [],
        "removed_dice": [],
        "active": None,
        "over": False,
        "winners": [],
    }


def test_a_bad_line_without_json_goes_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, NEW_GAME, {"event": "shuffle"})
    status, out, err = run(capsys, str(path))
    assert status == 2
    assert "Next: Ann rolls the dice." in out
    assert 'line 2: unknown event "shuffle"' in err


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_a_line_nested_deeper_than_python_recurses_is_a_bad_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int
) -> None:
    # Before: json.loads raised RecursionError, a traceback.
    path = write(tmp_path, NEW_GAME, "[" * depth)
    status, out, _ = run(capsys, str(path), "--json")
    assert status == 2
    assert json.loads(out)["error"] == {
        "line": 2,
        "reason": "not valid JSON: arrays or objects nested too deeply to be a game event",
    }


def test_an_unterminated_string_names_its_column_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "Unterminated string starting at at column 35".
    path = write(tmp_path, '{"event": "new_game", "players": ["Ann')
    status, _, err = run(capsys, str(path))
    assert status == 2
    assert "Unterminated string starting at column 35" in err and "at at" not in err


def test_a_paper_mode_journal_is_called_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: 'unexpected field "mode" in a new_game event'.
    path = write(tmp_path, {**NEW_GAME, "first": "Ann", "mode": "paper"}, ROLL, {"event": "lock",
                 "colour": "red"})
    status, _, err = run(capsys, str(path))
    assert status == 2
    assert "line 1: this is a paper-mode journal of pi-reader run" in err


def test_a_missing_file_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(tmp_path / "nowhere.jsonl"), "--json")
    assert (status, out) == (1, "")
    assert "cannot read" in err and "No such file" in err


def test_the_console_script_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pi_reader", "game", "replay", str(DEMO), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["over"] is True
