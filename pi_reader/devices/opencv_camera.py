"""Frames through OpenCV's ``VideoCapture``: a webcam (``usb:N``) or a video (``video:FILE``)."""

from __future__ import annotations

import cv2
import numpy as np

from pi_reader.devices.camera import DEFAULT_FPS, DEFAULT_RESOLUTION, CameraBase, as_bgr_frame
from pi_reader.devices.errors import (
    CameraExhausted,
    CameraNotStarted,
    CameraSpecError,
    CameraUnavailable,
)


class OpenCVCamera(CameraBase):
    """A webcam when ``source`` is a device number, a recording when it is a file path.

    For a webcam, failing to open or to read means the device is gone: CameraUnavailable. For a
    file, failing to open means it is not a video OpenCV can decode (CameraSpecError: retrying will
    not help) and the end of the file is CameraExhausted, or the start again with ``loop=True``.
    Webcams get ``resolution`` and ``fps`` requested; the driver may pick the nearest it offers.
    """

    def __init__(
        self,
        source: int | str,
        *,
        resolution: tuple[int, int] = DEFAULT_RESOLUTION,
        fps: float = DEFAULT_FPS,
        loop: bool = False,
    ) -> None:
        self.source = source
        self.resolution = resolution
        self.fps = fps
        self.loop = loop
        self.frames_served = 0
        self._capture: cv2.VideoCapture | None = None

    @property
    def is_file(self) -> bool:
        return isinstance(self.source, str)

    @property
    def name(self) -> str:
        return f"video:{self.source}" if self.is_file else f"usb:{self.source}"

    def start(self) -> None:
        if self._capture is not None:
            return
        capture = cv2.VideoCapture(self.source)
        if not capture.isOpened():
            capture.release()
            if self.is_file:
                raise CameraSpecError(f"{self.name}: OpenCV cannot open this file as a video")
            raise CameraUnavailable(
                f"{self.name}: no webcam answers (is it plugged in? is another program using it?)"
            )
        if not self.is_file:
            width, height = self.resolution
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            capture.set(cv2.CAP_PROP_FPS, self.fps)
        self._capture = capture

    def capture(self) -> np.ndarray:
        if self._capture is None:
            raise CameraNotStarted(f"{self.name}: capture() before start()")
        ok, frame = self._capture.read()
        if not ok and self.is_file and self.loop:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._capture.read()
        if not ok or frame is None:
            if self.is_file:
                raise CameraExhausted(
                    f"{self.name}: end of video after {self.frames_served} frames"
                )
            raise CameraUnavailable(f"{self.name}: the webcam stopped delivering frames")
        self.frames_served += 1
        return as_bgr_frame(frame)

    def stop(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
