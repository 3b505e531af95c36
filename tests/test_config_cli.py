"""``pi-reader config check``: 'ok' and the settings, or every problem and exit status 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_reader.cli import main
from pi_reader.config import parse_config

EXAMPLE = Path(__file__).resolve().parent.parent / "hardware" / "config.example.toml"


def test_a_good_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", "--config", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ok ({EXAMPLE})\n")
    settings = out.split("\n", 2)[2]
    assert parse_config(settings) == parse_config(EXAMPLE.read_text())


def test_a_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    original = '[lcd]\nadress = 0x27\n[speaker]\nlanguage = "fr"\n'
    path.write_text(original)
    assert main(["config", "check", "--config", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"{path}: 2 problems:",
        "  - [speaker] language: 'fr' is not one of en, ru, uk, es, de, fa",
        "  - [lcd] adress: unknown key; did you mean 'address'? "
        "(known keys: address, charmap, cols, enabled, port, rows)",
    ]
    assert path.read_text() == original  # checking never rewrites the file


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", "--config", str(tmp_path / "nope.toml")]) == 1
    assert "no such file" in capsys.readouterr().err
