"""Every target of issue 13 in one run: accuracy per test set, speed per frame, peak memory.

Run: ``python benchmarks/bench_targets.py [--sets NAME ...] [--renders DIR] [--skip-memory]``
(about three minutes here; ``--sets`` picks some of the sets, ``--renders`` or
``$PI_READER_RENDERS`` names the generated sets, default /work/renders). Writes
``benchmarks/results/reader.json`` (``--out``) with the command, the commit, the date, each
figure with its target, and prints the same as tables.

Sets, each scored by ``pi_reader.vision.scoring`` (faces no one can read left out of the value
figures, silently wrong rolls, refusal rate on rolls whose every die is readable):

- ``qwixx-rendered``, ``-more``, ``-touching``: test sets, calibrated per scenario, all frames;
- ``real-d6-overhead`` and ``real-d6-gamedice``: their test splits (``training/splits.py``), in
  the generic mode;
- the test split of every generated set under the renders folder (a recorded-set folder with
  the generator's ``manifest.json``); skipped with a line saying so when there is none.

Speed: the process is pinned to one core and OpenCV keeps the appliance's own thread setting
(the appliance sets none: OpenCV's default). Every read is timed once, both in wall time and in
this process's CPU time (the machine is shared, so wall time also holds other work's pauses);
the targets are checked on CPU time. Calibrated: every roll of the rendered sets (1024x768);
the first read after each new calibration on its own (its extra over the scenario's median
read); generic: the rolls of ``qwixx-rendered`` read without calibration (1024x768) and the
test photos of ``real-d6-overhead`` (2736x2736).

Memory: the peak resident size (``VmHWM``) of ``pi-reader run --no-hardware`` playing the
bundled recorded game in a process of its own, and of the same followed, in the same process,
by ten recalibrations (ten rendered scenarios' calibration frames, the reader's calibration
replaced each time as the setup page does) with each scenario's rolls read after it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2

from pi_reader.vision.calibration import Calibration, CalibrationError, calibrate
from pi_reader.vision.images import load_frame
from pi_reader.vision.reader import read_roll
from pi_reader.vision.recorded import RecordedSet, load_recorded_set, shared_sets_dir
from pi_reader.vision.scoring import Report, score_frame

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # training/splits.py
from training.splits import Split, SplitError, is_generated, select, shared_set

REPO = Path(__file__).resolve().parent.parent
RENDERS_ENV = "PI_READER_RENDERS"
DEFAULT_RENDERS = Path("/work/renders")
DEFAULT_OUT = REPO / "benchmarks" / "results" / "reader.json"
DEMO = REPO / "tests" / "data" / "demo-game"
BASELINE = REPO / "tests" / "vision" / "reader_baseline.json"
# The figures of each set the slow suite holds to the baseline, and how far each may move
# against it before the suite fails: shares may fall by a point (about four dice of a
# rendered set), error counts may rise by one, a silently wrong roll may never be added.
BASELINE_TOLERANCE: dict[str, tuple[str, float]] = {
    "dice_right": ("min", 0.01),
    "value_accuracy": ("min", 0.01),
    "colour_accuracy": ("min", 0.01),
    "rolls_right": ("min", 0.02),
    "refusal_rate": ("max", 0.02),
    "phantoms": ("max", 1),
    "missed": ("max", 1),
    "misread_dice": ("max", 1),
    "silently_wrong_rolls": ("max", 0),
    "expect_refusal_refused": ("min", 0),
}
GENERATED = "generated"  # the --sets name of the generated test splits
# (set, split or None for all frames, mode).
SETS: tuple[tuple[str, Split | None, str], ...] = (
    ("qwixx-rendered", None, "calibrated"),
    ("qwixx-rendered-more", None, "calibrated"),
    ("qwixx-rendered-touching", None, "calibrated"),
    ("real-d6-overhead", "test", "generic"),
    ("real-d6-gamedice", "test", "generic"),
)
RECALIBRATIONS = 10

# The targets: set -> figure -> (comparison, bound).
ACCURACY_TARGETS: dict[str, dict[str, tuple[str, float]]] = {
    "qwixx-rendered": {"dice_right": (">=", 0.995), "rolls_right": (">=", 0.97),
                       "silently_wrong_rolls": ("<=", 0), "refusal_rate": ("<=", 0.03)},
    "qwixx-rendered-more": {"dice_right": (">=", 0.995), "rolls_right": (">=", 0.96),
                            "silently_wrong_rolls": ("<=", 0)},
    "qwixx-rendered-touching": {"dice_right": (">=", 0.99), "rolls_right": (">=", 0.95),
                                "silently_wrong_rolls": ("<=", 0)},
    "real-d6-overhead": {"value_accuracy": (">=", 0.98), "phantom_rate": ("<", 0.01)},
    "real-d6-gamedice": {"value_accuracy": (">=", 0.95), "phantom_rate": ("<", 0.02)},
    GENERATED: {"dice_right": (">=", 0.99), "rolls_right": (">=", 0.95),
                "silently_wrong_rolls": ("<=", 0)},
}
SPEED_TARGETS: dict[str, tuple[str, float]] = {
    "calibrated_1024x768_cpu_mean_ms": ("<=", 25.0),
    "calibrated_1024x768_cpu_p95_ms": ("<=", 40.0),
    "generic_1024x768_cpu_mean_ms": ("<=", 30.0),
    "generic_2736x2736_cpu_mean_ms": ("<=", 60.0),
}
MEMORY_TARGETS: dict[str, tuple[str, float]] = {
    "run_peak_rss_mb": ("<", 150.0),
    "run_then_recalibrations_peak_rss_mb": ("<", 150.0),
}
# The figures of a set's summary kept in the results.
KEPT = (
    "frames", "scored_frames", "labelled_dice", "readable_dice", "unreadable_dice", "dice_right",
    "value_accuracy", "colour_accuracy", "rolls_right", "silently_wrong_rolls", "silently_wrong",
    "fully_readable_rolls", "refused_readable_rolls", "refusal_rate", "misread_dice",
    "declined_dice", "unreadable_declined", "unreadable_misread", "missed", "phantoms",
    "phantom_rate", "expect_refusal_rolls", "expect_refusal_refused", "expect_refusal_accepted",
    "problems",
)


class Timings:
    """Every read's wall and CPU time, and which were first after a new calibration."""

    def __init__(self) -> None:
        self.wall_ms: list[float] = []
        self.cpu_ms: list[float] = []
        self.first_extra_ms: list[float] = []

    def summary(self) -> dict[str, float | int | None]:
        return {
            "reads": len(self.cpu_ms),
            "cpu_mean_ms": _mean(self.cpu_ms),
            "cpu_p95_ms": _p95(self.cpu_ms),
            "wall_mean_ms": _mean(self.wall_ms),
            "wall_p95_ms": _p95(self.wall_ms),
        }


