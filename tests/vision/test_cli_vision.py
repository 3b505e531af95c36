"""The vision commands' contract: arguments, JSON lines, and errors for bad files."""

from __future__ import annotations

import json

import pytest

from pi_reader.cli import main


def test_a_corrupt_image_gets_its_json_line_with_an_error_and_a_failing_exit(tmp_path, capsys):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    missing = tmp_path / "missing.jpg"
    assert main(["read", "--json", str(broken), str(missing)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == [str(broken), str(missing)]
    assert "corrupt" in lines[0]["error"] and "no such image" in lines[1]["error"]
    assert all(line["dice"] == [] and line["white_sum"] is None for line in lines)


def test_a_corrupt_image_is_an_error_line_in_the_table_too(tmp_path, capsys):
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"")
    assert main(["read", str(broken)]) == 1
    assert "ERROR" in capsys.readouterr().out


def test_an_unknown_removed_die_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["read", "--removed", "red,purple", str(tmp_path / "x.jpg")])
    assert exit_.value.code == 2
    assert "unknown die purple" in capsys.readouterr().err


def test_a_corrupt_calibration_file_stops_the_read(tmp_path, capsys):
    cal = tmp_path / "cal.json"
    cal.write_text("{ nope")
    assert main(["read", "--calibration", str(cal), str(tmp_path / "x.jpg")]) == 2
    assert "corrupt calibration file" in capsys.readouterr().err


def test_calibrate_refuses_an_unreadable_frame(tmp_path, capsys):
    out = tmp_path / "cal.json"
    assert main(["calibrate", "--image", str(tmp_path / "none.jpg"), "--out", str(out)]) == 1
    assert "no such image" in capsys.readouterr().err
    assert not out.exists()


def test_replay_of_a_folder_that_is_not_a_set_is_a_usage_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path)]) == 2
    assert "no labels.jsonl" in capsys.readouterr().err
