"""The pip reader over whole recorded sets, on the labels' boxes (slow: CI's second step).

Floors sit a little under the figures measured with ``benchmarks/bench_pips.py`` (see the
README), on the frames the classifier never trained on, so a regression shows without the test
flapping on a one-die difference.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

# set name -> (least share read right, most share read wrong), label boxes, default threshold
# (measured: 90.7% / 0, 96.9% / 0, 76.2% / 0, 95.3% / 0.3%)
FLOORS: dict[str, tuple[float, float]] = {
    "qwixx-rendered": (0.88, 0.005),
    "qwixx-rendered-touching": (0.94, 0.011),
    "qwixx-rendered-more": (0.73, 0.011),
    "real-d6-overhead": (0.93, 0.01),
}


@pytest.mark.slow
def test_pip_reader_meets_its_measured_figures(datasets_dir: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "bench_pips.py"), "--json",
         "--datasets", str(datasets_dir), "--split", "held-out"],
        check=True, capture_output=True, text=True, cwd=REPO_ROOT,
    )
    report = json.loads(completed.stdout)
    for set_name, (least_right, most_wrong) in FLOORS.items():
        summary = report["sets"][set_name]["label boxes"]
        assert summary["right"] >= least_right, (set_name, summary)
        assert summary["wrong"] <= most_wrong, (set_name, summary)
