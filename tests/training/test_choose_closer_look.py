"""How much closer a calibrated roll short of dice is looked at is chosen by reading every
calibrated validation roll at every candidate, ranked by the calibrated rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_reader.vision import reader
from training import choose_closer_look, one_constant
from training.splits import GENERATED_MANIFEST

from ..vision.reader_doubles import label_calibration, label_stages
from ..vision.reader_frames import labelled, pixels

SET = "qwixx-rendered"
TRUE_READ = reader.read_roll


def test_every_look_rereads_the_rolls_and_the_smallest_that_reads_them_whole_is_chosen(
        datasets_dir, monkeypatch):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    calibration_frame = labelled(datasets_dir, SET, "s05/calibration.jpg")
    calibration = label_calibration(calibration_frame, pixels(calibration_frame))
    looks = []

    def read_roll(image, calibration, removed):
        # A detector that tells two pressed dice apart only from 1.5 times closer on.
        looks.append(reader.CLOSER_LOOK)
        found = frame.dice if reader.CLOSER_LOOK >= 1.5 else frame.dice[1:]
        return TRUE_READ(image, calibration, removed, stages=label_stages(found))

    monkeypatch.setattr(reader, "read_roll", read_roll)
    shipped = reader.CLOSER_LOOK
    entries = choose_closer_look.table({"dr2val calibrated": [(frame, calibration)]})
    assert looks == list(choose_closer_look.LOOKS)
    assert shipped == reader.CLOSER_LOOK
    refused = [e["sets"]["dr2val calibrated"]["refusal_rate"] for e in entries]
    assert refused == [1.0, 1.0, 0.0, 0.0]
    chosen = one_constant.choose(choose_closer_look.CLOSER_LOOK, entries)
    assert chosen["closer_look"] == 1.5


def test_a_set_that_is_not_there_is_named_in_the_usage_message(capsys, tmp_path):
    with pytest.raises(SystemExit):
        choose_closer_look.main(["--datasets", str(tmp_path), "--generated",
                                 str(tmp_path / "dr9")])
    assert "dr9: no such folder" in capsys.readouterr().err


def test_a_set_without_calibrated_validation_rolls_is_refused_with_a_message(
        capsys, tmp_path: Path):
    # One generic validation scene (index 3 of the cycle of 20): no calibration frame.
    (tmp_path / GENERATED_MANIFEST).write_text(json.dumps({"split_rule": "scene index mod 20"}),
                                               encoding="utf-8")
    (tmp_path / "g00003").mkdir()
    (tmp_path / "g00003" / "roll_000.jpg").write_bytes(b"")
    (tmp_path / "labels.jsonl").write_text(json.dumps(
        {"image": "g00003/roll_000.jpg", "scenario": "g00003", "kind": "roll", "dice": []}
    ) + "\n", encoding="utf-8")
    out = tmp_path / "closer_look.json"
    with pytest.raises(SystemExit):
        choose_closer_look.main(["--datasets", str(tmp_path), "--generated", str(tmp_path),
                                 "--out", str(out)])
    assert "no calibrated validation rolls to choose on" in capsys.readouterr().err
    assert not out.exists()


def test_a_roll_whose_calibration_was_refused_counts_refused_at_every_look(
        datasets_dir, monkeypatch):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    reads = []
    monkeypatch.setattr(reader, "read_roll", lambda *args, **kwargs: reads.append(args))
    entries = choose_closer_look.table({"dr2val calibrated": [(frame, None)]})
    assert reads == []
    figures = [e["sets"]["dr2val calibrated"] for e in entries]
    assert [f["refusal_rate"] for f in figures] == [1.0] * len(choose_closer_look.LOOKS)
    assert [f["rolls"] for f in figures] == [1] * len(choose_closer_look.LOOKS)
