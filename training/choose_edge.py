"""Choose the share of a die past the frame's edge from which its face is cut, on validation data.

    python training/choose_edge.py --datasets ../shared/datasets --generated /work/renders/dr2val \\
        [--scenes N] [--out benchmarks/results/edge_cut.json]

``reader.EDGE_CUT_SHARE``: a die whose box reaches this share of its side past the frame's edge
may show a top face the edge cuts, so its value is not taken. It is chosen on the calibrated
validation rolls (appliance scenes calibrated from their own calibration frame, where a die
pushed against the frame's edge is the tray's commonest way of being cut), at the reader's value
thresholds as ``choose_thresholds.py`` chose them, by that script's calibrated rule: silently
wrong rolls at most one above the fewest any candidate reaches, then the most dice right less
three times the dice misread and invented, then the fewest refused readable rolls, then the
larger share (it refuses fewer dice on scenes unlike the validation data). Each frame is read
once by the networks, then the whole reader is run over their answers for every candidate.
Test splits and the qwixx-rendered sets are never read here.
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

# The candidates, as shares of the die's longer side: from a box a twentieth of a die past the
# edge (the detector's boxes are a sixth of a die off at their 95th percentile, so a die wholly
# in view reaches that far now and then) to half a die; 1 is "never cut", the reader without the
# check (the detector puts a die's centre inside the frame, so its box is never half out).
SHARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 1.0)


EDGE_CUT = Constant(
    knob="edge_cut_share", benchmark="edge_cut",
    title="The share of a die past the frame's edge from which its face is cut, chosen on "
          "validation data (training/choose_edge.py)",
    caption="Calibrated validation rolls by the share of a die past the frame's edge from "
            "which its value is not taken",
    column="cut from (share of the die)", safer="larger")


def table(rows: dict[str, list[Row]]) -> list[dict[str, Any]]:
    """Each candidate with the figures of every calibrated validation set read at it."""
    return one_constant.swept(EDGE_CUT, reader, "EDGE_CUT_SHARE", SHARES, rows)


def main(argv: list[str] | None = None) -> int:
    return one_constant.main(EDGE_CUT, __doc__.split("\n\n")[0], argv,
                             one_constant.calibrated_rows, table)


if __name__ == "__main__":
    sys.exit(main())
