"""The tray on a calibration's coarse grid, as calibrated and as a frame shows it now.

Two checks of a calibrated read compare the two: whether the tray is newly clipped white
(:func:`quality.newly_clipped_fraction`) and whether it is another tray
(:func:`calibration_fit.moved_tray_share`). The frame is averaged down to the grid once per read
for both, as the calibration averaged its own frame (``shrinking.averaged_to``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pi_reader.vision.shrinking import averaged_to


@dataclass(frozen=True, eq=False)
class TrayView:
    """The calibrated empty tray and a frame on the same grid (rows x cols x BGR each). A step
    of one read, not a value: it has no equality (its arrays have none that == could give)."""

    calibrated: np.ndarray
    now: np.ndarray

    @classmethod
    def of(cls, frame: np.ndarray, calibrated: np.ndarray) -> TrayView:
        """The frame averaged to the grid of ``calibrated``."""
        rows, columns = calibrated.shape[:2]
        return cls(calibrated, averaged_to(frame, columns, rows))
