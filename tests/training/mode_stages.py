"""A generated set with rolls of both modes, and stages by mode that note what each mode read:
for checking that a tool reads each mode's rolls with that mode's networks."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision.recorded import RecordedSet, load_recorded_set
from pi_reader.vision.stages import Stages, StagesByMode


def appliance_and_generic_scene(tmp_path: Path) -> RecordedSet:
    """A generated set of an appliance scene (calibrated, 64 px frames) and a generic one (no
    calibration frame, 72 px), both in the validation split."""
    root = tmp_path / "dr-test"
    root.mkdir()
    (root / "manifest.json").write_text(json.dumps({"split_rule": "scene index mod 20"}))
    frames = {"a00004/calibration.jpg": ("calibration", 64), "a00004/roll_001.jpg": ("roll", 64),
              "g00005/roll_001.jpg": ("roll", 72)}
    lines = []
    for image, (kind, side) in frames.items():
        (root / image).parent.mkdir(exist_ok=True)
        cv2.imwrite(str(root / image), np.full((side, side, 3), 128, np.uint8))
        lines.append(json.dumps({"image": image, "scenario": image.split("/")[0], "kind": kind,
                                 "dice": [{"colour": "red", "value": 2, "box": [1, 1, 5, 5]}]}))
    (root / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return load_recorded_set(root)


def stages_recording_frame_sides(seen: dict[bool, set[int]]) -> StagesByMode:
    """Stages by mode that find no die and note each frame's side under the mode asked."""
    def by_mode(*, calibrated: bool) -> Stages:
        def find(frame: np.ndarray, side: float | None = None) -> list:
            seen.setdefault(calibrated, set()).add(frame.shape[0])
            return []
        return Stages(find_dice=find, read_faces=lambda frame, boxes: [],
                      gauge_lean=lambda frame, boxes: [],
                      read_top_faces=lambda frame, corners: [])
    return by_mode