def read_set(
    recorded: RecordedSet,
    calibrated: bool,
    timings: Timings,
    seen: list[tuple[object, ...]] | None = None,
) -> dict[str, object]:
    """Read every roll of a set as ``replay`` does (each scenario calibrated from its
    calibration frame when ``calibrated``), timing each read once, and score it. ``seen``
    collects what each reading said (dice and problems), to compare two runs."""
    report = Report()
    calibrations: dict[str | None, Calibration | None] = {}
    refused: dict[str, str] = {}
    scenario_cpu: dict[str | None, list[float]] = {}
    first_cpu: dict[str | None, float] = {}
    for frame in recorded.rolls():
        if frame.scenario not in calibrations:
            calibrations[frame.scenario] = _calibration(recorded, frame.scenario, calibrated,
                                                        refused)
        image = load_frame(frame.path)
        calibration = calibrations[frame.scenario]
        wall, cpu = time.perf_counter(), time.process_time()
        reading = read_roll(image, calibration, frame.removed)
        cpu_ms = 1000 * (time.process_time() - cpu)
        wall_ms = 1000 * (time.perf_counter() - wall)
        if seen is not None:
            seen.append((*((d.colour, d.value, d.box) for d in reading.dice),
                         *(p.kind.value for p in reading.problems)))
        timings.wall_ms.append(wall_ms)
        timings.cpu_ms.append(cpu_ms)
        if calibration is not None:
            if frame.scenario in first_cpu:
                scenario_cpu.setdefault(frame.scenario, []).append(cpu_ms)
            else:
                first_cpu[frame.scenario] = cpu_ms
        report.add(score_frame(frame, reading, wall_ms / 1000,
                               calibration_refused=str(frame.scenario) in refused))
    for scenario, first in first_cpu.items():
        if scenario_cpu.get(scenario):
            timings.first_extra_ms.append(first - statistics.median(scenario_cpu[scenario]))
    summary = report.summary()
    result = {key: summary[key] for key in KEPT}
    result["calibration_errors"] = refused
    return result


