"""Choose the lean from which a die is cocked without a calibration, on validation data.

    python training/choose_generic_lean.py --datasets ../shared/datasets \
        [--generated /work/renders/dr2valg] [--scenes N] \
        [--out benchmarks/results/generic_cocked_lean.json]

``reader.GENERIC_COCKED_LEAN_DEG``: read without a calibration, a die the gauge
(``pi_reader.vision.lean``) sees leaning at least this far is cocked, its value not taken. It
is chosen on the generic validation rolls: the validation splits of the real photo sets (which
label no cocked die, so there the gauge can only take readable dice away) and the generic
scenes of any generated set given (dice thrown on any table, under any camera, some leaning on
another), by the generic rule of ``choose_thresholds.py`` (``training/one_constant.py``), ties
going to the smaller lean (it refuses first on scenes unlike the validation data). Every
candidate reads every roll with the networks. Test splits and the qwixx-rendered sets are never
read here.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import reader
from training import one_constant
from training.choose_thresholds import overridden
from training.data import REAL_SETS
from training.one_constant import Constant

# The candidates, in degrees: the calibrated cut, then up past what the gauge says of most
# cocked dice (over 20 degrees at the median); 90 is "never cocked", the reader without the
# gauge.
LEAN_DEGS = (6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 25.0, 90.0)

GENERIC_COCKED_LEAN = Constant(
    knob="generic_cocked_lean_deg", benchmark="generic_cocked_lean",
    title="The lean from which a die is cocked without a calibration, chosen on validation "
          "data (training/choose_generic_lean.py)",
    caption="Generic validation rolls by the lean from which a die is cocked",
    column="cocked from (degrees)",
    calibrated=False, shared_sets=REAL_SETS)

table = partial(one_constant.reread, GENERIC_COCKED_LEAN,
                partial(overridden, reader, "GENERIC_COCKED_LEAN_DEG"), LEAN_DEGS)


def main(argv: list[str] | None = None) -> int:
    return one_constant.main(GENERIC_COCKED_LEAN, __doc__.split("\n\n")[0], argv,
                             one_constant.generic_rolls, table)


if __name__ == "__main__":
    sys.exit(main())
