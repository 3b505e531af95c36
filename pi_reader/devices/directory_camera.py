"""A camera that replays a folder of recorded frames (``dir:PATH``) in file-name order."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from pi_reader.devices.camera import CameraBase, as_bgr_frame
from pi_reader.devices.errors import CameraExhausted, CameraNotStarted, CameraSpecError

log = logging.getLogger(__name__)

FRAME_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff"})


class DirectoryCamera(CameraBase):
    """Serves the images in ``path`` sorted by file name (name them ``000123.png`` to keep order).

    Files that are not images by suffix are ignored. A file that does not decode (a torn copy) is
    skipped with a warning naming it, and counted in ``skipped``: one bad frame in a recording must
    not end the game. When the frames run out: CameraExhausted, or start over with ``loop=True``.
    ``frames_served`` counts the frames returned.
    """

    def __init__(self, path: Path | str, *, loop: bool = False) -> None:
        self.path = Path(path)
        self.loop = loop
        self.frames_served = 0
        self.skipped: list[Path] = []
        self._files: list[Path] | None = None
        self._next_index = 0

    def start(self) -> None:
        if not self.path.is_dir():
            raise CameraSpecError(f"dir:{self.path}: no such folder")
        self._files = sorted(
            (entry for entry in self.path.iterdir() if entry.suffix.lower() in FRAME_SUFFIXES),
            key=lambda entry: entry.name,
        )
        self._next_index = 0

    def capture(self) -> np.ndarray:
        if self._files is None:
            raise CameraNotStarted(f"dir:{self.path}: capture() before start()")
        wrapped = False
        while True:
            if self._next_index >= len(self._files):
                if not self.loop or not self._files or wrapped:
                    if self.frames_served == 0:
                        raise CameraExhausted(f"dir:{self.path}: no readable frames in the folder")
                    raise CameraExhausted(
                        f"dir:{self.path}: no more frames after {self.frames_served}"
                    )
                self._next_index = 0
                wrapped = True
            file = self._files[self._next_index]
            self._next_index += 1
            image = cv2.imread(str(file), cv2.IMREAD_COLOR)
            if image is None:
                log.warning("skipping %s: not a readable image", file)
                self.skipped.append(file)
                continue
            self.frames_served += 1
            return as_bgr_frame(image)

    def stop(self) -> None:
        self._files = None
