"""Benchmark of the table-side loop on the bundled recorded game (tests/data/demo-game).

Measures, with the real reader and the whole loop (settle detector, vote, game, journal fsync):

- latency: from the frame in which the dice stop to the announcement of the white sum. Frame
  time (the settle wait, 0.4 s at 10 fps) plus the wall-clock work done on the settling frame
  (reading it, the vote, the journal write). Target: under 0.6 s.
- idle CPU: process CPU time per frame while the tray lies still after a roll was read (what the
  appliance does most of the time), as a share of one core at 10 fps. Target: under 20 %.
- memory: the peak resident set size of ``pi-reader run --no-hardware`` playing the recorded
  game in a process of its own. Target: under 150 MB.

Run: ``.venv/bin/python benchmarks/bench_loop.py [--json [PATH]]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/result_file.py
from benchmarks.result_file import add_json_option, emit
from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.loop import Appliance, CameraRetry, FrameClock
from pi_reader.appliance.recorded import MOTION_FRAMES, RecordedGame, Recording
from pi_reader.appliance.table import Table
from pi_reader.cli.run import load_reader
from pi_reader.devices import FakeButtons, FakeCamera, FakeDisplay, FakeLeds, FakeSpeaker
from pi_reader.devices.camera import CameraBase
from pi_reader.vision.images import load_frame

DEMO = Path(__file__).resolve().parent.parent / "tests" / "data" / "demo-game"
IDLE_FRAMES = 300


class TimedSpeaker:
    """Notes when each text is said (wall clock) and in which frame."""

    def __init__(self, camera: TimedCamera) -> None:
        self.camera = camera
        self.said: list[tuple[str, int, float]] = []

    def say(self, text: str, kind: str | None = None) -> None:
        self.said.append((text, self.camera.frames, time.perf_counter()))

    def close(self) -> None:
        """Nothing to release."""


class TimedCamera(CameraBase):
    """Wraps a camera; notes when each frame was handed to the loop."""

    def __init__(self, camera: RecordedGame) -> None:
        self.camera = camera
        self.frames = 0
        self.captured_at: list[float] = []

    def start(self) -> None:
        self.camera.start()

    def stop(self) -> None:
        self.camera.stop()

    def capture(self) -> np.ndarray:
        frame = self.camera.capture()
        self.frames += 1
        self.captured_at.append(time.perf_counter())
        return frame


def latency(state_dir: Path) -> list[float]:
    """Seconds from the first still frame of each roll to its white-sum announcement."""
    recording = Recording.load(DEMO)
    buttons = FakeButtons()
    camera = TimedCamera(RecordedGame(recording, lambda action: buttons.press(action)))
    speaker = TimedSpeaker(camera)
    appliance = Appliance(
        camera=camera,
        read_roll=load_reader(None, recording),
        table=Table.open(state_dir, "paper", ["ann", "bob"], new_game=True),
        catalogue=Catalogue.load("en"),
        speaker=speaker,
        display=FakeDisplay(20, 4),
        leds=FakeLeds(),
        buttons=buttons,
        clock=FrameClock(recording.fps),
        retry=CameraRetry(sleep=lambda seconds: None),
    )
    appliance.run()
    per_roll = MOTION_FRAMES + round(1.5 * recording.fps)
    results = []
    for text, frame, said_at in speaker.said:
        if not text.startswith("White sum"):
            continue
        roll = (frame - 1) // per_roll
        first_still = roll * per_roll + MOTION_FRAMES + 1  # 1-based frame number
        frame_time = (frame - first_still) / recording.fps
        work = said_at - camera.captured_at[frame - 1]
        results.append(frame_time + work)
    return results


def idle_cpu(state_dir: Path) -> float:
    """Share of one core used per frame at 10 fps while still dice lie in the tray."""
    recording = Recording.load(DEMO)
    still = load_frame(recording.rolls[0].image)
    noisy = [still.copy() for _ in range(4)]
    for n, frame in enumerate(noisy):  # a little sensor noise, as from a real camera
        noise = np.random.default_rng(n).integers(-2, 3, frame.shape, dtype=np.int16)
        noisy[n] = np.clip(frame.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    moving = [np.roll(still, (9 * k, 13 * k), axis=(0, 1)) for k in range(1, 4)]
    frames = moving + [noisy[i % 4] for i in range(20 + IDLE_FRAMES)]
    camera = FakeCamera(frames)
    appliance = Appliance(
        camera=camera,
        read_roll=load_reader(None, recording),
        table=Table.open(state_dir, "paper", ["ann", "bob"], new_game=True),
        catalogue=Catalogue.load("en"),
        speaker=FakeSpeaker(),
        display=FakeDisplay(20, 4),
        leds=FakeLeds(),
        clock=FrameClock(10.0),
    )
    appliance.run(max_frames=23)  # the roll settles and is read
    start = time.process_time()
    appliance.run(max_frames=23 + IDLE_FRAMES)
    per_frame = (time.process_time() - start) / IDLE_FRAMES
    return per_frame * 10.0


CHILD = """
import sys
from pi_reader.cli import main
status = main(sys.argv[1:])
with open("/proc/self/status") as status_file:
    peak = next(line.split()[1] for line in status_file if line.startswith("VmHWM"))
