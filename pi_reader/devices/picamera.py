"""The Raspberry Pi camera through Picamera2 (``picamera``), with fixed exposure after calibration.

Picamera2 only exists on a Raspberry Pi (apt ``python3-picamera2``, seen from a venv made with
``--system-site-packages``), so it is imported inside :meth:`PiCamera.start`, never at module load.

Pixel order: Picamera2 names formats after libcamera/DRM, which count from the most significant
byte of a little-endian word. Its ``"RGB888"`` format is therefore ``[B, G, R]`` bytes in memory,
exactly OpenCV's BGR, and ``"BGR888"`` would be ``[R, G, B]`` (Picamera2 manual, "Image formats").
We ask for ``"RGB888"`` and hand the array on without conversion.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from pi_reader.devices.camera import (
    DEFAULT_FPS,
    DEFAULT_RESOLUTION,
    CameraBase,
    ExposureControls,
    as_bgr_frame,
)
from pi_reader.devices.errors import CameraNotStarted, CameraSoftwareMissing, CameraUnavailable

log = logging.getLogger(__name__)

# Picamera2's name for 24-bit pixels stored B, G, R: OpenCV's BGR (see the module docstring).
PICAMERA2_BGR_FORMAT = "RGB888"

INSTALL_HINT = (
    "install it with 'sudo apt install python3-picamera2' and make the venv with "
    "--system-site-packages (hardware/install.sh does both)"
)


class PiCamera(CameraBase):
    """A Raspberry Pi camera module: ``resolution`` BGR frames from the main stream at ``fps``.

    Uses a preview configuration (low latency, few buffers) rather than a still configuration: the
    appliance wants a steady stream, not full-sensor stills. A module with autofocus focuses once
    at start (on the empty tray) and keeps that focus. ``apply_controls`` switches off
    auto exposure (AeEnable) and auto white balance (AwbEnable) and fixes ExposureTime,
    AnalogueGain and ColourGains; ``auto_controls`` reads what the automatics settled on from the
    frame metadata, for live calibration.
    """

    supports_controls = True

    def __init__(
        self,
        *,
        resolution: tuple[int, int] = DEFAULT_RESOLUTION,
        fps: float = DEFAULT_FPS,
        camera_num: int = 0,
    ) -> None:
        self.resolution = resolution
        self.fps = fps
        self.camera_num = camera_num
        self.frames_served = 0
        self._camera: Any = None

    def start(self) -> None:
        if self._camera is not None:
            return
        try:
            from picamera2 import Picamera2
        except ImportError as error:
            raise CameraSoftwareMissing(
                f"picamera2 is not importable ({error}): {INSTALL_HINT}"
            ) from error
        try:
            camera = Picamera2(self.camera_num)
        except (IndexError, RuntimeError, OSError) as error:
            raise CameraUnavailable(
                f"no Raspberry Pi camera number {self.camera_num} ({error}): check the ribbon "
                "cable and run 'rpicam-hello --list-cameras'"
            ) from error
        try:
            configuration = camera.create_preview_configuration(
                main={"size": tuple(self.resolution), "format": PICAMERA2_BGR_FORMAT},
                controls={"FrameRate": float(self.fps)},
            )
            camera.configure(configuration)
            camera.start()
        except (RuntimeError, OSError) as error:
            camera.close()
            raise CameraUnavailable(f"the Raspberry Pi camera did not start: {error}") from error
        self._camera = camera
        self._focus_once(camera)

    def capture(self) -> np.ndarray:
        camera = self._require_started()
        try:
            frame = camera.capture_array("main")
        except (RuntimeError, OSError, TimeoutError) as error:
            raise CameraUnavailable(f"the Raspberry Pi camera stopped: {error}") from error
        self.frames_served += 1
        return as_bgr_frame(frame)

    def stop(self) -> None:
        if self._camera is None:
            return
        camera, self._camera = self._camera, None
        try:
            camera.stop()
        finally:
            camera.close()

    def apply_controls(
        self, exposure_time_us: int, analogue_gain: float, colour_gains: tuple[float, float]
    ) -> None:
        red_gain, blue_gain = colour_gains
        self._require_started().set_controls(
            {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": int(exposure_time_us),
                "AnalogueGain": float(analogue_gain),
                "ColourGains": (float(red_gain), float(blue_gain)),
            }
        )

    def auto_controls(self) -> ExposureControls | None:
        metadata = self._require_started().capture_metadata()
        try:
            red_gain, blue_gain = metadata["ColourGains"]
            return ExposureControls(
                exposure_time_us=int(metadata["ExposureTime"]),
                analogue_gain=float(metadata["AnalogueGain"]),
                colour_gains=(float(red_gain), float(blue_gain)),
            )
        except (KeyError, TypeError, ValueError):
            log.warning("the camera metadata lacks exposure or colour gains: %r", metadata)
            return None

    @staticmethod
    def _focus_once(camera: Any) -> None:
        """Focus a lens that can (Camera Module 3) on the tray once, then leave it there.

        A fixed-focus module has no AfMode control and is focused by hand (hardware/TRAY.md).
        Focusing continuously would hunt whenever a hand passes over the tray.
        """
        if "AfMode" not in getattr(camera, "camera_controls", {}):
            return
        try:
            focused = camera.autofocus_cycle()
        except (RuntimeError, OSError) as error:
            log.warning("autofocus failed, the picture may be soft: %s", error)
            return
        if not focused:
            log.warning("autofocus did not settle; the picture may be soft (is the tray in view?)")

    def _require_started(self) -> Any:
        if self._camera is None:
            raise CameraNotStarted("the Raspberry Pi camera is not started")
        return self._camera
