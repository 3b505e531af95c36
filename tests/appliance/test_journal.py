"""The journal on disk: durable appends, a torn last line forgiven, damage refused, archiving."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pi_reader.appliance.journal import (
    Journal,
    JournalError,
    archive_current_game,
    read_journal,
)


def test_append_then_read_back(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "game.jsonl")
    journal.append({"event": "new_game", "players": ["ann", "bob"]})
    journal.append({"event": "end_turn"})
    contents = read_journal(journal.path)
    assert contents.events == [
        {"event": "new_game", "players": ["ann", "bob"]},
        {"event": "end_turn"},
    ]
    assert contents.warning is None


def test_a_torn_last_line_is_ignored_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text('{"event": "new_game", "players": ["a", "b"]}\n{"event": "ro')
    contents = read_journal(path)
    assert contents.events == [{"event": "new_game", "players": ["a", "b"]}]
    assert "last line (2)" in contents.warning and "power" in contents.warning


def test_damage_before_the_last_line_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text('{"event": "new_game"}\nnot json\n{"event": "end_turn"}\n')
    with pytest.raises(JournalError, match="line 2 is not JSON"):
        read_journal(path)
    path.write_text('{"event": "new_game"}\n[1, 2]\n{"event": "end_turn"}\n')
    with pytest.raises(JournalError, match="line 2 is not a game event"):
        read_journal(path)


def test_rewrite_replaces_atomically(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "game.jsonl")
    journal.append({"event": "a"})
    journal.rewrite([{"event": "b"}, {"event": "c"}])
    lines = journal.path.read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["b", "c"]
    assert not (tmp_path / "game.tmp").exists()


def test_archiving_moves_the_current_game_aside(tmp_path: Path) -> None:
    assert archive_current_game(tmp_path) is None
    Journal(tmp_path / "game.jsonl").append({"event": "a"})
    moment = datetime(2026, 11, 29, 14, 0, tzinfo=UTC)
    first = archive_current_game(tmp_path, moment)
    Journal(tmp_path / "game.jsonl").append({"event": "b"})
    second = archive_current_game(tmp_path, moment)
    assert first.name == "game-20261129-140000.jsonl"
    assert second.name == "game-20261129-140000-2.jsonl"
    assert not (tmp_path / "game.jsonl").exists()
