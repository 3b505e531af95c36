"""Opening the table's game: resume, archive, refuse a damaged journal without touching it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_reader.appliance.table import Table, TableError
from pi_reader.cli import main

from .helpers import roll

ROLL = roll(3, 4, 2, 5, 6, 1)


def test_an_unfinished_game_of_the_same_players_is_resumed(tmp_path: Path) -> None:
    table = Table.open(tmp_path, "paper", ["ann", "bob"])
    table.commit(table.game.roll(ROLL))
    table.commit(table.game.press("red"))
    again = Table.open(tmp_path, "paper", ["ann", "bob"])
    assert again.resumed and again.removed == ("red",)
    assert [n.key for n in again.opening_notices()] == ["app.ready", "app.resumed"]


def test_other_players_archive_the_old_game(tmp_path: Path) -> None:
    Table.open(tmp_path, "paper", ["ann", "bob"])
    table = Table.open(tmp_path, "paper", ["ann", "cid"])
    assert not table.resumed
    assert "archived" in table.warnings[0]
    assert len(list((tmp_path / "archive").iterdir())) == 1
    Table.open(tmp_path, "sheet", ["ann", "cid"])  # another mode: archived too
    assert len(list((tmp_path / "archive").iterdir())) == 2


def test_new_game_archives_even_an_unfinished_game(tmp_path: Path) -> None:
    Table.open(tmp_path, "paper", ["ann", "bob"])
    table = Table.open(tmp_path, "paper", ["ann", "bob"], new_game=True)
    assert not table.resumed and (tmp_path / "archive").is_dir()


def test_a_torn_last_line_is_dropped_with_a_warning_and_the_rest_kept(tmp_path: Path) -> None:
    table = Table.open(tmp_path, "paper", ["ann", "bob"])
    table.commit(table.game.roll(ROLL))
    with (tmp_path / "game.jsonl").open("a") as handle:
        handle.write('{"event": "pena')
    again = Table.open(tmp_path, "paper", ["ann", "bob"])
    assert again.resumed and again.game.last_roll == ROLL
    assert "incomplete" in again.warnings[0]
    lines = (tmp_path / "game.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["new_game", "roll"]


def test_a_damaged_journal_stops_the_appliance_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    damaged = (
        '{"event": "new_game", "players": ["ann", "bob"], "mode": "paper"}\n@@@\n{"event": "x"}\n'
    )
    path.write_text(damaged)
    with pytest.raises(TableError, match=r"line 2 is not JSON.*--new-game"):
        Table.open(tmp_path, "paper", ["ann", "bob"])
    assert path.read_text() == damaged
    start = '{"event": "new_game", "players": ["ann", "bob"], "mode": "paper"}\n'
    path.write_text(start + '{"event": "lock", "colour": "red"}\n')
    with pytest.raises(TableError, match="cannot be replayed"):
        Table.open(tmp_path, "paper", ["ann", "bob"])


def test_a_finished_game_is_archived_and_a_new_one_begins(tmp_path: Path) -> None:
    table = Table.open(tmp_path, "paper", ["ann", "bob"])
    table.commit(table.game.roll(ROLL))
    table.commit(table.game.press("red"))
    table.commit(table.game.press("green"))
    assert table.game.over
    again = Table.open(tmp_path, "paper", ["ann", "bob"])
    assert not again.resumed and again.removed == ()


def test_the_sheet_journal_is_the_game_log_the_rules_cli_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table.open(tmp_path, "sheet", ["ann", "bob"])
    table.commit(table.game.roll(ROLL))
    table.commit(table.game.command("bob red 7"))
    table.commit(table.game.roll(ROLL))
    capsys.readouterr()
    assert main(["game", "replay", str(tmp_path / "game.jsonl"), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["active"] == "bob"
    assert state["players"][0]["penalties"] == 1
    assert state["players"][1]["marks"]["red"] == [7]
