"""How the calibrated reader holds up when the camera or the light changes: each recorded scenario
is replayed with its calibration frame and its rolls changed alike (white balance, exposure,
gamma, blur, noise, JPEG, scale), as if another camera or lamp had recorded it. The change
``closeup`` instead crops each roll to its own dice (a die's side of margin) and scales it to
1024 px, as a camera much closer to the dice would see them: read in the generic mode, since no
calibration frame fits every crop (``--sets real-d6-overhead --changes none closeup``).

Run: ``python benchmarks/bench_robustness.py [--sets NAME ...] [--datasets DIR]
[--changes NAME ...] [--drift] [--json [PATH]]`` (the result file is
``benchmarks/results/robustness.json``, with ``--drift`` ``robustness-drift.json``).

Printed per set and change: dice with colour and value right, dice given a wrong value or colour
(rather than none), silently wrong rolls (taken with no problem reported though a die is wrong,
missed or invented: the failures that spoil a game), refused rolls, and the scenarios whose
calibration was refused (their rolls are then refused, as by the appliance, and read in generic
mode, as ``replay`` does, where colours are only guesses). The unchanged row is the baseline.
Apart from ``closeup``, only sets with calibration frames are meaningful here. ``--drift``
calibrates on the calibration frames as recorded and changes only the rolls: the lamp or the
camera's white balance changed after calibration.

The table is printed row by row as it is measured, since a set takes minutes; with ``--json``
alone it goes to stderr, so that stdout holds only the JSON.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/result_file.py
from benchmarks.result_file import add_json_option, emit
from pi_reader.vision.calibration import Calibration, CalibrationError, calibrate
from pi_reader.vision.images import load_frame
from pi_reader.vision.reader import read_roll
from pi_reader.vision.recorded import (
    LabelledFrame,
    RecordedSet,
    RecordedSetError,
    load_recorded_set,
    shared_sets_dir,
)
from pi_reader.vision.scoring import score_frame

DEFAULT_SETS = ("qwixx-rendered", "qwixx-rendered-more")
REPO = Path(__file__).resolve().parent.parent
COLUMNS = ["set", "change", "dice right", "dice wrong", "silently wrong rolls", "rolls refused",
           "calibrations refused"]


def _gains(b: float, g: float, r: float) -> Callable[[np.ndarray], np.ndarray]:
    def apply(image: np.ndarray) -> np.ndarray:
        scaled = image.astype(np.float32) * np.array([b, g, r], np.float32)
        return np.clip(scaled, 0, 255).astype(np.uint8)

    return apply


def _gamma(power: float) -> Callable[[np.ndarray], np.ndarray]:
    table = np.clip(((np.arange(256) / 255.0) ** power) * 255.0, 0, 255).astype(np.uint8)
    return lambda image: cv2.LUT(image, table)


def _jpeg(quality: int) -> Callable[[np.ndarray], np.ndarray]:
    def apply(image: np.ndarray) -> np.ndarray:
        encoded, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if encoded else None
        if decoded is None:
            raise ValueError(f"the frame did not survive JPEG at quality {quality}")
        return decoded

    return apply


def _noise(sigma: float) -> Callable[[np.ndarray], np.ndarray]:
    def apply(image: np.ndarray) -> np.ndarray:
        noise = np.random.default_rng(0).normal(0.0, sigma, image.shape)
        return np.clip(image + noise, 0, 255).astype(np.uint8)

    return apply


def _scale(factor: float) -> Callable[[np.ndarray], np.ndarray]:
    method = cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR
    return lambda image: cv2.resize(image, None, fx=factor, fy=factor, interpolation=method)


Reframe = Callable[[np.ndarray, LabelledFrame], tuple[np.ndarray, LabelledFrame]]
CLOSEUP_PX = 1024


def _close_up(image: np.ndarray, frame: LabelledFrame) -> tuple[np.ndarray, LabelledFrame]:
    """The frame cropped to its dice with a die's side of margin, long side scaled to CLOSEUP_PX;
    the labels moved with it."""
    if not frame.dice:
        return image, frame
    margin = float(np.median([max(d.box[2], d.box[3]) for d in frame.dice]))
    x0 = max(0, int(min(d.box[0] for d in frame.dice) - margin))
    y0 = max(0, int(min(d.box[1] for d in frame.dice) - margin))
    x1 = min(image.shape[1], int(max(d.box[0] + d.box[2] for d in frame.dice) + margin))
    y1 = min(image.shape[0], int(max(d.box[1] + d.box[3] for d in frame.dice) + margin))
    factor = CLOSEUP_PX / max(x1 - x0, y1 - y0)
    method = cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR
    crop = cv2.resize(image[y0:y1, x0:x1], None, fx=factor, fy=factor, interpolation=method)
    dice = tuple(
        replace(d, box=((d.box[0] - x0) * factor, (d.box[1] - y0) * factor,
                        d.box[2] * factor, d.box[3] * factor))
        for d in frame.dice
    )
    return crop, replace(frame, dice=dice)


@dataclass(frozen=True)
class Change:
    """One way the recording could have been made differently; ``scale`` moves the labels, and
    ``reframe`` crops each roll around its own dice (no calibration then: generic mode)."""

    apply: Callable[[np.ndarray], np.ndarray]
    scale: float = 1.0
    reframe: Reframe | None = None


CHANGES: dict[str, Change] = {
    "none": Change(lambda image: image),
    "warm": Change(_gains(0.75, 0.95, 1.1)),  # a warmer lamp than at recording
    "cool": Change(_gains(1.15, 1.0, 0.85)),
    "darker": Change(_gains(0.7, 0.7, 0.7)),
    "gamma0.7": Change(_gamma(0.7)),
    "gamma1.4": Change(_gamma(1.4)),
    "blur": Change(lambda image: cv2.GaussianBlur(image, (0, 0), 1.2)),
    "noise": Change(_noise(5.0)),
    "jpeg50": Change(_jpeg(50)),
    "scale0.7": Change(_scale(0.7), 0.7),
    "scale1.3": Change(_scale(1.3), 1.3),
    "closeup": Change(lambda image: image, reframe=_close_up),
}


def _scaled_labels(frame: LabelledFrame, factor: float) -> LabelledFrame:
    def scaled(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        x, y, w, h = box
        return x * factor, y * factor, w * factor, h * factor

    return replace(frame, dice=tuple(replace(die, box=scaled(die.box)) for die in frame.dice))


@dataclass(frozen=True)
class Outcome:
    """How one changed set was read."""

    dice_right: float  # share of the labelled dice
    dice_wrong: int  # given a wrong value or colour, whether the roll was refused or not
    silently_wrong_rolls: int  # scored rolls taken with no problem reported, yet not right
    rolls_refused: float  # share of the scored rolls
    calibrations_refused: list[str]


def run(recorded: RecordedSet, change: Change, drift: bool = False) -> Outcome:
    """Read one changed set; with ``drift`` the calibration frames are left as recorded (the
    change came later)."""
    right = total = wrong = silently_wrong = scored = refused_rolls = 0
    refused = []
    calibrations: dict[str | None, Calibration | None] = {}
    for frame in recorded.rolls():
        if frame.scenario not in calibrations:
            cal_frame = None if change.reframe else recorded.calibration_for(frame.scenario)
            try:
                recorded_frame = load_frame(cal_frame.path) if cal_frame else None
                calibrations[frame.scenario] = (
                    None if recorded_frame is None
                    else calibrate(recorded_frame if drift else change.apply(recorded_frame))
                )
            except CalibrationError:
                calibrations[frame.scenario] = None
                refused.append(str(frame.scenario))
        image = change.apply(load_frame(frame.path))
        labels = _scaled_labels(frame, change.scale)
        if change.reframe:
            image, labels = change.reframe(image, labels)
        reading = read_roll(image, calibrations[frame.scenario], frame.removed)
        score = score_frame(labels, reading, 0.0,
                            calibration_refused=str(frame.scenario) in refused)
        total += len(frame.dice)
        right += len(score.pairs) - len(score.wrong)
        wrong += sum(1 for _, die in score.wrong if die.value is not None)
        scored += score.scored
        silently_wrong += score.silently_wrong
        refused_rolls += score.scored and score.refused
    return Outcome(right / max(total, 1), wrong, silently_wrong, refused_rolls / max(scored, 1),
                   refused)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS))
    parser.add_argument(
        "--datasets",
        type=Path,
        default=shared_sets_dir(REPO),
    )
    parser.add_argument("--changes", nargs="+", choices=list(CHANGES), default=list(CHANGES))
    parser.add_argument("--drift", action="store_true",
                        help="calibrate on the frames as recorded: the light changed afterwards "
                             "(changes of scale or framing are left out)")
    add_json_option(parser)
    args = parser.parse_args(argv)
    recorded_sets = {}
    for name in args.sets:  # a missing or broken set is a usage message before any reading
        try:
            recorded_sets[name] = load_recorded_set(args.datasets / name)
        except RecordedSetError as error:
            parser.error(str(error))
    cv2.setNumThreads(1)
    out = sys.stderr if args.json == "-" else sys.stdout
    print("| " + " | ".join(COLUMNS) + " |", file=out)
    print("|" + "---|" * len(COLUMNS), file=out)
    measured: list[dict[str, object]] = []
    rows: list[list[str]] = []
    for name in args.sets:
        for change in args.changes:
            if args.drift and (CHANGES[change].scale != 1.0 or CHANGES[change].reframe):
                continue
            outcome = run(recorded_sets[name], CHANGES[change], args.drift)
            row = [name, change, f"{100 * outcome.dice_right:.1f}%", str(outcome.dice_wrong),
                   str(outcome.silently_wrong_rolls), f"{100 * outcome.rolls_refused:.1f}%",
                   ", ".join(outcome.calibrations_refused) or "-"]
            print("| " + " | ".join(row) + " |", file=out, flush=True)
            rows.append(row)
            measured.append({"set": name, "change": change, **asdict(outcome)})
    emit(
        args.json,
        "robustness-drift" if args.drift else "robustness",
        ("Robustness: the light changed after calibration" if args.drift
         else "Robustness: the calibrated reader with another camera or light"),
        {"drift": args.drift, "results": measured},
        tables=[{
            "caption": ("each change applied to the rolls only, calibrated on the frames as "
                        "recorded" if args.drift
                        else "each change applied to the calibration frames and the rolls alike"),
            "columns": COLUMNS,
            "rows": rows,
        }],
        notes="The change none is the baseline. Dice wrong are given a wrong value or colour "
        "rather than none, in rolls refused or not; silently wrong rolls are taken with no "
        "problem reported though not right: the failures that matter. A scenario whose "
        "calibration was refused has its rolls refused and read in generic mode, where colours "
        "are only guesses; closeup crops each roll to its own dice and reads it in generic "
        "mode.",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
