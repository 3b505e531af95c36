"""Choose, for each mode, whether a die its box patch leaves in doubt has its top face read too.

    python training/choose_top_faces.py --datasets ../shared/datasets \\
        --generated /work/renders/dr2val --generated /work/renders/dr8val \\
        --generated /work/renders/dr2valg [--scenes N]

``reader.READ_TOP_FACES``: a die whose value the box patch does not give surely may be read
again from its top face, the corners the lean gauge puts round it warped square
(``faces.top_face_patch``). Each mode is chosen on its own validation rolls by its own rule
(``choose_thresholds.py``): the calibrated appliance scenes calibrated from their own calibration
frame, and the real sets' validation photos with the generated generic scenes; every roll is
read again by the whole reader with the look and without it. Ties go to reading without it (the
reader as it was). Writes benchmarks/results/top_faces-generic.json, then
top_faces-calibrated.json. Test splits and the qwixx-rendered sets are never read here.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import reader
from training import one_constant
from training.data import REAL_SETS
from training.one_constant import Constant

SWITCH = (0.0, 1.0)  # without the top-face look, with it


def constant(*, calibrated: bool) -> Constant:
    mode = "calibrated" if calibrated else "generic"
    return Constant(
        knob="read_top_faces", benchmark=f"top_faces-{mode}",
        title=f"Whether a {mode} read looks at the top face of a die its box patch leaves in "
              "doubt, chosen on validation data (training/choose_top_faces.py)",
        caption=f"{mode.capitalize()} validation rolls without (0) and with (1) the top-face "
                "look",
        column="top faces read", calibrated=calibrated,
        shared_sets=() if calibrated else REAL_SETS)


@contextmanager
def switched(calibrated: bool, value: float) -> Iterator[None]:
    """reader.READ_TOP_FACES of one mode set to ``value`` (0 or 1) for the duration."""
    before = reader.READ_TOP_FACES[calibrated]
    reader.READ_TOP_FACES[calibrated] = bool(value)
    try:
        yield
    finally:
        reader.READ_TOP_FACES[calibrated] = before


def main(argv: list[str] | None = None) -> int:
    description = __doc__.split("\n\n")[0]
    for calibrated in (False, True):
        chosen = constant(calibrated=calibrated)
        rolls_of = one_constant.calibrated_rolls if calibrated else one_constant.generic_rolls
        table = partial(one_constant.reread, chosen, partial(switched, calibrated), SWITCH)
        status = one_constant.main(chosen, description, argv, rolls_of, table)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
