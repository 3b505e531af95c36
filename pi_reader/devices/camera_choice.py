"""Which camera a spec names: ``open_camera(spec)``, above the camera implementations.

The interface (:mod:`pi_reader.devices.camera`) knows no implementation; each implementation
builds on it; this module alone knows them all, so imports flow one way.
"""

from __future__ import annotations

from pathlib import Path

import cv2

from pi_reader.camera_spec import CameraKind, CameraSpecError, parse_camera_spec
from pi_reader.devices.camera import DEFAULT_FPS, DEFAULT_RESOLUTION, Camera
from pi_reader.devices.directory_camera import DirectoryCamera
from pi_reader.devices.opencv_camera import OpenCVCamera
from pi_reader.devices.picamera import PiCamera


def open_camera(
    spec: str,
    *,
    resolution: tuple[int, int] = DEFAULT_RESOLUTION,
    fps: float = DEFAULT_FPS,
    loop: bool = False,
) -> Camera:
    """The camera a spec string names, not yet started.

    ``resolution`` and ``fps`` apply to live cameras; ``loop`` makes a recorded source start over
    instead of raising CameraExhausted. A malformed spec, or a folder or file that does not exist,
    raises CameraSpecError at once (it will not get better by retrying).
    """
    parsed = parse_camera_spec(spec)
    if parsed.kind is CameraKind.PICAMERA:
        return PiCamera(resolution=resolution, fps=fps, camera_num=parsed.index)
    if parsed.kind is CameraKind.USB:
        return OpenCVCamera(parsed.index, resolution=resolution, fps=fps)
    path = _existing(parsed.path, spec, want_dir=parsed.kind is CameraKind.DIRECTORY)
    if parsed.kind is CameraKind.DIRECTORY:
        return DirectoryCamera(path, loop=loop)
    _check_decodable(path, spec)
    return OpenCVCamera(str(path), loop=loop)


def _check_decodable(path: Path, spec: str) -> None:
    """A video file gives at least one frame: found out here, before a game is opened for it,
    rather than at the camera's start, after a new journal was written."""
    capture = cv2.VideoCapture(str(path))
    try:
        decoded = capture.isOpened() and capture.read()[0]
    finally:
        capture.release()
    if not decoded:
        raise CameraSpecError(f"{spec!r}: OpenCV cannot decode {path} as a video (no frame read)")


def _existing(path: Path | None, spec: str, *, want_dir: bool) -> Path:
    assert path is not None  # the parser guarantees a path for dir: and video:
    if want_dir and not path.is_dir():
        raise CameraSpecError(f"{spec!r}: no folder {path}")
    if not want_dir and not path.is_file():
        raise CameraSpecError(f"{spec!r}: no file {path}")
    return path
