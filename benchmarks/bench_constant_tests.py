"""Which of the reader's constants the test suite holds: each moved to half and to double.

Run: ``python benchmarks/bench_constant_tests.py [--constants MODULE.NAME ...] [--out PATH]``
(every constant of ``bench_sensitivity.CONSTANTS``; ``--jobs`` suites at once, by default one
per core: about half an hour here on two). Writes
``benchmarks/results/constant_tests.json`` and prints a line per constant.

Issue 13 asks for a test that fails whenever a constant that changes a read is set to another
value. For each constant, at half and at double its value (set wherever it is bound, as
``bench_sensitivity.overridden`` does), the default suite's reader tests run in a fresh
interpreter and stop at the first failure, and where none fails the whole default suite runs:
the constant is *held* on that side when a test fails. A side not held is a gap in the tests,
or a side at which no validation read changes (the constant's comment then says so). Nothing is
read but the tests' own data.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from benchmarks.bench_sensitivity import CONSTANTS, FACTORS, VISION, scaled
from benchmarks.result_file import provenance

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "results" / "constant_tests.json"
SUITE = ("tests/vision",)  # the reader's tests in the default suite, run first
WHOLE_SUITE = ("tests",)  # the default suite, for a side the reader's tests leave unheld
MARKERS = "not slow and not browser"  # the default suite's selection (.ci/run)
# pytest's exit codes: 0 every test passed, 1 some failed; any other is the run's own failure.
ALL_PASSED, SOME_FAILED = 0, 1


class SuiteError(RuntimeError):
    """The suite could not be run at all (collection error, usage error, interrupted)."""


def suite_fails(constant: str, value: object, suite: Sequence[str] = SUITE) -> bool:
    """Whether a test of ``suite`` fails with ``constant`` set to ``value``."""
    code = (
        "import sys, pytest\n"
        "from benchmarks.bench_sensitivity import overridden\n"
        f"with overridden({constant!r}, {value!r}):\n"
        f"    status = pytest.main(['-q', '-x', '-p', 'no:cacheprovider', '-m', {MARKERS!r},"
        f" *{list(suite)!r}])\n"
        "sys.exit(int(status))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, check=False)
    if done.returncode not in (ALL_PASSED, SOME_FAILED):
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
        raise SuiteError(f"{constant} = {value!r}: the suite did not run "
                         f"(exit {done.returncode}):\n{tail}")
    return done.returncode == SOME_FAILED


def checked(constant: str, suites: Sequence[Sequence[str]] | None = None,
            jobs: int = 1) -> dict[str, Any]:
    """A constant's value and, at each of FACTORS, the value tried and the first of ``suites``
    (SUITE then WHOLE_SUITE by default) a test of which fails with it (``held_by``, None when
    none does). The sides run ``jobs`` at a time, each suite in its own interpreter."""
    suites = suites or (SUITE, WHOLE_SUITE)
    module_name, name = constant.split(".")
    value = getattr(importlib.import_module(f"{VISION}.{module_name}"), name)
    moved = [scaled(value, factor) for factor in FACTORS]

    def held_by(side: object) -> str | None:
        return next((" ".join(suite) for suite in suites if suite_fails(constant, side, suite)),
                    None)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        holders = list(pool.map(held_by, moved))
    row: dict[str, Any] = {"constant": constant, "value": value}
    for factor, side, holder in zip(FACTORS, moved, holders, strict=True):
        row[f"x{factor:g}"] = {"value": side, "held": holder is not None, "held_by": holder}
    return row


def result(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """The rows as a result file (benchmarks/result_file.py's shape)."""
    sides = [row[f"x{factor:g}"] for row in rows for factor in FACTORS]
    held = sum(side["held"] for side in sides)
    return {
        "benchmark": "constant_tests",
        "title": "Which reader constants the test suite holds (each at half and at double)",
        **provenance(),
        "seconds": round(seconds),
        "notes": f"{held} of {len(sides)} sides held: with the constant there, a test of the "
                 f"reader's ({' '.join(SUITE)}) or else of the whole default suite "
                 f"({' '.join(WHOLE_SUITE)}) fails. A side not held is a gap in the tests or one "
                 "at which no validation read changes (the constant's comment says which).",
        "figures": {"rows": rows, "held_sides": held, "sides": len(sides)},
        "tables": [{
            "caption": "The default suite run with each constant moved",
            "columns": ["constant", "value", *(f"at x{factor:g}" for factor in FACTORS)],
            "rows": [[row["constant"], f"{row['value']:g}",
                      *(_side_text(row[f"x{factor:g}"]) for factor in FACTORS)]
                     for row in rows],
        }],
    }


def _side_text(side: dict[str, Any]) -> str:
    if not side["held"]:
        return f"{side['value']:g}: not held"
    where = "" if side["held_by"] == " ".join(SUITE) else f" (by {side['held_by']})"
    return f"{side['value']:g}: held{where}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--constants", nargs="+", default=list(CONSTANTS), metavar="MODULE.NAME")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="suites run at once (default: the cores this process may use)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    unknown = [c for c in args.constants if c not in CONSTANTS]
    if unknown:
        parser.error(f"not in bench_sensitivity's list of constants: {', '.join(unknown)}")
    started = time.perf_counter()
    rows = []
    try:
        for constant in args.constants:
            rows.append(checked(constant, jobs=args.jobs))
            print(f"{constant} {rows[-1]['value']:g}: "
                  + ", ".join(_side_text(rows[-1][f"x{f:g}"]) for f in FACTORS), flush=True)
    except SuiteError as error:
        print(f"bench_constant_tests: {error}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result(rows, time.perf_counter() - started), indent=1) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