def _calibration(
    recorded: RecordedSet, scenario: str | None, calibrated: bool, refused: dict[str, str]
) -> Calibration | None:
    frame = recorded.calibration_for(scenario) if calibrated else None
    if frame is None:
        return None
    try:
        return calibrate(load_frame(frame.path))
    except CalibrationError as error:
        refused[str(scenario)] = str(error)
        return None


def generated_sets(renders: Path) -> list[Path]:
    """The generated sets under ``renders`` (or ``renders`` itself when it is one)."""
    if not renders.is_dir():
        return []
    folders = [renders, *sorted(p for p in renders.iterdir() if p.is_dir())]
    return [f for f in folders if (f / "labels.jsonl").is_file() and is_generated(f)]


def generated_test_splits(found: list[Path], skipped: list[dict[str, str]]
                          ) -> list[tuple[Path, RecordedSet]]:
    """The test split of each generated set that has one; a set rendered without test scenes
    (a validation or training render) is added to ``skipped``, so that it is reported as not
    measured rather than as a set read with no wrong roll."""
    out = []
    for folder in found:
        recorded = select(load_recorded_set(folder), "test")
        if recorded.frames:
            out.append((folder, recorded))
            continue
        skipped.append({"set": f"{GENERATED}:{folder}", "why": "no test scenes rendered"})
        print(f"generated test split of {folder}: skipped, no test scenes rendered")
    return out


def generic_1024_timings(datasets: Path) -> Timings:
    """The rolls of qwixx-rendered read in the generic mode: the 1024x768 generic speed."""
    timings = Timings()
    read_set(shared_set(datasets, "qwixx-rendered"), calibrated=False, timings=timings)
    return timings


CHILD = """
import json, sys
from pi_reader.cli import main
status = main(sys.argv[2:])
if sys.argv[1] != "-":
    from pi_reader.appliance.live_calibration import CalibratedReader
    from pi_reader.vision.calibration import CalibrationError, calibrate
    from pi_reader.vision.images import load_frame
    reader = None
    refused = 0
    for calibration_frame, rolls in json.loads(open(sys.argv[1]).read()):
        try:
            calibration = calibrate(load_frame(calibration_frame))
        except CalibrationError:
            refused += 1  # as the setup page: the old calibration stays
            continue
        if reader is None:
            reader = CalibratedReader(calibration)
        reader.calibration = calibration  # as the setup page's live calibration does
        for roll, removed in rolls:
            reader(load_frame(roll), removed)
    print("refused", refused, file=sys.stderr)
with open("/proc/self/status") as status_file:
    peak = next(line.split()[1] for line in status_file if line.startswith("VmHWM"))
print("peak-rss-kb", peak, file=sys.stderr)
sys.exit(status)
"""


