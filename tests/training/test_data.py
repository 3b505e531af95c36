"""Which generated scenes a training run or a chooser loads, and what a wrong set folder says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_reader.vision.recorded import RecordedSet
from training import choose_lean, choose_thresholds
from training.data import open_set, scene_limits, touching_flags
from training.splits import SplitError

SETS = [Path("/renders/dr1"), Path("/renders/dr2")]


def test_no_limit_given_loads_every_scene():
    assert scene_limits(SETS, []) == [None, None]


def test_one_limit_is_every_sets_limit():
    assert scene_limits(SETS, [446]) == [446, 446]


def test_one_limit_per_set_is_taken_in_order():
    assert scene_limits(SETS, [485, 134]) == [485, 134]


def test_limits_that_match_neither_way_are_refused_with_a_message():
    with pytest.raises(ValueError, match="--scenes given 3 times for 2 generated sets"):
        scene_limits(SETS, [1, 2, 3])


def test_the_chooser_gives_its_usage_message_for_mismatched_limits(capsys):
    with pytest.raises(SystemExit):
        choose_thresholds.main(["--datasets", "/nowhere", "--generated", "/renders/dr1",
                                "--generated", "/renders/dr2", "--scenes", "1", "--scenes", "2",
                                "--scenes", "3"])
    assert "--scenes given 3 times for 2 generated sets" in capsys.readouterr().err


def test_a_generated_set_that_is_not_there_is_named_as_missing(tmp_path):
    with pytest.raises(SplitError, match="dr9: no such folder"):
        open_set(tmp_path, str(tmp_path / "dr9"))


def test_a_folder_without_the_generators_manifest_is_no_generated_set(tmp_path):
    (tmp_path / "labels.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(SplitError, match=r"not a generated set \(no manifest.json"):
        open_set(tmp_path / "shared", str(tmp_path))


def test_the_lean_chooser_gives_its_usage_message_for_a_missing_set(capsys, tmp_path):
    with pytest.raises(SystemExit):
        choose_lean.main(["--datasets", str(tmp_path), "--generated", str(tmp_path / "dr9")])
    assert "dr9: no such folder" in capsys.readouterr().err


def test_touching_flags_follow_the_labels_order_and_default_to_apart(tmp_path):
    rows = [{"image": "a00001/roll_001.jpg",
             "dice": [{"box": [0, 0, 9, 9]}, {"box": [9, 0, 9, 9], "touching": True}]},
            {"image": "a00001/roll_002.jpg", "dice": []}]
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n\n",
                                           encoding="utf-8")
    assert touching_flags(RecordedSet(tmp_path, ())) == {"a00001/roll_001.jpg": [False, True],
                                                         "a00001/roll_002.jpg": []}
