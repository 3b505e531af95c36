import json

import pytest

from pi_reader.cli import main


def test_tournament_prints_every_seat_with_intervals(capsys):
    assert main(["players", "tournament", "--games", "3", "--players", "cautious,heuristic"]) == 0
    out = capsys.readouterr().out
    assert "3 games, 2 players, seed 0" in out
    lines = [line for line in out.splitlines() if line.startswith(("1 ", "2 "))]
    assert [line.split()[1] for line in lines] == ["cautious", "heuristic"]
    assert all("%" in line and "[" in line for line in lines)


def test_tournament_is_deterministic_under_a_seed(capsys):
    args = [
        "players",
        "tournament",
        "--games",
        "2",
        "--players",
        "lookahead,heuristic",
        "--seed",
        "5",
    ]
    main(args)
    first = capsys.readouterr().out
    main(args)
    assert capsys.readouterr().out == first


def test_solo_prints_the_mean_with_its_interval(capsys):
    assert main(["players", "solo", "--games", "3", "heuristic", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("heuristic: 3 solo games, seed 2: mean score")
    assert "95% CI" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["tournament", "--games", "2", "--players", "lookahead,wizard"],
            "unknown strategy 'wizard'",
        ),
        (["tournament", "--games", "2", "--players", "lookahead"], "2 to 5 players, not 1"),
        (["tournament", "--games", "0", "--players", "cautious,cautious"], "at least 1"),
        (["solo", "--games", "2", "wizard"], "unknown strategy 'wizard'"),
        (["solo", "--games", "-1", "cautious"], "at least 1"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(capsys, args, message):
    assert main(["players", *args]) == 2
    assert message in capsys.readouterr().err


NEW_GAME = '{"event": "new_game", "players": ["Ann", "Bob", "Cid"]}\n'
ROLL = (
    '{"event": "roll", "dice": {"white1": 1, "white2": 2, "red": 2, "yellow": 5, "green": 6, '
    '"blue": 1}}\n'
)


def _log(tmp_path, *lines):
    path = tmp_path / "game.jsonl"
    path.write_text("".join(lines))
    return str(path)


def test_advise_names_every_decision_with_its_gain(tmp_path, capsys):
    log = _log(tmp_path, NEW_GAME, ROLL)
    assert main(["game", "advise", log]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Roll: white1 1, white2 2") and "Ann is active" in lines[0]
    assert [line.split(",")[1].split(":")[0].strip() for line in lines[1:]] == [
        "Ann",
        "Bob",
        "Cid",
        "Ann",
    ]
    assert all("expected gain" in line for line in lines[1:])


def test_advise_json_skips_players_who_already_marked(tmp_path, capsys):
    mark = '{"event": "mark", "player": "Bob", "action": "white", "colour": "red", "number": 3}\n'
    log = _log(tmp_path, NEW_GAME, ROLL, mark)
    assert main(["game", "advise", log, "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert [(a["player"], a["action"]) for a in advice] == [
        ("Ann", "white"),
        ("Cid", "white"),
        ("Ann", "colour"),
    ]
    for item in advice:
        assert item["best"] == item["options"][0]
        assert max(o["value"] for o in item["options"]) == item["best"]["value"]


@pytest.mark.parametrize(
    ("lines", "status", "message"),
    [
        ((NEW_GAME,), 2, "nothing to advise: no roll is pending"),
        ((NEW_GAME, '{"event": "roll"}\n'), 2, "line 2"),
        (("",), 2, "line 1: the log is empty"),
    ],
)
def test_advise_refuses_logs_without_a_pending_roll(tmp_path, capsys, lines, status, message):
    assert main(["game", "advise", _log(tmp_path, *lines)]) == status
    assert message in capsys.readouterr().err


def test_advise_reports_an_unreadable_file(tmp_path, capsys):
    assert main(["game", "advise", str(tmp_path / "missing.jsonl")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_advise_with_every_decision_of_the_roll_made_says_so_and_exits_2(tmp_path, capsys):
    # Before: an empty advice printed as success (exit 0).
    marks = [
        f'{{"event": "mark", "player": "{p}", "action": "white", "colour": "red", "number": 3}}\n'
        for p in ("Ann", "Bob", "Cid")
    ]
    colour = (
        '{"event": "mark", "player": "Ann", "action": "colour", "colour": "yellow", "number": 6}\n'
    )
    log = _log(tmp_path, NEW_GAME, ROLL, *marks, colour)
    assert main(["game", "advise", log]) == 2
    assert "nothing to advise: every decision on this roll is made" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("lines", "line", "reason"),
    [
        ((NEW_GAME,), None, "nothing to advise: no roll is pending"),
        ((NEW_GAME, '{"event": "roll"}\n'), 2, 'a roll event needs a "dice" field'),
    ],
)
def test_advise_json_errors_are_the_json_error_object(tmp_path, capsys, lines, line, reason):
    # Before: --json printed nothing on standard output, only a sentence on standard error.
    assert main(["game", "advise", _log(tmp_path, *lines), "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["line"] == line and error["reason"].startswith(reason)
