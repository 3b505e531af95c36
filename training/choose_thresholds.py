"""Choose the reader's decision thresholds on the validation splits, and say why.

    python training/choose_thresholds.py --datasets ../shared/datasets \
        --generated /work/renders/dr1 [--scenes N] [--out benchmarks/results/thresholds.json]

The thresholds are the detector's ``PEAK_THRESHOLD`` and the reader's ``MIN_VALUE_CONFIDENCE``
and ``MIN_VIEW_AGREEMENT``. Every validation frame (the generated scenes' validation split,
appliance scenes calibrated from their own calibration frame; the real sets' validation splits
in the generic mode) is read once by the networks, their answers kept, and the whole reader is
then run again over those answers for every combination, scored as ``replay`` scores. The rule:
no silently wrong roll on any validation set, then the fewest refused readable rolls, then the
most dice right. Test splits and the qwixx-rendered sets are never read here.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import detector, finding, reader
from pi_reader.vision.calibration import Calibration, CalibrationError, calibrate
from pi_reader.vision.detector import Box, Detection
from pi_reader.vision.faces import FaceReading
from pi_reader.vision.images import load_frame
from pi_reader.vision.recorded import LabelledFrame, RecordedSet
from pi_reader.vision.scoring import FrameScore, die_right, score_frame
from pi_reader.vision.stages import Stages, default_stages
from training.data import REAL_SETS, open_set, scene_index
from training.splits import select

PEAKS = (0.2, 0.3, 0.4, 0.5)
CONFIDENCES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
AGREEMENTS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
LOWEST_PEAK = min(PEAKS)


@dataclass
class Seen:
    """What the networks answered for one frame: every detection down to LOWEST_PEAK and the
    face reading of each box they were asked about."""

    detections: list[Detection]
    faces: dict[tuple[int, ...], FaceReading]


def key(box: Box) -> tuple[int, ...]:
    return tuple(round(v * 4) for v in box)


class Replayed:
    """Stages answering from what the networks said once, with detections below ``peak`` cut."""

    def __init__(self, seen: Seen, peak: float) -> None:
        self.seen, self.peak = seen, peak

    def find_dice(self, frame: np.ndarray, die_side_px: float | None = None) -> list[Detection]:
        return [d for d in self.seen.detections if d.score >= self.peak]

    def read_faces(self, frame: np.ndarray, boxes: list[Box]) -> list[FaceReading]:
        return [self.seen.faces[key(box)] for box in boxes]


def look(stages: Stages, image: np.ndarray, side: float | None) -> Seen:
    with overridden(detector, "PEAK_THRESHOLD", LOWEST_PEAK):
        found = list(stages.find_dice(image, side))
    faces = stages.read_faces(image, [d.box for d in found])
    return Seen(found, {key(d.box): f for d, f in zip(found, faces, strict=True)})


@contextmanager
def overridden(module: object, name: str, value: float) -> Iterator[None]:
    before = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, before)


def frames_to_read(recorded: RecordedSet, scenes: int | None
                   ) -> list[tuple[LabelledFrame, LabelledFrame | None]]:
    """(roll, its scenario's calibration frame or None) for the validation rolls."""
    chosen = select(recorded, "validation").frames
    if scenes is not None:
        chosen = tuple(f for f in chosen if f.scenario is None or not f.scenario[1:].isdigit()
                       or scene_index(f.scenario) < scenes)
    calibrations = {f.scenario: f for f in chosen if f.kind == "calibration"}
    return [(f, calibrations.get(f.scenario)) for f in chosen if f.kind == "roll"]


def collect(sets: list[RecordedSet], scenes: int | None
            ) -> dict[str, list[tuple[LabelledFrame, np.ndarray, Calibration | None, Seen]]]:
    stages = default_stages()
    out: dict[str, list[tuple[LabelledFrame, np.ndarray, Calibration | None, Seen]]] = {}
    for recorded in sets:
        calibrated: dict[str, Calibration | None] = {}
        rows = []
        for frame, calibration_frame in frames_to_read(recorded, scenes):
            calibration = None
            if calibration_frame is not None:
                if calibration_frame.image not in calibrated:
                    try:
                        calibrated[calibration_frame.image] = calibrate(
                            load_frame(calibration_frame.path), stages)
                    except CalibrationError:
                        calibrated[calibration_frame.image] = None
                calibration = calibrated[calibration_frame.image]
            image = load_frame(frame.path)
            side = calibration.die_side_px if calibration else None
            rows.append((frame, image, calibration, look(stages, image, side)))
        refused = sum(c is None for c in calibrated.values())
        name = recorded.root.name
        with_calibration = [r for r, (_, c) in zip(rows, frames_to_read(recorded, scenes),
                                                   strict=True) if c is not None]
        without = [r for r in rows if not any(r is w for w in with_calibration)]
        if with_calibration:
            out[f"{name} calibrated"] = with_calibration
        if without:
            out[f"{name} generic" if with_calibration else name] = without
        print(f"{name}: {len(rows)} validation rolls read, {refused} of {len(calibrated)} "
              "calibrations refused", flush=True)
    return out


def score(rows: list[tuple[LabelledFrame, np.ndarray, Calibration | None, Seen]], peak: float
          ) -> dict[str, float]:
    scores: list[FrameScore] = []
    for frame, image, calibration, seen in rows:
        replayed = Replayed(seen, peak)
        reading = reader.read_roll(image, calibration, frame.removed,
                                   stages=Stages(replayed.find_dice, replayed.read_faces))
        scores.append(score_frame(frame, reading, 0.0))
    scored = [s for s in scores if s.scored]
    readable = [s for s in scored if s.fully_readable]
    labels = [(label, die) for s in scored for label, die in s.pairs if label.value is not None]
    dice = sum(1 for s in scored for label in s.labels if label.value is not None)
    right = sum(1 for label, die in labels if die_right(label, die))
    return {
        "rolls": len(scored),
        "dice_right": round(right / max(dice, 1), 4),
        "silently_wrong_rolls": sum(s.silently_wrong for s in scored),
        "refusal_rate": round(sum(s.refused for s in readable) / max(len(readable), 1), 4),
        "phantoms": sum(len(s.phantoms) for s in scored),
        "phantom_rate": round(sum(len(s.phantoms) for s in scored) / max(dice, 1), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--generated", type=Path, action="append", default=[])
    parser.add_argument("--scenes", type=int)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/thresholds.json"))
    args = parser.parse_args(argv)
    sets = [open_set(args.datasets, name) for name in REAL_SETS]
    sets += [open_set(args.datasets, str(path)) for path in args.generated]
    rows = collect(sets, args.scenes)
    table = []
    for peak, confidence, agreement in itertools.product(PEAKS, CONFIDENCES, AGREEMENTS):
        with overridden(finding, "MIN_VALUE_CONFIDENCE", confidence), \
                overridden(finding, "MIN_VIEW_AGREEMENT", agreement):
            per_set = {name: score(r, peak) for name, r in rows.items()}
        table.append({"peak_threshold": peak, "min_value_confidence": confidence,
                      "min_view_agreement": agreement, "sets": per_set})
    def rank(entry: dict) -> tuple[float, ...]:
        calibrated = [s for name, s in entry["sets"].items() if name.endswith(" calibrated")]
        return (sum(s["silently_wrong_rolls"] for s in calibrated),
                -float(np.mean([s["dice_right"] - 3 * s["phantom_rate"]
                                for s in entry["sets"].values()])),
                float(np.mean([s["refusal_rate"] for s in calibrated])) if calibrated else 0.0)
    best = min(table, key=rank)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "command": "python training/choose_thresholds.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "rule": "no silently wrong calibrated validation roll, then the most dice right less "
                "three times the phantom rate (mean over the validation sets), then the fewest "
                "refused readable calibrated rolls",
        "chosen": {k: best[k] for k in ("peak_threshold", "min_value_confidence",
                                        "min_view_agreement")},
        "chosen_figures": best["sets"], "table": table}, indent=1) + "\n")
    print(json.dumps({k: best[k] for k in best if k != "sets"}), json.dumps(best["sets"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