def run_peak_rss_mb(state_dir: Path, recalibrations: Path | None) -> tuple[float, int]:
    """VmHWM of ``pi-reader run`` on the demo game, then (``recalibrations``: a JSON list of
    [calibration frame, [[roll, removed], ...]]) the recalibrations, in one child process; and
    how many of those calibration frames calibration refused (their rolls are not read)."""
    command = [
        sys.executable, "-c", CHILD, str(recalibrations or "-"), "run", "--no-hardware",
        "--players", "ann,bob", "--camera", f"dir:{DEMO}", "--state-dir", str(state_dir),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"pi-reader run failed while its memory was measured:\n{done.stderr}")
    said = dict(line.split()[:2] for line in done.stderr.splitlines()
                if line.startswith(("peak-rss-kb ", "refused ")))
    return int(said["peak-rss-kb"]) / 1024, int(said.get("refused", 0))


def memory(datasets: Path, scratch: Path) -> dict[str, float]:
    scenes: list[list[object]] = []  # [calibration frame, [[roll, removed colours], ...]]
    for name in ("qwixx-rendered", "qwixx-rendered-more"):
        recorded = shared_set(datasets, name)
        for frame in recorded.frames:
            if frame.kind == "calibration" and len(scenes) < RECALIBRATIONS:
                rolls = [[str(r.path), list(r.removed)] for r in recorded.rolls()
                         if r.scenario == frame.scenario]
                scenes.append([str(frame.path), rolls])
    plan = scratch / "recalibrations.json"
    plan.write_text(json.dumps(scenes))
    run_peak, _ = run_peak_rss_mb(scratch / "run", None)
    recalibrated_peak, refused = run_peak_rss_mb(scratch / "recalibrated", plan)
    return {
        "run_peak_rss_mb": round(run_peak, 1),
        "run_then_recalibrations_peak_rss_mb": round(recalibrated_peak, 1),
        "recalibrations": len(scenes) - refused,
        "recalibrations_refused": refused,
    }


def checked(
    figures: Mapping[str, Any], targets: dict[str, tuple[str, float]]
) -> list[dict[str, object]]:
    """Each target with the figure measured and whether it is met."""
    out = []
    for name, (comparison, bound) in targets.items():
        value = figures.get(name)
        met = None if value is None else _COMPARE[comparison](value, bound)
        out.append({"figure": name, "value": value, "target": f"{comparison} {bound}",
                    "met": met})
    return out


