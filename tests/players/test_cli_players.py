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
