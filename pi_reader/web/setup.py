"""The setup page's work: preview, live calibration, the doctor, and a new game.

Whatever touches the camera, the reader or the game runs as a job in the appliance's loop (the
camera and the game have one owner); pictures are encoded and the doctor's probes run on the web
side's worker thread. The preview is read at most ``PREVIEW_FPS`` times a second however many
setup pages ask, since each read is a frame's worth of the loop's time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from pi_reader.appliance.catalogue import LANGUAGES, Catalogue
from pi_reader.appliance.live_calibration import CalibratedReader, calibrate_live, check_image_path
from pi_reader.appliance.seating import Source, seating_problems
from pi_reader.appliance.table import MODES, Table
from pi_reader.vision.calibration import CalibrationError
from pi_reader.web.pictures import jpeg

PREVIEW_FPS = 3.0
# The setup form's fields, as its page labels them, for the seating check's messages.
FORM = Source("players", "computer players", "mode")

Job = Callable[[Callable[[Any], Any]], Awaitable[Any]]
OpenTable = Callable[[Sequence[str], Sequence[str], str, str], tuple[Table, Catalogue]]
Doctor = Callable[[], Sequence[Any]]


class SetupRefused(Exception):
    """A setup action that cannot be done; the message says why, for the page."""


@dataclasses.dataclass
class Setup:
    """The setup page's state: the PIN, the last calibration and doctor results."""

    pin: str
    hub: Any  # the Hub (latest frame)
    calibration_out: Path
    open_table: OpenTable | None = None
    run_doctor: Doctor | None = None
    check_image: Path | None = None
    calibration_result: dict[str, Any] | None = None
    doctor_results: list[dict[str, str]] | None = None
    camera_values: dict[str, Any] | None = None
    _preview: tuple[float, bytes] | None = None
    _preview_lock: asyncio.Lock | None = None

    def info(self) -> dict[str, Any]:
        return {
            "camera": self.camera_values,
            "calibration": self.calibration_result,
            "doctor": self.doctor_results,
            "check_image": self.check_image is not None and self.check_image.is_file(),
            "languages": list(LANGUAGES),
            "modes": list(MODES),
        }

    async def preview(self, job: Job, pictures: Executor) -> bytes | None:
        """The latest frame with what the reader finds on it (cached for 1/PREVIEW_FPS s)."""
        if self._preview_lock is None:
            self._preview_lock = asyncio.Lock()
        async with self._preview_lock:
            now = time.monotonic()
            if self._preview is not None and now - self._preview[0] < 1 / PREVIEW_FPS:
                return self._preview[1]
            frame = self.hub.latest_frame
            if frame is None:
                return None
            reading = await job(
                lambda appliance: appliance.read_roll(frame, appliance.table.removed)
            )
            if not hasattr(reading, "dice"):  # the loop could not answer: show the frame alone
                reading = None
            body = await asyncio.get_running_loop().run_in_executor(pictures, jpeg, frame, reading)
            self._preview = (time.monotonic(), body)
            return body

    async def calibrate(self, job: Job) -> object:
        """Live calibration from the running camera; the reader uses it from the next frame.

        The answer for the page, or the loop's refusal (a response) as the job gave it.
        """
        out = self.calibration_out

        def calibrate(appliance: Any) -> dict[str, Any]:
            reader = appliance.read_roll
            if not isinstance(reader, CalibratedReader):
                raise SetupRefused("this appliance's reader cannot be calibrated from the page")
            try:
                calibration, check = appliance.recalibrate(
                    lambda camera: calibrate_live(camera, out)
                )
            except CalibrationError as error:
                return {"ok": False, "reason": f"calibration refused: {error}"}
            reader.calibration = calibration
            return {"ok": True, "check": str(check), "camera": _camera(calibration)}

        result = await job(calibrate)
        if not isinstance(result, dict):
            return result
        self.calibration_result = {
            "ok": result["ok"],
            "text": (
                f"calibrated: saved to {out}; the reader uses it now"
                if result["ok"]
                else result["reason"]
            ),
        }
        if result["ok"]:
            self.check_image = check_image_path(out)
            self.camera_values = result["camera"]
        return {"result": self.calibration_result}

    async def doctor(self, pictures: Executor) -> dict[str, Any]:
        if self.run_doctor is None:
            raise SetupRefused("the doctor is not available here")
        checks = await asyncio.get_running_loop().run_in_executor(pictures, self.run_doctor)
        self.doctor_results = [
            {
                "name": check.name,
                "status": str(check.status),
                "detail": check.detail,
                "fix": check.fix or "",
            }
            for check in checks
        ]
        return {"doctor": self.doctor_results}

    async def new_game(
        self, job: Job, players: list[str], bots: list[str], mode: str, language: str
    ) -> dict[str, Any]:
        """Archive the current game and start another with these seats."""
        if self.open_table is None:
            raise SetupRefused("new games cannot be started from the page here")
        people = [name.strip() for name in players if name.strip()]
        robots = [name.strip() for name in bots if name.strip()]
        problems = seating_problems(people, robots, mode, FORM)
        if problems or not people + robots:
            raise SetupRefused("; ".join(problems) or "who plays? name 2 to 5 players")
        if language not in LANGUAGES:
            raise SetupRefused(f"language: one of {', '.join(LANGUAGES)}")
        open_table = self.open_table

        def start(appliance: Any) -> dict[str, Any]:
            try:
                table, catalogue = open_table(people, robots, mode, language)
            except (ValueError, RuntimeError) as error:
                return {"ok": False, "reason": str(error)}
            appliance.replace_table(table, catalogue)
            return {"ok": True}

        result = await job(start)
        if isinstance(result, dict) and not result["ok"]:
            raise SetupRefused(result["reason"])
        return {} if isinstance(result, dict) else result


def _camera(calibration: Any) -> dict[str, Any] | None:
    settings = calibration.camera
    if settings is None:
        return None
    return {
        "exposure_time_us": settings.exposure_time_us,
        "analogue_gain": settings.analogue_gain,
        "colour_gains": list(settings.colour_gains),
    }


def camera_values(reader: object) -> dict[str, Any] | None:
    """The frozen camera values of the reader's calibration at start, if it has them."""
    if isinstance(reader, CalibratedReader):
        return _camera(reader.calibration)
    return None
