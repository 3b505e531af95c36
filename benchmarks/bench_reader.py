"""How well and how fast the whole reader reads rolls: accuracy per set, time and memory per frame.

Run: ``python benchmarks/bench_reader.py [--sets NAME ...] [--datasets DIR] [--held-out] [--json]``.

Each set is replayed as ``pi-reader replay`` does (a scenario with a ``calibration`` frame is
read calibrated, a set without one in generic mode) and scored by ``pi_reader.vision.scoring``.
Timing is per ``read_roll`` call on one core (OpenCV limited to one thread), image decoding
excluded: wall time from the replay, and CPU time from a second pass, the least of three reads
of each frame (steadier when other work shares the machine); memory is the peak traced by
``tracemalloc`` during one read (numpy buffers; OpenCV's own scratch space is not seen) and the
process's peak resident size from ``getrusage``. ``--held-out`` keeps only the frames that
neither the pip classifier nor the generic detector trained on (the same split for both): the
honest figures for photos the reader has not seen.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2

from pi_reader.vision.calibration import CalibrationError, calibrate
from pi_reader.vision.images import load_frame
from pi_reader.vision.reader import read_roll
from pi_reader.vision.recorded import RecordedSet, load_recorded_set, shared_sets_dir
from pi_reader.vision.replay import replay

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # training/splits.py
from training.splits import held_out

DEFAULT_SETS = (
    "qwixx-rendered",
    "qwixx-rendered-touching",
    "qwixx-rendered-more",
    "real-d6-overhead",
)
REPO = Path(__file__).resolve().parent.parent
REPEAT = 3  # reads per frame for the CPU time; the least is kept


def traced_peak_kib(recorded, frames: int = 5) -> float:
    """The largest tracemalloc peak over the first few roll frames of a set (generic read)."""
    peak = 0
    for frame in list(recorded.rolls())[:frames]:
        image = load_frame(frame.path)
        tracemalloc.start()
        read_roll(image, None, frame.removed)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return peak / 1024


def cpu_times_ms(recorded, repeat: int = REPEAT) -> list[float]:
    """CPU time (this process, one thread) of each roll's read, the least of ``repeat`` reads:
    steadier than wall time when other work shares the machine, and the least of a few is the
    read's own cost without the pauses a shared virtual machine adds (they made single-pass
    95th percentiles jump by a third between runs). Each scenario is calibrated once, as
    replay does."""
    calibrations: dict[object, object] = {}
    times = []
    for frame in recorded.rolls():
        if frame.scenario not in calibrations:
            cal_frame = recorded.calibration_for(frame.scenario)
            try:
                calibrations[frame.scenario] = (
                    calibrate(load_frame(cal_frame.path)) if cal_frame else None
                )
            except CalibrationError:
                calibrations[frame.scenario] = None
        image = load_frame(frame.path)
        spent = []
        for _ in range(repeat):
            start = time.process_time()
            read_roll(image, calibrations[frame.scenario], frame.removed)
            spent.append(1000 * (time.process_time() - start))
        times.append(min(spent))
    return times


def held_out_part(recorded: RecordedSet) -> RecordedSet:
    """Only the frames kept out of training (``training/splits.py``: validation and test); the
    calibration frames stay, so the scenarios kept are still calibrated."""
    return replace(recorded, frames=tuple(
        f for f in recorded.frames
        if f.kind == "calibration" or held_out(recorded.name, f.image)
    ))


def bench_set(path: Path, held_out: bool = False) -> dict[str, object]:
    recorded = load_recorded_set(path)
    if held_out:
        recorded = held_out_part(recorded)
    result = replay(recorded)
    summary = result.summary()
    cpu = sorted(cpu_times_ms(recorded))
    summary["cpu_mean_ms"] = round(sum(cpu) / len(cpu), 1)
    summary["cpu_p95_ms"] = round(cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))], 1)
    first = load_frame(next(recorded.rolls()).path)
    summary["frame_size"] = f"{first.shape[1]}x{first.shape[0]}"
    summary["traced_peak_kib"] = round(traced_peak_kib(recorded))
    summary["mode"] = (
        "calibrated" if recorded.calibration_for(next(recorded.rolls()).scenario) else "generic"
    )
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS))
    parser.add_argument(
        "--datasets",
        type=Path,
        default=shared_sets_dir(REPO),
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per set")
    parser.add_argument("--held-out", action="store_true",
                        help="only the frames held out from both networks' training")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    rows = []
    for name in args.sets:
        start = time.perf_counter()
        summary = {"set": name, **bench_set(args.datasets / name, args.held_out)}
        summary["wall_s"] = round(time.perf_counter() - start, 1)
        rows.append(summary)
        if args.json:
            print(json.dumps(summary), flush=True)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if not args.json:
        print(
            "| set | mode | frames | dice right | value acc. | colour acc. | rolls right "
            "| missed | phantoms | mean ms | p95 ms | CPU mean ms | CPU p95 ms | traced peak |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(
                f"| {r['set']} ({r['frame_size']}) | {r['mode']} | {r['frames']} "
                f"| {_pc(r['dice_right'])} | {_pc(r['value_accuracy'])} "
                f"| {_pc(r['colour_accuracy'])} | {_pc(r['rolls_right'])} | {r['missed']} "
                f"| {r['phantoms']} ({_pc(r['phantom_rate'])}) | {r['mean_ms']} | {r['p95_ms']} "
                f"| {r['cpu_mean_ms']} | {r['cpu_p95_ms']} "
                f"| {r['traced_peak_kib'] / 1024:.1f} MiB |"
            )
        print(f"\nprocess peak resident size: {rss_mib:.0f} MiB")
        for r in rows:
            if r["calibration_errors"]:
                print(f"{r['set']}: calibration refused: {r['calibration_errors']}")
    return 0


def _pc(value: object) -> str:
    return "-" if value is None else f"{100 * float(value):.1f}%"  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
