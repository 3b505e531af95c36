"""The canonical-layout check and the classifier's input, on exact points and patches."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from pi_reader.vision import face_cnn
from pi_reader.vision.face_layout import CANONICAL_PATTERNS, fit_layout


def _placed(cells: frozenset[tuple[int, int]], angle_deg: float, step: float = 10.0) -> np.ndarray:
    theta = math.radians(angle_deg)
    rotation = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    return np.array(sorted(cells), np.float64) @ rotation.T * step + np.array([50.0, 40.0])


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 30.0, 45.0, 80.0, 135.0])
def test_every_canonical_face_fits_at_any_rotation(value: int, angle: float) -> None:
    for cells in CANONICAL_PATTERNS[value]:
        fit = fit_layout(_placed(cells, angle), (50.0, 40.0), 36.0)
        assert fit is not None
        assert fit.value == value
        assert fit.residual < 1e-6
        assert fit.centre_offset < 1e-6


@pytest.mark.parametrize(
    "cells",
    [
        {(-1, -1), (0, 0), (1, -1)},  # a bent three
        {(-1, -1), (1, -1), (-1, 1)},  # three corners
        {(-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1), (1, 1)},  # a six with one pip moved
        {(-1, -1), (0, -1), (1, -1), (-1, 1)},  # four not on the corners
    ],
)
def test_non_faces_are_rejected(cells: set[tuple[int, int]]) -> None:
    assert fit_layout(_placed(frozenset(cells), 20.0), (50.0, 40.0), 36.0) is None


def test_grid_step_must_match_the_face_size() -> None:
    four = _placed(CANONICAL_PATTERNS[4][0], 0.0, step=10.0)
    assert fit_layout(four, (50.0, 40.0), 36.0) is not None
    assert fit_layout(four, (50.0, 40.0), 200.0) is None  # pips far too close for this face
    assert fit_layout(four, (50.0, 40.0), 10.0) is None  # pips far too spread for this face


def test_empty_or_too_many_points_fit_nothing() -> None:
    assert fit_layout(np.zeros((0, 2)), (0.0, 0.0), 30.0) is None
    assert fit_layout(np.zeros((7, 2)), (0.0, 0.0), 30.0) is None


def test_network_input_is_standardized_chw() -> None:
    patch = np.random.default_rng(0).integers(0, 256, (96, 96, 3), dtype=np.uint8)
    data = face_cnn.network_input(patch)
    assert data.shape == (3, face_cnn.INPUT_PX, face_cnn.INPUT_PX)
    assert data.dtype == np.float32
    assert np.allclose(data.reshape(3, -1).mean(axis=1), 0.0, atol=1e-4)


def test_missing_weights_are_reported(tmp_path: Path) -> None:
    missing = tmp_path / "none.onnx"
    assert not face_cnn.model_available(missing)
    with pytest.raises(FileNotFoundError, match="weights"):
        face_cnn.class_probabilities(np.zeros((96, 96, 3), np.uint8), missing)
