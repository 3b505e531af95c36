"""Live calibration from the camera: settle the automatics, freeze them, capture, calibrate.

The reader's colour models are only as stable as the picture: with auto exposure and auto white
balance running, the dice change colour whenever a hand or a shirt enters the frame. So the
camera first runs on its automatics until they settle, then their values are frozen
(``apply_controls``) and stored in the calibration file, and the appliance applies them again
at every start. A check image with what calibration found drawn on it is written beside the
calibration so a person can see that all six dice were found.

``pi-reader calibrate`` without ``--image`` calls :func:`calibrate_live` (see the CLI).
"""

from __future__ import annotations

import dataclasses
import enum
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from pi_reader.devices import Camera
from pi_reader.vision.annotate import annotate
from pi_reader.vision.calibration import (
    Calibration,
    CalibrationError,
    CameraSettings,
    ClippedFaces,
    calibrate,
)
from pi_reader.vision.reader import read_roll
from pi_reader.vision.types import RollReading

SETTLE_SECONDS = 2.0  # how long auto exposure and white balance get to settle
FROZEN_FRAMES = 3  # frames dropped after freezing, while the new values take effect
# Auto exposure sets the whole frame, not the dice: under a bright lamp a coloured die's top
# face comes out clipped white, light pips and all, and the reader can only refuse that die in
# every roll. The frozen exposure is lowered by this factor a step, at most this many steps,
# until no coloured die's face is clipped (white dice are left out: they sit near clipping under
# any good exposure and their dark pips survive it).
EXPOSURE_STEP = 0.75
MAX_EXPOSURE_STEPS = 4


class CalibratedReader:
    """The reader bound to the table's calibration, which a live calibration may replace while
    the appliance runs (from the setup page); the camera's fixed picture follows it."""

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration

    def __call__(self, frame: np.ndarray, removed: Sequence[str]) -> RollReading:
        return read_roll(frame, calibration=self.calibration, removed=tuple(removed))

    def fix_picture(self, camera: Camera) -> None:
        """After each camera start: the exposure and colour gains live calibration stored."""
        settings = getattr(self.calibration, "camera", None)  # None: a test's stand-in
        if settings is not None:
            apply_camera_settings(camera, settings)


def freeze_camera(
    camera: Camera,
    settle_seconds: float = SETTLE_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> CameraSettings | None:
    """Let the automatics settle on the running camera, then fix their values; None if unknown."""
    deadline = time.monotonic() + settle_seconds
    while time.monotonic() < deadline:
        camera.capture()
        sleep(0.05)
    values = camera.auto_controls()
    if values is None:
        return None
    settings = CameraSettings(
        int(values["exposure_time_us"]),
        float(values["analogue_gain"]),
        (float(values["colour_gains"][0]), float(values["colour_gains"][1])),
    )
    apply_camera_settings(camera, settings)
    for _ in range(FROZEN_FRAMES):
        camera.capture()
    return settings


def apply_camera_settings(camera: Camera, settings: CameraSettings) -> None:
    camera.apply_controls(settings.exposure_time_us, settings.analogue_gain, settings.colour_gains)


def lower_exposure_off_the_dice(
    camera: Camera, settings: CameraSettings, frame: np.ndarray
) -> tuple[CameraSettings, np.ndarray, Calibration | None]:
    """The settings, and a frame taken with them, with the exposure lowered step by step (see
    EXPOSURE_STEP) while calibration refuses the frame because the lamp clips dice faces white
    (``ClippedFaces``: a coloured die's face, or more than the two white dice's); and the
    frame's calibration when it calibrated (None: calibrating the frame again says why not).

    The first lower frame that calibrates is taken; one refused for another reason (the dice
    lost in the dark, say) is never taken: the camera goes back to the last settings, and
    calibrating their frame then says what is wrong.
    """
    verdict, calibration = _verdict(frame)
    if verdict is not _Verdict.CLIPPED:
        return settings, frame, calibration
    for _ in range(MAX_EXPOSURE_STEPS):
        lower = dataclasses.replace(
            settings, exposure_time_us=max(1, round(settings.exposure_time_us * EXPOSURE_STEP))
        )
        apply_camera_settings(camera, lower)
        for _ in range(FROZEN_FRAMES):
            camera.capture()
        darker = camera.capture()
        verdict, calibration = _verdict(darker)
        if verdict is _Verdict.REFUSED:
            apply_camera_settings(camera, settings)
            return settings, frame, None
        settings, frame = lower, darker
        if verdict is _Verdict.CALIBRATES:
            return settings, frame, calibration
    return settings, frame, None


class _Verdict(enum.Enum):
    CALIBRATES = "calibrates"
    CLIPPED = "clipped"  # refused because the lamp clips faces white
    REFUSED = "refused"  # refused for another reason


def _verdict(frame: np.ndarray) -> tuple[_Verdict, Calibration | None]:
    try:
        return _Verdict.CALIBRATES, calibrate(frame, refuse_clipped_faces=True)
    except ClippedFaces:
        return _Verdict.CLIPPED, None
    except CalibrationError:
        return _Verdict.REFUSED, None


def check_image_path(out: Path) -> Path:
    return out.with_name(out.stem + "-check.jpg")


def calibrate_live(
    camera: Camera,
    out: Path,
    settle_seconds: float = SETTLE_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Calibration, Path]:
    """Calibrate from the camera and save; returns the calibration and the check image's path.

    Raises CalibrationError (from the reader) when the frame does not show the six dice; nothing
    is written then, so an older calibration stays in place.
    """
    camera.start()
    calibration = None
    try:
        settings = freeze_camera(camera, settle_seconds, sleep)
        frame: np.ndarray = camera.capture()
        if settings is not None:
            settings, frame, calibration = lower_exposure_off_the_dice(camera, settings, frame)
    finally:
        camera.stop()
    if calibration is None:  # calibrating it again raises the refusal, saying why
        calibration = calibrate(frame, refuse_clipped_faces=True)
    if settings is not None:
        calibration = dataclasses.replace(calibration, camera=settings)
    calibration.save(out)
    check = check_image_path(out)
    cv2.imwrite(str(check), annotate(frame, read_roll(frame, calibration)))
    return calibration, check
