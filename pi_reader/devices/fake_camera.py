"""A camera for tests and demos that serves given frames and records what was asked of it."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from pi_reader.devices.camera import CameraBase, ExposureControls, as_bgr_frame
from pi_reader.devices.errors import (
    CameraExhausted,
    CameraNotStarted,
    CameraUnavailable,
)


class FakeCamera(CameraBase):
    """Serves ``frames`` in order; ``loop=True`` starts over instead of raising CameraExhausted.

    Faults on demand: ``fail_starts`` / ``fail_captures`` make the first N calls to ``start()`` /
    ``capture()`` raise CameraUnavailable, and :meth:`fail_next` does the same mid-stream (the
    camera is "unplugged" for N captures), so the appliance's retry with back-off can be tested. A
    failed capture does not consume a frame.

    Records: ``frames_served`` (frames returned so far), ``starts``/``stops`` (calls that
    succeeded), ``failures`` (CameraUnavailable raised), ``applied_controls`` (every
    ``apply_controls`` call, as ExposureControls). ``auto_values`` is what ``auto_controls()``
    answers (None by default, like a webcam).
    """

    supports_controls = True

    def __init__(
        self,
        frames: Iterable[np.ndarray],
        *,
        loop: bool = False,
        fail_starts: int = 0,
        fail_captures: int = 0,
        auto_values: ExposureControls | None = None,
    ) -> None:
        self._frames = [as_bgr_frame(frame) for frame in frames]
        self._loop = loop
        self._pending_start_failures = fail_starts
        self._pending_capture_failures = fail_captures
        self._next_index = 0
        self.auto_values = auto_values
        self.running = False
        self.frames_served = 0
        self.starts = 0
        self.stops = 0
        self.failures = 0
        self.applied_controls: list[ExposureControls] = []

    def fail_next(self, captures: int) -> None:
        """Make the next ``captures`` calls to ``capture()`` raise CameraUnavailable."""
        self._pending_capture_failures += captures

    def start(self) -> None:
        if self._pending_start_failures > 0:
            self._pending_start_failures -= 1
            self.failures += 1
            raise CameraUnavailable("fake camera: simulated failure to open")
        self.running = True
        self.starts += 1

    def capture(self) -> np.ndarray:
        if not self.running:
            raise CameraNotStarted("fake camera: capture() before start()")
        if self._pending_capture_failures > 0:
            self._pending_capture_failures -= 1
            self.failures += 1
            raise CameraUnavailable("fake camera: simulated lost device")
        if self._next_index >= len(self._frames):
            if not self._loop or not self._frames:
                raise CameraExhausted(
                    f"fake camera: all {len(self._frames)} frames have been served"
                )
            self._next_index = 0
        frame = self._frames[self._next_index]
        self._next_index += 1
        self.frames_served += 1
        return frame.copy()

    def stop(self) -> None:
        if self.running:
            self.running = False
            self.stops += 1

    def apply_controls(
        self, exposure_time_us: int, analogue_gain: float, colour_gains: tuple[float, float]
    ) -> None:
        self.applied_controls.append(
            ExposureControls(
                exposure_time_us=int(exposure_time_us),
                analogue_gain=float(analogue_gain),
                colour_gains=(float(colour_gains[0]), float(colour_gains[1])),
            )
        )

    def auto_controls(self) -> ExposureControls | None:
        return self.auto_values
