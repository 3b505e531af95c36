"""Retrained networks are compared with the shipped ones by whole reads, each mode by its rule."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from pi_reader.vision import lean
from pi_reader.vision.recorded import load_recorded_set
from pi_reader.vision.stages import Stages
from training import compare_networks

from .mode_stages import appliance_and_generic_scene, stages_recording_frame_sides
from .test_choose_thresholds import figures
from .test_splits import generated_set


def entry(name: str, calibrated: dict[str, float], generic: dict[str, float]) -> dict[str, Any]:
    return compare_networks.entry(name, {"dr2val calibrated": calibrated,
                                         "real-d6-overhead": generic})


def test_a_silently_wrong_roll_beyond_the_noise_outranks_more_dice_right():
    shipped = entry("shipped", figures(0.94, silently_wrong=3), figures(0.90))
    bolder = entry("bolder", figures(0.97, silently_wrong=5), figures(0.95))
    assert compare_networks.ranked([shipped, bolder], calibrated=True) == ["shipped", "bolder"]
    # 60 generic rolls allow one silently wrong roll of noise: both have none here
    assert compare_networks.ranked([shipped, bolder], calibrated=False) == ["bolder", "shipped"]


def test_equal_reads_go_to_the_candidate_given_first():
    same = figures(0.95)
    entries = [entry("shipped", same, same), entry("retrained", same, same)]
    assert compare_networks.ranked(entries, calibrated=True) == ["shipped", "retrained"]


def test_a_mode_no_candidate_read_ranks_nobody():
    entries = [compare_networks.entry("shipped", {"real-d6-overhead": figures(0.9)})]
    assert compare_networks.ranked(entries, calibrated=True) == []
    result = compare_networks.result([], entries)
    assert result["figures"]["ranked"] == {"calibrated": [], "generic": ["shipped"]}


def test_a_folder_without_networks_is_no_candidate(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        compare_networks.main(["--datasets", str(tmp_path), "--candidate", f"empty={tmp_path}"])
    assert exit_.value.code == 2
    assert "holds none of" in capsys.readouterr().err


def test_two_candidates_of_one_name_are_refused(tmp_path, capsys):
    (tmp_path / lean.MODEL_FILE).write_bytes(b"a gauge")
    with pytest.raises(SystemExit):
        compare_networks.main(["--datasets", str(tmp_path),
                               "--candidate", f"a={tmp_path}", "--candidate", f"a={tmp_path}"])
    assert "a name of its own" in capsys.readouterr().err


def test_a_scene_whose_calibration_is_refused_is_refused_with_no_die_read(tmp_path):
    root = generated_set(tmp_path, ["a00004"])  # scene 4: validation
    grey = np.full((64, 64, 3), 128, np.uint8)
    for name in ("calibration", "roll_001"):
        (root / "a00004").mkdir(exist_ok=True)
        cv2.imwrite(str(root / "a00004" / f"{name}.jpg"), grey)
    blind = Stages(find_dice=lambda frame, side=None: [], read_faces=lambda frame, boxes: [],
                   gauge_lean=lambda frame, boxes: [], read_top_faces=lambda frame, corners: [])
    read = compare_networks.read_sets(lambda *, calibrated: blind,
                                      [(load_recorded_set(root), None)])
    # No dice, so the calibration is refused: the appliance asks for a new one and takes no roll.
    # Read without a calibration, nothing would check the count and the missed die would make a
    # silently wrong roll of a scene the appliance never reads.
    assert list(read) == ["dr-test calibrated"]
    assert read["dr-test calibrated"]["rolls"] == 1
    assert read["dr-test calibrated"]["dice_right"] == 0.0
    assert read["dr-test calibrated"]["silently_wrong_rolls"] == 0


def test_each_mode_s_rolls_are_read_by_that_mode_s_stages(tmp_path):
    seen = {}
    read = compare_networks.read_sets(stages_recording_frame_sides(seen),
                                      [(appliance_and_generic_scene(tmp_path), None)])
    assert set(read) == {"dr-test calibrated", "dr-test"}
    assert seen == {True: {64}, False: {72}}