_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda v, b: v >= b, "<=": lambda v, b: v <= b, "<": lambda v, b: v < b,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [name for name, _, _ in SETS] + [GENERATED]
    parser.add_argument("--sets", nargs="+", choices=names, default=names, metavar="NAME",
                        help=f"some of: {', '.join(names)}")
    parser.add_argument("--datasets", type=Path, default=shared_sets_dir(REPO))
    parser.add_argument("--renders", type=Path,
                        default=Path(os.environ.get(RENDERS_ENV, DEFAULT_RENDERS)))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--write-baseline", action="store_true",
                        help=f"also write the slow suite's baseline, {BASELINE.relative_to(REPO)}")
    args = parser.parse_args(argv)
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    started = time.perf_counter()

    sets, skipped = [], []
    calibrated_timings, overhead_timings = Timings(), Timings()
    for name, split, mode in SETS:
        if name not in args.sets:
            continue
        try:
            recorded = shared_set(args.datasets, name)
        except SplitError as error:
            raise SystemExit(f"bench_targets: {error}") from None
        if split is not None:
            recorded = select(recorded, split)
        timings = calibrated_timings if mode == "calibrated" else (
            overhead_timings if name == "real-d6-overhead" else Timings())
        figures = read_set(recorded, mode == "calibrated", timings)
        sets.append({"set": name, "split": split or "all (a test set)", "mode": mode,
                     **figures, "targets": checked(figures, ACCURACY_TARGETS[name])})
        _progress(f"{name}: {figures['frames']} frames read")
    if GENERATED in args.sets:
        found = generated_sets(args.renders)
        if not found:
            skipped.append({"set": GENERATED, "why": f"no generated set under {args.renders} "
                            f"(--renders DIR or ${RENDERS_ENV})"})
            print(f"generated test split: skipped, no generated set under {args.renders} "
                  f"(give --renders DIR or set {RENDERS_ENV})")
        for folder, recorded in generated_test_splits(found, skipped):
            # Their frames are of two sizes and modes: timed apart from the shared sets'.
            figures = read_set(recorded, True, Timings())
            sets.append({"set": f"{GENERATED}:{folder}", "split": "test",
                         "mode": "calibrated where a scene has a calibration frame, else generic",
                         **figures, "targets": checked(figures, ACCURACY_TARGETS[GENERATED])})
            _progress(f"{folder}: {figures['frames']} frames read")

    speed: dict[str, object] = {
        "cpu_affinity": sorted(os.sched_getaffinity(0)),
        "opencv_threads": cv2.getNumThreads(),
    }
    if calibrated_timings.cpu_ms:
        speed["calibrated_1024x768"] = calibrated_timings.summary()
        speed["calibrated_1024x768_cpu_mean_ms"] = _mean(calibrated_timings.cpu_ms)
        speed["calibrated_1024x768_cpu_p95_ms"] = _p95(calibrated_timings.cpu_ms)
        firsts = calibrated_timings.first_extra_ms
        speed["first_read_after_calibration_extra_cpu_ms"] = {
            "calibrations": len(firsts), "mean": _mean(firsts), "max": _round(max(firsts))
        } if firsts else None
    if "qwixx-rendered" in args.sets:
        generic = generic_1024_timings(args.datasets)
        speed["generic_1024x768"] = generic.summary()
        speed["generic_1024x768_cpu_mean_ms"] = _mean(generic.cpu_ms)
        _progress("generic 1024x768 timed")
    if overhead_timings.cpu_ms:
        speed["generic_2736x2736"] = overhead_timings.summary()
        speed["generic_2736x2736_cpu_mean_ms"] = _mean(overhead_timings.cpu_ms)
    speed["targets"] = checked(speed, SPEED_TARGETS)

    memory_figures: dict[str, object] | None = None
    if not args.skip_memory:
        with tempfile.TemporaryDirectory() as scratch:
            measured = memory(args.datasets, Path(scratch))
        memory_figures = {**measured, "targets": checked(measured, MEMORY_TARGETS)}
        _progress("memory measured")

    results = {
        "benchmark": "reader targets (issue 13)",
        **provenance("benchmarks/bench_targets.py", argv),
        "seconds": round(time.perf_counter() - started),
        "sets": sets,
        "skipped": skipped,
        "speed": speed,
        "memory": memory_figures,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(report_text(results))
    print(f"\nwritten to {args.out}")
    if args.write_baseline:
        BASELINE.write_text(json.dumps(baseline(results), indent=1) + "\n", encoding="utf-8")
        print(f"baseline written to {BASELINE}")
    return 0


def baseline(results: dict[str, Any]) -> dict[str, object]:
    """The slow suite's baseline: each shared set's figures held, with their tolerance."""
    return {
        "what": "figures tests/vision/test_reader_replay.py holds the reader to",
        "command": results["command"],
        "commit": results["commit"],
        "date": results["date"],
        "tolerance": {
            figure: {"direction": "may not fall by more than" if kind == "min"
                     else "may not rise by more than", "by": by}
            for figure, (kind, by) in BASELINE_TOLERANCE.items()
        },
        "sets": {
            s["set"]: {"split": s["split"], "mode": s["mode"],
                       **{figure: s[figure] for figure in BASELINE_TOLERANCE}}
            for s in results["sets"] if not s["set"].startswith(GENERATED)
        },
    }


def report_text(results: dict[str, Any]) -> str:
    lines = [
        f"{results['command']}  (commit {results['commit'][:12]}"
        f"{', uncommitted changes' if results['uncommitted_changes'] else ''}, {results['date']})",
        "",
        "| set | split | mode | frames | dice right (readable) | value acc. | rolls right "
        "| silently wrong rolls | refusal rate (readable rolls) | phantoms | missed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in results["sets"]:
        lines.append(
            f"| {s['set']} | {s['split']} | {s['mode']} | {s['frames']} "
            f"| {percent(s['dice_right'])} | {percent(s['value_accuracy'])} "
            f"| {percent(s['rolls_right'])} | {s['silently_wrong_rolls']} "
            f"| {percent(s['refusal_rate'])} "
            f"({s['refused_readable_rolls']} of {s['fully_readable_rolls']}) "
            f"| {s['phantoms']} ({percent(s['phantom_rate'])}) | {s['missed']} |"
        )
    for s in results["skipped"]:
        lines.append(f"| {s['set']} | skipped: {s['why']} |")
    lines.append("")
    for s in results["sets"]:
        if s["expect_refusal_rolls"]:
            lines.append(f"{s['set']}: frames that must be refused: {s['expect_refusal_refused']} "
                         f"of {s['expect_refusal_rolls']} refused")
        if s["unreadable_dice"]:
            lines.append(f"{s['set']}: faces no one can read: {s['unreadable_declined']} declined, "
                         f"{s['unreadable_misread']} given a value")
        if s["calibration_errors"]:
            lines.append(f"{s['set']}: calibration refused: {s['calibration_errors']}")
    speed = results["speed"]
    lines += ["", f"speed, one core (CPU {speed['cpu_affinity']}), OpenCV threads "
                  f"{speed['opencv_threads']}, every read timed once (CPU / wall ms):"]
    for key in ("calibrated_1024x768", "generic_1024x768", "generic_2736x2736"):
        if key in speed:
            t = speed[key]
            lines.append(f"  {key}: {t['reads']} reads, mean {t['cpu_mean_ms']} / "
                         f"{t['wall_mean_ms']}, p95 {t['cpu_p95_ms']} / {t['wall_p95_ms']}")
    first = speed.get("first_read_after_calibration_extra_cpu_ms")
    if first:
        lines.append(f"  first read after a new calibration: {first['mean']} ms more on average, "
                     f"at most {first['max']} ms ({first['calibrations']} calibrations)")
    if results["memory"]:
        m = results["memory"]
        lines.append(f"memory: pi-reader run peak {m['run_peak_rss_mb']} MB; after "
                     f"{m['recalibrations']} recalibrations "
                     f"{m['run_then_recalibrations_peak_rss_mb']} MB")
    lines += ["", "targets:"]
    for where, targets in [*((s["set"], s["targets"]) for s in results["sets"]),
                           ("speed", speed["targets"]),
                           ("memory", results["memory"]["targets"] if results["memory"] else [])]:
        for t in targets:
            verdict = {True: "met", False: "NOT met", None: "not measured"}[t["met"]]
            lines.append(f"  {where}: {t['figure']} {t['value']} (target {t['target']}): {verdict}")
    return "\n".join(lines)


def provenance(script: str, argv: list[str] | None) -> dict[str, object]:
    """The command as given, the commit measured and whether files differed from it, the date:
    what a figure in the docs must carry."""
    given = sys.argv[1:] if argv is None else argv
    return {
        "command": f"python {script}" + "".join(f" {a}" for a in given),
        "commit": _git("rev-parse", "HEAD"),
        "uncommitted_changes": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _git(*command: str) -> str:
    done = subprocess.run(["git", "-C", str(REPO), *command], capture_output=True, text=True)
    return done.stdout.strip()


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _mean(values: list[float]) -> float | None:
    return _round(statistics.fmean(values)) if values else None


def _p95(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return _round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))])


def _round(value: float) -> float:
    return round(value, 1)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


if __name__ == "__main__":
    sys.exit(main())
