"""Replaying a recorded set through the reader and scoring it against the labels.

Each scenario is calibrated from its ``calibration`` frame when the set has one (and read in the
generic mode otherwise, or when that calibration is refused, which the report records).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pi_reader.vision.annotate import annotate, encode_jpeg
from pi_reader.vision.calibration import Calibration, CalibrationError, calibrate
from pi_reader.vision.images import load_frame
from pi_reader.vision.output_files import prepare_picture_folder, write_new_picture
from pi_reader.vision.reader import read_roll
from pi_reader.vision.recorded import RecordedSet
from pi_reader.vision.scoring import Report, score_frame
from pi_reader.vision.stages import Stages

Progress = Callable[[int, int, str], None]  # done, total, image


@dataclass
class ReplayResult:
    """The scored frames of a set, plus the scenarios whose calibration was refused."""

    report: Report
    calibration_errors: dict[str, str] = field(default_factory=dict)

    def summary(self) -> dict[str, object]:
        data = self.report.summary()
        data["calibration_errors"] = dict(self.calibration_errors)
        return data


def replay(
    recorded: RecordedSet,
    *,
    stages: Stages | None = None,
    annotate_dir: Path | None = None,
    progress: Progress | None = None,
    calibrated: bool = True,
) -> ReplayResult:
    """Read every roll frame of a set and score it. ``calibrated=False`` forces generic mode."""
    result = ReplayResult(report=Report())
    calibrations: dict[str | None, Calibration | None] = {}
    rolls = list(recorded.rolls())
    if annotate_dir is not None:
        prepare_picture_folder(annotate_dir)
    for done, frame in enumerate(rolls):
        if progress:
            progress(done, len(rolls), frame.image)
        if frame.scenario not in calibrations:
            calibrations[frame.scenario] = (
                _calibrate_scenario(recorded, frame.scenario, stages, result)
                if calibrated
                else None
            )
        image = load_frame(frame.path)
        start = time.perf_counter()
        reading = read_roll(image, calibrations[frame.scenario], frame.removed, stages=stages)
        seconds = time.perf_counter() - start
        score = score_frame(
            frame,
            reading,
            seconds,
            calibration_refused=str(frame.scenario) in result.calibration_errors,
        )
        result.report.add(score)
        if annotate_dir is not None and not score.right:
            picture = encode_jpeg(annotate(image, reading, frame.dice))
            write_new_picture(annotate_dir / mistake_picture_name(frame.image), picture)
    if progress:
        progress(len(rolls), len(rolls), "")
    return result


def mistake_picture_name(image: str) -> str:
    """The file name of the picture of a mistake in ``image`` (a path within the set): the path
    with its folders joined by ``_``, so distinct frames give distinct names."""
    return image.replace("/", "_").rsplit(".", 1)[0] + ".jpg"


def _calibrate_scenario(
    recorded: RecordedSet, scenario: str | None, stages: Stages | None, result: ReplayResult
) -> Calibration | None:
    frame = recorded.calibration_for(scenario)
    if frame is None:
        return None
    try:
        return calibrate(load_frame(frame.path), stages)
    except CalibrationError as error:
        result.calibration_errors[str(scenario)] = str(error)
        return None
