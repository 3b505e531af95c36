"""Choose how much closer a calibrated roll short of dice is looked at, on validation scenes.

    python training/choose_closer_look.py --datasets ../shared/datasets \
        --generated /work/renders/dr2val [--scenes N] [--out benchmarks/results/closer_look.json]

``reader.CLOSER_LOOK``: a calibrated roll refused only for missing dice is read again with its
dice looked for that many times the detector's target size, and the closer reading is taken when
it reports no problem. Only calibrated reads look closer, so it is chosen on the calibrated
validation rolls (appliance scenes calibrated from their own calibration frame), by the
calibrated rule of ``choose_thresholds.py`` (``training/one_constant.py``), ties going to the
smaller look (the cheaper one; 1 is no closer look). The closer look asks the detector for
another scale, so every candidate reads every roll with the networks (unlike the choosers that
replay one reading). Test splits and the qwixx-rendered sets are never read here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import reader
from pi_reader.vision.calibration import Calibration
from pi_reader.vision.images import load_frame
from pi_reader.vision.recorded import LabelledFrame, RecordedSet
from pi_reader.vision.scoring import score_frame
from pi_reader.vision.stages import default_stages
from training import one_constant
from training.choose_thresholds import calibration_of, figures, frames_to_read, overridden
from training.one_constant import Constant, entry

# The candidates: no closer look, then dice at 20, 24 and 32 px instead of 16.
LOOKS = (1.0, 1.25, 1.5, 2.0)
CLOSER_LOOK = Constant(
    knob="closer_look", benchmark="closer_look",
    title="How much closer a roll short of dice is looked at, chosen on validation data "
          "(training/choose_closer_look.py)",
    caption="Calibrated validation rolls by how much closer a roll short of dice is looked at",
    column="closer look (times the target side)")

Roll = tuple[LabelledFrame, Calibration]


def calibrated_rolls(recorded: RecordedSet, scenes: int | None) -> list[Roll]:
    """The set's validation rolls whose scenario calibrates, each with its calibration."""
    stages = default_stages()
    calibrated: dict[str, Calibration | None] = {}
    rolls = []
    for frame, calibration_frame in frames_to_read(recorded, scenes):
        calibration = calibration_of(calibration_frame, calibrated, stages)
        if calibration is not None:
            rolls.append((frame, calibration))
    return rolls


def table(sets: dict[str, list[Roll]]) -> list[dict[str, Any]]:
    """Each candidate with the figures of every calibrated validation set read at it."""
    stages = default_stages()
    entries = []
    for look in LOOKS:
        with overridden(reader, "CLOSER_LOOK", look):
            scored = {name: figures([score_frame(frame, reader.read_roll(
                load_frame(frame.path), calibration, frame.removed, stages=stages), 0.0)
                for frame, calibration in rolls]) for name, rolls in sets.items()}
        entries.append(entry(CLOSER_LOOK, look, scored))
        print(f"closer look {look:g}: {scored}", flush=True)
    return entries


def calibrated_sets(sets: list[tuple[RecordedSet, int | None]]) -> dict[str, list[Roll]]:
    """Each set's calibrated validation rolls, by set name (sets without any left out)."""
    rolls = {f"{r.root.name} calibrated": calibrated_rolls(r, limit) for r, limit in sets}
    return {name: kept for name, kept in rolls.items() if kept}


def main(argv: list[str] | None = None) -> int:
    return one_constant.main(CLOSER_LOOK, __doc__.split("\n\n")[0], argv, calibrated_sets,
                             table)


if __name__ == "__main__":
    sys.exit(main())
