"""The vision commands' contract: arguments, JSON lines, and errors for bad files."""

from __future__ import annotations

import json
import sys

import pytest

from pi_reader.cli import main
from pi_reader.cli.vision import _ProgressBar


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


def small_set(datasets_dir, tmp_path, scenario="s00", rolls=2):
    """A recorded set of one scenario's calibration and first rolls: the shared set's own lines
    (unchanged) and links to its images."""
    source = datasets_dir / "qwixx-rendered"
    lines = [
        line
        for line in (source / "labels.jsonl").read_text().splitlines()
        if json.loads(line).get("scenario") == scenario
    ][: rolls + 1]
    folder = tmp_path / "set"
    (folder / scenario).mkdir(parents=True)
    for line in lines:
        image = json.loads(line)["image"]
        (folder / image).symlink_to(source / image)
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return folder, [json.loads(line) for line in lines]


def test_calibrate_then_read_prints_the_contract_json(datasets_dir, tmp_path, capsys):
    folder, lines = small_set(datasets_dir, tmp_path)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "--image", str(folder / lines[0]["image"]), "--out", str(cal)]) == 0
    assert "calibrated" in capsys.readouterr().out
    images = [str(folder / line["image"]) for line in lines[1:]]
    annotated = tmp_path / "annotated"
    status = main(
        [
            "read",
            "--calibration",
            str(cal),
            "--removed",
            "blue",
            *images,
            "--json",
            "--annotate",
            str(annotated),
        ]
    )
    assert status == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["image"] for o in out] == images
    for reading in out:
        assert {"image", "dice", "white_sum", "problems"} <= set(reading)
        for die in reading["dice"]:
            assert {"colour", "value", "box", "confidence"} <= set(die)
            assert len(die["box"]) == 4 and all(isinstance(v, int) for v in die["box"])
            assert 0.0 <= die["confidence"] <= 1.0
        # The blue die is in the tray although out of play.
        assert {"kind": "removed_die_present", "colour": "blue"}.items() <= (
            next(p for p in reading["problems"] if p["kind"] == "removed_die_present").items()
        )
    assert len(list(annotated.glob("*.jpg"))) == len(images)


def test_read_without_json_prints_a_table(datasets_dir, tmp_path, capsys):
    folder, lines = small_set(datasets_dir, tmp_path, rolls=1)
    assert main(["read", str(folder / lines[1]["image"])]) == 0
    out = capsys.readouterr().out
    assert "white sum" in out and "confidence" in out


def test_replay_reports_accuracy_and_times_as_json(datasets_dir, tmp_path, capsys):
    folder, _ = small_set(datasets_dir, tmp_path, rolls=2)
    assert main(["replay", str(folder), "--json", "--annotate", str(tmp_path / "mistakes")]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["frames"] == 2
    for key in (
        "dice_right",
        "value_accuracy",
        "colour_accuracy",
        "rolls_right",
        "missed",
        "phantoms",
        "value_confusion",
        "colour_confusion",
        "slowest",
        "mean_ms",
        "p95_ms",
        "worst",
    ):
        assert key in report
    assert report["calibration_errors"] == {}


def test_replay_shows_a_progress_bar_on_a_terminal_and_a_text_report(
    datasets_dir, tmp_path, capsys, monkeypatch
):
    folder, _ = small_set(datasets_dir, tmp_path, rolls=1)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["replay", str(folder)]) == 0
    captured = capsys.readouterr()
    assert "\r[" in captured.err and "1/1" in captured.err and "#" in captured.err
    assert captured.err.endswith("\n")
    assert "dice right" in captured.out and "value confusion" in captured.out


def test_replay_off_a_terminal_logs_plain_lines(datasets_dir, tmp_path, capsys):
    folder, _ = small_set(datasets_dir, tmp_path, rolls=2)
    assert main(["replay", str(folder)]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "#" not in err
    assert err.splitlines() == ["replay: 1/2 frames read", "replay: 2/2 frames read"]


def test_the_progress_off_a_terminal_writes_ten_lines_for_a_long_set(capsys):
    progress = _ProgressBar()
    for done in range(301):
        progress(done, 300, f"s{done:03d}/roll_001.jpg")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10 and lines[0] == "replay: 30/300 frames read"
    assert lines[-1] == "replay: 300/300 frames read"


def relabelled_set(datasets_dir, tmp_path, change):
    """small_set with its labels changed by ``change(lines)``."""
    folder, lines = small_set(datasets_dir, tmp_path, rolls=2)
    change(lines)
    (folder / "labels.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def test_replay_reports_silently_wrong_rolls_and_faces_no_one_can_read(
    datasets_dir, tmp_path, capsys
):
    def change(lines):
        white = lines[1]["dice"][0]
        white["value"] = white["value"] % 6 + 1  # a label the reader's right answer contradicts
        red = next(d for d in lines[2]["dice"] if d["colour"] == "red")
        red.update(value=None, rendered_value=red["value"], unreadable="washed out (test)")

    folder = relabelled_set(datasets_dir, tmp_path, change)
    assert main(["replay", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["silently_wrong_rolls"] == 2
    assert report["silently_wrong"] == ["s00/roll_001.jpg", "s00/roll_002.jpg"]
    assert (report["unreadable_dice"], report["unreadable_misread"]) == (1, 1)
    assert (report["fully_readable_rolls"], report["refusal_rate"]) == (1, 0.0)
    assert main(["replay", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "silently wrong rolls: 2 (s00/roll_001.jpg, s00/roll_002.jpg)" in out
    assert "refusal rate on rolls with every die readable: 0.0% (0 of 1)" in out
    assert "1 mistake (0 missed, 0 phantoms; accepted)" in out and "mistakes" not in out
    assert "(unreadable, rendered" in out and "None" not in out.split("worst frames:")[1]


def test_replay_reports_frames_that_must_be_refused(datasets_dir, tmp_path, capsys):
    def change(lines):
        for line in lines:
            line["expect_refusal"] = "too bright (test)"

    folder = relabelled_set(datasets_dir, tmp_path, change)
    assert main(["replay", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["expect_refusal_rolls"], report["scored_frames"]) == (2, 0)
    # The two frames are readable in fact, so the reader takes them: both accepted.
    assert report["expect_refusal_accepted"] == ["s00/roll_001.jpg", "s00/roll_002.jpg"]
    assert main(["replay", str(folder)]) == 0
    assert "frames that must be refused: 0 of 2 refused; accepted:" in capsys.readouterr().out


def test_a_replay_error_is_printed_on_its_own_line_after_the_progress_bar(
    datasets_dir, tmp_path, capsys
):
    folder, lines = small_set(datasets_dir, tmp_path, rolls=2)
    (folder / lines[2]["image"]).unlink()
    assert main(["replay", str(folder)]) == 1
    err = capsys.readouterr().err
    *_, bar, error, after = err.split("\n")
    assert "1/2" in bar and after == ""
    assert error.startswith("pi-reader replay: ") and "no such image" in error
