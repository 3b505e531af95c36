"""Choose how much two found boxes must share to be one die found twice, on validation data.

    python training/choose_seen_twice.py --datasets ../shared/datasets \
        [--generated /work/renders/dr2val] [--scenes N] [--out benchmarks/results/seen_twice.json]

``finding.SEEN_TWICE``: of two dice found whose boxes share at least this much of the smaller
box, the weaker detection goes (a die seen obliquely gives a peak on its top face and another on
a side face). Only generic reads ask it (a calibrated read looks straight down and counts its
dice), so it is chosen on the generic validation rolls: the validation splits of the real photo
sets and the generic scenes of any generated set given, by the generic rule of
``choose_thresholds.py`` (``training/one_constant.py``), ties going to the larger share (the one
that drops fewer boxes; above 1 no box is dropped). The rule acts on the classifier's readings,
so every candidate reads every roll with the networks. Test splits and the qwixx-rendered sets
are never read here.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import finding
from training import one_constant
from training.choose_thresholds import overridden
from training.data import REAL_SETS
from training.one_constant import Constant

# The candidates, shares of the smaller box: from what two dice side by side may share with a
# loose box to all of it; 1.1 is "never", the reader without the rule.
SHARES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.1)
SEEN_TWICE = Constant(
    knob="seen_twice", benchmark="seen_twice",
    title="How much two boxes share to be one die found twice, chosen on validation data "
          "(training/choose_seen_twice.py)",
    caption="Validation rolls by the share of the smaller box from which two boxes are one die",
    column="one die from (share of the smaller box)",
    calibrated=False, shared_sets=REAL_SETS, safer="larger")

table = partial(one_constant.reread, SEEN_TWICE, partial(overridden, finding, "SEEN_TWICE"),
                SHARES)


def main(argv: list[str] | None = None) -> int:
    return one_constant.main(SEEN_TWICE, __doc__.split("\n\n")[0], argv,
                             one_constant.generic_rolls, table)


if __name__ == "__main__":
    sys.exit(main())
