"""The web app's test harness: the appliance as a process (``pi-reader run --web``), recorded
games made from the bundled demo's frames, Debian's chromium (fixtures in conftest.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "tests" / "data" / "demo-game"
CHROMIUM = Path(os.environ.get("PI_READER_CHROMIUM", "/usr/bin/chromium"))
ARTEFACTS = Path(os.environ.get("PI_READER_ARTEFACTS", REPO / "build" / "screenshots"))
PHONE = {"width": 390, "height": 844}
START_TIMEOUT = 60.0


def write_recording(
    folder: Path,
    images: Sequence[str],
    hold_seconds: float,
    then: dict[int, list[str]] | None = None,
) -> Path:
    """A recorded game of the demo's frames (``roll_001``...), each held ``hold_seconds``."""
    folder.mkdir(parents=True)
    manifest = {
        "fps": 10,
        "hold_seconds": hold_seconds,
        "calibration": str(DEMO / "calibration.jpg"),
        "rolls": [
            {"image": str(DEMO / f"{name}.jpg"), "then": (then or {}).get(n, [])}
            for n, name in enumerate(images)
        ],
    }
    (folder / "recorded-game.json").write_text(json.dumps(manifest))
    return folder


class ApplianceProcess:
    """``pi-reader run --no-hardware --web --web-port 0 ...`` with its output collected."""

    def __init__(self, args: Sequence[str], state_dir: Path, config: Path | None = None) -> None:
        command = [
            sys.executable,
            "-m",
            "pi_reader",
            "run",
            "--no-hardware",
            "--web",
            "--web-port",
            "0",
            "--state-dir",
            str(state_dir),
            *(["--config", str(config)] if config else []),
            *args,
        ]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            cwd=REPO,
        )
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        streams = ((self.process.stdout, self.stdout), (self.process.stderr, self.stderr))
        for stream, lines in streams:
            threading.Thread(target=self._drain, args=(stream, lines), daemon=True).start()
        self.url = self._wait_for_url()

    @staticmethod
    def _drain(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))

    def _wait_for_url(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            for line in self.stdout:
                if line.startswith("web: "):
                    return line.removeprefix("web: ")
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"no 'web:' line; stderr: {self.stderr}")

    def wait_for_output(self, text: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(text in line for line in self.stdout + self.stderr):
                return
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never printed; stderr: {self.stderr[-5:]}")

    def pin(self) -> str:
        line = next(line for line in self.stderr if ", PIN " in line)
        return line.split(", PIN ")[1].split()[0]

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode


def journal(state_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (state_dir / "game.jsonl").read_text().splitlines()]


def replay_json(path: Path) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "pi_reader", "game", "replay", str(path), "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return json.loads(result.stdout)
