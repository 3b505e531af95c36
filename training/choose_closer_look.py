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
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import reader
from training import one_constant
from training.choose_thresholds import overridden
from training.one_constant import Constant

# The candidates: no closer look, then dice at 20, 24 and 32 px instead of 16.
LOOKS = (1.0, 1.25, 1.5, 2.0)
CLOSER_LOOK = Constant(
    knob="closer_look", benchmark="closer_look",
    title="How much closer a roll short of dice is looked at, chosen on validation data "
          "(training/choose_closer_look.py)",
    caption="Calibrated validation rolls by how much closer a roll short of dice is looked at",
    column="closer look (times the target side)")

table = partial(one_constant.reread, CLOSER_LOOK,
                partial(overridden, reader, "CLOSER_LOOK"), LOOKS)


def main(argv: list[str] | None = None) -> int:
    return one_constant.main(CLOSER_LOOK, __doc__.split("\n\n")[0], argv,
                             one_constant.calibrated_rolls, table)


if __name__ == "__main__":
    sys.exit(main())
