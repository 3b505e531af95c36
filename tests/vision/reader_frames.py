"""Frames and labels from the shared recorded sets, loaded once per test session."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from pi_reader.vision.images import load_frame
from pi_reader.vision.recorded import LabelledFrame, RecordedSet, load_recorded_set


@cache
def recorded(datasets_dir: Path, name: str) -> RecordedSet:
    return load_recorded_set(datasets_dir / name)


def labelled(datasets_dir: Path, name: str, image: str) -> LabelledFrame:
    for frame in recorded(datasets_dir, name).frames:
        if frame.image == image:
            return frame
    raise KeyError(image)


@cache
def _pixels(path: Path) -> np.ndarray:
    return load_frame(path)


def pixels(frame: LabelledFrame) -> np.ndarray:
    """A copy of the frame's image, free for the test to paint on."""
    return _pixels(frame.path).copy()