print("peak-rss-kb", peak, file=sys.stderr)
sys.exit(status)
"""


def appliance_rss_mb(state_dir: Path) -> float:
    """Peak RSS of ``pi-reader run`` playing the recorded game, as a process of its own.

    The child reports its own high-water mark (``VmHWM``, Linux): ``getrusage`` would also count
    the pages the child shared with this (by then large) benchmark process before its exec.
    """
    command = [
        sys.executable, "-c", CHILD, "run", "--no-hardware", "--players", "ann,bob",
        "--camera", f"dir:{DEMO}", "--state-dir", str(state_dir),
    ]  # fmt: skip
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    kilobytes = int(done.stderr.strip().splitlines()[-1].split()[-1])
    return kilobytes / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_json_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        latencies = latency(Path(folder) / "latency")
        cpu = idle_cpu(Path(folder) / "idle")
        rss_mb = appliance_rss_mb(Path(folder) / "process")
    figures = {
        "rolls_announced": len(latencies),
        "latency_mean_s": round(statistics.mean(latencies), 3),
        "latency_max_s": round(max(latencies), 3),
        "idle_cpu_share_of_one_core_at_10fps": round(cpu, 4),
        "appliance_peak_rss_mb": round(rss_mb, 1),
    }
    latency_text = f"{figures['latency_mean_s']:.2f} / {figures['latency_max_s']:.2f} s"
    if not emit(
        args.json,
        "loop",
        "The table-side loop on the bundled recorded game",
        figures,
        tables=[{
            "caption": "the real reader and the whole loop on tests/data/demo-game",
            "columns": ["measure", "figure", "target"],
            "rows": [
                ["dice stop to white-sum announcement (0.4 s settle included), mean / max",
                 latency_text, "< 0.6 s"],
                ["CPU while idle (still tray, 1024x768 at 10 fps)",
                 f"{100 * cpu:.1f} % of one core", "< 20 %"],
                ["peak RSS of pi-reader run --no-hardware playing the demo game (VmHWM)",
                 f"{rss_mb:.0f} MB", "< 150 MB"],
            ],
        }],
        headline=[
            {"what": "appliance: dice stop to announcement (settle wait included), mean / max",
             "measured": latency_text, "target": "< 0.6 s"},
            {"what": "appliance: idle CPU at 10 fps / peak RSS of pi-reader run",
             "measured": f"{100 * cpu:.1f} % of a core / {rss_mb:.0f} MB",
             "target": "< 20 % / < 150 MB"},
        ],
        notes="Latency is frame time (the settle wait) plus the wall-clock work on the settling "
        "frame; a Raspberry Pi is 3 to 4 times slower.",
    ):
        print(f"rolls announced            {figures['rolls_announced']}")
        print(f"stop -> announcement mean  {figures['latency_mean_s']:.3f} s (target < 0.6 s)")
        print(f"stop -> announcement max   {figures['latency_max_s']:.3f} s")
        print(f"idle CPU at 10 fps         {100 * cpu:.1f} % of one core (target < 20 %)")
        print(f"peak RSS of pi-reader run  {rss_mb:.0f} MB (target < 150 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
