"""A file nested deeper than Python's recursion limit is refused with a message, never a
traceback, by every reader of a user's file. Before: RecursionError from json / tomllib."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi_reader.cli import main

DEEP = "[" * 100_000 + "\n"
DEMO = Path(__file__).resolve().parent / "data" / "demo-game"


def test_a_deep_calibration_file(tmp_path, capsys):
    (tmp_path / "cal.json").write_text(DEEP)
    assert main(["read", "--calibration", str(tmp_path / "cal.json"), "x.jpg"]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_deep_labels_of_a_recorded_set(tmp_path, capsys):
    (tmp_path / "labels.jsonl").write_text(DEEP)
    assert main(["replay", str(tmp_path)]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_a_deep_config(tmp_path, capsys):
    (tmp_path / "config.toml").write_text("x = " + DEEP)
    assert main(["config", "check", "--config", str(tmp_path / "config.toml")]) == 1
    assert "nested too deeply" in capsys.readouterr().err


def test_a_deep_recorded_game(tmp_path, capsys):
    (tmp_path / "recorded-game.json").write_text(DEEP)
    argv = ["run", "--no-hardware", "--players", "ann,bob", "--state-dir", str(tmp_path / "s")]
    assert main([*argv, "--camera", f"dir:{tmp_path}"]) == 2
    assert "nested too deeply" in capsys.readouterr().err


@pytest.mark.parametrize("last", [True, False])
def test_a_deep_journal_line(tmp_path, capsys, last):
    state = tmp_path / "state"
    state.mkdir()
    good = '{"event": "new_game", "players": ["ann", "bob"], "first": "ann", "mode": "paper"}\n'
    journal = good + DEEP if last else DEEP + good
    (state / "game.jsonl").write_text(journal)
    shutil.copy(DEMO / "calibration.jpg", tmp_path / "c.jpg")
    calibrate = ["calibrate", "--image", str(tmp_path / "c.jpg"), "--out", str(tmp_path / "c.json")]
    assert main(calibrate) == 0
    frames = tmp_path / "frames"
    frames.mkdir()
    argv = ["run", "--no-hardware", "--players", "ann,bob", "--state-dir", str(state)]
    status = main([*argv, "--calibration", str(tmp_path / "c.json"), "--camera", f"dir:{frames}"])
    assert status == 2
    assert "nested too deeply" in capsys.readouterr().err
    assert (state / "game.jsonl").read_text() == journal  # left as it was
