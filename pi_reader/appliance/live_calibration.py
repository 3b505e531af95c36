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
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from pi_reader.devices import Camera
from pi_reader.vision.annotate import annotate
from pi_reader.vision.calibration import Calibration, CameraSettings, calibrate
from pi_reader.vision.reader import read_roll

SETTLE_SECONDS = 2.0  # how long auto exposure and white balance get to settle
FROZEN_FRAMES = 3  # frames dropped after freezing, while the new values take effect


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
    try:
        settings = freeze_camera(camera, settle_seconds, sleep)
        frame: np.ndarray = camera.capture()
    finally:
        camera.stop()
    calibration = calibrate(frame)
    if settings is not None:
        calibration = dataclasses.replace(calibration, camera=settings)
    calibration.save(out)
    check = check_image_path(out)
    cv2.imwrite(str(check), annotate(frame, read_roll(frame, calibration)))
    return calibration, check
