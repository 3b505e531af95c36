"""Choose the lean from which the reader calls a die cocked, on the generated validation scenes.

    python training/choose_lean.py --datasets ../shared/datasets --generated /work/renders/dr2 \
        [--scenes N] [--out benchmarks/results/cocked_lean.json]

``reader.COCKED_LEAN_DEG``: a die the gauge (``pi_reader.vision.lean``) sees leaning at least
this far is cocked, its value not taken. It is the calibrated reads' cut (the generic one is
``choose_generic_lean.py``'s), so it is chosen on the calibrated validation rolls (appliance
scenes calibrated from their own calibration frame), at the reader's value thresholds as
``choose_thresholds.py`` chose them, by that script's calibrated rule without its allowance:
the fewest silently wrong rolls any candidate reaches, then the most dice right less three times
the dice misread and invented, then the fewest refused readable rolls, then the smaller lean (it
refuses first on scenes unlike the validation data).
Each frame is read once by the networks, then the whole reader is run over their answers for
every candidate. Test splits and the qwixx-rendered sets are never read here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import reader
from training import one_constant
from training.choose_thresholds import Row
from training.one_constant import Constant

# The candidates, in degrees: from just above SURE_FLAT_DEG (under it a die is gauged from one
# turn only) to past what the gauge says of most cocked dice; 90 is "never cocked", the reader
# without the gauge. 4 and 5 are back since the averaged gauge (average_gauges.py) puts flat
# dice lower: it calls a quarter fewer of the huddles' flat dice cocked at the cut that lets as
# many cocked dice through (docs/reader-history.md, *Two gauges averaged*).
LEAN_DEGS = (4.0, 5.0, 6.0, 8.0, 11.0, 14.0, 17.0, 20.0, 25.0, 30.0, 90.0)
# The cut is the one constant whose only work is to keep cocked dice out of the game, and what
# it lets through is not label noise: on the calibrated validation rolls, a cut one degree
# higher than the fewest wrong rolls allow let through a die leaning 29 degrees, its roll read
# wrong, for one roll in a hundred refused less. So it allows none above the fewest.
SILENT_ALLOWANCE = 0


COCKED_LEAN = Constant(
    knob="cocked_lean_deg", benchmark="cocked_lean",
    title="The lean from which a die is cocked, chosen on validation data "
          "(training/choose_lean.py)",
    caption="Calibrated validation rolls by the lean from which a die is cocked",
    column="cocked from (degrees)", silent_allowance=SILENT_ALLOWANCE)


def table(rows: dict[str, list[Row]]) -> list[dict[str, Any]]:
    """Each candidate with the figures of every calibrated validation set read at it."""
    return one_constant.swept(COCKED_LEAN, reader, "COCKED_LEAN_DEG", LEAN_DEGS, rows)


def main(argv: list[str] | None = None) -> int:
    return one_constant.main(COCKED_LEAN, __doc__.split("\n\n")[0], argv,
                             one_constant.calibrated_rows, table)


if __name__ == "__main__":
    sys.exit(main())
